import type { FeatureValue } from '../options/feature-value.js';
import type { ChannelQueue } from './channel-queue.js';
import { IndexedHeap } from './indexed-heap.js';
import type { Lane } from './lane.js';
import { PRIORITY_LEVELS, placedBefore, type QueuedMessage } from './queued-message.js';

/** The overflow feature: what picks the message a full queue gives up (`overflow: 'drop-oldest'`, `'drop-newest'`). */
export interface OverflowFeature extends FeatureValue<'overflow'> {
  readonly choice: <TMessage>(oldest: boolean, perChannel: boolean) => OverflowChoice<TMessage>;
}

/**
 * `overflow: 'drop-oldest'` and `'drop-newest'` as a feature value: pass it in `features` to xstate-throttler/lean,
 * which refuses them without it (`'reject'`, the default, needs none); the main entry loads it by itself.
 */
export const overflow: FeatureValue<'overflow'> = {
  feature: 'overflow',
  choice: (oldest, perChannel) => new OverflowChoice(oldest, perChannel),
} as OverflowFeature;

/** Where the message a full queue gives up waits. */
export interface OverflowVictim<TMessage> {
  readonly queue: ChannelQueue<TMessage>;
  readonly level: number;
}

/**
 * Which waiting message a full queue gives up for a new one, with overflow
 * 'drop-oldest' or 'drop-newest': the oldest (or newest) message of the lowest
 * priority level that waits, so that a message is never displaced by one of
 * lower priority. A new message of lower priority than every waiting one is
 * refused instead (it would be the first to go). With one priority this is the
 * oldest (or newest) message, as without priorities.
 *
 * A count per level finds the lowest level in O(levels); in per-channel mode a
 * heap per level of the queues holding that level, by their oldest (or newest)
 * message of it, finds the queue in O(log channels).
 *
 * A retry that keeps its place is as old as its first arrival (`placedBefore`): 'drop-oldest' may give it
 * up before messages that arrived after its first attempt, 'drop-newest' gives those up first.
 */
export class OverflowChoice<TMessage> {
  private readonly waitingByLevel = new Array<number>(PRIORITY_LEVELS).fill(0);
  private readonly byLevel: Array<IndexedHeap<ChannelQueue<TMessage>>> | undefined;
  private readonly oldest: boolean;

  /** `oldest`: overflow 'drop-oldest' (else 'drop-newest'). */
  constructor(oldest: boolean, perChannel: boolean) {
    this.oldest = oldest;
    this.byLevel = perChannel
      ? Array.from({ length: PRIORITY_LEVELS }, (_, level) => this.heapOfLevel(level))
      : undefined;
  }

  /** `change` messages of `level` joined (+1) or left (-1) `queue`: the ends of its lane may have moved. */
  laneChanged(queue: ChannelQueue<TMessage>, level: number, change: number): void {
    this.waitingByLevel[level] = (this.waitingByLevel[level] as number) + change;
    const heap = this.byLevel?.[level];
    if (heap === undefined) return;
    if ((queue.lane(level)?.length ?? 0) === 0) heap.remove(queue);
    else heap.update(queue);
  }

  /**
   * The message to give up for a new one of `arriving` level, in `fifo` (FIFO mode's one queue)
   * or wherever it waits; undefined when the new one is to be refused.
   */
  victim(arriving: number, fifo: ChannelQueue<TMessage> | undefined): OverflowVictim<TMessage> | undefined {
    let level = 0;
    while (level < PRIORITY_LEVELS && this.waitingByLevel[level] === 0) level++;
    if (level === PRIORITY_LEVELS || arriving < level) return undefined;
    const queue = fifo ?? this.byLevel?.[level]?.peek();
    return queue === undefined ? undefined : { queue, level };
  }

  private heapOfLevel(level: number): IndexedHeap<ChannelQueue<TMessage>> {
    const endOf = (queue: ChannelQueue<TMessage>): QueuedMessage<TMessage> => {
      const lane = queue.lane(level) as Lane<TMessage>;
      return (this.oldest ? lane.head : lane.tail) as QueuedMessage<TMessage>;
    };
    return new IndexedHeap<ChannelQueue<TMessage>>(
      this.oldest ? (a, b) => placedBefore(endOf(a), endOf(b)) : (a, b) => placedBefore(endOf(b), endOf(a)),
      {
        get: (queue) => queue.overflowSlots?.[level] ?? -1,
        set: (queue, slot) => {
          if (queue.overflowSlots === undefined) queue.overflowSlots = new Array<number>(PRIORITY_LEVELS).fill(-1);
          queue.overflowSlots[level] = slot;
        },
      },
    );
  }
}
