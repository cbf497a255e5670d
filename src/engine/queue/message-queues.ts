import type { Cost } from '../../rate/index.js';
import { DEFAULT_MAX_PRIORITY_WAIT, type Ordering, type Overflow } from '../options/options.js';
import { ChannelQueue } from './channel-queue.js';
import { Deadlines } from './deadlines.js';
import { IndexedHeap } from './indexed-heap.js';
import type { Lane } from './lane.js';
import type { OverflowChoice, OverflowFeature } from './overflow-choice.js';
import {
  DEFAULT_PRIORITY,
  isWithdrawn,
  levelOf,
  type Place,
  PRIORITY_LEVELS,
  placedBefore,
  type QueuedMessage,
  queueEntry,
  SelfQueuedMessage,
} from './queued-message.js';

/** A waiting queue's oldest message (heaps of queues hold no empty one). */
function oldestOf<TMessage>(queue: ChannelQueue<TMessage>): QueuedMessage<TMessage> {
  return queue.oldest as QueuedMessage<TMessage>;
}

/** Sorts messages in their places in line (arrival, or a retry's first arrival). */
function inLine(a: QueuedMessage<unknown>, b: QueuedMessage<unknown>): number {
  return placedBefore(a, b) ? -1 : placedBefore(b, a) ? 1 : 0;
}

/** A CANCEL id only the library holds (the promise API's `clear()`): every waiting message goes. */
export const ALL_WAITING: unique symbol = Symbol('xstate-throttler all waiting');

/** Why a message left the queue without being delivered. */
export type DropReason = 'drop-oldest' | 'drop-newest' | 'cancelled' | 'cost-exceeds-limit' | 'expired';

/** The counts a snapshot shows. */
export interface ThrottlerCounts {
  /** Waiting now. */
  queued: number;
  /** Sent to a target, ever. */
  delivered: number;
  /** Taken out of the queue undelivered (overflow, cancel, a cost that no longer fits, a deadline), ever. */
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

/** What MessageQueues is built from: the options that shape where messages wait. */
export interface QueueOptions {
  ordering: Ordering;
  capacity: number;
  overflow: Overflow;
  /** How long a wait outweighs any priority (channel-queue.ts); default DEFAULT_MAX_PRIORITY_WAIT. */
  maxPriorityWait?: number;
  /** The overflow feature, which a capacity with overflow 'drop-oldest' or 'drop-newest' needs (options.ts checks). */
  features?: { readonly overflow?: OverflowFeature | undefined };
}

/**
 * Where messages wait: one queue (FIFO), or one per channel ('per-channel',
 * where a channel with nothing waiting holds no queue at all), each in the
 * order its messages go (priority, aged by waiting: channel-queue.ts), the
 * ids CANCEL names them by, their deadlines, the overflow rule, the counts of
 * queued, dropped and rejected messages, and what was discarded since the
 * machine last looked. It decides nothing about time: which head goes next is
 * the dispatcher's question, told of every change of a queue's head through
 * `headChanged`. What a message goes through costs O(log channels + log
 * deadlines) at most (amortised), never O(messages); only `waiting` (for
 * persistence and stop) looks at every message.
 */
export class MessageQueues<TMessage> {
  readonly counts: ThrottlerCounts = { queued: 0, delivered: 0, dropped: 0, rejected: 0 };
  /** Messages that left the queue undelivered since the machine last took them, to be emitted. */
  readonly discarded: DiscardedMessage<TMessage>[] = [];

  private readonly capacity: number;
  private readonly overflow: Overflow;
  private readonly levelWorth: number;
  /** FIFO mode's one queue; undefined in per-channel mode. */
  private readonly fifo: ChannelQueue<TMessage> | undefined;
  private readonly byChannel = new Map<string | undefined, ChannelQueue<TMessage>>();
  /** Per-channel mode: the queues by their oldest message (what a lost target reports, and inspectors). */
  private readonly byOldest = new IndexedHeap<ChannelQueue<TMessage>>(
    (a, b) => placedBefore(oldestOf(a), oldestOf(b)),
    {
      get: (queue) => queue.oldestSlot,
      set: (queue, slot) => (queue.oldestSlot = slot),
    },
  );
  /** With a capacity and overflow 'drop-oldest' or 'drop-newest': which message a full queue gives up. */
  private readonly overflowChoice: OverflowChoice<TMessage> | undefined;
  private readonly deadlines = new Deadlines<TMessage>();
  private readonly byId = new Map<unknown, QueuedMessage<TMessage> | SameIdEntries<TMessage>>();
  private nextSeq = 0;
  /** Set by `placeNext` for the next message queued only. */
  private nextPlaceAt: number | undefined = undefined;
  private readonly headChanged: (queue: ChannelQueue<TMessage>) => void;

