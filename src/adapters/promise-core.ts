/**
 * One promise-API throttler's working parts, wired once (promise.ts builds its public face over them): the
 * host of the machine, the task runner, the tasks handed over and not started, the lease, the retries, the
 * activity counters and events, and whether it is stopping or stopped. `schedule` and `stop` live here,
 * with what every other method does first (`sendWaiting`).
 */
import type { Features, ResolvedOptions } from '../engine/index.js';
import { type Clock, type InternalMachine, type ThrottlerCounts, WAKE_EVENT } from '../machine/index.js';
import { ThrottlerOptionError } from '../rate/index.js';
import { scheduledFor } from './caller-frames.js';
import { type DiscardEvent, ThrottlerHost } from './host.js';
import { PendingTasks } from './pending-tasks.js';
import { type ScheduleOptions, type ThrottlerOptions, ThrottlerStoppedError } from './promise-api.js';
import { notATaskError, stopDrainsOrRefusal, withCostByName } from './promise-requests.js';
import { clearTasks, stopTasks, type TaskParts } from './promise-stop.js';
import type { RateLimitWatch, RateLimitWatchFeature } from './rate-limit-watch.js';
import type { RetryFeature } from './retry-feature.js';
import { Task } from './task.js';
import { TaskActivity } from './task-activity.js';
import { type TaskDefaults, withDefaults } from './task-defaults.js';
import { TaskEvents } from './task-events.js';
import { readScheduleOptions, TaskIntake } from './task-intake.js';
import { TaskLease } from './task-lease.js';
import { type TaskContext, type TaskPlan, taskPlan } from './task-plan.js';
import { TaskRunner } from './task-runner.js';
import type { TimeoutFeature } from './task-timeout.js';

/** What a schedule call without options reads (one shared object, not one per call). */
const NO_OPTIONS: ScheduleOptions = {};

/** The features a promise API loaded: the engine's, and its own three (the engine knows them by name only). */
export type PromiseFeatures = Omit<Features, 'retry' | 'rateLimitWatch' | 'timeout'> & {
  readonly retry: RetryFeature | undefined;
  readonly timeout: TimeoutFeature | undefined;
  readonly rateLimitWatch: RateLimitWatchFeature | undefined;
};

/** createThrottler's options, read and checked (promise.ts): what the parts are built from. */
export interface PromiseSetup {
  readonly features: PromiseFeatures;
  readonly resolved: ResolvedOptions;
  /** The common options and the store, as given (the host's input). */
  readonly throttleOptions: ThrottlerOptions;
  readonly clock: Clock;
  readonly inspect: ThrottlerOptions['inspect'];
  readonly serverLimits: ThrottlerOptions['serverLimits'];
  readonly onHandlerError: ThrottlerOptions['onHandlerError'];
  readonly defaults: TaskDefaults | undefined;
  /** With the runner reporting every task's settling (maxConcurrent, countUntil 'done'). */
  readonly reportsSettling: boolean;
  /** The entry's chart (the main entry's has its descriptions): host.ts's default without. */
  readonly machine?: InternalMachine | undefined;
}

/** The parts, which stop() and clear() reach as they are (TaskParts). */
export class PromiseCore implements TaskParts {
  stopped = false;
  /** stop({ drain: true }) is under way: new tasks are refused; what waits runs. */
  stopping: Promise<void> | undefined;
  /** The counts once stop() has rejected what waited; undefined until then. */
  countsAtStop: ThrottlerCounts | undefined;
  /** What serverLimits hears of every outcome, bound to the throttler once its face is built. */
  hear: ((value: unknown, error?: unknown) => void) | undefined;
  readonly events: TaskEvents;
  readonly activity: TaskActivity;
  readonly pending: PendingTasks;
  readonly retries: ReturnType<RetryFeature['tracker']> | undefined;
  readonly runner: TaskRunner;
  readonly host: ThrottlerHost<Task>;
  readonly taskLease: TaskLease | undefined;
  /** Without the rate-limit-watch feature (xstate-throttler/lean), undefined: its readers refuse. */
  readonly rateLimits: RateLimitWatch | undefined;
  readonly intake: TaskIntake;
  readonly withStore: boolean;

