import { type CostInput, costInput, type Dimensions } from '../rate/index.js';
/**
 * The dispatcher as it is seen from outside: the form a persisted snapshot holds (every time moved
 * onto the wall clock, in the oldest format that can say it), and the short account inspectors
 * show instead of a queue that may hold millions. The one place that turns a live queue and its
 * clearance into either; reading a saved form back is persisted-format.ts's.
 */
import type { Clearance } from './clearance/clearance.js';
import type { ResolvedOptions } from './options/options.js';
import type { MessageQueues, ThrottlerCounts } from './queue/message-queues.js';
import {
  type DispatcherState,
  FORMAT_WITHOUT_PRIORITIES,
  PERSISTED_FORMAT,
  type PersistedDispatcher,
} from './saved/persisted-format.js';
import { needsPriorityFormat, savedMessage } from './saved/persisted-message.js';

/** What inspectors see instead of the live queue. */
export interface DispatcherSummary<TMessage> extends ThrottlerCounts {
  inFlight: number;
  pausedUntil: number;
  firstWaiting: Array<{ message: TMessage; channel: string | undefined; cost: CostInput; queuedAt: number }>;
}

/** The counts and the first `limit` waiting messages, never the whole queue. */
export function summarize<TMessage>(
  clearance: Clearance,
  queues: MessageQueues<TMessage>,
  limit: number,
  dimensions: Dimensions | undefined,
): DispatcherSummary<TMessage> {
  return {
    ...queues.counts,
    inFlight: clearance.inFlightCount,
    pausedUntil: clearance.pausedUntil,
    firstWaiting: queues.firstWaiting(limit).map(({ message, channel, cost, queuedAt }) => ({
      message,
      channel,
      cost: costInput(cost, dimensions),
      queuedAt,
    })),
  };
}

/**
 * Everything needed to continue elsewhere, with times shifted by `shift` ms, saved at `now`
 * (unshifted). Messages must be serialisable.
 */
export function savedState<TMessage>(
  clearance: Clearance,
  queues: MessageQueues<TMessage>,
  now: number,
  shift: number,
  dimensions: Dimensions | undefined,
): DispatcherState<TMessage> {
  const { pausedUntil } = clearance;
  return {
    savedAt: now + shift,
    queue: queues.waiting().map((entry) => savedMessage(entry, shift, dimensions)),
    ...clearance.save(shift),
    pausedUntil: Number.isFinite(pausedUntil) ? pausedUntil + shift : pausedUntil > 0 ? 'forever' : null,
    counts: { ...queues.counts },
  };
}

/**
 * The options and the state, every time moved onto the wall clock so that another process, whose
 * monotonic clock starts elsewhere, can move it back onto its own. `reading` is the machine's
 * checked time line (never backwards), not the raw source: saved times must agree with it.
 */
export function persistedForm<TMessage>(
  resolved: ResolvedOptions,
  clearance: Clearance,
  queues: MessageQueues<TMessage>,
  reading: number,
): PersistedDispatcher<TMessage> {
  // Functions are never saved: the clock and the weights are the restoring process's (RestoreOptions), and the
  // strategy is saved by its name (`strategy`), since its value holds functions and names are the format. The
  // dimensions are the saved rates' own (the overall rates name every one): not saved apart. Features are
  // code, loaded by the restoring entry (RestoreOptions.features).
  const {
    now: _source,
    weight: _weight,
    strategyValue: _value,
    dimensions: _dimensions,
    transitMeter: _meter,
    features: _features,
    splitByDimension: _split,
    strategyOptions: { transit: _spread, ...strategyOptions },
    ...rest
  } = resolved;
  // The transit spread is saved as its setting (`transit`), never as what the policies read.
  const options = { ...rest, strategyOptions };
  const { rates, channelRates, keyRates } = clearance;
  const keys = keyRates && { rates: keyRates, idleAfter: options.keys?.idleAfter ?? 0 };
  const state = savedState(clearance, queues, reading, Date.now() - reading, resolved.dimensions);
  // Format 2 when nothing needs format 3 (no keys, no priority or deadline), so that older versions read it.
  const needsThird = keys !== undefined || state.queue.some(needsPriorityFormat);
  return {
    format: needsThird ? PERSISTED_FORMAT : FORMAT_WITHOUT_PRIORITIES,
    options: { ...options, rates, channels: [...channelRates], keys: keys ?? null },
    state,
  };
}
