import type { ThrottlerAuditReport } from '../engine/audit/throttler-audit.js';
import { Dispatcher } from '../engine/dispatcher.js';
import { featureMissing } from '../engine/options/features-option.js';
import { ThrottlerOptionError } from '../rate/index.js';
import type { MachineContext } from './machine-types.js';

/**
 * What `auditThrottler` reads: a throttler actor, a `createThrottler()` throttler (its `actor`), or a snapshot
 * an actor gave (not a persisted one: JSON has no audit).
 */
export type AuditedThrottler =
  | { getSnapshot(): { context: object } }
  | { readonly actor: { getSnapshot(): { context: object } } }
  | { context: object };

/**
 * The audit of every window the throttler's deliveries filled since it started (or was restored): per
 * rate, overall, per channel and per key, the most cost one window held, when, and how many windows held
 * more than the limit (engine/audit/). A question: it changes nothing, and costs O(rates + live keys).
 */
export function auditThrottler(throttler: AuditedThrottler): ThrottlerAuditReport {
  // A createThrottler() throttler is audited through its actor, as instrumentThrottler takes it.
  const audited =
    typeof throttler === 'object' && throttler !== null && 'actor' in throttler && !('context' in throttler)
      ? throttler.actor
      : throttler;
  const snapshot =
    typeof audited === 'object' && audited !== null && 'getSnapshot' in audited ? audited.getSnapshot() : audited;
  const dispatcher = (snapshot as { context?: Partial<MachineContext> } | null)?.context?.dispatcher;
  if (!(dispatcher instanceof Dispatcher)) {
    throw new ThrottlerOptionError(
      'throttler',
      "a throttler actor, a createThrottler() throttler or an actor's snapshot (a persisted snapshot holds no audit: restore it first)",
      throttler,
    );
  }
  if (dispatcher.audit === undefined) throw featureMissing('audit', 'auditThrottler', dispatcher.options.features);
  return dispatcher.audit.report();
}
