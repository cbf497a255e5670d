import type { Cost } from '../rate/index.js';
import { weightOf } from './options/fairness-option.js';
import type { FeatureValue } from './options/feature-value.js';
import type { ChannelQueue } from './queue/channel-queue.js';
import type { QueuedMessage } from './queue/queued-message.js';

/**
 * Weighted fair queueing of the channels' and keys' heads (`fairness: 'weighted'`), by virtual finish
 * tags, self-clocked: a queue that becomes backlogged, or whose head just went, starts at the virtual
 * time (the largest tag that went so far, which is never below its own last tag), and its head's tag
 * is that start plus cost / weight. The schedule sends the smallest tag among the heads their own
 * channel allows, so over any stretch in which two queues stay backlogged, what each receives divided
 * by its weight differs by at most one message's cost / weight of each: each gets `w / Σw` of what
 * goes, within the largest cost L with two queues, within L × (1 + (n - 2) × w / Σw) with n (each other
 * queue may be a message ahead or behind, and its part of that falls on this one). A queue that waits for its own rate keeps the tag it was filed
 * with and goes first once allowed (one message of catching up, never more: its next start is the
 * virtual time). A head that changes (a higher priority arrived, the head was cancelled or expired)
 * keeps the start and takes its own cost, so priorities order within a key at no cost to the others.
 * O(1) per message on top of the schedule's heap. Tags are never saved: a restored throttler starts
 * them afresh, every key even.
 */
export class FairShare {
  /** The largest finish tag that went: where a queue that becomes backlogged starts. */
  virtualTime = 0;

  /** Tags a queue's head as it is filed (the head is the queue's; `weight` was set as the queue filled). */
  tag<TMessage>(queue: ChannelQueue<TMessage>, head: QueuedMessage<TMessage>): void {
    if (Number.isNaN(queue.virtualStart)) queue.virtualStart = this.virtualTime;
    queue.finishTag = queue.virtualStart + fairCost(head.cost) / queue.weight;
  }

  /** The queue's head is going: the virtual time moves on to its tag, and its next head starts afresh. */
  sent<TMessage>(queue: ChannelQueue<TMessage>): void {
    if (queue.finishTag > this.virtualTime) this.virtualTime = queue.finishTag;
    queue.virtualStart = Number.NaN;
  }
}

/** Of two heads allowed at the same time, whether `a` goes first under weighted fairness: the smaller tag. */
export function fairlyBefore<TMessage>(
  a: ChannelQueue<TMessage>,
  b: ChannelQueue<TMessage>,
  tie: (a: ChannelQueue<TMessage>, b: ChannelQueue<TMessage>) => boolean,
): boolean {
  return a.finishTag < b.finishTag || (a.finishTag === b.finishTag && tie(a, b));
}

/** What a message weighs for fairness: its cost, or with costs per dimension its largest one (tokens, not requests). */
export function fairCost(cost: Cost): number {
  if (typeof cost === 'number') return cost;
  let largest = 0;
  for (const one of cost) if (one > largest) largest = one;
  return largest;
}

/**
 * Weighted fairness as a feature value (options/features-option.ts): the finish tags and the weights asked.
 * The main entry loads it by itself; xstate-throttler/lean only with `features: [fairness]`, without which
 * `fairness: 'weighted'` is refused with what to import.
 */
export interface FairnessFeature extends FeatureValue<'fairness'> {
  /** A schedule's fair share, and its order of two heads allowed at once. */
  readonly share: () => FairShare;
  readonly before: typeof fairlyBefore;
  /** A key's or channel's weight, asked and checked (fairness-option.ts). */
  readonly weightOf: typeof weightOf;
}

const fairnessFeature: FairnessFeature = {
  feature: 'fairness',
  share: () => new FairShare(),
  before: fairlyBefore,
  weightOf,
};

/** Each backlogged channel or key its weighted share (`fairness: 'weighted'`): pass it in `features` to xstate-throttler/lean. */
export const fairness: FeatureValue<'fairness'> = fairnessFeature;
