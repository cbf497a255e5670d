/**
 * The promise API: `createThrottler(options)` for code that holds no actor
 * system. It is the same machine with a task-runner actor as its target: each
 * `schedule(fn)` queues one task message, and the runner calls `fn` when the
 * throttler delivers it.
 *
 * Semantics:
 * - `schedule(fn)` resolves with what `fn` returns (or resolves to) and rejects
 *   with what it throws, unchanged. `fn` starts when the rate allows, in FIFO
 *   order (or per channel with `ordering: 'per-channel'`), never earlier.
 * - A task that never starts is rejected, never forgotten: an AbortSignal that
 *   fires while it waits rejects it with the signal's reason (an `AbortError`
 *   unless the caller gave another); a full queue rejects it (`overflow:
 *   'reject'`) or the task it displaces (`'drop-oldest'`, `'drop-newest'`); an
 *   invalid cost or channel rejects it with a ThrottlerOptionError; `stop()`
 *   rejects every waiting task with a {@link ThrottlerStoppedError}; a store that
 *   refuses this configuration (`storeConflict`: another process created it with
 *   other options) rejects every waiting task with its StoreConflictError. Aborting a
 *   task that has started changes nothing: `fn` owns it from then on. No task
 *   starts once its signal has fired, and an abort starts no other task.
 * - While nothing waits and the rate allows it now, a task without options
 *   starts inside its `schedule` call, on a permit the machine leased for the
 *   synchronous stretch (task-lease.ts, engine/clearance/lease.ts): no event and no
 *   queue entry of its own. Other `schedule` calls made in one synchronous
 *   stretch reach the machine together, as one QUEUE_BATCH event in a microtask
 *   (a burst costs one transition, not one per task); every other method ends
 *   the lease and sends them first, so order holds. With a bounded queue
 *   (`capacity`) each task is its own QUEUE event, so overflow is decided task
 *   by task as it arrives.
 * - A task starts the moment the throttler grants it, synchronously, as a
 *   target actor receives a message: the throttler logs the delivery after the
 *   task has started, so a strict window holds where the caller sees it too. A
 *   task may call `schedule`, `pause`, `setRate` or `stop` on its own
 *   throttler, and `pause`, `setRate` and `stop` hold back the tasks the same
 *   pass would have started next: those wait until the change is in force
 *   (then start on a zero-delay wake-up, if it allows them). `tryAcquire`
 *   cannot answer from inside one (the throttler is busy delivering) and
 *   throws, taking nothing.
 * - `stop()` rejects every task that has not started, those of the unsent batch
 *   too (the batch is not sent on the way out: it would start what the rate
 *   allows). After it, `schedule` rejects and `tryAcquire`, `pause`, `resume` and
 *   `setRate` throw a ThrottlerStoppedError; `counts` then shows nothing queued,
 *   the tasks `stop()` rejected counted as dropped. Reading `counts` sends nothing.
 * - With `maxConcurrent` or `countUntil: 'done'` the runner reports every task's
 *   settling back to the machine (SETTLED), so the next one may start.
 * - `priority`, `maxWait` and `deadline` per task: among tasks the rate allows,
 *   higher priority first; a task that cannot start by its deadline is rejected
 *   with a ThrottlerExpiredError. With `serverLimits`, every task's outcome is
 *   heard (the server's Retry-After / RateLimit answers applied) before its
 *   promise settles and before its slot is reported free.
 */

import { resolveOptions, tracksInFlight } from '../engine/index.js';
import type { ThrottlerCounts } from '../machine/index.js';
import { checkStoreFits } from '../machine/initial-context.js';
import { WAKE_EVENT } from '../machine/own-events.js';
import { type RatesInput, ThrottlerOptionError } from '../rate/index.js';
import { type DiscardEvent, ThrottlerHost } from './host.js';
import { PendingTasks } from './pending-tasks.js';
import { type ScheduleOptions, type Throttler, type ThrottlerOptions, ThrottlerStoppedError } from './promise-api.js';
import { busyError, countsOf, notATaskError, rateEvent } from './promise-requests.js';
import { Task } from './task.js';
import { TaskLease } from './task-lease.js';
import { TaskRunner } from './task-runner.js';

/** What a `schedule` call without options reads (one shared object, not one per call). */
const NO_OPTIONS: ScheduleOptions = {};

