/**
 * What the promise API sends and reads besides its tasks: the SET_RATE a `setRate` sends (checked as
 * the machine would check it, but thrown at the call), the counts it reads from a snapshot, and the
 * errors of its own misuse.
 */
import { isKeyName, type ResolvedOptions, unknownChannelError } from '../engine/index.js';
import { rateScope } from '../machine/event-checks.js';
import type { ThrottlerCounts } from '../machine/index.js';
import type { ThrottlerEvent } from '../machine/types.js';
import { parseRates, type RatesInput, ThrottlerOptionError } from '../rate/index.js';
import type { Throttler } from './promise-api.js';

/** The SET_RATE for `setRate(rate, scope)`, checked as the machine would check it (it throws instead of reporting). */
export function rateEvent(rate: RatesInput, scope: unknown, resolved: ResolvedOptions): ThrottlerEvent {
  const keyTemplate = typeof scope === 'object' && scope !== null && (scope as { keyTemplate?: unknown }).keyTemplate;
  const { channel, option } = rateScope(
    keyTemplate === undefined || keyTemplate === false ? { channel: scope } : { keyTemplate },
  );
  if (keyTemplate === true && resolved.keys === undefined) {
    throw new ThrottlerOptionError('keyTemplate', 'set only with the keys option', keyTemplate);
  }
  parseRates(rate, option);
  const known =
    channel === undefined || resolved.channels.has(channel) || (resolved.keys !== undefined && isKeyName(channel));
  if (!known) throw unknownChannelError(channel, resolved.channels.keys(), resolved.keys !== undefined);
  return keyTemplate === true ? { type: 'SET_RATE', rate, keyTemplate: true } : { type: 'SET_RATE', rate, channel };
}

/** The published counts; none for an actor whose context never came to be (it errored as it started). */
export function countsOf(actor: Throttler['actor']): ThrottlerCounts {
  const counts = actor.getSnapshot().context?.counts as ThrottlerCounts | undefined;
  return counts === undefined ? { queued: 0, delivered: 0, dropped: 0, rejected: 0 } : { ...counts };
}

export function notATaskError(message: unknown): ThrottlerOptionError {
  return new ThrottlerOptionError(
    'message',
    'a task of this throttler (send work with throttler.schedule(), not a QUEUE to throttler.actor)',
    message,
  );
}

export function busyError(): Error {
  return new Error('tryAcquire() cannot be called while the throttler is delivering (from a task or actor.on)');
}
