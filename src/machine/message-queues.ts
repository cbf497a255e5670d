import { ChannelQueue } from './channel-queue.js';
import { IndexedHeap } from './indexed-heap.js';
import type { Ordering, Overflow } from './options.js';
import { type QueuedMessage, SelfQueuedMessage } from './queued-message.js';

/** Why a message left the queue without being delivered. */
export type DropReason = 'drop-oldest' | 'drop-newest' | 'cancelled' | 'cost-exceeds-limit';

/** The counts a snapshot shows. */
export interface ThrottlerCounts {
  /** Waiting now. */
  queued: number;
  /** Sent to a target, ever. */
  delivered: number;
  /** Taken out of the queue undelivered (overflow, cancel, a cost that no longer fits), ever. */
  dropped: number;
  /** Refused on arrival (full queue with overflow 'reject', invalid cost or channel), ever. */
  rejected: number;
}

/** A message that left the queue undelivered, to be emitted as `dropped`. */
export interface DiscardedMessage<TMessage> {
  entry: QueuedMessage<TMessage>;
  reason: DropReason;
}

/** Several waiting messages under one CANCEL id, oldest first (a Set keeps insertion order). */
type SameIdEntries<TMessage> = Set<QueuedMessage<TMessage>>;

/**
 * Where messages wait: one queue (FIFO), or one per channel ('per-channel',
 * where a channel with nothing waiting holds no queue at all), the ids CANCEL
 * names them by, the overflow rule, the counts of queued, dropped and rejected
 * messages, and what was discarded since the machine last looked. It decides
 * nothing about time: which head goes next is the dispatcher's question, told
 * of every change of a queue's head through `headChanged`. What a message
 * goes through costs O(log channels) at most (amortised), never O(messages);
 * only `waiting` (for persistence and stop) looks at every message.
 */
export class MessageQueues<TMessage> {
  readonly counts: ThrottlerCounts = { queued: 0, delivered: 0, dropped: 0, rejected: 0 };
  /** Messages that left the queue undelivered since the machine last took them, to be emitted. */
  readonly discarded: DiscardedMessage<TMessage>[] = [];

  private readonly capacity: number;
  private readonly overflow: Overflow;
  /** FIFO mode's one queue; undefined in per-channel mode. */
  private readonly fifo: ChannelQueue<TMessage> | undefined;
  private readonly byChannel = new Map<string | undefined, ChannelQueue<TMessage>>();
  /** Per-channel mode: the queues by their oldest message (drop-oldest, and what a lost target reports). */
  private readonly byOldest = new IndexedHeap<ChannelQueue<TMessage>>((a, b) => a.headSeq < b.headSeq, {
    get: (queue) => queue.oldestSlot,
    set: (queue, slot) => (queue.oldestSlot = slot),
  });
  /** Per-channel mode with overflow 'drop-newest': the queues by their newest message. */
  private readonly byNewest: IndexedHeap<ChannelQueue<TMessage>> | undefined;
  private readonly byId = new Map<unknown, QueuedMessage<TMessage> | SameIdEntries<TMessage>>();
  private nextSeq = 0;
  private readonly headChanged: (queue: ChannelQueue<TMessage>) => void;

  /** `headChanged(queue)` runs whenever a queue's head changes, including when the queue empties. */
  constructor(
    options: { ordering: Ordering; capacity: number; overflow: Overflow },
    headChanged: (queue: ChannelQueue<TMessage>) => void = () => {},
  ) {
    this.capacity = options.capacity;
    this.overflow = options.overflow;
    this.headChanged = headChanged;
    this.fifo = options.ordering === 'fifo' ? new ChannelQueue<TMessage>(undefined, 16) : undefined;
    this.byNewest =
      this.fifo === undefined && options.overflow === 'drop-newest' && Number.isFinite(options.capacity)
        ? new IndexedHeap<ChannelQueue<TMessage>>((a, b) => a.tailSeq > b.tailSeq, {
            get: (queue) => queue.newestSlot,
            set: (queue, slot) => (queue.newestSlot = slot),
          })
        : undefined;
  }

