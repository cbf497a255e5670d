/**
 * The promise API's two faces (promise.ts): the main entry's `createThrottler`, whose `strategy` may be a
 * name (it imports every strategy to look one up), and xstate-throttler/lean's, which takes the strategy as
 * a value only, so that a bundle holds the strategies the app imports and no other.
 */
import { byAnyName, byValueOnly } from '../engine/index.js';
import { exactTimers, internalThrottlerMachine } from '../machine/index.js';
import { createThrottlerKnowing } from './promise.js';
import type { Throttler, ThrottlerOptions } from './promise-api.js';
import { rateLimitWatch } from './rate-limit-watch.js';
import { retry } from './retry-feature.js';
import { timeout } from './task-timeout.js';

/**
 * A throttled task queue over the throttler machine. Options are validated now; a bad one throws. Every
 * feature loaded: the engine's by byAnyName, the promise API's own (retry, timeout, the rate-limit watch, exact timers) here; the chart with its descriptions.
 */
export function createThrottler(options: ThrottlerOptions): Throttler {
  return createThrottlerKnowing(options, byAnyName, {
    retry,
    timeout,
    rateLimitWatch,
    exactTimers,
    machine: internalThrottlerMachine,
  });
}

/** xstate-throttler/lean's createThrottler: `strategy` is required, as a value (`strategy: slidingWindow`). */
export function leanCreateThrottler(options: ThrottlerOptions): Throttler {
  return createThrottlerKnowing(options, byValueOnly);
}
