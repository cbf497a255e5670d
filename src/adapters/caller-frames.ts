/**
 * The frames of the `schedule()` call that made a task, kept on the errors the library rejects it with
 * (timeout, cleared, stopped, expired, overflow), as p-timeout and p-retry keep theirs: those errors are
 * made later, in a timer or another call, and would otherwise show none of the caller's code.
 *
 * Capturing a stack costs more than a whole queued task (measured: 100,000 tasks queued at once took
 * 3-4 times as long with one captured per task, whatever Error.stackTraceLimit), and it is held while
 * the task waits. So only a task with a `timeout` or a `retry` (its own, or the throttler's
 * `taskDefaults`) captures one: it is the habit of p-timeout and p-retry users, whose libraries make
 * an error per call too, and such a task already carries a plan and arms a timer. Other tasks keep none.
 */

import type { TaskPlan } from './task-plan.js';

/** The library's own reasons for rejecting a task, by name (no import: task.ts, which uses this file, sits below them). */
const LIBRARY_REJECTIONS: ReadonlySet<string> = new Set([
  'ThrottlerTimeoutError',
  'ThrottlerClearedError',
  'ThrottlerStoppedError',
  'ThrottlerExpiredError',
  'ThrottlerOverflowError',
]);

/** Where a task with a timeout or a retry was scheduled: an Error made in `schedule` (its stack formatted only when read). */
export function scheduledFor(plan: TaskPlan | undefined): Error | undefined {
  if (plan === undefined || (plan.timeout === undefined && plan.retry === undefined)) return undefined;
  return new Error('scheduled here');
}

/**
 * `error` as the task's own, its stack ending in the frames of the `schedule` call: a copy (one error
 * may reject many tasks: `clear()`, `stop()`) of the same class and fields. Errors not the library's
 * (a signal's reason, what the task threw) pass through unchanged.
 */
export function withCallerFrames(error: unknown, origin: Error | undefined): unknown {
  if (origin === undefined || !isLibraryRejection(error)) return error;
  const own = Object.create(Object.getPrototypeOf(error) as object) as Error;
  for (const key of Object.getOwnPropertyNames(error)) {
    if (key !== 'stack')
      Object.defineProperty(own, key, Object.getOwnPropertyDescriptor(error, key) as PropertyDescriptor);
  }
  return addCallerFrames(own, origin);
}

/** The same, in place, for an error made for this task alone (its timeout, also its signal's reason). */
export function addCallerFrames<E>(error: E, origin: Error | undefined): E {
  const frames = origin === undefined ? undefined : callerFrames(origin);
  if (frames === undefined || !(error instanceof Error)) return error;
  Object.defineProperty(error, 'stack', {
    value: `${error.name}: ${error.message}\n${frames}`,
    writable: true,
    configurable: true,
  });
  return error;
}

function isLibraryRejection(error: unknown): error is Error {
  return error instanceof Error && LIBRARY_REJECTIONS.has(error.name);
}

/** The frame lines of `origin`'s stack from `schedule` on (`scheduledFor`'s own left out). */
function callerFrames(origin: Error): string | undefined {
  const stack = origin.stack;
  if (typeof stack !== 'string') return undefined;
  const lines = stack.split('\n').filter((line) => /^\s+at /.test(line));
  return lines.slice(1).join('\n') || undefined;
}
