/**
 * The promise API: `createThrottler(options)` for code that holds no actor system. It is the same
 * machine with a task-runner actor as its target: each `schedule(fn)` queues one task message, and the
 * runner calls `fn({ signal })` when the throttler delivers it (task-runner.ts).
 *
 * Semantics:
 * - `schedule(fn)` resolves with what `fn` returns (or resolves to) and rejects with what it throws,
 *   unchanged (after its last attempt, with `retry`: task-retry.ts). `fn` starts when the rate allows, in
 *   FIFO order (or per channel with `ordering: 'per-channel'`), among those allowed higher priority first.
 * - A task that never starts is rejected, never forgotten: its AbortSignal (with its reason), a full
 *   queue (`overflow`), a bad cost or channel (ThrottlerOptionError), its deadline (ThrottlerExpiredError),
 *   `clear()` (ThrottlerClearedError), `stop()` (ThrottlerStoppedError), a store's conflict (its
 *   StoreConflictError). Aborting a task that has started aborts the signal `fn` received, nothing more.
 * - While nothing waits and the rate allows it now, a task without options starts inside its `schedule`
 *   call on a permit leased for the synchronous stretch (task-lease.ts). Other calls of one stretch reach
 *   the machine as one QUEUE_BATCH in a microtask; every other method ends the lease and sends them
 *   first, so order holds. With a bounded queue (`capacity`) each task is its own QUEUE.
 * - A task starts synchronously as the throttler grants it, and the delivery is logged after it started,
 *   so a strict window holds where the caller sees it. A task may call its own throttler: `pause`,
 *   `setRate` and `stop` hold back the rest of the pass until the change is in force; `tryAcquire` throws.
 * - `stop()` rejects every task that has not started, the unsent batch's too (promise-stop.ts); after it
 *   `schedule` rejects and the other methods throw a ThrottlerStoppedError. `stop({ drain: true })` runs
 *   what waits first. Reading `counts`, `size`, `pending` or `isPaused` sends nothing.
 * - With `maxConcurrent` or `countUntil: 'done'` the runner reports every task's settling (SETTLED), a
 *   timed-out one at its timeout. With `serverLimits`, every outcome is heard before its promise settles
 *   and before its slot is reported free.
 * - `size` and `pending` are counters, `onIdle`/`onEmpty`/`onSizeLessThan` and the events of `on` hang on
 *   them (task-activity.ts, task-events.ts).
 */
import {
  type CommonOptions,
  checkOptionNames,
  type FeatureValue,
  type ResolvedOptions,
  resolveFeatures,
  resolveOptionsKnowing,
  type StrategyLookup,
  tracksInFlight,
} from '../engine/index.js';
import { checkStoreFits, clockFor, type InternalMachine } from '../machine/index.js';
import { ThrottlerOptionError } from '../rate/index.js';
import type { Throttler, ThrottlerOptions } from './promise-api.js';
import { PromiseCore, type PromiseFeatures, type PromiseSetup } from './promise-core.js';
import {
  busyError,
  checkServerLimits,
  countsOf,
  isPausedNow,
  pauseDuration,
  rateEvent,
  tryAcquireNow,
} from './promise-requests.js';
import type { RateLimitWatchFeature } from './rate-limit-watch.js';
import type { RetryFeature } from './retry-feature.js';
import { resolveTaskDefaults } from './task-defaults.js';
import { type TaskReaderNames, taskReaders } from './task-readers.js';
import { acquireWith, wrapWith } from './task-shorthands.js';
import type { TimeoutFeature } from './task-timeout.js';

/** createThrottler's own options, on top of the common ones. */
const THROTTLER_OPTION_NAMES = ['store', 'clock', 'inspect', 'serverLimits', 'onHandlerError', 'taskDefaults'];

/**
 * The common options resolved and the store checked against them. With `serverLimits` and no `transit` given,
 * unless it says otherwise (`defaultTransit: 0`, with adaptive), the transit is measured (docs/guarantees.md, "What the server sees") where it can be: not over a store (whose
 * processes must agree on one spread), nor with a strategy that refuses a spread (timer, warming-up); the
 * options are then resolved again with it, once, as the throttler is created.
 */
function resolveThrottleOptions(
  options: CommonOptions & { store?: unknown },
  serverLimits: unknown,
  lookup: StrategyLookup,
): ResolvedOptions {
  let resolved = resolveOptionsKnowing(options, lookup);
  const measuredByDefault =
    serverLimits !== undefined &&
    (serverLimits as { defaultTransit?: unknown }).defaultTransit !== 0 &&
    options.transit === undefined &&
    options.store === undefined;
  // Measured by default where it can be: a strategy with something to widen, and the transit feature loaded.
  if (measuredByDefault && resolved.strategyValue.transitRefusal === undefined && resolved.features.transit) {
    resolved = resolveOptionsKnowing({ ...options, transit: 'measured' }, lookup);
  }
  checkStoreFits(options.store, resolved);
  return resolved;
}

/**
 * createThrottler's option names checked, saying what was meant where the entry or the options load the
 * hints (optionHints); the hints, for its tasks' and stop()'s options.
 */
