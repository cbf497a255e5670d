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
  type Features,
  type FeatureValue,
  type ResolvedOptions,
  resolveFeatures,
  resolveOptionsKnowing,
  type StrategyLookup,
  tracksInFlight,
} from '../engine/index.js';
import type { ThrottlerCounts } from '../machine/index.js';
import { checkStoreFits, clockFor, WAKE_EVENT } from '../machine/index.js';
import { type RatesInput, ThrottlerOptionError } from '../rate/index.js';
import { scheduledFor } from './caller-frames.js';
import { type DiscardEvent, ThrottlerHost } from './host.js';
import { PendingTasks } from './pending-tasks.js';
import { type ScheduleOptions, type Throttler, type ThrottlerOptions, ThrottlerStoppedError } from './promise-api.js';
import {
  busyError,
  checkServerLimits,
  countsOf,
  isPausedNow,
  notATaskError,
  pauseDuration,
  rateEvent,
  stopDrainsOrRefusal,
  tryAcquireNow,
  withCostByName,
} from './promise-requests.js';
import { clearTasks, stopTasks, type TaskParts } from './promise-stop.js';
import { RateLimitWatch } from './rate-limit-watch.js';
import type { RetryFeature } from './retry-feature.js';
import { Task } from './task.js';
import { TaskActivity } from './task-activity.js';
import { resolveTaskDefaults, withDefaults } from './task-defaults.js';
import { TaskEvents } from './task-events.js';
import { readScheduleOptions, TaskIntake } from './task-intake.js';
import { TaskLease } from './task-lease.js';
import type { TaskContext } from './task-plan.js';
import { type TaskFeatures, type TaskPlan, taskPlan } from './task-plan.js';
import { type TaskReaderNames, taskReaders } from './task-readers.js';
import { TaskRunner } from './task-runner.js';
import { acquireWith, wrapWith } from './task-shorthands.js';

/** What a `schedule` call without options reads (one shared object, not one per call). */
const NO_OPTIONS: ScheduleOptions = {};

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
  entryRetry: FeatureValue<'retry'> | undefined,
): Omit<Features, 'retry'> & { readonly retry: RetryFeature | undefined } {
  const features = resolveFeatures(options.features, lookup.features);
  checkOptionNames(options, THROTTLER_OPTION_NAMES, 'createThrottler', true, features.optionHints);
  // The retry feature is the promise API's own: the engine checks it by name only (RetryFeatureName).
  return { ...features, retry: (features.retry ?? entryRetry) as RetryFeature | undefined };
}

/**
 * A throttled task queue over the throttler machine, a strategy that is not a value read by `lookup` (by
 * any name, or by none: the lean entry's). Options are validated now; a bad one throws.
 */
