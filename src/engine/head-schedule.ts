import { type Cost, costKey, ThrottlerOptionError } from '../rate/index.js';
import type { Clearance } from './clearance/clearance.js';
import type { FairnessFeature, FairShare } from './fair-share.js';
import type { ChannelQueue } from './queue/channel-queue.js';
import { type HeapSlot, IndexedHeap } from './queue/indexed-heap.js';
import { placedBefore, type QueuedMessage } from './queue/queued-message.js';

/** What the schedule needs to know about a queue head; the dispatcher answers from its policies. */
export interface HeadRules<TMessage> {
  /** Whether the head could ever go (its cost fits every limit in force). */
  fits(head: QueuedMessage<TMessage>): boolean;
  /** Takes a head that could never go out of its queue (its queue's head changes). */
  dropUnfit(queue: ChannelQueue<TMessage>): void;
  /**
   * When the head's channel alone lets it go: max(now, R), where R stays put
   * until that channel delivers, settles or gets a new rate (the caller then
   * calls `refile`).
   */
  channelAllows(head: QueuedMessage<TMessage>, now: number): number;
  /** When everything common to all heads (overall rate, pause, in-flight cap) lets a message of `cost` go. */
  othersAllow(cost: Cost, now: number): number;
}

/** Of two heads allowed at the same time, whether `a` goes first: the lower rank, then the earlier arrival (a retry's first). */
function goesBefore<TMessage>(a: ChannelQueue<TMessage>, b: ChannelQueue<TMessage>): boolean {
  if (a.headRank !== b.headRank) return a.headRank < b.headRank;
  return placedBefore(a.head as QueuedMessage<TMessage>, b.head as QueuedMessage<TMessage>);
}

/** The heads of one cost: the overall rate treats them all alike. */
interface CostGroup<TMessage> {
  /** Their cost (heads with equal costs in every dimension share a group). */
  readonly cost: Cost;
  /** Heads whose channel allows them already (R <= now), by rank, then arrival. */
  readonly ready: IndexedHeap<ChannelQueue<TMessage>>;
  /** Heads whose channel holds them back, by when it stops doing so. */
  readonly waiting: IndexedHeap<ChannelQueue<TMessage>>;
}

/**
 * Which queue head goes next in per-channel mode, in O(log channels) rather
 * than a look at every head: the head allowed earliest goes first, a tie going
 * to the one of lowest rank (priority aged by waiting, channel-queue.ts), then
 * to the one that arrived first. A head's time is the latest of what its channel
 * allows (R, fixed until the channel changes) and what the common rules allow
 * (the same for every head of one cost). So heads are grouped by cost (a few
 * costs, however many channels), and within a group those whose channel is
 * ready wait by rank and arrival, the others by R, moving across once time reaches R.
 * A queue whose head changed leaves its heap at once and is filed again at the
 * next `choose`. Edge case: a choice costs O(distinct costs waiting) as well.
 *
 * With weighted fairness (`fair`, fair-share.ts) the heads their channel allows are ordered by finish
 * tag instead, and the smallest tag among them goes next, at the time the common rules allow its cost:
 * a cheaper head of a larger tag does not overtake it (else a costly key could starve behind cheap
 * ones). Only when no channel allows its head does the earliest allowed go, as without fairness.
 */
export class HeadSchedule<TMessage> {
  /** The queue whose head `choose` picked; undefined when nothing waits. */
  chosen: ChannelQueue<TMessage> | undefined = undefined;

  private readonly rules: HeadRules<TMessage>;
  /** Weighted fairness: the virtual clock and tags; undefined without it. */
  private readonly fair: FairShare | undefined;
  /** Of two heads allowed at once, which goes first: by rank and arrival, or by tag. */
  private readonly before: (a: ChannelQueue<TMessage>, b: ChannelQueue<TMessage>) => boolean;
  private readonly groups = new Map<number | string, CostGroup<TMessage>>();
  private readonly unfiled: ChannelQueue<TMessage>[] = [];
  /** A queue is filed in one heap at a time, so the heaps of every group share one slot. */
  private readonly slot: HeapSlot<ChannelQueue<TMessage>> = {
    get: (queue) => queue.scheduleSlot,
    set: (queue, slot) => {
      queue.scheduleSlot = slot;
    },
  };

  constructor(rules: HeadRules<TMessage>, fair?: FairnessFeature) {
    this.rules = rules;
    this.fair = fair?.share();
    this.before = fair === undefined ? goesBefore : (a, b) => fair.before(a, b, goesBefore);
  }

  /** The chosen queue's head is about to be taken out to be sent (its tag is spent). */
  taking(queue: ChannelQueue<TMessage>): void {
    this.fair?.sent(queue);
  }

  /** The queue's head changed, or its channel's state did: it is filed afresh at the next `choose`. */
  refile(queue: ChannelQueue<TMessage>): void {
    // Out of its heap at once: a heap holding an item whose key changed in place can misplace others.
    queue.filedIn?.remove(queue);
    queue.filedIn = undefined;
    if (queue.awaitingFile) return;
    queue.awaitingFile = true;
    this.unfiled.push(queue);
  }

  /** Every head is filed afresh: after a change that may move any channel's part (a lowered limit, activation). */
  refileAll(): void {
    for (const group of this.groups.values()) {
      for (const queue of group.ready.clear()) this.unfile(queue);
      for (const queue of group.waiting.clear()) this.unfile(queue);
    }
    this.groups.clear();
  }

