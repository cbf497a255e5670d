/**
 * How one attempt of a task reaches the throttler: a Task made for it (its own message, batch entry
 * and queue entry) with only the fields it was given written, tracked by PendingTasks and handed to the
 * host; and a retry's next attempt, made the same way from what its first was scheduled with.
 */
import type { ThrottlerHost } from './host.js';
import type { PendingTasks } from './pending-tasks.js';
import type { ScheduleOptions } from './promise-api.js';
import { Task } from './task.js';
import type { TaskActivity } from './task-activity.js';
import type { TaskEvents } from './task-events.js';
import type { TaskContext, TaskPlan } from './task-plan.js';
import type { RetryAttempt } from './task-retry.js';

type Run = (context: TaskContext) => unknown;

/** A plan that may retry keeps what its next attempts are made from. */
type RetryingPlan = TaskPlan & { run: Run; options: ScheduleOptions; origin: Error | undefined };

export class TaskIntake {
  constructor(
    private readonly host: ThrottlerHost<Task>,
    private readonly pending: PendingTasks,
    private readonly activity: TaskActivity,
    private readonly events: TaskEvents,
    /** With a store every task can be taken out of the queue (CANCEL), for a conflict. */
    private readonly withStore: boolean,
  ) {}

  /** Keeps on a retrying plan what its later attempts are made from. */
  static keep(plan: TaskPlan, run: Run, options: ScheduleOptions, origin: Error | undefined): void {
    Object.assign(plan, { run, options, origin });
  }

  /** Hands one attempt of a task to the throttler; it is counted waiting already. */
  enqueue(
    run: Run,
    options: ScheduleOptions,
    plan: TaskPlan | undefined,
    resolve: (value: any) => void,
    reject: (reason: unknown) => void,
    origin?: Error,
  ): void {
    const { channel, cost, signal, priority, maxWait, deadline } = options;
    const task = new Task(run, channel, cost);
    if (origin !== undefined) task.origin = origin;
    this.pending.enter(task);
    if (priority !== undefined || maxWait !== undefined || deadline !== undefined)
      task.timing(priority, deadline, maxWait);
    if (plan !== undefined) task.plan = plan;
    task.resolve = resolve;
    task.reject = reject;
    // A task with a settle is named by itself in its ACTUAL_COST, as in its CANCEL.
    if (signal !== undefined || this.withStore || plan?.settle !== undefined) task.id = task;
    if (signal !== undefined) this.pending.watch(task, signal);
    this.host.queue(task);
  }

  /** A retry's backoff is over: its next attempt goes in (unless its signal fired meanwhile). */
  readonly requeue = ({ plan, resolve, reject, signal }: RetryAttempt): void => {
    const { run, options, origin } = plan as RetryingPlan;
    if (signal?.aborted) {
      this.events.emit('dropped', signal.reason, plan.id);
      this.activity.left();
      reject(signal.reason);
      return;
    }
    this.enqueue(run, options, plan, resolve, reject, origin);
  };
}