function checkThrottlerOptionNames(
  options: ThrottlerOptions,
  lookup: StrategyLookup,
  entry: EntryParts | undefined,
): PromiseFeatures {
  const features = resolveFeatures(options.features, lookup.features);
  checkOptionNames(options, THROTTLER_OPTION_NAMES, 'createThrottler', true, features.optionHints);
  // Retries, timeouts and the rate-limit watch are the promise API's own: the engine checks them by name only.
  return {
    ...features,
    retry: (features.retry ?? entry?.retry) as RetryFeature | undefined,
    rateLimitWatch: (features.rateLimitWatch ?? entry?.rateLimitWatch) as RateLimitWatchFeature | undefined,
    timeout: (features.timeout ?? entry?.timeout) as TimeoutFeature | undefined,
  };
}

/**
 * What an entry's createThrottler brings of its own beyond the engine's lookup: the main entry's the promise
 * API's features (retry, timeout, the rate-limit watch, exact timers) and the chart with its descriptions; the lean entry's none of them.
 */
export interface EntryParts {
  readonly retry?: FeatureValue<'retry'> | undefined;
  readonly rateLimitWatch?: FeatureValue<'rateLimitWatch'> | undefined;
  readonly timeout?: FeatureValue<'timeout'> | undefined;
  readonly exactTimers?: FeatureValue<'exactTimers'> | undefined;
  readonly machine?: InternalMachine | undefined;
}

/**
 * A throttled task queue over the throttler machine, a strategy that is not a value read by `lookup` (by
 * any name, or by none: the lean entry's). Options are validated now; a bad one throws.
 */
export function createThrottlerKnowing(
  options: ThrottlerOptions,
  lookup: StrategyLookup,
  entry?: EntryParts,
): Throttler {
  const core = new PromiseCore({ ...readSetup(options, lookup, entry), machine: entry?.machine });
  const throttler = throttlerFace(core);
  core.hear = core.setup.serverLimits?.bind(throttler);
  return throttler;
}

/** createThrottler's options read and checked, each error naming its option; the common ones resolved. */
function readSetup(options: ThrottlerOptions, lookup: StrategyLookup, entry: EntryParts | undefined): PromiseSetup {
  // Not an object at all: resolveOptions says what options are (before a string is spread into its characters).
  if (typeof options !== 'object' || options === null) resolveOptionsKnowing(options, lookup);
  const features = checkThrottlerOptionNames(options, lookup, entry);
  const { clock, inspect, serverLimits, onHandlerError, taskDefaults, ...throttleOptions } = options;
  checkServerLimits(serverLimits);
  const defaults = resolveTaskDefaults(taskDefaults, features);
  if (onHandlerError !== undefined && typeof onHandlerError !== 'function') {
    throw new ThrottlerOptionError('onHandlerError', 'a function (error, event) => void', onHandlerError);
  }
  const resolved = resolveThrottleOptions(throttleOptions, serverLimits, lookup);
  return {
    features,
    resolved,
    throttleOptions,
    clock: clock ?? clockFor(resolved, entry?.exactTimers),
    inspect,
    serverLimits,
    onHandlerError,
    defaults,
    reportsSettling: tracksInFlight(resolved),
  };
}

/** The public throttler over its parts: each method checks, ends the lease and sends the stretch's batch first. */
function throttlerFace(core: PromiseCore): Throttler {
  const { host, runner, pending, setup } = core;
  const { resolved, reportsSettling } = setup;
  const { actor } = host;
  const { schedule } = core;
  const throttlerBase: Omit<Throttler, TaskReaderNames> = {
    schedule,
    wrap: wrapWith(schedule),
    acquire: acquireWith(schedule, resolved.now),
    tryAcquire: (cost, acquireOptions) => {
      core.refuseIfStopped();
      if (runner.running) throw busyError();
      core.sendWaiting();
      return tryAcquireNow((event) => host.send(event), cost, acquireOptions?.channel, reportsSettling);
    },
    ...controls(core),
    stop: (stopOptions) => core.stop(stopOptions),
    clear: () => core.clear(),
    get isPaused() {
      return !core.stopped && isPausedNow(actor);
    },
    // A getter changes nothing: the tasks of this stretch not handed over yet count as queued, and
    // those started on the open lease as delivered, without sending either to the machine.
    get counts() {
      if (core.countsAtStop !== undefined) return { ...core.countsAtStop };
      const { queued, delivered, dropped, rejected } = countsOf(actor);
      return {
        queued: queued + pending.unsentCount,
        delivered: delivered + (core.taskLease?.startedUnrecorded ?? 0),
        dropped,
        rejected,
      };
    },
    actor,
  };
  const { activity, rateLimits, events } = core;
  const { maxConcurrent } = resolved;
  const readers = taskReaders({ activity, runner, rateLimits, events, maxConcurrent, features: setup.features });
  return Object.defineProperties(throttlerBase, Object.getOwnPropertyDescriptors(readers)) as Throttler;
}

/** pause, resume and setRate: each held back to the end of a pass it is called from, so the change is in force first. */
function controls(core: PromiseCore): Pick<Throttler, 'pause' | 'resume' | 'setRate'> {
  const { host, runner } = core;
  return {
    pause: (duration) => {
      core.refuseIfStopped();
      const ms = pauseDuration(duration);
      core.sendWaiting();
      runner.holdRestOfPass();
      host.send({ type: 'PAUSE', duration: ms });
    },
    resume: () => {
      core.refuseIfStopped();
      core.sendWaiting();
      host.send({ type: 'RESUME' });
    },
    setRate: (rate, scope) => {
      core.refuseIfStopped();
      // Checked here, not by the machine's invalidEvent: from inside a task the event is handled later.
      const event = rateEvent(rate, scope, core.setup.resolved);
      core.sendWaiting();
      runner.holdRestOfPass();
      host.send(event);
    },
  };
}
