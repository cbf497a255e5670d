import { IndexedHeap } from './indexed-heap.js';
import type { QueuedMessage } from './queued-message.js';

/**
 * The waiting messages that carry a deadline, the earliest first, so that the
 * one wake-up timer covers them too: the delivery pass asks `next` and arms the
 * timer for it if nothing is due sooner. An indexed heap rather than one with
 * lazy deletion: a message that leaves before its deadline (delivered,
 * cancelled, displaced) is taken out at once, in O(log n), so nothing stale is
 * held however long the deadlines are.
 */
export class Deadlines<TMessage> {
  private readonly heap = new IndexedHeap<QueuedMessage<TMessage>>(
    (a, b) => (a.deadline as number) < (b.deadline as number) || (a.deadline === b.deadline && a.seq < b.seq),
    {
      get: (entry) => entry.deadlineSlot ?? -1,
      set: (entry, slot) => {
        entry.deadlineSlot = slot;
      },
    },
  );

  /** Messages with a deadline waiting. */
  get size(): number {
    return this.heap.size;
  }

  /** The earliest deadline of a waiting message; Infinity when none has one. */
  get next(): number {
    return this.heap.peek()?.deadline ?? Number.POSITIVE_INFINITY;
  }

  /** A message with a deadline was queued. */
  add(entry: QueuedMessage<TMessage>): void {
    this.heap.push(entry);
  }

  /** A message left the queue (one without a deadline is not here, and nothing happens). */
  remove(entry: QueuedMessage<TMessage>): void {
    if (entry.deadline !== undefined) this.heap.remove(entry);
  }

  /**
   * A waiting message whose deadline is before `now` (or at it, when `atNowToo`: it was not
   * sent at `now`, so it never can be), left in place; undefined when there is none.
   */
  passed(now: number, atNowToo: boolean): QueuedMessage<TMessage> | undefined {
    const first = this.heap.peek();
    if (first === undefined) return undefined;
    const deadline = first.deadline as number;
    return deadline < now || (atNowToo && deadline === now) ? first : undefined;
  }
}
