/**
 * The tasks of one promise-API throttler that may still start: the signals
 * they wait on, and every task handed to the throttler that has neither
 * started nor been rejected, in the order they were handed over, which is the
 * order the throttler queues them in. That list is what `stop()` rejects: the
 * tasks in the throttler's queue and those still in its mailbox (sends made
 * while it is busy wait there, and stopping the actor clears the mailbox),
 * without asking the machine for its queue.
 *
 * O(1) a task: tasks mostly leave in the order they came, at the head of the
 * list; those that leave from further on are counted, and the list is
 * compacted once they are half of it.
 */
import type { HandOverTracker } from './host.js';
import { AbortWatch, type Task, type TaskKeeper } from './task.js';

/** Below this many, departures from the middle are left in place: compacting would cost more than it saves. */
const MIN_COMPACTION = 32;

export class PendingTasks implements TaskKeeper, HandOverTracker<Task> {
  private readonly signals: AbortWatch;
  /** Handed over, in order; from `head` on, a task that has left is skipped (and counted in `leftBehind`). */
  private tasks: Task[] = [];
  private head = 0;
  private leftBehind = 0;
  /** `rejectAll` took the list: nothing is tracked from then on. */
  private closed = false;

  constructor(onAbort: (tasks: Task[], reason: unknown) => void) {
    this.signals = new AbortWatch(onAbort);
  }

  /** The task is rejected (through `onAbort`) if `signal` fires while it may still start. */
  watch(task: Task, signal: AbortSignal): void {
    this.signals.watch(task, signal);
  }

  sending(tasks: readonly Task[]): void {
    if (this.closed) return;
    if (this.head === this.tasks.length && tasks.every(isNew)) {
      // Nothing tracked (a burst into an idle throttler): a copy of the exact size, no growing slack.
      for (let index = 0; index < tasks.length; index++) (tasks[index] as Task).stage = 'sending';
      this.tasks = tasks.slice();
      this.head = 0;
      return;
    }
    for (let index = 0; index < tasks.length; index++) {
      const task = tasks[index] as Task;
      if (task.stage !== 'new') continue;
      task.stage = 'sending';
      this.tasks.push(task);
    }
  }

  sent(tasks: readonly Task[]): void {
    for (let index = 0; index < tasks.length; index++) {
      const task = tasks[index] as Task;
      if (task.stage === 'sending') task.stage = 'sent';
    }
  }

  left(task: Task, handedOver: boolean): void {
    if (task.signal !== undefined) this.signals.forget(task);
    if (!handedOver || this.closed) return;
    const { tasks } = this;
    this.leftBehind += 1;
    while (this.head < tasks.length && (tasks[this.head] as Task).gone) {
      this.head += 1;
      this.leftBehind -= 1;
    }
    const length = tasks.length - this.head;
    if (length === 0) {
      this.tasks = [];
      this.head = 0;
    } else if (this.leftBehind >= MIN_COMPACTION && 2 * this.leftBehind >= length) {
      this.tasks = tasks.filter((waiting, index) => index >= this.head && !waiting.gone);
      this.head = 0;
      this.leftBehind = 0;
    } else if (this.head >= MIN_COMPACTION && 2 * this.head >= tasks.length) {
      // The departed head is let go of once it is half of the list: each task is copied O(1) times.
      this.tasks = tasks.slice(this.head);
      this.head = 0;
    }
  }

  /**
   * Rejects every task still handed over with `error`, in the order they were handed over, and
   * stops tracking. Returns how many of them the throttler never queued (they were in its mailbox).
   */
  rejectAll(error: unknown): number {
    const { tasks, head } = this;
    this.closed = true;
    this.tasks = [];
    this.head = 0;
    this.leftBehind = 0;
    let neverQueued = 0;
    for (let index = head; index < tasks.length; index++) {
      const task = tasks[index] as Task;
      const queued = task.reachedQueue;
      if (task.fail(error, this) && !queued) neverQueued += 1;
    }
    return neverQueued;
  }
}

function isNew(task: Task): boolean {
  return task.stage === 'new';
}