/** A throttled task queue over the throttler machine. Options are validated now; a bad one throws. */
export function createThrottler(options: ThrottlerOptions): Throttler {
  const { clock, inspect, serverLimits, ...throttleOptions } = options ?? ({} as ThrottlerOptions);
  if (
    serverLimits !== undefined &&
    (typeof serverLimits !== 'object' || serverLimits === null || typeof serverLimits.bind !== 'function')
  ) {
    throw new ThrottlerOptionError(
      'serverLimits',
      'what serverLimits(...) of xstate-throttler/server-limits returns',
      serverLimits,
    );
  }
  let hear: ((value: unknown, error?: unknown) => void) | undefined;
  const resolved = resolveOptions(throttleOptions);
  checkStoreFits(throttleOptions.store, resolved);
  const { now } = resolved;
  const reportsSettling = tracksInFlight(resolved);
  let stopped = false;
  /** The counts once stop() has rejected what waited; undefined until then. */
  let countsAtStop: ThrottlerCounts | undefined;

  // Every task of the signal is rejected before anything is sent to the machine: a CANCEL lets it
  // deliver what may go next, which must not be one of them. Nothing is flushed here, so an abort
  // starts no task of the unsent batch (a later abort could not stop it any more).
  const abortTasks = (tasks: Task[], reason: unknown): void => {
    const cancelled: Task[] = [];
    for (const task of tasks) {
      const unsent = pending.inUnsentBatch(task);
      if (!task.fail(reason, pending)) continue;
      if (unsent) host.withdraw();
      else cancelled.push(task);
    }
    if (stopped) return;
    for (const task of cancelled) host.send({ type: 'CANCEL', id: task });
  };
  const pending = new PendingTasks(abortTasks);
  const runner = new TaskRunner(
    pending,
    reportsSettling,
    (task) => {
      if (!stopped) host.send({ type: 'SETTLED', channel: task.channel, cost: task.cost });
    },
    serverLimits === undefined ? undefined : (value, error) => hear?.(value, error),
    () => {
      if (stopped) return;
      sendWaiting();
      host.send(WAKE_EVENT);
    },
  );

  // A task leaves the queue without starting only through these events (or its AbortSignal, which
  // rejects it before the CANCEL is sent): each rejects its promise.
  const failDiscarded = (event: DiscardEvent): void => {
    if (event.message instanceof Task) event.message.fail(event.error, pending);
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
    resolved.strategy === 'sliding-window' &&
    resolved.capacity === Number.POSITIVE_INFINITY &&
    throttleOptions.store === undefined
      ? new TaskLease((event) => host.send(event))
      : undefined;
  /** Before any other event reaches the machine: the lease ends and the batch of this stretch goes, in that order. */
  const sendWaiting = (): void => {
    taskLease?.end();
    host.flush();
  };

  const schedule = <R>(run: () => R | PromiseLike<R>, scheduleOptions?: ScheduleOptions): Promise<Awaited<R>> => {
    const { channel, cost, signal, priority, maxWait, deadline } = scheduleOptions ?? NO_OPTIONS;
    if (typeof run !== 'function') return Promise.reject(new ThrottlerOptionError('task', 'a function', run));
    if (stopped) return Promise.reject(new ThrottlerStoppedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (
      taskLease !== undefined &&
      scheduleOptions === undefined &&
      !runner.running &&
      pending.isEmpty &&
      taskLease.take()
    ) {
      return runner.runNow(run);
    }
    const task = new Task(run, channel, cost);
    pending.enter(task);
    if (priority !== undefined || maxWait !== undefined || deadline !== undefined)
      task.timing(priority, deadline, maxWait);
    const promise = new Promise<Awaited<R>>((resolve, reject) => {
      task.resolve = resolve;
      task.reject = reject;
    });
    // With a store every task can be taken out of the queue (CANCEL), for a conflict.
    if (signal !== undefined || withStore) task.id = task;
    if (signal !== undefined) pending.watch(task, signal);
    host.queue(task);
    return promise;
  };

  const refuseIfStopped = (): void => {
    if (stopped) throw new ThrottlerStoppedError();
  };

  const throttler: Throttler = {
    schedule,
    wrap: <A extends unknown[], R, This = unknown>(
      fn: (this: This, ...args: A) => R | PromiseLike<R>,
      scheduleOptions?: ScheduleOptions,
    ) =>
      function (this: This, ...args: A): Promise<Awaited<R>> {
        return schedule(() => fn.apply(this, args), scheduleOptions);
      },
    acquire: (cost?: number, acquireOptions?: Omit<ScheduleOptions, 'cost'>) => {
      const askedAt = now();
      return schedule(() => now() - askedAt, { ...acquireOptions, ...(cost === undefined ? {} : { cost }) });
    },
    tryAcquire: (cost?: number, acquireOptions?: Pick<ScheduleOptions, 'channel'>) => {
      refuseIfStopped();
      if (runner.running) throw busyError();
      sendWaiting();
      const reply: { waitMs?: number; error?: Error; cancelled?: boolean } = {};
      host.send({ type: 'TRY_ACQUIRE', cost, channel: acquireOptions?.channel, reply });
      if (reply.error !== undefined) throw reply.error;
      if (reply.waitMs === undefined) {
        // The actor was busy (a call from an actor.on listener): it would answer later, to nobody.
        reply.cancelled = true;
        throw busyError();
      }
      // With countUntil 'done' the permit occupies its slot until settled; it settles at once.
      if (reply.waitMs === 0 && reportsSettling) host.send({ type: 'SETTLED', channel: acquireOptions?.channel, cost });
      return reply.waitMs as number;
    },
    pause: (ms?: number) => {
      refuseIfStopped();
      if (ms !== undefined && (typeof ms !== 'number' || !(ms >= 0))) {
        throw new ThrottlerOptionError('pause(ms)', 'a duration >= 0 in milliseconds', ms);
      }
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
    stop: () => {
      if (stopped) return;
      // The lease ends (what it started is recorded); the batch of this stretch is NOT sent: sending it
      // would start what the rate allows now, and stop() rejects every task that has not started.
      taskLease?.end();
      runner.holdRestOfPass();
      stopped = true;
      const unsent = host.abandonBatch();
      const rejectLeftBehind = (): void => {
        if (countsAtStop !== undefined) return;
        // Everything still in the machine's queue leaves with the stop, including tasks aborted
        // whose CANCEL never arrived; tasks that never reached it count where they are rejected.
        const { queued, delivered, dropped, rejected } = countsOf(actor);
        const error = new ThrottlerStoppedError();
        let neverQueued = pending.rejectAll(error);
        for (const task of unsent) if (task.fail(error, pending)) neverQueued += 1;
        countsAtStop = { queued: 0, delivered, dropped: dropped + queued + neverQueued, rejected };
      };
      // Called from inside a task (or a listener) the actor stops once the event it is handling is
      // done, and the rest of that event (a burst's later tasks) is queued meanwhile: the sweep waits.
      actor.subscribe({ complete: rejectLeftBehind });
      host.stop();
      if (actor.getSnapshot().status !== 'active') rejectLeftBehind();
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
  hear = serverLimits?.bind(throttler);
  return throttler;
}
