/**
 * How many tasks wait and how many run, as two counters moved by one at each step (never a scan of the
 * queue), and the promises and events that wait for them: `onIdle`, `onEmpty`, `onPendingZero`,
 * `onSizeLessThan(n)`, and 'active', 'empty', 'idle', 'completed', 'error'.
 *
 * Waiting (`size`): scheduled and neither started nor rejected, wherever the task is (this stretch's
 * batch, the machine's mailbox or queue, or the backoff before a retry). Running (`pending`): started
 * and not settled; a task that timed out is settled then. A task that starts is counted running before
 * it stops waiting, and a retry waiting before it stops running, so `idle` is never seen in between.
 */
import { ThrottlerOptionError } from '../rate/index.js';
import type { TaskEvents, TaskId } from './task-events.js';

export class TaskActivity {
  waiting = 0;
  running = 0;
  private idleWaiters: Array<() => void> = [];
  private emptyWaiters: Array<() => void> = [];
  private pendingZeroWaiters: Array<() => void> = [];
  /** Resolvers of `onSizeLessThan(n)` by n: only n = size + 1 can come true as one task leaves. */
  private readonly sizeWaiters = new Map<number, Array<() => void>>();

  constructor(private readonly events: TaskEvents) {}

  get isIdle(): boolean {
    return this.waiting === 0 && this.running === 0;
  }

  onIdle(): Promise<void> {
    if (this.isIdle) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  onEmpty(): Promise<void> {
    if (this.waiting === 0) return Promise.resolve();
    return new Promise((resolve) => this.emptyWaiters.push(resolve));
  }

  /** As p-queue's: resolves the moment `running` reaches 0, even if a waiting task starts right after. */
  onPendingZero(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.pendingZeroWaiters.push(resolve));
  }

  onSizeLessThan(limit: number): Promise<void> {
    if (typeof limit !== 'number' || !(limit >= 1) || !(Number.isSafeInteger(limit) || limit === Infinity)) {
      throw new ThrottlerOptionError('onSizeLessThan(limit)', 'a positive integer', limit);
    }
    if (this.waiting < limit) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.sizeWaiters.get(limit);
      if (waiters === undefined) this.sizeWaiters.set(limit, [resolve]);
      else waiters.push(resolve);
    });
  }

  /** A task was scheduled, or a failed attempt waits for its retry. */
  added(): void {
    this.waiting += 1;
  }

  /** A task stops waiting: it starts (after `starting`) or is rejected. */
  left(): void {
    this.waiting -= 1;
    if (this.sizeWaiters.size > 0) settleAll(this.sizeWaiters, this.waiting + 1);
    if (this.waiting > 0) return;
    if (this.emptyWaiters.length > 0) this.emptyWaiters = resolveAll(this.emptyWaiters);
    this.events.emit('empty');
    if (this.running === 0) this.becameIdle();
  }

  /** A task is about to start (before it stops waiting, if it waited). */
  starting(): void {
    this.running += 1;
  }

  started(id: TaskId | undefined): void {
    this.events.emit('active', id);
  }

  /** A started task settled (or timed out), with this outcome; a failed attempt that will retry is `added` first. */
  settled(failed: boolean, outcome: unknown, id: TaskId | undefined): void {
    this.running -= 1;
    if (failed) this.events.emit('error', outcome, id);
    else this.events.emit('completed', outcome, id);
    if (this.running === 0) this.becamePendingZero();
    if (this.isIdle) this.becameIdle();
  }

  /**
   * A task that settled inside the call that started it: counted running until the next microtask, as a
   * task settling later is (its promise settles in one), so `pending` reads the same on every path.
   */
  settledSoon(failed: boolean, outcome: unknown, id: TaskId | undefined): void {
    if (this.plainSoon === 0 && this.settlingSoon.length === 0) queueMicrotask(this.settleSoon);
    // A plain success (no outcome, no id), the most common, is counted in the run of them at the end: one addition.
    if (!failed && outcome === undefined && id === undefined) {
      this.plainSoon += 1;
      return;
    }
    if (this.plainSoon > 0) this.settlingSoon.push(this.plainSoon, undefined, undefined);
    this.plainSoon = 0;
    this.settlingSoon.push(failed, outcome, id);
  }

  /**
   * Outcomes of `settledSoon`, three entries each (failed, outcome, id), or (n, undefined, undefined) for a
   * run of n plain successes, and the run of them since the last entry (`plainSoon`): no object per task.
   */
  private settlingSoon: unknown[] = [];
  private plainSoon = 0;
  private readonly settleSoon = (): void => {
    const settling = this.settlingSoon;
    if (this.plainSoon > 0) settling.push(this.plainSoon, undefined, undefined);
    this.settlingSoon = [];
    this.plainSoon = 0;
    for (let at = 0; at < settling.length; at += 3) {
      const first = settling[at];
      if (typeof first !== 'number') {
        this.settled(first as boolean, settling[at + 1], settling[at + 2] as TaskId | undefined);
        continue;
      }
      let count = first;
      // Nobody hears 'completed': the run but its last settles as one step (`running` cannot reach 0 before it).
      if (!this.events.hears('completed')) {
        this.running -= count - 1;
        count = 1;
      }
      for (; count > 0; count--) this.settled(false, undefined, undefined);
    }
  };

  /** A started attempt failed and will run again: it waits now (counted so before it stops running). */
  retrying(): void {
    this.waiting += 1;
    this.running -= 1;
    if (this.running === 0) this.becamePendingZero();
  }

  private becamePendingZero(): void {
    if (this.pendingZeroWaiters.length > 0) this.pendingZeroWaiters = resolveAll(this.pendingZeroWaiters);
  }

  private becameIdle(): void {
    if (this.idleWaiters.length > 0) this.idleWaiters = resolveAll(this.idleWaiters);
    this.events.emit('idle');
  }
}

function resolveAll(waiters: Array<() => void>): Array<() => void> {
  for (const resolve of waiters) resolve();
  return [];
}

function settleAll(byLimit: Map<number, Array<() => void>>, limit: number): void {
  const waiters = byLimit.get(limit);
  if (waiters === undefined) return;
  byLimit.delete(limit);
  resolveAll(waiters);
}
