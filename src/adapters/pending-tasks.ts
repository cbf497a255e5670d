/**
 * The tasks of one promise-API throttler that may still start: the signals
 * they wait on, and every task handed to the throttler that has neither
 * started nor been rejected, in the order they were handed over, which is the
 * order the throttler queues them in. That list is what `stop()` rejects: the
 * tasks in the throttler's queue and those still in its mailbox (sends made
 * while it is busy wait there, and stopping the actor clears the mailbox),
 * without asking the machine for its queue.
 *
 * O(1) a hand-over, whatever its size: the arrays handed over are kept as
 * they are (nothing is copied, no task is written), and where a task stands
 * is told by the number of the hand-over it went in (`Task.batch`): below
 * `openBatch` it was handed over, and while its hand-over's send is under way
 * the machine may not have reached it yet. A departure is one count: once they
 * are a good share of the list, the head moves on over those at the front (each
 * passed once) and, if others left further on (aborts), the list keeps only the
 * live tasks when those that left are half of it: O(1) amortised a task, and
 * what is held stays within a small factor of the tasks that may still start.
 */
import type { HandOverTracker } from './host.js';
import { AbortWatch, GONE, type Task, type TaskKeeper } from './task.js';

/** Below this many, departures from the middle are left in place: compacting would cost more than it saves. */
const MIN_COMPACTION = 32;

export class PendingTasks implements TaskKeeper, HandOverTracker<Task> {
  private readonly signals: AbortWatch;
  /** The arrays handed over, in order; from `head` (and `headIndex` in it) on, a task that has left is skipped. */
  private batches: Array<readonly Task[] | undefined> = [];
  private head = 0;
  private headIndex = 0;
  /** Entries held from the head on (tasks that left included, until the list is tidied). */
  private retained = 0;
  /** Departures since the list was last tidied, and how many make it tidy again. */
  private departed = 0;
  private tidyAt = MIN_COMPACTION;
  /** The number the next hand-over gets; a task scheduled now is in it. */
  private openBatch = 1;
  /** Hand-overs whose send is under way (a task's own pause/setRate/stop can send one inside another). */
  private readonly underWay: number[] = [];
  /** `rejectAll` took the list: nothing is tracked from then on. */
  private closed = false;

  constructor(
    onAbort: (tasks: Task[], reason: unknown) => void,
    /** Told as each task stops waiting (it started or was rejected): `size` is its count. */
    private readonly activity: { left(): void },
  ) {
    this.signals = new AbortWatch(onAbort);
  }

  /** Tasks entered that have neither started nor been rejected. */
  private live = 0;
  /** Of those, the ones not handed over yet (in the batch of this stretch). */
  private unsent = 0;

  /** Whether every task entered has started or been rejected (none waits anywhere: unsent, in the mailbox, queued). */
  get isEmpty(): boolean {
    return this.live === 0;
  }

  /** A new task is in the hand-over that goes next. */
  enter(task: Task): void {
    task.batch = this.openBatch;
    this.live += 1;
    this.unsent += 1;
  }

  /** Tasks scheduled and not handed over yet (the batch of this stretch, aborted ones left out): O(1). */
  get unsentCount(): number {
    return this.unsent;
  }

  /** The task is rejected (through `onAbort`) if `signal` fires while it may still start. */
  watch(task: Task, signal: AbortSignal): void {
    this.signals.watch(task, signal);
  }

  handedOver(task: Task): boolean {
    return task.batch !== GONE && task.batch < this.openBatch;
  }

  /** Not in the machine's hands yet: in the unsent batch, or in the event being sent but not reached. */
  inUnsentBatch(task: Task): boolean {
    if (task.batch === GONE) return false;
    return task.batch >= this.openBatch || (this.underWay.includes(task.batch) && !task.reachedQueue);
  }

  // HandOverTracker: the host tells just before and just after it sends a hand-over.
  sending(tasks: readonly Task[]): void {
    this.underWay.push(this.openBatch);
    this.openBatch += 1;
    // A hand-over holds every task of the stretch still live (the batch leaves out those that left).
    this.unsent = 0;
    if (this.closed || tasks.length === 0) return;
    this.batches.push(tasks);
    this.retained += tasks.length;
  }

  sent(): void {
    this.underWay.pop();
  }

  left(task: Task, handedOver: boolean): void {
    this.live -= 1;
    if (!handedOver) this.unsent -= 1;
    if (task.signal !== undefined) this.signals.forget(task);
    this.activity.left();
    if (!handedOver || this.closed) return;
    // One count a departure; the list is tidied once they are a good share of it (O(1) amortised).
    this.departed += 1;
    if (this.departed >= this.tidyAt) this.tidy();
  }

  /**
   * Rejects every task still handed over with `error` (`rejecting` told of each first), in the order
   * they were handed over, and stops tracking. Returns how many of them the throttler never queued (they were in its mailbox).
   */
  rejectAll(error: unknown, rejecting?: (task: Task) => void): number {
    const waiting = this.waiting();
    this.closed = true;
    this.batches = [];
    this.head = 0;
    this.headIndex = 0;
    this.retained = 0;
    this.departed = 0;
    let neverQueued = 0;
    for (const task of waiting) {
      const queued = task.reachedQueue;
      if (task.gone) continue;
      rejecting?.(task);
      if (task.fail(error, this) && !queued) neverQueued += 1;
    }
    return neverQueued;
  }

  /**
   * Moves the head on over the tasks that have left (each is passed once) and lets go of spent
   * hand-overs; when departures happened further on too (aborts), and the tasks that left are half
   * of what is held, keeps only the live ones.
   */
  private tidy(): void {
    const passed = this.passDeparted();
    if (this.retained === 0) {
      this.batches = [];
      this.head = 0;
    } else if (passed < this.departed && this.retained >= MIN_COMPACTION) {
      const live = this.waiting();
      if (2 * live.length <= this.retained) {
        this.batches = [live];
        this.head = 0;
        this.headIndex = 0;
        this.retained = live.length;
      }
    }
    if (this.head >= MIN_COMPACTION && 2 * this.head >= this.batches.length) {
      this.batches = this.batches.slice(this.head);
      this.head = 0;
    }
    this.departed = 0;
    this.tidyAt = Math.max(MIN_COMPACTION, this.retained >> 1);
  }

  /** Moves the head on over the tasks that have left; returns how many it passed. */
  private passDeparted(): number {
    const { batches } = this;
    let passed = 0;
    while (this.head < batches.length) {
      const batch = batches[this.head] as readonly Task[];
      while (this.headIndex < batch.length && (batch[this.headIndex] as Task).gone) {
        this.headIndex += 1;
        passed += 1;
      }
      if (this.headIndex < batch.length) break;
      batches[this.head] = undefined;
      this.head += 1;
      this.headIndex = 0;
    }
    this.retained -= passed;
    return passed;
  }

  /** The tasks handed over that have not left, in order (O(n): for a store's conflict, which fails them all). */
  waiting(): Task[] {
    const waiting: Task[] = [];
    for (let index = this.head; index < this.batches.length; index++) {
      const batch = this.batches[index] as readonly Task[];
      for (let at = index === this.head ? this.headIndex : 0; at < batch.length; at++) {
        const task = batch[at] as Task;
        if (!task.gone) waiting.push(task);
      }
    }
    return waiting;
  }
}
