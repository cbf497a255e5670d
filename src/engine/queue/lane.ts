import { Deque } from './deque.js';
import type { QueuedMessage } from './queued-message.js';

/**
 * The messages of one priority level of one channel queue, in arrival order.
 * Its first and last entries are always live: a message cancelled at either
 * end leaves at once. One cancelled in the middle stays as a tombstone, since
 * taking it out would be O(n), until the tombstones outnumber the live
 * messages and the queue is compacted: O(1) amortised per cancel, and never
 * more tombstones held than live messages (checked after every removal).
 */
export class Lane<TMessage> {
  /** Live messages waiting. */
  length = 0;
  private tombstones = 0;
  private readonly entries: Deque<QueuedMessage<TMessage>>;

  constructor(initialCapacity: number) {
    this.entries = new Deque(initialCapacity);
  }

  /** The oldest live message; undefined when none waits. */
  get head(): QueuedMessage<TMessage> | undefined {
    return this.entries.peekFirst();
  }

  /** The newest live message; undefined when none waits. */
  get tail(): QueuedMessage<TMessage> | undefined {
    return this.entries.peekLast();
  }

  /** Entries held, tombstones included (what the queue costs in memory). */
  get retained(): number {
    return this.entries.length;
  }

  push(entry: QueuedMessage<TMessage>): void {
    this.entries.push(entry);
    this.length += 1;
  }

  /** Takes the head out; the tombstones behind it go with it. */
  shift(): QueuedMessage<TMessage> | undefined {
    const entry = this.entries.shift();
    if (entry === undefined) return undefined;
    this.length -= 1;
    // Most lanes never hold a tombstone: nothing to look at behind the head then.
    if (this.tombstones === 0) return entry;
    while (this.entries.peekFirst()?.cancelled) {
      this.entries.shift();
      this.tombstones -= 1;
    }
    this.compactIfMostlyTombstones();
    return entry;
  }

  /** Takes the tail out; the tombstones before it go with it. */
  pop(): QueuedMessage<TMessage> | undefined {
    const entry = this.entries.pop();
    if (entry === undefined) return undefined;
    this.length -= 1;
    if (this.tombstones === 0) return entry;
    while (this.entries.peekLast()?.cancelled) {
      this.entries.pop();
      this.tombstones -= 1;
    }
    this.compactIfMostlyTombstones();
    return entry;
  }

  /**
   * Marks a live entry of this lane cancelled and takes it out (cancelled, or expired). Returns
   * true when it stays behind as a tombstone (the caller may release what it holds).
   */
  remove(entry: QueuedMessage<TMessage>): boolean {
    entry.cancelled = true;
    if (entry === this.entries.peekFirst()) {
      this.shift();
      return false;
    }
    if (entry === this.entries.peekLast()) {
      this.pop();
      return false;
    }
    this.length -= 1;
    this.tombstones += 1;
    return !this.compactIfMostlyTombstones();
  }

  /**
   * Drops every tombstone once they outnumber the live messages: the O(length)
   * pass then costs at most two steps per tombstone it drops. True when it ran.
   */
  private compactIfMostlyTombstones(): boolean {
    if (this.tombstones <= this.length) return false;
    this.entries.retain((held) => !held.cancelled);
    this.tombstones = 0;
    return true;
  }

  /** The live messages, oldest first. */
  *[Symbol.iterator](): IterableIterator<QueuedMessage<TMessage>> {
    for (const entry of this.entries) if (!entry.cancelled) yield entry;
  }
}
