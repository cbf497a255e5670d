/**
 * The promise API's `serverLimits` option: `serverLimits(pick?, options?)`, and the listener it binds to
 * a throttler as it is created, which reads every task's outcome and applies it (with `adaptive`, through
 * the search of adaptive-limit.ts).
 */
import { describeValue, ThrottlerOptionError } from '../rate/index.js';
import { type AdaptiveLimitOptions, adaptiveLimit, resolveAdaptive } from './adaptive-limit.js';
import { unreadable } from './answer-gate.js';
import { applyServerLimits, type ServerLimitsTarget, senderFor } from './apply-server-limits.js';
import type { ServerLimitsSource } from './header-fields.js';
import { type ReadServerLimitsOptions, resolveServerLimitsOptions } from './options.js';
import { readWithOptions } from './read-server-limits.js';
import { throttlerInForce } from './throttler-in-force.js';

/** Picks the response out of a task's outcome: its value, or its error for clients that throw on a 429. */
export type ServerLimitsPick = (value: any, error?: unknown) => ServerLimitsSource | undefined | null;

/** Runs after a task: the error that kept the answer from being applied (a bug in `pick`, say), or undefined. */
export type ServerLimitsListener = (value: unknown, error?: unknown) => Error | undefined;

/**
 * What the promise API's `serverLimits` option runs after each task: `pick` the response out of the
 * task's value (or error), read it, apply it to `throttler`; nothing when `pick` returns anything
 * but an object (undefined, null, a number...). The options are checked now, once: a bad one throws
 * here, not after the first task. The listener itself never throws (it runs where a throw would
 * leave a task's promise unsettled): what would have been thrown, by `pick` or by the throttler (a
 * channel it does not have), is returned.
 */
export function serverLimitsListener(
  throttler: ServerLimitsTarget,
  pick: ServerLimitsPick,
  options?: ReadServerLimitsOptions,
  adaptive?: AdaptiveOption,
): ServerLimitsListener {
  senderFor(throttler);
  if (typeof pick !== 'function') {
    throw new ThrottlerOptionError('serverLimits', 'a function picking the response out of a task result', pick);
  }
  // With adaptive, a bare 429 lowers the rate instead of pausing, unless pauseOn429 is given.
  const resolved = resolveServerLimitsOptions(
    adaptive !== undefined && options?.pauseOn429 === undefined ? { ...options, pauseOn429: 0 } : options,
  );
  if (resolved.followPolicy && resolved.ceiling === 'configured' && throttlerInForce(throttler) === undefined) {
    throw unreadable();
  }
  const learner =
    adaptive === undefined
      ? undefined
      : // Not `now`: that is the wall clock of HTTP dates; the search runs on the throttler's monotonic one.
        adaptiveLimit(throttler, { ...adaptive, channel: resolved.channel });
  return (value, error) => {
    try {
      const response: unknown = pick(value, error);
      // A task that returned a number carries no answer: `(response) => response` suits every task.
      if (typeof response !== 'object' || response === null) return undefined;
      const limits = readWithOptions(response, resolved);
      if (learner === undefined) applyServerLimits(throttler, limits);
      else learner.observe(limits);
      return undefined;
    } catch (failure) {
      return failure instanceof Error ? failure : new Error(`serverLimits threw ${describeValue(failure)}`);
    }
  };
}

/** `serverLimits`' `adaptive`: adaptiveLimit's options, its channel being serverLimits' own and its clock the throttler's. */
export type AdaptiveOption = Omit<AdaptiveLimitOptions, 'channel' | 'now'>;

/** The options of `serverLimits`: readServerLimits' own, where a failure to apply an answer goes, and `adaptive`. */
export interface ServerLimitsOptions extends ReadServerLimitsOptions {
  /**
   * `{ min, max }` (rates over one interval, such as `'5/1s'` and `'1000/1s'`): when the server states no
   * limit, find it from its 429s and keep the throttler at it (see `adaptiveLimit`). A bare 429 then lowers
   * the rate instead of pausing (`pauseOn429` defaults to 0); a Retry-After still pauses.
   */
  adaptive?: AdaptiveOption | undefined;
  /**
   * Told when an answer could not be applied (a `pick` that threw, a channel the throttler lacks). The
   * task itself is not failed for it. Default: `console.warn`, so that a broken `pick` never goes unseen.
   */
  onError?: ((error: Error) => void) | undefined;
}

/** What `serverLimits(...)` returns, for `createThrottler`'s `serverLimits` option. */
export interface ServerLimitsBinding {
  /**
   * The `transit` `createThrottler` takes when none is given: `'measured'` when following a server's
   * headers; 0 with `adaptive`, whose search paces itself against jitter and holds more of the limit
   * with fewer 429s unwidened (docs/server-limits.md, "Under uplink jitter").
   */
  readonly defaultTransit: 'measured' | 0;
  /** The listener of one throttler's task outcomes (called by `createThrottler`). */
  bind(throttler: ServerLimitsTarget): (value: unknown, error?: unknown) => void;
}

/**
 * The promise API's `serverLimits` option: `createThrottler({ rate, serverLimits: serverLimits() })`
 * reads every task's result (a fetch Response, or what `pick` picks out of the result or the error)
 * and applies the server's Retry-After / X-RateLimit / RateLimit answer to the throttler, before the
 * task's promise settles. Built here, not in the core, so that the core never loads the parsers.
 */
export function serverLimits(
  pick: ServerLimitsPick = (value) => value,
  options: ServerLimitsOptions = {},
): ServerLimitsBinding {
  const { onError = warn, adaptive, ...readOptions } = options ?? {};
  if (typeof onError !== 'function') throw new ThrottlerOptionError('onError', 'a function', onError);
  // Checked now, once: a bad option throws here, not after the first task.
  resolveServerLimitsOptions(readOptions);
  if (adaptive !== undefined) resolveAdaptive(adaptive);
  if (typeof pick !== 'function') {
    throw new ThrottlerOptionError('serverLimits', 'a function picking the response out of a task result', pick);
  }
  return {
    // Adaptive's search holds more of L with fewer 429s unwidened (docs/server-limits.md, under uplink jitter).
    defaultTransit: adaptive === undefined ? 'measured' : 0,
    bind(throttler) {
      const listen = serverLimitsListener(throttler, pick, readOptions, adaptive);
      return (value, error) => {
        const failure = listen(value, error);
        if (failure !== undefined) onError(failure);
      };
    },
  };
}

function warn(error: Error): void {
  console.warn(`xstate-throttler serverLimits: the server's answer was not applied: ${error.message}`);
}