  constructor(readonly setup: PromiseSetup) {
    const { features, resolved, clock, onHandlerError } = setup;
    this.events = new TaskEvents(onHandlerError);
    this.activity = new TaskActivity(this.events);
    this.pending = new PendingTasks((tasks, reason) => this.abortTasks(tasks, reason), this.activity);
    const requeue = (attempt: Parameters<TaskIntake['requeue']>[0]) => this.intake.requeue(attempt);
    this.retries = features.retry?.tracker(clock, resolved.now, this.activity, this.events, requeue);
    this.runner = this.newRunner();
    this.host = this.newHost();
    // A store that refuses this configuration (another process created it with other options) fails the
    // tasks waiting with its StoreConflictError, rather than let them wait for a configuration that may never change.
    this.withStore = setup.throttleOptions.store !== undefined;
    if (this.withStore)
      this.host.actor.on('storeConflict', (event) => this.abortTasks(this.pending.waiting(), event.error));
    // So does a strategy of one's own that broke its contract: they would wait on a policy that answers nothing.
    if (resolved.strategyValue.own)
      this.host.actor.on('strategyError', (event) => this.abortTasks(this.pending.waiting(), event.error));
    // Leases go only where the machine can grant them (it decides each one): asking elsewhere would cost an event a
    // stretch. Not with a bounded queue: its QUEUE goes at once, and from inside a leased task (the machine is not
    // busy delivering it) that would start the inner task inside the outer one. Only a strategy that says it
    // `leases` (Strategy.leases) keeps a lease strict.
    this.taskLease =
      !setup.reportsSettling &&
      resolved.strategyValue.leases &&
      resolved.capacity === Number.POSITIVE_INFINITY &&
      !this.withStore
        ? new TaskLease((event) => this.host.send(event))
        : undefined;
    this.rateLimits = features.rateLimitWatch?.watch(
      this.host.actor,
      resolved.maxConcurrent,
      this.events,
      () => this.stopped,
    );
    this.intake = new TaskIntake(this.host, this.pending, this.activity, this.events, this.withStore);
  }

  private newRunner(): TaskRunner {
    const { resolved, serverLimits, clock, reportsSettling } = this.setup;
    return new TaskRunner({
      keeper: this.pending,
      reportsSettling,
      send: (event) => {
        if (!this.stopped) this.host.send(withCostByName(event, resolved.dimensions));
      },
      events: this.events,
      dimensions: resolved.dimensions,
      hear: serverLimits === undefined ? undefined : (value, error) => this.hear?.(value, error),
      resumePass: () => {
        if (this.stopped) return;
        this.sendWaiting();
        this.host.send(WAKE_EVENT);
      },
      drop: this.drop,
      activity: this.activity,
      retries: this.retries,
      timeouts: this.setup.features.timeout?.timeouts(clock),
      now: resolved.now,
      transitMeter: resolved.transitMeter,
    });
  }

  private newHost(): ThrottlerHost<Task> {
    const { throttleOptions, resolved, clock, inspect } = this.setup;
    return new ThrottlerHost<Task>({
      machine: this.setup.machine,
      options: throttleOptions,
      resolved,
      clock,
      inspect,
      deliveryGate: this.runner.deliveryGate,
      // A QUEUE sent to `actor` directly carries no task: refused (`rejected`), never run.
      messageCheck: (message) => (message instanceof Task ? undefined : notATaskError(message)),
      deliver: this.runner.start,
      // A task leaves the queue unstarted only by these events (or its AbortSignal, before its CANCEL): each rejects it.
      discard: (event: DiscardEvent) => {
        if (event.message instanceof Task) this.drop(event.message, event.error, event.type);
      },
      hasLeftBatch: (task) => task.gone,
      tracker: this.pending,
    });
  }

  /** Rejects a task that never started, reported as `kind`; false when it had started or left already. */
  readonly drop = (task: Task, error: unknown, kind: 'dropped' | 'rejected' = 'dropped'): boolean => {
    if (task.gone) return false;
    if (this.events.hears(kind)) this.events.emit(kind, error as Error, task.plan?.id);
    return task.fail(error, this.pending);
  };

