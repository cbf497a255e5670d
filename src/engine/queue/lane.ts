import { Deque } from './deque.js';
import { placedBefore, type QueuedMessage } from './queued-message.js';
import { RetryLane } from './retry-lane.js';

/**
 * The messages of one priority level of one channel queue, in the order they stand in line (arrival, or a
 * retry's first arrival: `placedBefore`). Its first and last entries are always live: a message cancelled at
 * either end leaves at once. One cancelled in the middle stays as a tombstone, since taking it out would be
 * O(n), until the tombstones outnumber the live messages and the queue is compacted: O(1) amortised per
 * cancel, and never more tombstones held than live messages (checked after every removal).
 *
 * A retry that keeps its place (retry-lane.ts) and comes back before the newest message waiting here is
 * held apart, by place, and the lane's head is the first of the two: O(log retries) for a retry, and a
 * message that is no retry still costs O(1).
 */
export class Lane<TMessage> {
  /** Live messages waiting (retries held apart included). */
  length = 0;
  private tombstones = 0;
  private readonly entries: Deque<QueuedMessage<TMessage>>;
  /** Retries placed before the newest message in `entries` as they came back; undefined until one does. */
  private retries: RetryLane<TMessage> | undefined = undefined;

  constructor(initialCapacity: number) {
    this.entries = new Deque(initialCapacity);
  }

  /** The live message placed first; undefined when none waits. */
  get head(): QueuedMessage<TMessage> | undefined {
    const first = this.entries.peekFirst();
    const retry = this.retries?.head;
    return retry !== undefined && (first === undefined || placedBefore(retry, first)) ? retry : first;
  }

  /** The live message placed last; undefined when none waits. */
  get tail(): QueuedMessage<TMessage> | undefined {
    const last = this.entries.peekLast();
    const retry = this.retries?.tail;
    return retry !== undefined && (last === undefined || placedBefore(last, retry)) ? retry : last;
  }

  /** Entries held, tombstones included (what the queue costs in memory). */
  get retained(): number {
    return this.entries.length + (this.retries?.size ?? 0);
  }

  /** Whether a retry is held apart (then the lane's order is not its entries' order). */
  get holdsRetries(): boolean {
    return (this.retries?.size ?? 0) > 0;
  }

  /** Adds a message in its place; true when it goes first in this lane. */
  push(entry: QueuedMessage<TMessage>): boolean {
    this.length += 1;
    // A message that is no retry arrived after every other (a retry's place is earlier): O(1), the common case.
    if (entry.place === undefined) {
      this.entries.push(entry);
      return this.length === 1;
    }
    const last = this.entries.peekLast();
    if (last === undefined || !placedBefore(entry, last)) {
      this.entries.push(entry);
      return this.head === entry;
    }
    this.retries ??= new RetryLane<TMessage>();
    this.retries.push(entry);
    return this.head === entry;
  }

  /** Takes the head out; the tombstones behind it go with it. */
  shift(): QueuedMessage<TMessage> | undefined {
    const retry = this.retries?.head;
    if (retry !== undefined && retry === this.head) {
      this.takeRetry(retry);
      return retry;
    }
    return this.shiftEntries();
  }

  /** Takes the tail out; the tombstones before it go with it. */
  pop(): QueuedMessage<TMessage> | undefined {
    const retry = this.retries?.tail;
    if (retry !== undefined && retry === this.tail) {
      this.takeRetry(retry);
      return retry;
    }
    return this.popEntries();
  }

  private shiftEntries(): QueuedMessage<TMessage> | undefined {
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

  private popEntries(): QueuedMessage<TMessage> | undefined {
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
    if (this.retries?.has(entry)) {
      this.takeRetry(entry);
      return false;
    }
    if (entry === this.entries.peekFirst()) {
      this.shiftEntries();
      return false;
    }
    if (entry === this.entries.peekLast()) {
      this.popEntries();
      return false;
    }
    this.length -= 1;
    this.tombstones += 1;
    return !this.compactIfMostlyTombstones();
  }

  private takeRetry(entry: QueuedMessage<TMessage>): void {
    (this.retries as RetryLane<TMessage>).remove(entry);
    this.length -= 1;
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

  /**
   * The live messages, those in arrival order first, then the retries held apart (by place only when
   * `count` is given: the first `count` of each, for inspectors).
   */
  *live(count = Number.POSITIVE_INFINITY): IterableIterator<QueuedMessage<TMessage>> {
    let taken = 0;
    for (const entry of this.entries) {
      if (taken === count) break;
      if (entry.cancelled) continue;
      taken += 1;
      yield entry;
    }
    if (this.retries === undefined) return;
    if (count === Number.POSITIVE_INFINITY) yield* this.retries;
    else yield* this.retries.firstPlaced(count);
  }

  /** The live messages (see `live`). */
  [Symbol.iterator](): IterableIterator<QueuedMessage<TMessage>> {
    return this.live();
  }
}
