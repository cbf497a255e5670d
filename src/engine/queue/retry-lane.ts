import { IndexedHeap } from './indexed-heap.js';
import { placedBefore, type QueuedMessage } from './queued-message.js';

/**
 * The retries of one lane that came back behind messages that arrived after them (lane.ts): each keeps
 * its first arrival's place (`placedBefore`), and they come back in the order their backoffs end, not
 * in that one. Two indexed heaps over the same entries give the one placed first (the lane's head side)
 * and the one placed last (its tail side, which overflow 'drop-newest' may give up), and take one out
 * from anywhere (a cancel, a deadline): O(log retries) each, never a pass over the lane.
 */
export class RetryLane<TMessage> {
  private readonly first = new IndexedHeap<QueuedMessage<TMessage>>(placedBefore, {
    get: (entry) => entry.placeSlot ?? -1,
    set: (entry, slot) => {
      entry.placeSlot = slot;
    },
  });
  private readonly last = new IndexedHeap<QueuedMessage<TMessage>>((a, b) => placedBefore(b, a), {
    get: (entry) => entry.lastPlaceSlot ?? -1,
    set: (entry, slot) => {
      entry.lastPlaceSlot = slot;
    },
  });

  get size(): number {
    return this.first.size;
  }

  /** The retry placed first; undefined when none waits. */
  get head(): QueuedMessage<TMessage> | undefined {
    return this.first.peek();
  }

  /** The retry placed last; undefined when none waits. */
  get tail(): QueuedMessage<TMessage> | undefined {
    return this.last.peek();
  }

  has(entry: QueuedMessage<TMessage>): boolean {
    return this.first.has(entry);
  }

  push(entry: QueuedMessage<TMessage>): void {
    this.first.push(entry);
    this.last.push(entry);
  }

  remove(entry: QueuedMessage<TMessage>): void {
    this.first.remove(entry);
    this.last.remove(entry);
  }

  /** The first `count` retries by place, for inspectors (O(count^2), whatever the size). */
  firstPlaced(count: number): QueuedMessage<TMessage>[] {
    return this.first.first(count);
  }

  /** Every retry waiting here, in no particular order. */
  *[Symbol.iterator](): IterableIterator<QueuedMessage<TMessage>> {
    yield* this.first;
  }
}
