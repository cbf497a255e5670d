import type { ThrottlerAuditReport } from '../engine/audit/throttler-audit.js';
import { Dispatcher } from '../engine/dispatcher.js';
import { ThrottlerOptionError } from '../rate/index.js';
import type { MachineContext } from './machine-types.js';

/** What `auditThrottler` reads: a throttler actor, or a snapshot it gave (not a persisted one: JSON has no audit). */
export type AuditedThrottler = { getSnapshot(): { context: object } } | { context: object };

/**
 * The audit of every window the throttler's deliveries filled since it started (or was restored): per
 * rate, overall, per channel and per key, the most cost one window held, when, and how many windows held
 * more than the limit (engine/audit/). A question: it changes nothing, and costs O(rates + live keys).
 */
export function auditThrottler(throttler: AuditedThrottler): ThrottlerAuditReport {
  const snapshot =
    typeof throttler === 'object' && throttler !== null && 'getSnapshot' in throttler
      ? throttler.getSnapshot()
      : throttler;
  const dispatcher = (snapshot as { context?: Partial<MachineContext> } | null)?.context?.dispatcher;
  if (!(dispatcher instanceof Dispatcher)) {
    throw new ThrottlerOptionError(
      'throttler',
      'a throttler actor or its snapshot (a persisted snapshot holds no audit: restore it first)',
      throttler,
    );
  }
  return dispatcher.audit.report();
}
