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
 *   rejects every waiting task with a {@link ThrottlerStoppedError}. Aborting a
 *   task that has started changes nothing: `fn` owns it from then on. No task
 *   starts once its signal has fired, and an abort starts no other task.
 * - `schedule` calls made in one synchronous stretch reach the machine together,
 *   as one QUEUE_BATCH event in a microtask (a burst costs one transition, not
 *   one per task); every other method sends them first, so order holds. With a
 *   bounded queue (`capacity`) each task is its own QUEUE event, so overflow is
 *   decided task by task as it arrives.
 * - A task starts the moment the throttler grants it, synchronously, as a
 *   target actor receives a message: the throttler logs the delivery after the
 *   task has started, so a strict window holds where the caller sees it too. A
 *   task may call `schedule`, `pause`, `setRate` or `stop` on its own
 *   throttler, and `pause`, `setRate` and `stop` hold back the tasks the same
 *   pass would have started next: those wait until the change is in force
 *   (then start on a zero-delay wake-up, if it allows them). `tryAcquire`
 *   cannot answer from inside one (the throttler is busy delivering) and
 *   throws, taking nothing.
 * - After `stop()`, `schedule` rejects and `tryAcquire`, `pause`, `resume` and
 *   `setRate` throw a ThrottlerStoppedError; `counts` then shows nothing queued,
 *   the tasks `stop()` rejected counted as dropped.
 * - With `maxConcurrent` or `countUntil: 'done'` the runner reports every task's
 *   settling back to the machine (SETTLED), so the next one may start.
 */
import type { Actor, InspectionEvent } from 'xstate';
import type { ThrottleStore } from '../machine/clearance.js';
import type { Clock, ThrottlerCounts, throttlerMachine } from '../machine/index.js';
import { resolveOptions, type ThrottleOptions, tracksInFlight, unknownChannelError } from '../machine/options.js';
import { parseRates, type RatesInput, ThrottlerOptionError } from '../rate/index.js';
import { type DiscardEvent, ThrottlerHost } from './host.js';
import { PendingTasks } from './pending-tasks.js';
import { Task } from './task.js';
import { TaskRunner } from './task-runner.js';

/** Options of `createThrottler`: the machine's, plus where its one timer comes from. */
export interface ThrottlerOptions extends ThrottleOptions {
  /** Share every rate with every process using a store of the same name (`createRedisStore`, xstate-throttler/redis). */
  store?: ThrottleStore | undefined;
  /** XState's clock for the wake-up timer (`setTimeout` by default); pair it with `now`. */
  clock?: Clock;
  /** Hands every inspection event to an inspector (see `summarizeInspection`). */
  inspect?: (event: InspectionEvent) => void;
}

/** Per-task options. */
export interface ScheduleOptions {
  /** A channel named in `channels`; without it only the overall rate applies. */
  channel?: string;
  /** How much of the limit the task spends (a positive integer, default 1). */
  cost?: number;
  /** Aborting it takes the task out of the queue and rejects its promise, if it has not started. */
  signal?: AbortSignal;
  /** 0 (goes last) to 9 (goes first), default 5: among tasks the rates allow, higher first (see Priorities). */
  priority?: number;
  /** The most it may wait, in ms: if it cannot start by then it is rejected with a ThrottlerExpiredError. */
  maxWait?: number;
  /** The last moment it may start, on the throttler's clock (`now`, performance.now() by default); or use maxWait. */
  deadline?: number;
}

export interface Throttler {
  /** Runs `task` as soon as the rate allows; resolves or rejects as the task does. */
  schedule<R>(task: () => R | PromiseLike<R>, options?: ScheduleOptions): Promise<Awaited<R>>;
  /** A throttled version of `fn`: every call is scheduled with these options; `this` is passed on. */
  wrap<A extends unknown[], R, This = unknown>(
    fn: (this: This, ...args: A) => R | PromiseLike<R>,
    options?: ScheduleOptions,
  ): (this: This, ...args: A) => Promise<Awaited<R>>;
  /** Waits for a permit of `cost` (default 1) and takes it; resolves with the milliseconds waited. */
  acquire(cost?: number, options?: Omit<ScheduleOptions, 'cost'>): Promise<number>;
  /**
   * Takes a permit now if one is free and nothing waits ahead: returns 0. Otherwise takes
   * nothing and returns the milliseconds until one may be free. Throws on a bad cost or channel.
   */
  tryAcquire(cost?: number, options?: Pick<ScheduleOptions, 'channel'>): number;
  /**
   * Starts nothing for `ms` milliseconds (e.g. an HTTP 429's Retry-After), or until `resume()`.
   * Called from a task, it holds back the tasks due with it too. Throws after `stop()`.
   */
  pause(ms?: number): void;
  /** Ends a pause; what the rate allows starts at once. Throws after `stop()`. */
  resume(): void;
  /** Replaces the overall rate, or one channel's; throws (and changes nothing) on a bad rate, or after `stop()`. */
  setRate(rate: RatesInput, channel?: string): void;
  /** Stops the throttler and its timer; every task still waiting is rejected with ThrottlerStoppedError. */
  stop(): void;
  /** Waiting, started, dropped and rejected task counts; after `stop()`, the tasks it rejected count as dropped. */
  readonly counts: ThrottlerCounts;
  /** The underlying actor, for `actor.on(...)` events and inspection. */
  readonly actor: Actor<typeof throttlerMachine>;
}