  get isEmpty(): boolean {
    return this.counts.queued === 0;
  }

  /**
   * Queues a checked message and returns its entry. With a full queue, returns undefined
   * (rejected: the message is not queued) or queues it and records the displaced one in `discarded`.
   */
  enqueue(
    message: TMessage,
    channel: string | undefined,
    cost: number,
    id: unknown,
    now: number,
  ): QueuedMessage<TMessage> | undefined {
    if (this.counts.queued >= this.capacity) {
      if (this.overflow === 'reject') {
        this.counts.rejected += 1;
        return undefined;
      }
      const queue = this.overflow === 'drop-oldest' ? this.queueWithOldest() : this.queueWithNewest();
      if (queue !== undefined) this.discard(queue, this.overflow === 'drop-oldest' ? 'head' : 'tail', this.overflow);
    }
    let entry: QueuedMessage<TMessage>;
    // Only one never queued before: a restore from a live snapshot hands over messages another
    // throttler still holds as its entries, and those must stay untouched (they get an entry of their own).
    if (message instanceof SelfQueuedMessage && Number.isNaN(message.queuedAt)) {
      message.enter(this.nextSeq++, channel, cost, now, id);
      entry = message as QueuedMessage<TMessage>;
    } else {
      // Without a channel and an id (the common case) both fields are left out, and read as undefined:
      // every field costs 8 bytes a waiting message (bench/README.md, W2).
      entry = (
        channel === undefined && id === undefined
          ? { seq: this.nextSeq++, message, cost, queuedAt: now, cancelled: false }
          : { seq: this.nextSeq++, message, channel, cost, queuedAt: now, id, cancelled: false }
      ) as QueuedMessage<TMessage>;
    }
    let queue = this.queueOf(channel);
    if (queue === undefined) {
      queue = new ChannelQueue<TMessage>(channel, 4);
      this.byChannel.set(channel, queue);
    }
    queue.push(entry);
    if (queue.length === 1) this.headMoved(queue);
    this.byNewest?.update(queue);
    if (id !== undefined) this.rememberId(id, entry);
    this.counts.queued += 1;
    return entry;
  }

  /**
   * Takes a waiting message out by the id it was queued with, the oldest first
   * when several wait under one id; false when none does.
   */
  cancel(id: unknown): boolean {
    const held = this.byId.get(id);
    if (held === undefined) return false;
    let entry = held instanceof Set ? (held.values().next().value as QueuedMessage<TMessage>) : held;
    const queue = this.queueOf(entry.channel) as ChannelQueue<TMessage>;
    const wasHead = entry === queue.head;
    const wasTail = entry === queue.tail;
    this.forgetId(entry);
    if (queue.cancel(entry) && !(entry instanceof SelfQueuedMessage)) {
      // The tombstone stays in its queue for a while; the message it carried need not.
      const tombstone = entry as { message: TMessage | undefined };
      entry = { ...entry };
      tombstone.message = undefined;
    }
    this.afterRemoval(queue, wasHead, wasTail);
    this.counts.queued -= 1;
    this.counts.dropped += 1;
    this.discarded.push({ entry, reason: 'cancelled' });
    return true;
  }

  /** The queue messages of this channel wait in (in FIFO mode, the one queue); undefined when none waits there. */
  queueOf(channel: string | undefined): ChannelQueue<TMessage> | undefined {
    return this.fifo ?? this.byChannel.get(channel);
  }

  /** The message that has waited longest, left in place. */
  oldest(): QueuedMessage<TMessage> | undefined {
    return this.queueWithOldest()?.head;
  }

  /** Takes a queue's head out to be delivered. */
  take(queue: ChannelQueue<TMessage>): QueuedMessage<TMessage> {
    const entry = queue.shift() as QueuedMessage<TMessage>;
    this.forgetId(entry);
    this.afterRemoval(queue, true, queue.length === 0);
    this.counts.queued -= 1;
    return entry;
  }

