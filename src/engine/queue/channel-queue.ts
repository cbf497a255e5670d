import type { IndexedHeap } from './indexed-heap.js';
import { Lane } from './lane.js';
import { levelOf, PRIORITY_LEVELS, placedAt, placedBefore, type QueuedMessage } from './queued-message.js';

/**
 * The messages of one channel (in FIFO mode, every message) in the order they
 * go: one lane per priority level, each in arrival order, and the head is the
 * lane head of lowest rank, `queuedAt − level × levelWorth` (a tie going to the
 * one that arrived first). A retry that keeps its place counts from its first
 * arrival (`place`, queued-message.ts): its rank is what its first attempt's
 * was. Every `levelWorth` ms a message waits is worth one level, so priority
 * reorders messages that arrived close together and never
 * holds one back for ever: one that has waited `9 × levelWorth` (maxPriorityWait)
 * goes before every message that arrives after that. Ranks are fixed on
 * arrival, so the order never changes by itself as time passes.
 *
 * Adding a message costs O(1) (within a lane a newcomer never goes first; a
 * retry costs O(log retries), lane.ts); taking one out costs O(lanes in use)
 * to find the next head, at most 10.
 */
export class ChannelQueue<TMessage> {
  /** The channel whose messages wait here (undefined: no channel, or FIFO mode's one queue). */
  readonly channel: string | undefined;
  /** Live messages waiting. */
  length = 0;
  /** The message that goes next; undefined when none waits. */
  head: QueuedMessage<TMessage> | undefined = undefined;
  /** The head's rank (see above). */
  headRank = 0;
  /** The message placed first in line (waiting longest, a retry from its first arrival); undefined when none waits. */
  oldest: QueuedMessage<TMessage> | undefined = undefined;

  /** Positions in the heaps of queues by oldest message and, per level, by what overflow looks at (kept by MessageQueues). */
  oldestSlot = -1;
  overflowSlots: number[] | undefined = undefined;
  /** Kept by HeadSchedule: the heap the head is filed in, its position there, and when its channel allows it. */
  scheduleSlot = -1;
  filedIn: IndexedHeap<ChannelQueue<TMessage>> | undefined = undefined;
  channelReadyAt = 0;
  /** Kept by HeadSchedule: the head (or its channel's state) changed since it was filed. */
  awaitingFile = false;
  /** Weighted fairness (fair-share.ts): the weight, the virtual start of the head (NaN: not yet), its finish tag. */
  weight = 1;
  virtualStart = Number.NaN;
  finishTag = 0;

  private readonly lanes: Array<Lane<TMessage> | undefined> = new Array(PRIORITY_LEVELS).fill(undefined);
  /** Bit n is set while lane n holds a message: only those lanes are looked at. */
  private occupied = 0;
  private readonly initialCapacity: number;
  private readonly levelWorth: number;

  constructor(channel: string | undefined, initialCapacity: number, levelWorth: number) {
    this.channel = channel;
    this.initialCapacity = initialCapacity;
    this.levelWorth = levelWorth;
  }

  /** Whether every message waiting here is of this one priority level (and one is). */
  holdsOnly(level: number): boolean {
    return this.occupied === 1 << level;
  }

  /** The lane of one priority level; undefined when none of that level ever waited here. */
  lane(level: number): Lane<TMessage> | undefined {
    return this.lanes[level];
  }

  /** Entries held, tombstones included (what the queue costs in memory). */
  get retained(): number {
    let entries = 0;
    for (const lane of this.lanes) entries += lane?.retained ?? 0;
    return entries;
  }

  /** Adds a message behind those of its level; true when it goes first (the head changed). */
  push(entry: QueuedMessage<TMessage>): boolean {
    const level = levelOf(entry);
    let lane = this.lanes[level];
    if (lane === undefined) {
      lane = new Lane<TMessage>(this.initialCapacity);
      this.lanes[level] = lane;
    }
    const first = lane.push(entry);
    this.length += 1;
    if (!first) return false;
    this.occupied |= 1 << level;
    if (this.oldest === undefined || placedBefore(entry, this.oldest)) this.oldest = entry;
    const rank = placedAt(entry) - level * this.levelWorth;
    // Equal ranks: the one placed first (the head, but for a retry) goes first.
    const head = this.head;
    if (
      head !== undefined &&
      head !== entry &&
      !(rank < this.headRank || (rank === this.headRank && placedBefore(entry, head)))
    )
      return false;
    this.head = entry;
    this.headRank = rank;
    return true;
  }

  /** Takes the head out. */
  shiftHead(): QueuedMessage<TMessage> {
    return this.shiftLane(levelOf(this.head as QueuedMessage<TMessage>));
  }

  /** Takes out the oldest message of one level (which must wait here). */
  shiftLane(level: number): QueuedMessage<TMessage> {
    const entry = (this.lanes[level] as Lane<TMessage>).shift() as QueuedMessage<TMessage>;
    this.left(level);
    return entry;
  }

  /** Takes out the newest message of one level (which must wait here). */
  popLane(level: number): QueuedMessage<TMessage> {
    const entry = (this.lanes[level] as Lane<TMessage>).pop() as QueuedMessage<TMessage>;
    this.left(level);
    return entry;
  }

  /**
   * Takes a live entry out from anywhere (cancelled, or expired). Returns true when it stays
   * behind as a tombstone (the caller may release what it holds).
   */
  remove(entry: QueuedMessage<TMessage>): boolean {
    const level = levelOf(entry);
    const tombstone = (this.lanes[level] as Lane<TMessage>).remove(entry);
    this.left(level);
    return tombstone;
  }

  /**
   * The live messages, a lane at a time (not in arrival order), and the first `perLane` of each lane among
   * them when it is given (Lane.live).
   */
  *entries(perLane = Number.POSITIVE_INFINITY): IterableIterator<QueuedMessage<TMessage>> {
    for (const lane of this.lanes) if (lane !== undefined) yield* lane.live(perLane);
  }

  /** Whether every live message is in one lane and no retry is held apart (then `entries` is in arrival order). */
  get inArrivalOrder(): boolean {
    if ((this.occupied & (this.occupied - 1)) !== 0) return false;
    return this.occupied === 0 || !(this.lanes[31 - Math.clz32(this.occupied)] as Lane<TMessage>).holdsRetries;
  }

  /** A message of `level` left: the head and the oldest are found again among the lane heads. */
  private left(level: number): void {
    this.length -= 1;
    if ((this.lanes[level] as Lane<TMessage>).length === 0) this.occupied &= ~(1 << level);
    let head: QueuedMessage<TMessage> | undefined;
    let headRank = 0;
    let oldest: QueuedMessage<TMessage> | undefined;
    for (let bits = this.occupied; bits !== 0; bits &= bits - 1) {
      const lowest = bits & -bits;
      const laneLevel = 31 - Math.clz32(lowest);
      const first = (this.lanes[laneLevel] as Lane<TMessage>).head as QueuedMessage<TMessage>;
      const rank = placedAt(first) - laneLevel * this.levelWorth;
      if (head === undefined || rank < headRank || (rank === headRank && placedBefore(first, head))) {
        head = first;
        headRank = rank;
      }
      if (oldest === undefined || placedBefore(first, oldest)) oldest = first;
    }
    this.head = head;
    this.headRank = headRank;
    this.oldest = oldest;
  }
}
