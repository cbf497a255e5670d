/**
 * A task's `timeout` (ScheduleOptions.timeout): an attempt still running that long after it started is
 * rejected with a ThrottlerTimeoutError and its signal aborted with it. Its slot counts as settled at
 * that moment (with `maxConcurrent` or `countUntil: 'done'` the next task may start): the throttler
 * cannot stop a function, it only stops waiting for it, and what the function does later is ignored.
 */
import type { Clock } from '../machine/index.js';
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

/** Arms the attempt's timeout on the throttler's clock; `timedOut` is called with the error if it fires first. */
export function armTimeout(
  attempt: RunningTask,
  timeout: number,
  clock: Clock,
  timedOut: (error: ThrottlerTimeoutError) => void,
): void {
  attempt.timer = clock.setTimeout(() => {
    const error = new ThrottlerTimeoutError(timeout, attempt.plan?.id);
    attempt.abort(error);
    timedOut(error);
  }, timeout);
}

export function disarmTimeout(attempt: RunningTask, clock: Clock): void {
  if (attempt.timer !== undefined) clock.clearTimeout(attempt.timer as ReturnType<typeof setTimeout>);
}
