/**
 * The options of `readServerLimits`, checked once: a bad one is a programming error and throws a
 * ThrottlerOptionError naming it. What the server sends is never checked here: it is data.
 */
import {
  type DurationInput,
  parseDuration,
  parseRates,
  type Rate,
  type RatesInput,
  ThrottlerOptionError,
} from '../rate/index.js';

export interface ReadServerLimitsOptions {
  /**
   * The response's status, for a bare set of headers (it wins over a response's own). Retry-After
   * is read on 429 and 503, and when the status is unknown; a 429 always pauses (see `pauseOn429`).
   */
  status?: number | undefined;
  /** The wall clock, in ms since the epoch, that HTTP dates and epoch resets are measured against. Default `Date.now`. */
  now?: (() => number) | undefined;
  /** The longest pause the server can ask for: a longer one is cut to this, and listed. Default `'1h'`. */
  maxPause?: DurationInput | undefined;
  /** The pause after a 429 that gives no later time to retry at (none, malformed, past or 0). Default `'1s'`; 0 for none. */
  pauseOn429?: DurationInput | undefined;
  /** The longest policy window that becomes a rate; a policy over a longer one is listed and left out. Default `'1d'`. */
  maxWindow?: DurationInput | undefined;
  /** The channel whose rate the SET_RATE replaces. Default: the overall rate. */
  channel?: string | undefined;
  /**
   * What the server's stated policy can never raise the throttler above; its SET_RATE keeps these rates
   * beside the server's (all must hold), so the server can slow the throttler but never speed it past
   * them. `'configured'` (default): the rates the throttler holds for that scope when the answer is
   * applied, not counting the ones this helper set (so the ones it was created with, or set by hand
   * since); `applyServerLimits` reads them from the throttler. Rates (`'100/1s'`): these instead, which
   * may be above the configured ones (the server can then raise the throttler up to them). `'none'`:
   * the server's policy alone replaces the rates, up or down.
   */
  ceiling?: RatesInput | 'configured' | 'none' | undefined;
  /** `false`: pauses only, never a SET_RATE. Default `true`. */
  followPolicy?: boolean | undefined;
}

export interface ResolvedServerLimitsOptions {
  readonly status: number | undefined;
  readonly now: () => number;
  readonly maxPause: number;
  readonly pauseOn429: number;
  readonly maxWindow: number;
  readonly channel: string | undefined;
  readonly ceiling: readonly Rate[] | 'configured' | 'none';
  readonly followPolicy: boolean;
}

export const DEFAULT_MAX_PAUSE_MS = 3_600_000;
export const DEFAULT_PAUSE_ON_429_MS = 1_000;
export const DEFAULT_MAX_WINDOW_MS = 86_400_000;

/** Throws a ThrottlerOptionError naming the first bad option. */
export function resolveServerLimitsOptions(options: ReadServerLimitsOptions | undefined): ResolvedServerLimitsOptions {
  if (options === undefined) options = {};
  if (typeof options !== 'object' || options === null) {
    throw new ThrottlerOptionError('options', 'an object such as { maxPause: "1h" }, or undefined', options);
  }
  const { status, now = Date.now, channel, ceiling, followPolicy = true } = options;
  if (status !== undefined && !(Number.isInteger(status) && status >= 100 && status <= 599)) {
    throw new ThrottlerOptionError('status', 'an HTTP status, an integer from 100 to 599', status);
  }
  if (typeof now !== 'function') {
    throw new ThrottlerOptionError('now', 'a function returning the time in ms since the epoch', now);
  }
  if (channel !== undefined && typeof channel !== 'string') {
    throw new ThrottlerOptionError('channel', 'a channel name (a string)', channel);
  }
  if (typeof followPolicy !== 'boolean') throw new ThrottlerOptionError('followPolicy', 'true or false', followPolicy);
  return {
    status,
    now,
    maxPause: duration('maxPause', options.maxPause, DEFAULT_MAX_PAUSE_MS),
    pauseOn429: pauseOn429(options.pauseOn429),
    maxWindow: duration('maxWindow', options.maxWindow, DEFAULT_MAX_WINDOW_MS),
    channel,
    ceiling:
      ceiling === undefined || ceiling === 'configured' || ceiling === 'none'
        ? (ceiling ?? 'configured')
        : rates(ceiling),
    followPolicy,
  };
}

/** A word that is not a rate names the words too; a bad field of a rate object is named by parseRates. */
function rates(ceiling: RatesInput): readonly Rate[] {
  try {
    return parseRates(ceiling, 'ceiling');
  } catch (error) {
    if (typeof ceiling !== 'string') throw error;
    throw new ThrottlerOptionError(
      'ceiling',
      `'configured' (the default), 'none', or rates such as "10/1s", ["10/1s", "500/1m"] or { limit, interval }`,
      ceiling,
    );
  }
}

function duration(option: string, value: DurationInput | undefined, fallback: number): number {
  return value === undefined ? fallback : parseDuration(value, option);
}

/** Like the other durations, but 0 (no pause) is allowed. */
function pauseOn429(value: DurationInput | undefined): number {
  if (typeof value !== 'number') return duration('pauseOn429', value, DEFAULT_PAUSE_ON_429_MS);
  if (!(value >= 0 && value < Number.POSITIVE_INFINITY)) {
    throw new ThrottlerOptionError('pauseOn429', 'a duration >= 0 in ms, or a string such as "1s"', value);
  }
  return value;
}

/** The reader's clock, read once per response: anything but a finite number is the option's fault. */
export function readClock(now: () => number): number {
  const time = now();
  if (typeof time !== 'number' || !Number.isFinite(time)) {
    throw new ThrottlerOptionError('now', 'a function returning a finite time in ms since the epoch', time);
  }
  return time;
}