  // Every task of the signal is rejected before anything is sent to the machine: a CANCEL lets it
  // deliver what may go next, which must not be one of them. Nothing is flushed here, so an abort
  // starts no task of the unsent batch (a later abort could not stop it any more).
  private abortTasks(tasks: Task[], reason: unknown): void {
    const cancelled: Task[] = [];
    for (const task of tasks) {
      const unsent = this.pending.inUnsentBatch(task);
      if (!this.drop(task, reason)) continue;
      if (unsent) this.host.withdraw();
      else cancelled.push(task);
    }
    if (this.stopped) return;
    for (const task of cancelled) this.host.send({ type: 'CANCEL', id: task });
  }

  /** Before any other event reaches the machine: the lease ends and the batch of this stretch goes, in that order. */
  sendWaiting(): void {
    this.taskLease?.end();
    this.host.flush();
  }

  refuseIfStopped(): void {
    if (this.stopped) throw new ThrottlerStoppedError();
  }

  readonly schedule = <R>(run: (context: TaskContext) => R | PromiseLike<R>, scheduleOptions?: ScheduleOptions) => {
    if (typeof run !== 'function') return Promise.reject(new ThrottlerOptionError('task', 'a function', run));
    if (this.stopped || this.stopping !== undefined) return Promise.reject(new ThrottlerStoppedError());
    const { taskLease, runner, pending } = this;
    if (
      taskLease !== undefined &&
      scheduleOptions === undefined &&
      this.setup.defaults === undefined &&
      !runner.running &&
      pending.isEmpty &&
      taskLease.take()
    ) {
      return runner.runNow(run);
    }
    return this.enqueue(run, scheduleOptions);
  };

  /** A task that does not start on the lease: its options read and laid over the defaults, then handed over. */
  private enqueue<R>(run: (context: TaskContext) => R | PromiseLike<R>, scheduleOptions: ScheduleOptions | undefined) {
    const { features, defaults, resolved } = this.setup;
    let options = NO_OPTIONS;
    let plan: TaskPlan | undefined;
    try {
      // Read once (a getter or Proxy that throws rejects here), then laid over the throttler's defaults.
      if (scheduleOptions !== undefined) options = readScheduleOptions(scheduleOptions, features.optionHints);
      if (defaults !== undefined) options = withDefaults(defaults, options);
      plan = taskPlan(options, resolved.countUntil === 'done', features);
    } catch (error) {
      if (this.events.hears('rejected')) this.events.emit('rejected', error as Error, undefined);
      return Promise.reject(error);
    }
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    const origin = scheduledFor(plan);
    if (plan?.retry !== undefined) {
      TaskIntake.keep(plan, run, options, origin);
      this.retries?.planned(plan);
    }
    // One rule: nothing waits ahead, so it is handed over (and starts if allowed) now; not inside a task nor with a store.
    const handOverNow = this.pending.isEmpty && !this.runner.running && !this.withStore;
    this.activity.added();
    return new Promise<Awaited<R>>((resolve, reject) => {
      this.intake.enqueue(run, options, plan, { resolve, reject }, origin);
      if (handOverNow) this.sendWaiting();
    });
  }

  /** Today's stop: every task not started is rejected, running ones are told by their signal. */
  private stopNow(): void {
    if (this.stopped) return;
    this.stopped = true;
    stopTasks(this, (counts) => {
      this.countsAtStop = counts;
    });
  }

  stop(stopOptions: unknown): Promise<void> {
    const drain = stopDrainsOrRefusal(stopOptions, this.setup.features.optionHints);
    if (drain instanceof Error) return Promise.reject(drain);
    if (this.stopped) return Promise.resolve();
    if (drain) {
      this.stopping ??= this.activity.onIdle().then(() => this.stopNow());
      return this.stopping;
    }
    this.stopNow();
    return Promise.resolve();
  }

  clear(): void {
    if (this.stopped) return;
    clearTasks(this);
    // As p-queue's: the queue emptied now, so the rate no longer holds anything now.
    this.rateLimits?.tell();
  }
}
