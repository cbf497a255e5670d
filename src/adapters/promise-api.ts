/**
 * The promise API's public surface: `createThrottler`'s options, a task's options, the `Throttler`
 * it returns and the error of a stopped one. promise.ts builds it over the machine.
 */
import type { Actor, InspectionEvent } from 'xstate';
import type { CommonOptions, ThrottleStore } from '../engine/index.js';
import type { Clock, ThrottlerCounts, throttlerMachine } from '../machine/index.js';
import type { DurationInput, RatesInput } from '../rate/index.js';
import type { RunningTaskInfo } from './running-task.js';
import type { TaskId, ThrottlerTaskEvents } from './task-events.js';
import type { RetryOptions, TaskContext } from './task-plan.js';

/** Options of `createThrottler`: the machine's, plus where its one timer comes from. */
export interface ThrottlerOptions extends CommonOptions {
  /** Share every rate with every process using a store of the same name (`createRedisStore`, xstate-throttler/redis). */
  store?: ThrottleStore | undefined;
  /** XState's clock for the wake-up timer (`setTimeout` by default); pair it with `now`. */
  clock?: Clock | undefined;
  /** Hands every inspection event to an inspector (see `summarizeInspection`). */
  inspect?: ((event: InspectionEvent) => void) | undefined;
  /**
   * Listens to what each task returned or threw, before its promise settles: `serverLimits(...)` from
   * xstate-throttler/server-limits applies a server's Retry-After / RateLimit answers after every task.
   */
  serverLimits?: TaskOutcomeListener | undefined;
  /**
   * Receives the error of a `throttler.on` handler that threw, with the event's name, or of a task's `settle`
   * that threw or returned no cost, with `'settle'`; the throttler goes
   * on either way. Default: `console.warn`, so a broken handler is seen and never becomes an uncaught error.
   */
  onHandlerError?: ((error: unknown, event: keyof ThrottlerTaskEvents | 'settle') => void) | undefined;
  /**
   * Task options every `schedule` starts from (p-queue's queue-level `timeout`, Bottleneck's limiter-wide
   * retry): `{ timeout: '30s', retry: { retries: 2 } }`. A task's own option replaces a default whole;
   * `timeout: Infinity` or `retry: { retries: 0 }` turns one off for a task. Checked at creation.
   */
  taskDefaults?: Pick<ScheduleOptions, 'timeout' | 'retry' | 'priority' | 'maxWait'> | undefined;
}

/** Bound to the throttler once it exists; then hears every task's outcome (value, or error when it threw). */
export interface TaskOutcomeListener {
  bind(throttler: Throttler): (value: unknown, error?: unknown) => void;
}

/** Per-task options; `R` is what the task resolves with (what `settle` reads). */
export interface ScheduleOptions<R = unknown> {
  /** A channel named in `channels`; without it only the overall rate applies. */
  channel?: string | undefined;
  /**
   * How much of the limit the task spends (a positive integer, default 1), or with rates in dimensions per
   * dimension: `{ requests: 1, tokens: 1200 }` (a dimension it does not name costs 0; a number: that cost in each).
   */
  cost?: number | { readonly [dimension: string]: number } | undefined;
  /** Aborting it takes the task out of the queue and rejects its promise, if it has not started. */
  signal?: AbortSignal | undefined;
  /** 0 (goes last) to 9 (goes first), default 5: among tasks the rates allow, higher first (see Priorities). */
  priority?: number | undefined;
  /** The most it may wait (`'2s'` or ms): if it cannot start by then it is rejected with a ThrottlerExpiredError. */
  maxWait?: DurationInput | undefined;
  /** The last moment it may start, on the throttler's clock (`now`, performance.now() by default); or use maxWait. */
  deadline?: number | undefined;
  /** Reported with the task's events (`throttler.on`) and in its ThrottlerTimeoutError. */
  id?: TaskId | undefined;
  /** How long a started attempt may run (`'30s'` or ms; `Infinity`: no limit) before it is rejected with a ThrottlerTimeoutError. */
  timeout?: DurationInput | undefined;
  /** Run it again through the throttler when it fails: `{ retries: 3 }` (backoff, retryOn and budget optional). */
  retry?: RetryOptions | undefined;
  /**
   * The task's actual cost, read from what it resolved with (`(result) => result.usage.total_tokens`): it
   * replaces `cost`, the estimate, at the time the task started. Not called for a task that fails or times out,
   * nor for a failed attempt of a retried one; those keep their estimate, as does a task whose settle throws
   * (reported to `onHandlerError`) or that finishes more than the longest interval after it started. With
   * rates in dimensions it may return a map (`{ tokens: result.usage.total_tokens }`): a dimension it does
   * not name keeps its estimate.
   */
  settle?: ((result: R) => number | { readonly [dimension: string]: number }) | undefined;
}

/** `stop(options)`: `{ drain: true }` (or Bottleneck's `{ dropWaitingJobs: false }`) runs what waits first. */
export interface StopOptions {
  /** Accept nothing new, run every task waiting (retries too), and stop once nothing waits or runs. */
  drain?: boolean | undefined;
  /** Bottleneck's spelling: `false` is `drain: true`. */
  dropWaitingJobs?: boolean | undefined;
}