  /** Takes a queue's head out undelivered, recording why in `discarded`. */
  discardHead(queue: ChannelQueue<TMessage>, reason: DropReason): void {
    this.discard(queue, 'head', reason);
  }

  /** The waiting messages in arrival order (for persistence and stop; O(n log n), never on a hot path). */
  waiting(): QueuedMessage<TMessage>[] {
    if (this.fifo !== undefined) return [...this.fifo];
    const all: QueuedMessage<TMessage>[] = [];
    for (const queue of this.byChannel.values()) for (const entry of queue) all.push(entry);
    return all.sort((a, b) => a.seq - b.seq);
  }

  /**
   * The first `limit` waiting messages in arrival order, for inspectors: they
   * are among the first `limit` of the `limit` queues with the oldest heads,
   * so this never looks at the whole queue nor at every channel.
   */
  firstWaiting(limit: number): QueuedMessage<TMessage>[] {
    const queues = this.fifo !== undefined ? [this.fifo] : this.byOldest.first(limit);
    const first: QueuedMessage<TMessage>[] = [];
    for (const queue of queues) {
      let taken = 0;
      for (const entry of queue) {
        if (taken++ === limit) break;
        first.push(entry);
      }
    }
    return first.sort((a, b) => a.seq - b.seq).slice(0, limit);
  }

  /** Queue entries held, tombstones included, and the queues holding them: what waiting costs in memory. */
  get retained(): { entries: number; queues: number } {
    if (this.fifo !== undefined) return { entries: this.fifo.retained, queues: 1 };
    let entries = 0;
    for (const queue of this.byChannel.values()) entries += queue.retained;
    return { entries, queues: this.byChannel.size };
  }

  private queueWithOldest(): ChannelQueue<TMessage> | undefined {
    const queue = this.fifo ?? this.byOldest.peek();
    return queue?.head === undefined ? undefined : queue;
  }

  private queueWithNewest(): ChannelQueue<TMessage> | undefined {
    const queue = this.fifo ?? this.byNewest?.peek();
    return queue?.tail === undefined ? undefined : queue;
  }

  private discard(queue: ChannelQueue<TMessage>, end: 'head' | 'tail', reason: DropReason): void {
    const wasTail = end === 'tail' || queue.length === 1;
    const entry = (end === 'head' ? queue.shift() : queue.pop()) as QueuedMessage<TMessage>;
    this.forgetId(entry);
    this.afterRemoval(queue, end === 'head' || queue.length === 0, wasTail);
    this.counts.queued -= 1;
    this.counts.dropped += 1;
    this.discarded.push({ entry, reason });
  }

  /** Keeps the heaps and the listener up to date after a message left `queue`; an empty queue is let go of. */
  private afterRemoval(queue: ChannelQueue<TMessage>, headMoved: boolean, tailMoved: boolean): void {
    if (queue.length === 0 && queue !== this.fifo) {
      this.byChannel.delete(queue.channel);
      this.byNewest?.remove(queue);
    } else if (tailMoved) {
      this.byNewest?.update(queue);
    }
    if (headMoved) this.headMoved(queue);
  }

  private headMoved(queue: ChannelQueue<TMessage>): void {
    if (queue !== this.fifo) {
      if (queue.length === 0) this.byOldest.remove(queue);
      else this.byOldest.update(queue);
    }
    this.headChanged(queue);
  }

  private rememberId(id: unknown, entry: QueuedMessage<TMessage>): void {
    const held = this.byId.get(id);
    if (held === undefined) this.byId.set(id, entry);
    else if (held instanceof Set) held.add(entry);
    else this.byId.set(id, new Set([held, entry]));
  }

  /** An id may be reused once its message is gone: only that entry is forgotten. */
  private forgetId(entry: QueuedMessage<TMessage>): void {
    if (entry.id === undefined) return;
    const held = this.byId.get(entry.id);
    if (held === entry) this.byId.delete(entry.id);
    else if (held instanceof Set && held.delete(entry)) {
      if (held.size === 1) this.byId.set(entry.id, held.values().next().value as QueuedMessage<TMessage>);
    }
  }
}