/** Why a task waiting in a stopped throttler, or scheduled after `stop()`, was rejected. */
export class ThrottlerStoppedError extends Error {
  override name = 'ThrottlerStoppedError';
  constructor() {
    super('The throttler was stopped before the task could start');
  }
}

/** What a `schedule` call without options reads (one shared object, not one per call). */
const NO_OPTIONS: ScheduleOptions = {};

/** A throttled task queue over the throttler machine. Options are validated now; a bad one throws. */
export function createThrottler(options: ThrottlerOptions): Throttler {
  const { clock, inspect, ...throttleOptions } = options ?? ({} as ThrottlerOptions);
  const resolved = resolveOptions(throttleOptions);
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
      const unsent = task.inUnsentBatch;
      if (!task.fail(reason, pending)) continue;
      if (unsent) host.withdraw();
      else cancelled.push(task);
    }
    if (stopped) return;
    for (const task of cancelled) host.send({ type: 'CANCEL', id: task });
  };
  const pending = new PendingTasks(abortTasks);
  const runner = new TaskRunner(pending, reportsSettling, (task) => {
    if (!stopped) host.send({ type: 'SETTLED', channel: task.channel, cost: task.cost });
  });

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
    deliver: runner.start,
    discard: failDiscarded,
    hasLeftBatch: (task) => task.gone,
    tracker: pending,
  });
  const { actor } = host;

  const schedule = <R>(run: () => R | PromiseLike<R>, scheduleOptions?: ScheduleOptions): Promise<Awaited<R>> => {
    const { channel, cost, signal, priority, maxWait, deadline } = scheduleOptions ?? NO_OPTIONS;
    if (typeof run !== 'function') return Promise.reject(new ThrottlerOptionError('task', 'a function', run));
    if (stopped) return Promise.reject(new ThrottlerStoppedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    const task = new Task(run, channel, cost);
    if (priority !== undefined || maxWait !== undefined || deadline !== undefined)
      task.timing(priority, deadline, maxWait);
    const promise = new Promise<Awaited<R>>((resolve, reject) => {
      task.resolve = resolve;
      task.reject = reject;
    });
    if (signal !== undefined) {
      task.id = task;
      pending.watch(task, signal);
    }
    host.queue(task);
    return promise;
  };

  const refuseIfStopped = (): void => {
    if (stopped) throw new ThrottlerStoppedError();
  };

  return {
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
      host.flush();
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
      host.flush();
      runner.holdRestOfPass();
      host.send({ type: 'PAUSE', duration: ms });
    },
    resume: () => {
      refuseIfStopped();
      host.flush();
      host.send({ type: 'RESUME' });
    },
    setRate: (rate: RatesInput, channel?: string) => {
      refuseIfStopped();
      // Checked here, not by the machine's invalidEvent: from inside a task the event is handled later.
      parseRates(rate, channel === undefined ? 'rate' : `channels.${channel}`);
      if (channel !== undefined && !resolved.channels.has(channel)) {
        throw unknownChannelError(channel, resolved.channels.keys());
      }
      host.flush();
      runner.holdRestOfPass();
      host.send({ type: 'SET_RATE', rate, channel });
    },
    stop: () => {
      if (stopped) return;
      host.flush();
      runner.holdRestOfPass();
      stopped = true;
      const rejectLeftBehind = (): void => {
        if (countsAtStop !== undefined) return;
        // Everything still in the machine's queue leaves with the stop, including tasks aborted
        // whose CANCEL never arrived; tasks that never reached it count where they are rejected.
        const { queued, delivered, dropped, rejected } = actor.getSnapshot().context.counts;
        const neverQueued = pending.rejectAll(new ThrottlerStoppedError());
        countsAtStop = { queued: 0, delivered, dropped: dropped + queued + neverQueued, rejected };
      };
      // Called from inside a task (or a listener) the actor stops once the event it is handling is
      // done, and the rest of that event (a burst's later tasks) is queued meanwhile: the sweep waits.
      actor.subscribe({ complete: rejectLeftBehind });
      host.stop();
      if (actor.getSnapshot().status !== 'active') rejectLeftBehind();
    },
    get counts() {
      if (countsAtStop !== undefined) return { ...countsAtStop };
      host.flush();
      return { ...actor.getSnapshot().context.counts };
    },
    actor,
  };
}

function busyError(): Error {
  return new Error('tryAcquire() cannot be called while the throttler is delivering (from a task or actor.on)');
}