export interface Throttler {
  /** Runs `task` as soon as the rate allows, with `{ signal }`; resolves or rejects as the task does. */
  schedule<R>(
    task: (context: TaskContext) => R | PromiseLike<R>,
    options?: ScheduleOptions<Awaited<R>>,
  ): Promise<Awaited<R>>;
  /** A throttled version of `fn`: every call is scheduled with these options; `this` is passed on. */
  wrap<A extends unknown[], R, This = unknown>(
    fn: (this: This, ...args: A) => R | PromiseLike<R>,
    options?: ScheduleOptions<Awaited<R>>,
  ): (this: This, ...args: A) => Promise<Awaited<R>>;
  /** Waits for a permit of `cost` (default 1) and takes it; resolves with the milliseconds waited, to the microsecond. */
  acquire(
    cost?: number | { readonly [dimension: string]: number },
    options?: Omit<ScheduleOptions<number>, 'cost'>,
  ): Promise<number>;
  /**
   * Takes a permit now if one is free and nothing waits ahead: returns 0. Otherwise takes
   * nothing and returns the milliseconds until one may be free. Throws on a bad cost or channel.
   */
  tryAcquire(
    cost?: number | { readonly [dimension: string]: number },
    options?: Pick<ScheduleOptions, 'channel'>,
  ): number;
  /**
   * Starts nothing for `duration` (`'5s'` or ms; e.g. an HTTP 429's Retry-After), or until `resume()`.
   * Called from a task, it holds back the tasks due with it too. Throws after `stop()`.
   */
  pause(duration?: DurationInput): void;
  /** Ends a pause; what the rate allows starts at once. Throws after `stop()`. */
  resume(): void;
  /**
   * Replaces the overall rate, or one channel's or key's (`'customer-7'`), or with `{ keyTemplate: true }`
   * the keys' template; throws (and changes nothing) on a bad rate or name, or after `stop()`.
   */
  setRate(rate: RatesInput, scope?: string | { keyTemplate: true }): void;
  /**
   * Stops the throttler and its timer; every task that has not started (scheduled in this synchronous
   * stretch too) is rejected with ThrottlerStoppedError, and none starts on the way out; running tasks go
   * on, their signals aborted. With `{ drain: true }`: refuses new tasks, runs those waiting, then stops;
   * the promise resolves once stopped.
   */
  stop(options?: StopOptions): Promise<void>;
  /** Rejects every waiting task with a ThrottlerClearedError (retries waiting out a backoff too); running tasks go on. */
  clear(): void;
  /** Tasks waiting: scheduled and neither started nor rejected (a retry's backoff counts). A counter, O(1). */
  readonly size: number;
  /** Tasks started and not settled (a task that timed out is settled). A counter, O(1). */
  readonly pending: number;
  /** A pause is in force (`pause()`, or one `serverLimits` set); false once stopped. */
  readonly isPaused: boolean;
  /** The running attempts, oldest first: a fresh array of fresh objects at each read, O(running). */
  readonly runningTasks: RunningTaskInfo[];
  /**
   * A rate holds waiting tasks back: tasks wait in the queue, no pause is in force and the wake-up is armed
   * for when the rate allows the next (not while every `maxConcurrent` slot is taken for want of one). O(1).
   */
  readonly isRateLimited: boolean;
  /** Tasks wait and none may start now: every `maxConcurrent` slot is taken, or `isRateLimited`. O(1). */
  readonly isSaturated: boolean;
  /** Resolves once `isRateLimited` is true (at once if so now). */
  onRateLimit(): Promise<void>;
  /** Resolves once `isRateLimited` is false (at once if so now). */
  onRateLimitCleared(): Promise<void>;
  /** Resolves once nothing waits and nothing runs (at once if so now). */
  onIdle(): Promise<void>;
  /** Resolves once nothing waits (at once if so now); tasks may still run. */
  onEmpty(): Promise<void>;
  /** Resolves once no task runs (`pending` 0; at once if so now); tasks may still wait, as while paused. */
  onPendingZero(): Promise<void>;
  /** Resolves once fewer than `limit` tasks wait (a positive integer; throws on another). */
  onSizeLessThan(limit: number): Promise<void>;
  /** Calls `handler` on every `event` (ThrottlerTaskEvents lists them and their arguments). */
  on<E extends keyof ThrottlerTaskEvents>(event: E, handler: (...args: ThrottlerTaskEvents[E]) => void): void;
  /** Stops calling `handler` on `event`. */
  off<E extends keyof ThrottlerTaskEvents>(event: E, handler: (...args: ThrottlerTaskEvents[E]) => void): void;
  /**
   * Waiting, started, dropped and rejected task counts, read without side effect (tasks of this stretch not
   * yet handed to the machine count as waiting); after `stop()`, the tasks it rejected count as dropped.
   */
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

/** Why a waiting task was rejected by `clear()`. */
export class ThrottlerClearedError extends Error {
  override name = 'ThrottlerClearedError';
  constructor() {
    super('The throttler was cleared before the task could start');
  }
}