  /** `headChanged(queue)` runs whenever a queue's head changes, including when the queue empties. */
  constructor(options: QueueOptions, headChanged: (queue: ChannelQueue<TMessage>) => void = () => {}) {
    this.capacity = options.capacity;
    this.overflow = options.overflow;
    this.levelWorth = (options.maxPriorityWait ?? DEFAULT_MAX_PRIORITY_WAIT) / (PRIORITY_LEVELS - 1);
    this.headChanged = headChanged;
    const perChannel = options.ordering !== 'fifo';
    this.fifo = perChannel ? undefined : new ChannelQueue<TMessage>(undefined, 16, this.levelWorth);
    this.overflowChoice =
      options.overflow !== 'reject' && Number.isFinite(options.capacity)
        ? (options.features?.overflow as OverflowFeature).choice<TMessage>(
            options.overflow === 'drop-oldest',
            perChannel,
          )
        : undefined;
  }

  get isEmpty(): boolean {
    return this.counts.queued === 0;
  }

  /** The earliest deadline of a waiting message; Infinity when none has one. */
  get nextDeadline(): number {
    return this.deadlines.next;
  }

  /**
   * Queues a checked message and returns its entry. With a full queue, returns undefined
   * (refused: the message is not queued) or queues it and records the displaced one in `discarded`.
   * A priority of undefined is the default; a deadline of undefined is none.
   */
  enqueue(
    message: TMessage,
    channel: string | undefined,
    cost: Cost,
    id: unknown,
    now: number,
    priority?: number,
    deadline?: number,
  ): QueuedMessage<TMessage> | undefined {
    if (this.counts.queued >= this.capacity) {
      const victim = this.overflowChoice?.victim(priority ?? DEFAULT_PRIORITY, this.fifo);
      if (victim === undefined) {
        this.counts.rejected += 1;
        return undefined;
      }
      const { queue, level } = victim;
      const lane = queue.lane(level) as Lane<TMessage>;
      const displaced = (this.overflow === 'drop-oldest' ? lane.head : lane.tail) as QueuedMessage<TMessage>;
      const wasHead = displaced === queue.head;
      if (this.overflow === 'drop-oldest') queue.shiftLane(level);
      else queue.popLane(level);
      this.detach(queue, displaced, wasHead, this.overflow as 'drop-oldest' | 'drop-newest');
    }
    const entry = this.placed(queueEntry(this.nextSeq++, message, channel, cost, now, id, priority, deadline), now);
    let queue = this.queueOf(channel);
    if (queue === undefined) {
      queue = new ChannelQueue<TMessage>(channel, 4, this.levelWorth);
      this.byChannel.set(channel, queue);
    }
    const wasEmpty = queue.length === 0;
    const headMoved = queue.push(entry);
    if (wasEmpty && queue !== this.fifo) this.byOldest.push(queue);
    else if (queue.oldest === entry && queue !== this.fifo) this.byOldest.update(queue);
    this.overflowChoice?.laneChanged(queue, levelOf(entry), 1);
    if (headMoved) this.headChanged(queue);
    if (deadline !== undefined) this.deadlines.add(entry);
    if (id !== undefined) this.rememberId(id, entry);
    this.counts.queued += 1;
    return entry;
  }

  /**
   * The next message queued takes its place in line from `at` (a restored retry's first arrival, at or
   * before the time it is queued), as a retry that keeps its place does (`QueuedMessage.place`).
   */
  placeNext(at: number): void {
    this.nextPlaceAt = at;
  }

  /**
   * A retry's place as it is queued: the one `placeNext` gave, or the one a self-queued message carries,
   * kept only if it lies in the past (`at` no later than now, `seq` taken already), else it queues at the back.
   */
  private placed(entry: QueuedMessage<TMessage>, now: number): QueuedMessage<TMessage> {
    const writable = entry as { place?: Place | undefined };
    if (this.nextPlaceAt !== undefined) {
      writable.place = { at: this.nextPlaceAt, seq: entry.seq };
      this.nextPlaceAt = undefined;
    }
    const place = entry.place;
    if (place !== undefined && !(place.at <= now && place.seq <= entry.seq)) writable.place = undefined;
    return entry;
  }

  /**
   * Takes a waiting message out by the id it was queued with, the oldest first
   * when several wait under one id; false when none does.
   */
  cancel(id: unknown): boolean {
    if (id === ALL_WAITING) {
      const waiting = this.waiting();
      for (const entry of waiting) this.drop(entry, 'cancelled');
      return waiting.length > 0;
    }
    const held = this.byId.get(id);
    if (held === undefined) return false;
    this.drop(held instanceof Set ? (held.values().next().value as QueuedMessage<TMessage>) : held, 'cancelled');
    return true;
  }

