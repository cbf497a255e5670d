/**
 * How one attempt of a task reaches the throttler: a Task made for it (its own message, batch entry
 * and queue entry) with only the fields it was given written, tracked by PendingTasks and handed to the
 * host; and a retry's next attempt, made the same way from what its first was scheduled with.
 */
import type { OptionHintsFeature } from '../engine/index.js';
import { ThrottlerOptionError } from '../rate/index.js';
import type { ThrottlerHost } from './host.js';
import type { PendingTasks } from './pending-tasks.js';
import type { ScheduleOptions } from './promise-api.js';
import { Task } from './task.js';
import type { TaskActivity } from './task-activity.js';
import type { TaskEvents } from './task-events.js';
import { checkScheduleOptionNames, type TaskContext, type TaskPlan } from './task-plan.js';
import type { RetryAttempt } from './task-retry.js';

type Run = (context: TaskContext) => unknown;

/**
 * A task's options, their names checked (task-plan.ts), read once, each field once, into a plain object
 * that the task and its retries read from: a getter or a Proxy that throws does so here, where the call is
 * refused (its promise rejects), never later, with the task half counted. A `signal` that is not an
 * AbortSignal is refused by name.
 */
export function readScheduleOptions(options: ScheduleOptions, hints?: OptionHintsFeature): ScheduleOptions {
  checkScheduleOptionNames(options, hints);
  const { channel, cost, signal, priority, maxWait, deadline, id, timeout, retry, settle } = options;
  if (signal !== undefined && !isAbortSignal(signal))
    throw new ThrottlerOptionError('signal', 'an AbortSignal', signal);
  return { channel, cost, signal, priority, maxWait, deadline, id, timeout, retry, settle };
}

/** What the task needs of a signal (so a polyfill's, or another realm's, passes where `instanceof` would not). */
function isAbortSignal(signal: unknown): signal is AbortSignal {
  const candidate = signal as Partial<AbortSignal> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.aborted === 'boolean' &&
    typeof candidate.addEventListener === 'function' &&
    typeof candidate.removeEventListener === 'function'
  );
}

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
    /** The task's promise, settled once by whichever of its outcomes comes first. */
    { resolve, reject }: { resolve: (value: any) => void; reject: (reason: unknown) => void },
    origin?: Error,
  ): void {
    const { channel, cost, signal, priority, maxWait, deadline } = options;
    const task = new Task(run, channel, cost);
    if (origin !== undefined) task.origin = origin;
    this.pending.enter(task);
    if (priority !== undefined || maxWait !== undefined || deadline !== undefined)
      task.timing(priority, deadline, maxWait);
    if (plan !== undefined) task.plan = plan;
    // A retry keeps the first attempt's place in line (retry.place 'keep').
    if (plan?.place !== undefined && plan.attempt > 1) task.place = plan.place;
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
    this.enqueue(run, options, plan, { resolve, reject }, origin);
  };
}
