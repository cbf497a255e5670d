/**
 * A task of the promise API, and the AbortSignals its tasks wait on.
 *
 * A task holds its run function, the functions that settle its promise and its
 * signal only while it may still start: once it starts or is rejected it lets
 * go of them, so that a task rejected in the middle of the queue (its tombstone
 * stays there until the head passes it) costs the bare object, not what its
 * closures hold.
 */
import { SelfQueuedMessage } from '../engine/index.js';
import { withCallerFrames } from './caller-frames.js';
import type { TaskContext, TaskPlan } from './task-plan.js';

function settleNothing(): void {}

/** A task's `batch` once it started or was rejected. */
export const GONE = -1;

/**
 * A scheduled task: the message the throttler queues for it, its entry in a
 * QUEUE_BATCH event and its queue entry in the dispatcher, all one object, so
 * a waiting task costs its promise and this (bench/README.md, W2).
 */
export class Task extends SelfQueuedMessage {
  /**
   * The target receives tasks as events. On the prototype, not a field: every field costs 8 bytes a waiting
   * task; `toJSON` keeps the type where inspectors and persisted snapshots serialise a task.
   */
  get type(): 'task' {
    return 'task';
  }

  /** What an inspector or a persisted snapshot shows of a task: an event of type 'task' (its function cannot be saved). */
  toJSON(): { type: 'task' } {
    return { type: 'task' };
  }
  /**
   * The hand-over it goes in (numbered by PendingTasks: below its `openBatch`, handed over), or
   * `GONE` once it started or was rejected: nothing may start or reject it from then on. A number,
   * not a stage written at every step: handing a batch over then costs O(1), not a pass over it.
   */
  batch = 0;
  // Declared, written only for a task with a signal (every field costs 8 bytes a waiting task, bench/README.md W2).
  /** The CANCEL key, when the task can be aborted: the task itself. */
  declare id: Task | undefined;
  resolve: (value: any) => void = settleNothing;
  reject: (reason: unknown) => void = settleNothing;
  /** The signal that may still abort it; undefined once it no longer can (declared: written only when given). */
  declare signal: AbortSignal | undefined;
  /** As given, read by the machine as the task is queued. Declared, written only when given (8 bytes a task each). */
  declare maxWait?: number | string | undefined;
  /** Its id, timeout and retry, when it was given any (declared: written only then). */
  declare plan: TaskPlan | undefined;
  /** Where it was scheduled, for a task with a timeout or a retry (caller-frames.ts; declared: written only then). */
  declare origin: Error | undefined;

  constructor(
    public run: (context: TaskContext) => unknown,
    public channel: string | undefined,
    /** As given until queued; the checked cost from then on (with dimensions, a vector: engine `Cost`). */
    public cost: number | { readonly [dimension: string]: number } | undefined,
  ) {
    super();
  }

  /** The task's priority and deadline as given (the machine checks them as it queues the task). */
  timing(priority: unknown, deadline: unknown, maxWait: unknown): void {
    // Only what is given is written: a field added to a few tasks costs those tasks alone.
    if (priority !== undefined) this.priority = priority as number;
    if (deadline !== undefined) this.deadline = deadline as number;
    if (maxWait !== undefined) this.maxWait = maxWait as number;
  }

  get gone(): boolean {
    return this.batch === GONE;
  }

  /** Rejected while the machine still holds it (its CANCEL may be in the mailbox): the machine drops it unsent. */
  override get withdrawn(): boolean {
    return this.batch === GONE;
  }

  /** The machine has queued it (dated it) at some point: it left the mailbox, if it was ever there. */
  get reachedQueue(): boolean {
    return this.queuedAt !== undefined;
  }

  /** Rejects it if it is still waiting; false when it had started or was rejected already. */
  fail(error: unknown, keeper: TaskKeeper): boolean {
    if (this.batch === GONE) return false;
    const reject = this.reject;
    this.leave(keeper);
    this.releaseSettlers();
    reject(withCallerFrames(error, this.origin));
    return true;
  }

  /**
   * It starts or is rejected: it lets go of its signal and its run function (the caller
   * took what it needs). The settling functions stay for a started task until it settles.
   */
  leave(keeper: TaskKeeper): void {
    const handedOver = keeper.handedOver(this);
    this.batch = GONE;
    keeper.left(this, handedOver);
    this.run = settleNothing;
  }

  /** Its promise has settled (or never will be): nothing to hold on to. */
  releaseSettlers(): void {
    this.resolve = settleNothing;
    this.reject = settleNothing;
  }
}

/** What keeps track of the tasks that may still start: told as each one leaves. */
export interface TaskKeeper {
  /** Handed to the throttler (it may still be in its mailbox) and neither started nor rejected. */
  handedOver(task: Task): boolean;
  /** `task` started or was rejected; `handedOver`: the throttler had it. Its signal, if any, is still set. */
  left(task: Task, handedOver: boolean): void;
}

/**
 * The waiting tasks of each AbortSignal, with one listener per signal. A
 * listener per task made a signal shared by n tasks cost O(n^2): removing an
 * event listener is linear in the signal's listeners. When the signal fires, all
 * its waiting tasks are handed over together, in the order they were scheduled.
 */
export class AbortWatch {
  private readonly bySignal = new WeakMap<AbortSignal, { tasks: Set<Task>; listener: () => void }>();

  constructor(private readonly onAbort: (tasks: Task[], reason: unknown) => void) {}

  watch(task: Task, signal: AbortSignal): void {
    task.signal = signal;
    let watched = this.bySignal.get(signal);
    if (watched === undefined) {
      const tasks = new Set<Task>();
      const listener = (): void => {
        this.bySignal.delete(signal);
        this.onAbort([...tasks], signal.reason);
      };
      watched = { tasks, listener };
      this.bySignal.set(signal, watched);
      signal.addEventListener('abort', listener, { once: true });
    }
    watched.tasks.add(task);
  }

  /** The task no longer waits on its signal; the signal's listener goes with its last task. */
  forget(task: Task): void {
    const signal = task.signal as AbortSignal;
    task.signal = undefined;
    const watched = this.bySignal.get(signal);
    if (watched === undefined) return;
    watched.tasks.delete(task);
    if (watched.tasks.size === 0) {
      this.bySignal.delete(signal);
      signal.removeEventListener('abort', watched.listener);
    }
  }
}