  /**
   * Drops every waiting message whose deadline is before `now` (and at `now` too, when `atNowToo`:
   * nothing more goes at `now`), recording each in `discarded`; true when one was dropped.
   */
  expire(now: number, atNowToo: boolean): boolean {
    // Asked on every arrival and every pass: most throttlers never see a deadline.
    if (this.deadlines.size === 0) return false;
    let expired = false;
    for (let entry = this.deadlines.passed(now, atNowToo); entry; entry = this.deadlines.passed(now, atNowToo)) {
      this.drop(entry, 'expired');
      expired = true;
    }
    return expired;
  }

  /** The queue messages of this channel wait in (in FIFO mode, the one queue); undefined when none waits there. */
  queueOf(channel: string | undefined): ChannelQueue<TMessage> | undefined {
    return this.fifo ?? this.byChannel.get(channel);
  }

  /** The message that has waited longest, left in place. */
  oldest(): QueuedMessage<TMessage> | undefined {
    return (this.fifo ?? this.byOldest.peek())?.oldest;
  }

  /** Takes a queue's head out to be delivered. */
  take(queue: ChannelQueue<TMessage>): QueuedMessage<TMessage> {
    const entry = queue.shiftHead();
    this.detach(queue, entry, true);
    return entry;
  }

  /** Takes a queue's head out undelivered, recording why in `discarded`. */
  discardHead(queue: ChannelQueue<TMessage>, reason: DropReason): void {
    this.detach(queue, queue.shiftHead(), true, reason);
  }

  /** Takes a queue's head out as cancelled if its sender took it back (`isWithdrawn`); whether it did. */
  discardWithdrawn(queue: ChannelQueue<TMessage>): boolean {
    if (!isWithdrawn(queue.head?.message)) return false;
    this.discardHead(queue, 'cancelled');
    return true;
  }

  /** The waiting messages in arrival order (for persistence and stop; O(n log n), never on a hot path). */
  waiting(): QueuedMessage<TMessage>[] {
    if (this.fifo?.inArrivalOrder) return [...this.fifo.entries()];
    const all: QueuedMessage<TMessage>[] = [];
    for (const queue of this.fifo === undefined ? this.byChannel.values() : [this.fifo])
      for (const entry of queue.entries()) all.push(entry);
    return all.sort(inLine);
  }

  /**
   * The first `limit` waiting messages in arrival order, for inspectors: they
   * are among the first `limit` of each lane of the `limit` queues with the
   * oldest messages, so this never looks at the whole queue nor at every channel.
   */
  firstWaiting(limit: number): QueuedMessage<TMessage>[] {
    const queues = this.fifo !== undefined ? [this.fifo] : this.byOldest.first(limit);
    const first: QueuedMessage<TMessage>[] = [];
    for (const queue of queues) for (const entry of queue.entries(limit)) first.push(entry);
    return first.sort(inLine).slice(0, limit);
  }

  /** Queue entries held, tombstones included, and the queues holding them: what waiting costs in memory. */
  get retained(): { entries: number; queues: number } {
    if (this.fifo !== undefined) return { entries: this.fifo.retained, queues: 1 };
    let entries = 0;
    for (const queue of this.byChannel.values()) entries += queue.retained;
    return { entries, queues: this.byChannel.size };
  }

  /** Takes a waiting message out from anywhere in its queue, undelivered, recording why in `discarded`. */
  private drop(entry: QueuedMessage<TMessage>, reason: DropReason): void {
    const queue = this.queueOf(entry.channel) as ChannelQueue<TMessage>;
    const wasHead = entry === queue.head;
    let dropped = entry;
    if (queue.remove(entry) && !(entry instanceof SelfQueuedMessage)) {
      // The tombstone stays in its queue for a while; the message it carried need not.
      const tombstone = entry as { message: TMessage | undefined };
      dropped = { ...entry };
      tombstone.message = undefined;
    }
    this.detach(queue, entry, wasHead, reason, dropped);
  }

  /**
   * A message left `queue` (already taken out of its lane; it was the head, or not): forgets its
   * id and deadline, keeps the heaps and the listener up to date, lets go of an empty queue, and
   * counts it, as dropped with `reason` (emitted with `dropped`, a copy when the entry stays as a tombstone).
   */
  private detach(
    queue: ChannelQueue<TMessage>,
    entry: QueuedMessage<TMessage>,
    wasHead: boolean,
    reason?: DropReason,
    dropped: QueuedMessage<TMessage> = entry,
  ): void {
    this.forgetId(entry);
    this.deadlines.remove(entry);
    this.overflowChoice?.laneChanged(queue, levelOf(entry), -1);
    if (queue !== this.fifo) {
      if (queue.length === 0) {
        this.byChannel.delete(queue.channel);
        this.byOldest.remove(queue);
      } else {
        this.byOldest.update(queue);
      }
    }
    // The head changes only when the head itself leaves: a message leaving from behind it leaves it in place.
    if (wasHead) this.headChanged(queue);
    this.counts.queued -= 1;
    if (reason === undefined) return;
    this.counts.dropped += 1;
    this.discarded.push({ entry: dropped, reason });
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
