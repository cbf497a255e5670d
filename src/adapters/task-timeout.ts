/**
 * A task's `timeout` (ScheduleOptions.timeout): an attempt still running that long after it started is
 * rejected with a ThrottlerTimeoutError and its signal aborted with it. Its slot counts as settled at
 * that moment (with `maxConcurrent` or `countUntil: 'done'` the next task may start): the throttler
 * cannot stop a function, it only stops waiting for it, and what the function does later is ignored.
 */
import type { FeatureValue } from '../engine/index.js';
import type { Clock } from '../machine/index.js';
import { LongTimer } from './long-timer.js';
import type { RunningTask } from './running-task.js';
import type { TaskId } from './task-events.js';

/** Why a task that ran longer than its `timeout` was rejected (and its signal aborted). */
export class ThrottlerTimeoutError extends Error {
  override name = 'ThrottlerTimeoutError';

  /** `timeout`: the task's, in ms; `id`: the task's id, when it has one. */
  constructor(
    readonly timeout: number,
    readonly id: TaskId | undefined,
  ) {
    super(`The task${id === undefined ? '' : ` ${JSON.stringify(id)}`} ran longer than its timeout of ${timeout} ms`);
  }
}

/** The timeout feature: what arms a throttler's task timeouts. */
export interface TimeoutFeature extends FeatureValue<'timeout'> {
  readonly timeouts: (clock: Clock) => TaskTimeouts;
}

/**
 * A task's `timeout` (`schedule(fn, { timeout })`, `taskDefaults: { timeout }`): pass it in `features` to
 * xstate-throttler/lean, which refuses a timeout without it (the main entry loads it by itself).
 */
export const timeout: FeatureValue<'timeout'> = {
  feature: 'timeout',
  timeouts: (clock) => new TaskTimeouts(clock),
} as TimeoutFeature;

/**
 * The timeouts armed for running attempts, on the throttler's clock (any length: long-timer.ts). stop()
 * releases them: a hung task's timeout then no longer holds the process open, and still rejects the
 * task if the process lives on.
 */
export class TaskTimeouts {
  /** Each armed attempt's timer (here, not on the attempt: a field would cost every attempt). */
  private readonly armed = new Map<RunningTask, LongTimer>();

  constructor(private readonly clock: Clock) {}

  /** Arms the attempt's timeout; `timedOut` is called with the error if it fires first. */
  arm(attempt: RunningTask, timeout: number, timedOut: (error: ThrottlerTimeoutError) => void): void {
    const timer = new LongTimer(
      this.clock,
      () => {
        this.armed.delete(attempt);
        const error = new ThrottlerTimeoutError(timeout, attempt.plan?.id);
        attempt.abort(error);
        timedOut(error);
      },
      timeout,
    );
    this.armed.set(attempt, timer);
  }

  disarm(attempt: RunningTask): void {
    // None armed (no task has a timeout): no lookup for every attempt that settles.
    if (this.armed.size === 0) return;
    const timer = this.armed.get(attempt);
    if (timer === undefined) return;
    timer.cancel();
    this.armed.delete(attempt);
  }

  /** The throttler stopped: no timeout armed holds the process open from now on. */
  releaseAll(): void {
    for (const timer of this.armed.values()) timer.release();
  }
}