export function createThrottlerKnowing(
  options: ThrottlerOptions,
  lookup: StrategyLookup,
  entryRetry?: FeatureValue<'retry'>,
): Throttler {
  // Not an object at all: resolveOptions says what options are (before a string is spread into its characters).
  if (typeof options !== 'object' || options === null) resolveOptionsKnowing(options, lookup);
  const features = checkThrottlerOptionNames(options, lookup, entryRetry);
  const { clock: givenClock, inspect, serverLimits, onHandlerError, taskDefaults, ...throttleOptions } = options;
  checkServerLimits(serverLimits);
  const defaults = resolveTaskDefaults(taskDefaults, features);
  if (onHandlerError !== undefined && typeof onHandlerError !== 'function') {
    throw new ThrottlerOptionError('onHandlerError', 'a function (error, event) => void', onHandlerError);
  }
  let hear: ((value: unknown, error?: unknown) => void) | undefined;
  const resolved = resolveThrottleOptions(throttleOptions, serverLimits, lookup);
  const { now } = resolved;
  const clock = givenClock ?? clockFor(resolved);
  const reportsSettling = tracksInFlight(resolved);
  let stopped = false;
  /** stop({ drain: true }) is under way: new tasks are refused; what waits runs. */
  let stopping: Promise<void> | undefined;
  /** The counts once stop() has rejected what waited; undefined until then. */
  let countsAtStop: ThrottlerCounts | undefined;
  const events = new TaskEvents(onHandlerError);
  const activity = new TaskActivity(events);

  /** Rejects a task that never started, reported as `kind`; false when it had started or left already. */
  const drop = (task: Task, error: unknown, kind: 'dropped' | 'rejected' = 'dropped'): boolean => {
    if (task.gone) return false;
    if (events.hears(kind)) events.emit(kind, error as Error, task.plan?.id);
    return task.fail(error, pending);
  };
  // Every task of the signal is rejected before anything is sent to the machine: a CANCEL lets it
  // deliver what may go next, which must not be one of them. Nothing is flushed here, so an abort
  // starts no task of the unsent batch (a later abort could not stop it any more).
  const abortTasks = (tasks: Task[], reason: unknown): void => {
    const cancelled: Task[] = [];
    for (const task of tasks) {
      const unsent = pending.inUnsentBatch(task);
      if (!drop(task, reason)) continue;
      if (unsent) host.withdraw();
      else cancelled.push(task);
    }
    if (stopped) return;
    for (const task of cancelled) host.send({ type: 'CANCEL', id: task });
  };
  const pending = new PendingTasks(abortTasks, activity);
  const retries = features.retry?.tracker(clock, now, activity, events, (attempt) => intake.requeue(attempt));
  const runner = new TaskRunner({
    keeper: pending,
    reportsSettling,
    send: (event) => {
      if (!stopped) host.send(withCostByName(event, resolved.dimensions));
    },
    events,
    dimensions: resolved.dimensions,
    hear: serverLimits === undefined ? undefined : (value, error) => hear?.(value, error),
    resumePass: () => {
      if (stopped) return;
      sendWaiting();
      host.send(WAKE_EVENT);
    },
    drop,
    activity,
    retries,
    clock,
    now,
    transitMeter: resolved.transitMeter,
  });

  // A task leaves the queue unstarted only by these events (or its AbortSignal, before its CANCEL): each rejects it.
  const failDiscarded = (event: DiscardEvent): void => {
    if (event.message instanceof Task) drop(event.message, event.error, event.type);
  };
  const host = new ThrottlerHost<Task>({
    options: throttleOptions,
    resolved,
    clock,
    inspect,
    deliveryGate: runner.deliveryGate,
    // A QUEUE sent to `actor` directly carries no task: refused (`rejected`), never run.
    messageCheck: (message) => (message instanceof Task ? undefined : notATaskError(message)),
    deliver: runner.start,
    discard: failDiscarded,
    hasLeftBatch: (task) => task.gone,
    tracker: pending,
  });
  const { actor } = host;
  // A store that refuses this configuration (another process created it with other options) fails the
  // tasks waiting with its StoreConflictError, rather than let them wait for a configuration that may never change.
  const withStore = throttleOptions.store !== undefined;
  if (withStore) actor.on('storeConflict', (event) => abortTasks(pending.waiting(), event.error));
  // Leases go only where the machine can grant them (it decides each one): asking elsewhere would cost an event a
  // stretch. Not with a bounded queue: its QUEUE goes at once, and from inside a leased task (the machine is not
  // busy delivering it) that would start the inner task inside the outer one.
  const taskLease =
    !reportsSettling &&
    resolved.strategyValue.leases &&
    resolved.capacity === Number.POSITIVE_INFINITY &&
    throttleOptions.store === undefined
      ? new TaskLease((event) => host.send(event))
      : undefined;
  /** Before any other event reaches the machine: the lease ends and the batch of this stretch goes, in that order. */
  const sendWaiting = (): void => {
    taskLease?.end();
    host.flush();
  };

  const rateLimits = new RateLimitWatch(actor, resolved.maxConcurrent, events, () => stopped);
  const intake = new TaskIntake(host, pending, activity, events, withStore);

  const schedule = <R>(run: (context: TaskContext) => R | PromiseLike<R>, scheduleOptions?: ScheduleOptions) => {
    let options = NO_OPTIONS;
    if (typeof run !== 'function') return Promise.reject(new ThrottlerOptionError('task', 'a function', run));
    if (stopped || stopping !== undefined) return Promise.reject(new ThrottlerStoppedError());
    if (
      taskLease !== undefined &&
      scheduleOptions === undefined &&
      defaults === undefined &&
      !runner.running &&
      pending.isEmpty &&
      taskLease.take()
    ) {
      return runner.runNow(run);
    }
    let plan: TaskPlan | undefined;
    try {
      // Read once (a getter or Proxy that throws rejects here), then laid over the throttler's defaults.
      if (scheduleOptions !== undefined) options = readScheduleOptions(scheduleOptions, features.optionHints);
      if (defaults !== undefined) options = withDefaults(defaults, options);
      plan = taskPlan(options, resolved.countUntil === 'done', features);
    } catch (error) {
      if (events.hears('rejected')) events.emit('rejected', error as Error, undefined);
      return Promise.reject(error);
    }
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    const origin = scheduledFor(plan);
    if (plan?.retry !== undefined) {
      TaskIntake.keep(plan, run, options, origin);
      retries?.planned(plan);
    }
    // One rule: nothing waits ahead, so it is handed over (and starts if allowed) now; not inside a task nor with a store.
    const handOverNow = pending.isEmpty && !runner.running && !withStore;
    activity.added();
    return new Promise<Awaited<R>>((resolve, reject) => {
      intake.enqueue(run, options, plan, { resolve, reject }, origin);
      if (handOverNow) sendWaiting();
    });
  };

  const refuseIfStopped = (): void => {
    if (stopped) throw new ThrottlerStoppedError();
  };
  const parts: TaskParts = { host, pending, retries, runner, events, taskLease, drop };
  /** Today's stop: every task not started is rejected, running ones are told by their signal. */
  const stopNow = (): void => {
    if (stopped) return;
    stopped = true;
    stopTasks(parts, (counts) => {
      countsAtStop = counts;
    });
  };

  const throttlerBase: Omit<Throttler, TaskReaderNames> = {
    schedule,
    wrap: wrapWith(schedule),
    acquire: acquireWith(schedule, now),
    tryAcquire: (
      cost?: number | { readonly [dimension: string]: number },
      acquireOptions?: Pick<ScheduleOptions, 'channel'>,
    ) => {
      refuseIfStopped();
      if (runner.running) throw busyError();
      sendWaiting();
      return tryAcquireNow((event) => host.send(event), cost, acquireOptions?.channel, reportsSettling);
    },
    pause: (duration) => {
      refuseIfStopped();
      const ms = pauseDuration(duration);
      sendWaiting();
      runner.holdRestOfPass();
      host.send({ type: 'PAUSE', duration: ms });
    },
    resume: () => {
      refuseIfStopped();
      sendWaiting();
      host.send({ type: 'RESUME' });
    },
    setRate: (rate: RatesInput, scope?: string | { keyTemplate: true }) => {
      refuseIfStopped();
      // Checked here, not by the machine's invalidEvent: from inside a task the event is handled later.
      const event = rateEvent(rate, scope, resolved);
      sendWaiting();
      runner.holdRestOfPass();
      host.send(event);
    },
    stop: (stopOptions) => {
      const drain = stopDrainsOrRefusal(stopOptions, features.optionHints);
      if (drain instanceof Error) return Promise.reject(drain);
      if (stopped) return Promise.resolve();
      if (drain) {
        stopping ??= activity.onIdle().then(stopNow);
        return stopping;
      }
      stopNow();
      return Promise.resolve();
    },
    clear: () => {
      if (stopped) return;
      clearTasks(parts);
      // As p-queue's: the queue emptied now, so the rate no longer holds anything now.
      rateLimits.tell();
    },
    get isPaused() {
      return !stopped && isPausedNow(actor);
    },
    // A getter changes nothing: the tasks of this stretch not handed over yet count as queued, and
    // those started on the open lease as delivered, without sending either to the machine.
    get counts() {
      if (countsAtStop !== undefined) return { ...countsAtStop };
      const { queued, delivered, dropped, rejected } = countsOf(actor);
      return {
        queued: queued + pending.unsentCount,
        delivered: delivered + (taskLease?.startedUnrecorded ?? 0),
        dropped,
        rejected,
      };
    },
    actor,
  };
  const readers = taskReaders({ activity, runner, rateLimits, events, maxConcurrent: resolved.maxConcurrent });
  const throttler = Object.defineProperties(throttlerBase, Object.getOwnPropertyDescriptors(readers)) as Throttler;
  hear = serverLimits?.bind(throttler);
  return throttler;
}
