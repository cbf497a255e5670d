/**
 * `adaptiveLimit(throttler, { min, max })`: a throttler's rate found from the server's bare 429s when it
 * states no limit (limit-search.ts), sent as SET_RATE. Each answer also goes through `applyServerLimits`,
 * so a Retry-After still pauses and a stated policy is still followed; an answer that states a limit of the
 * throttler's dimension teaches the search nothing (the server said it).
 */
import { parseRate, type Rate, type RateInput, ThrottlerOptionError } from '../rate/index.js';
import { applyServerLimits, type ServerLimitsTarget } from './apply-server-limits.js';
import { LimitSearch } from './limit-search.js';
import { throttlerInForce } from './throttler-in-force.js';
import type { ServerLimits, ServerPauseEvent, ServerRateEvent } from './types.js';

/**
 * How `adaptiveLimit` (and `serverLimits`' `adaptive` option) searches: between `min` and `max`, over their
 * interval; each bad one is a ThrottlerOptionError naming it (`adaptive.max`...).
 */
export interface AdaptiveLimitOptions {
  /** The least the throttler is ever set to (`'5/1s'`): a 429 at it changes nothing more. */
  min: RateInput;
  /** The most (`'1000/1s'`), with the same interval as `min`: the window the search counts in. */
  max: RateInput;
  /** Where the search starts. Default `min`: nothing is known, so the safe end. */
  start?: RateInput | undefined;
  /** The channel whose rate the search sets. Default: the overall rate. */
  channel?: string | undefined;
  /**
   * The clock answers are timed on, in ms: a monotonic one. Default: the throttler's own clock (its `now`
   * option, `performance.now()` by default), else `performance.now()`. A wall clock stepped back would hold
   * the answers of the window before for as long as the step (429s read as the edge, never halving); a
   * reading earlier than the last counts as the last.
   */
  now?: (() => number) | undefined;
}

/** The shortest span over which a paced limit is spread: a few sends at a time, never one per ms. */
const PACE_SPAN = 20;

/** What `adaptiveLimit` returns: hand it every answer the server gives. */
export interface AdaptiveLimit {
  /**
   * Applies `limits` (a PAUSE, a stated SET_RATE) and, when the server stated no limit, learns from its
   * status (429: refused; anything else: accepted) and sends the SET_RATE of the new limit. Returns the
   * events sent, as sent.
   */
  observe(limits: ServerLimits): Array<ServerPauseEvent | ServerRateEvent>;
  /** The limit the search holds now, as a rate. */
  readonly rate: Rate;
}

/**
 * Finds the server's limit from its answers and keeps the throttler at it: see limit-search.ts. Sends the
 * `start` rate now. Never above `max`, nor above the rates the throttler was configured with (kept beside
 * the search's as `applyServerLimits` keeps a ceiling, when the throttler's rates can be read); a strict
 * sliding window throughout, since every change is a SET_RATE of the throttler's own strategy.
 */
export function adaptiveLimit(throttler: ServerLimitsTarget, options: AdaptiveLimitOptions): AdaptiveLimit {
  const { min, max, start, channel, now } = resolveAdaptive(options, throttler);
  const search = new LimitSearch(min.limit, max.limit, min.interval, start.limit);
  // The throttler's own rates are the ceiling when they can be read; otherwise max alone bounds it.
  const inForce = throttlerInForce(throttler);
  const keepsConfiguredRates = inForce !== undefined;
  const setLimit = (limit: number) => {
    const rate: Rate[] = [{ limit, interval: min.interval }];
    // Under jitter, evenly spaced (limit-search.ts, `paced`): beside the limit itself, a few at a time over
    // PACE_SPAN ms at the same rate (no finer: timers have a ms to lose).
    const burst = Math.ceil((PACE_SPAN * limit) / min.interval);
    // Not with a transit spread: it widens every rate, this one's 20 ms too (and leaves little jitter to pace for).
    if (search.paced && burst < limit && (inForce?.spread() ?? 0) === 0)
      rate.push({ limit: burst, interval: (burst * min.interval) / limit });
    const setRate: ServerRateEvent =
      channel === undefined ? { type: 'SET_RATE', rate } : { type: 'SET_RATE', rate, channel };
    return applyServerLimits(throttler, { ...NOTHING, setRate, events: [setRate], keepsConfiguredRates });
  };
  setLimit(start.limit);
  let last = Number.NEGATIVE_INFINITY;
  return {
    observe(limits) {
      const sent = applyServerLimits(throttler, limits);
      if (limits.setRate !== undefined) return sent;
      const read = now();
      if (typeof read !== 'number' || !Number.isFinite(read)) {
        throw new ThrottlerOptionError('adaptive.now', 'a function returning a finite time in ms', read);
      }
      last = Math.max(last, read);
      // Judged over the throttler's windows, widened by its transit spread when it has one.
      const next = search.observe(last, limits.status === 429, inForce?.spread() ?? 0);
      return next === undefined ? sent : [...sent, ...setLimit(next)];
    },
    get rate() {
      return { limit: search.limit, interval: min.interval };
    },
  };
}

/** The options checked, each bad one a ThrottlerOptionError naming it (`adaptive.max`...). */
export function resolveAdaptive(
  options: AdaptiveLimitOptions,
  throttler?: ServerLimitsTarget,
): {
  min: Rate;
  max: Rate;
  start: Rate;
  channel: string | undefined;
  now: () => number;
} {
  if (typeof options !== 'object' || options === null) {
    throw new ThrottlerOptionError('adaptive', "an object such as { min: '5/1s', max: '1000/1s' }", options);
  }
  const min = parseRate(options.min, 'adaptive.min');
  const max = parseRate(options.max, 'adaptive.max');
  if (max.interval !== min.interval) {
    throw new ThrottlerOptionError('adaptive.max', `a rate over the interval of min (${min.interval} ms)`, options.max);
  }
  if (max.limit < min.limit) {
    throw new ThrottlerOptionError('adaptive.max', `a rate of at least min (${min.limit})`, options.max);
  }
  const start = options.start === undefined ? min : parseRate(options.start, 'adaptive.start');
  if (start.interval !== min.interval || start.limit < min.limit || start.limit > max.limit) {
    throw new ThrottlerOptionError('adaptive.start', 'a rate between min and max, over their interval', options.start);
  }
  const { channel, now = monotonicClockOf(throttler) } = options;
  if (channel !== undefined && typeof channel !== 'string') {
    throw new ThrottlerOptionError('adaptive.channel', 'a channel name (a string)', channel);
  }
  if (typeof now !== 'function') throw new ThrottlerOptionError('adaptive.now', 'a function returning ms', now);
  return { min, max, start, channel, now };
}

/** The throttler's own clock when its snapshot can be read, else `performance.now()`: never the wall clock. */
function monotonicClockOf(throttler: ServerLimitsTarget | undefined): () => number {
  const inForce = throttler === undefined ? undefined : throttlerInForce(throttler);
  return inForce === undefined ? () => performance.now() : inForce.now;
}

const NOTHING: ServerLimits = {
  status: undefined,
  pause: undefined,
  resumeAt: undefined,
  pauseFrom: undefined,
  setRate: undefined,
  keepsConfiguredRates: false,
  dimensions: {},
  events: [],
  ignored: [],
};
