/**
 * The two ways the promise API lets go of what waits: `stop()` (for good: every task not started is
 * rejected with a ThrottlerStoppedError, the running ones told by their signal) and `clear()` (every
 * waiting task rejected with a ThrottlerClearedError; the throttler goes on, and so do running tasks).
 * Both reach the batch of this stretch without sending it (it would start what the rate allows now).
 */
import { ALL_WAITING } from '../engine/index.js';
import type { ThrottlerCounts } from '../machine/index.js';
import type { ThrottlerHost } from './host.js';
import type { PendingTasks } from './pending-tasks.js';
import { ThrottlerClearedError, ThrottlerStoppedError } from './promise-api.js';
import { countsOf } from './promise-requests.js';
import type { Task } from './task.js';
import type { TaskEvents } from './task-events.js';
import type { TaskLease } from './task-lease.js';
import type { TaskRetries } from './task-retry.js';
import type { TaskRunner } from './task-runner.js';

/** What both reach: the parts of one promise-API throttler. */
export interface TaskParts {
  readonly host: ThrottlerHost<Task>;
  readonly pending: PendingTasks;
  readonly retries: TaskRetries | undefined;
  readonly runner: TaskRunner;
  readonly events: TaskEvents;
  readonly taskLease: TaskLease | undefined;
  /** Rejects a task that never started, reported as dropped; false when it had left already. */
  readonly drop: (task: Task, error: unknown) => boolean;
}

/**
 * Stops the throttler; `stopped` hears the counts once every task left behind is rejected. Called from
 * inside a task (or a listener) the actor stops once the event it is handling is done, and the rest of
 * that event (a burst's later tasks) is queued meanwhile: the sweep waits for it.
 */
export function stopTasks(parts: TaskParts, stopped: (counts: ThrottlerCounts) => void): void {
  const { host, pending, retries, runner, events, taskLease, drop } = parts;
  // The lease ends (what it started is recorded); the batch of this stretch is NOT sent.
  taskLease?.end();
  runner.holdRestOfPass();
  if (retries !== undefined) retries.refusing = true;
  const unsent = host.abandonBatch();
  const { actor } = host;
  let swept = false;
  const rejectLeftBehind = (): void => {
    if (swept) return;
    swept = true;
    // Everything still in the machine's queue leaves with the stop, including tasks aborted
    // whose CANCEL never arrived; tasks that never reached it count where they are rejected.
    const { queued, delivered, dropped, rejected } = countsOf(actor);
    const error = new ThrottlerStoppedError();
    let neverQueued = pending.rejectAll(error, (task) => events.emit('dropped', error, task.plan?.id));
    for (const task of unsent) if (drop(task, error)) neverQueued += 1;
    retries?.dropAll(error);
    stopped({ queued: 0, delivered, dropped: dropped + queued + neverQueued, rejected });
    runner.abortRunning(error);
    // A hung task's timeout must not keep the process alive; it still rejects the task if the process lives on.
    runner.timeouts?.releaseAll();
  };
  actor.subscribe({ complete: rejectLeftBehind });
  host.stop();
  if (actor.getSnapshot().status !== 'active') rejectLeftBehind();
}

/** Rejects every waiting task (a retry's backoff too) with a ThrottlerClearedError; none of them spends a slot. */
export function clearTasks(parts: TaskParts): void {
  const { host, pending, retries, taskLease, drop } = parts;
  // What the lease started is recorded; the batch of this stretch is not sent (its tasks are rejected here).
  taskLease?.end();
  const error = new ThrottlerClearedError();
  retries?.clear(error);
  for (const task of host.takeBatch()) drop(task, error);
  const queued = pending.waiting();
  for (const task of queued) drop(task, error);
  // One event takes every waiting entry out of the machine's queue (tasks in its mailbox too, behind it).
  if (queued.length > 0) host.send({ type: 'CANCEL', id: ALL_WAITING });
}