  /**
   * Files the heads that changed at `now`, then picks the head that goes next
   * (`chosen`) and returns when it may go: `now` when it may go at once,
   * Infinity when nothing waits or nothing can go until an event arrives.
   * Heads that could never go are dropped on the way.
   */
  choose(now: number): number {
    this.fileChanged(now);
    let best = Number.POSITIVE_INFINITY;
    let bestQueue: ChannelQueue<TMessage> | undefined;
    let fairest: ChannelQueue<TMessage> | undefined;
    for (const [key, group] of this.groups) {
      let waiting = group.waiting.peek();
      while (waiting !== undefined && waiting.channelReadyAt <= now) {
        group.waiting.pop();
        this.file(waiting, group.ready);
        waiting = group.waiting.peek();
      }
      const ready = group.ready.peek();
      const candidate = ready ?? waiting;
      if (candidate === undefined) {
        this.groups.delete(key);
        continue;
      }
      if (this.fair !== undefined && ready !== undefined) {
        if (fairest === undefined || this.before(ready, fairest)) fairest = ready;
        continue;
      }
      if (fairest !== undefined) continue;
      let at = this.rules.othersAllow(group.cost, now);
      if (ready === undefined) at = Math.max(at, candidate.channelReadyAt);
      if (bestQueue === undefined || at < best || (at === best && this.before(candidate, bestQueue))) {
        best = at;
        bestQueue = candidate;
      }
    }
    if (fairest !== undefined) {
      this.chosen = fairest;
      return this.rules.othersAllow((fairest.head as QueuedMessage<TMessage>).cost, now);
    }
    this.chosen = bestQueue;
    return best;
  }

  private fileChanged(now: number): void {
    for (let queue = this.unfiled.pop(); queue !== undefined; queue = this.unfiled.pop()) {
      queue.awaitingFile = false;
      const head = queue.head;
      if (head === undefined) continue;
      if (!this.rules.fits(head)) {
        this.rules.dropUnfit(queue);
        continue;
      }
      queue.channelReadyAt = this.rules.channelAllows(head, now);
      this.fair?.tag(queue, head);
      const group = this.groupFor(head.cost);
      this.file(queue, queue.channelReadyAt <= now ? group.ready : group.waiting);
    }
  }

  private file(queue: ChannelQueue<TMessage>, heap: IndexedHeap<ChannelQueue<TMessage>>): void {
    heap.push(queue);
    queue.filedIn = heap;
  }

  private unfile(queue: ChannelQueue<TMessage>): void {
    queue.filedIn = undefined;
    this.refile(queue);
  }

  private groupFor(cost: Cost): CostGroup<TMessage> {
    const key = typeof cost === 'number' ? cost : costKey(cost);
    let group = this.groups.get(key);
    if (group === undefined) {
      group = {
        cost,
        ready: new IndexedHeap(this.before, this.slot),
        waiting: new IndexedHeap(
          (a, b) => a.channelReadyAt < b.channelReadyAt || (a.channelReadyAt === b.channelReadyAt && this.before(a, b)),
          this.slot,
        ),
      };
      this.groups.set(key, group);
    }
    return group;
  }
}

/**
 * The time the next head may go (`schedule.chosen`), once the clearance confirms it. A store's channel
 * half is a time to ask again, which may have gone stale (a grant moved or given back): a head it no
 * longer lets go is filed afresh with its new answer and the next is chosen, each head once a call
 * (asked again at once it could only give the same answer: then that answer is the wait). O(stale
 * heads): each was filed with a time that passed. A clearance that answers at once is not asked again.
 */
export function chooseConfirmed<TMessage>(schedule: HeadSchedule<TMessage>, clearance: Clearance, now: number): number {
  let at = schedule.choose(now);
  if (at > now || clearance.answersAtOnce === true) return at;
  const asked = new Set<ChannelQueue<TMessage>>();
  while (at <= now) {
    const queue = schedule.chosen as ChannelQueue<TMessage>;
    const confirmed = clearance.clearAt(queue.head as QueuedMessage<TMessage>, now);
    if (confirmed <= now) return at;
    if (asked.has(queue)) return confirmed;
    asked.add(queue);
    schedule.refile(queue);
    at = schedule.choose(now);
  }
  return at;
}

/**
 * Per-channel ordering's schedule of queue heads over a clearance's two halves, refiling a
 * channel's head when its half changes. A clearance without halves cannot order per channel: a
 * ThrottlerOptionError says so.
 */
export function scheduleOver<TMessage>(
  clearance: Clearance,
  fair: FairnessFeature | undefined,
  queues: {
    queueOf(channel: string): ChannelQueue<TMessage> | undefined;
    discardHead(queue: ChannelQueue<TMessage>): void;
  },
): HeadSchedule<TMessage> {
  const halves = clearance.perChannel;
  if (halves === undefined) {
    throw new ThrottlerOptionError(
      fair !== undefined ? 'fairness' : 'ordering',
      `${fair !== undefined ? '"none"' : '"fifo"'} with this store (a reservation cannot be reordered)`,
      fair !== undefined ? 'weighted' : 'per-channel',
    );
  }
  const schedule = new HeadSchedule<TMessage>(
    {
      fits: (head) => clearance.fits(head),
      dropUnfit: (queue) => queues.discardHead(queue),
      channelAllows: (head, now) => halves.channelClearAt(head, now),
      othersAllow: (cost, now) => halves.commonClearAt(cost, now),
    },
    fair,
  );
  halves.channelChanged = (channel) => {
    if (channel === undefined) return;
    const queue = queues.queueOf(channel);
    if (queue !== undefined) schedule.refile(queue);
  };
  if ('allChanged' in halves) halves.allChanged = () => schedule.refileAll();
  return schedule;
}
