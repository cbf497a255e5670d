import { createPolicy, type PolicyState, type ThrottlePolicy } from '../policies/index.js';
import { type Rate, ThrottlerOptionError, validateCost } from '../rate/index.js';
import type { ChannelQueue } from './channel-queue.js';
import { HeadSchedule } from './head-schedule.js';
import { InFlightDeliveries } from './in-flight.js';
import { type DiscardedMessage, MessageQueues, type ThrottlerCounts } from './message-queues.js';
import { type ResolvedOptions, tracksInFlight, unknownChannelError } from './options.js';
import {
  type DispatcherState,
  PERSISTED_FORMAT,
  type PersistedDispatcher,
  type RestoredState,
} from './persisted-format.js';
import type { QueuedMessage } from './queued-message.js';

export type { DropReason, ThrottlerCounts } from './message-queues.js';

/**
 * The queue side of the machine: which waiting message goes next and when.
 * The messages wait in MessageQueues; the time comes from the policies
 * (overall and per channel), never computed here. Mutable on purpose, and only
 * ever touched from the machine's own actions: copying a queue per event is O(n^2).
 */
export class Dispatcher<TMessage> {
  private readonly options: ResolvedOptions;
  /** The rates in force (SET_RATE changes them), overall and per channel: what a restore must rebuild. */
  private rates: Rate[];
  private readonly channelRates: Map<string, Rate[]>;
  private readonly overall: ThrottlePolicy<PolicyState>;
  private readonly channelPolicies = new Map<string, ThrottlePolicy<PolicyState>>();
  private readonly queues: MessageQueues<TMessage>;
  /** Per-channel mode: which queue head goes next (FIFO mode has one head and asks the policies directly). */
  private readonly schedule: HeadSchedule<TMessage> | undefined;
  private pausedUntil = Number.NEGATIVE_INFINITY;
  /** Deliveries sent and not yet settled (tracked only with maxConcurrent or countUntil 'done'). */
  private readonly inFlight = new InFlightDeliveries();
  private readonly tracksInFlight: boolean;
  /** What the last `nextDeliveryTime` found: the queue whose head goes next. */
  private candidateQueue: ChannelQueue<TMessage> | undefined;

  /** The time line the machine schedules on (the checked `now`), to move saved times off and back onto it. */
  private readonly readNow: () => number;

  constructor(options: ResolvedOptions, now: number, readNow: () => number = options.now) {
    this.options = options;
    this.readNow = readNow;
    this.rates = options.rates;
    this.channelRates = new Map(options.channels);
    this.overall = createPolicy(options.strategy, options.rates, options.strategyOptions, now);
    for (const [name, rates] of options.channels) {
      this.channelPolicies.set(name, createPolicy(options.strategy, rates, options.strategyOptions, now));
    }
    const schedule =
      options.ordering === 'per-channel'
        ? new HeadSchedule<TMessage>({
            fits: (head) => head.cost <= this.smallestLimitFor(head.channel),
            dropUnfit: (queue) => this.queues.discardHead(queue, 'cost-exceeds-limit'),
            channelAllows: (head, now) => this.channelEarliest(head.channel, head.cost, now),
            othersAllow: (cost, now) => this.commonEarliest(cost, now),
          })
        : undefined;
    this.schedule = schedule;
    this.queues = new MessageQueues<TMessage>(
      options,
      schedule === undefined ? undefined : (queue) => schedule.refile(queue),
    );
    this.tracksInFlight = tracksInFlight(options);
    // XState's getPersistedSnapshot walks context objects key by key and replaces any that reach an
    // actor ref (a message's replyTo) with a plain copy: that copy has no toJSON and would walk the
    // whole queue. With the fields hidden from for..in the walk stops here and JSON uses toJSON.
    for (const key of Object.keys(this)) Object.defineProperty(this, key, { enumerable: false });
  }

  /** The counts a snapshot shows; the machine adds the rejections it finds itself. */
  get counts(): ThrottlerCounts {
    return this.queues.counts;
  }

  /** Messages that left the queue undelivered since the machine last took them, to be emitted. */
  get discarded(): DiscardedMessage<TMessage>[] {
    return this.queues.discarded;
  }

  /** Deliveries not yet settled. */
  get inFlightCount(): number {
    return this.inFlight.count;
  }

  get isEmpty(): boolean {
    return this.queues.isEmpty;
  }

  /** Checks a message's channel and cost before it is queued; throws a ThrottlerOptionError. */
  checkMessage(channel: unknown, cost: unknown): number {
    let smallestLimit = this.overall.smallestLimit;
    if (channel !== undefined) {
      const policy = typeof channel === 'string' ? this.channelPolicies.get(channel) : undefined;
      if (policy === undefined) throw unknownChannelError(channel, this.channelPolicies.keys());
      smallestLimit = Math.min(smallestLimit, policy.smallestLimit);
    }
    return validateCost(cost ?? 1, smallestLimit);
  }

  /**
   * Queues a checked message. With a full queue, returns 'rejected' (the message
   * is not queued) or queues it and records the displaced one in `discarded`.
   */
  enqueue(
    message: TMessage,
    channel: string | undefined,
    cost: number,
    id: unknown,
    now: number,
  ): 'queued' | 'rejected' {
    return this.queues.enqueue(message, channel, cost, id, now);
  }

  /**
   * Takes a waiting message out by the id it was queued with; false when none
   * waits under that id. Several may wait under one id: the oldest goes first.
   */
  cancel(id: unknown): boolean {
    return this.queues.cancel(id);
  }

  /**
   * When the next message may go (>= now), remembering which one it is;
   * Infinity when nothing waits or nothing can go until an event arrives.
   */
  nextDeliveryTime(now: number): number {
    if (this.schedule !== undefined) {
      const at = this.schedule.choose(now);
      this.candidateQueue = this.schedule.chosen;
      return at;
    }
    const queue = this.queues.queueOf(undefined) as ChannelQueue<TMessage>;
    this.candidateQueue = undefined;
    for (let head = queue.head; head !== undefined; head = queue.head) {
      if (head.cost <= this.smallestLimitFor(head.channel)) {
        this.candidateQueue = queue;
        return this.earliestFor(head.channel, head.cost, now);
      }
      // SET_RATE lowered a limit below this message's cost: it could never go.
      this.queues.discardHead(queue, 'cost-exceeds-limit');
    }
    return Number.POSITIVE_INFINITY;
  }

  /** The message `nextDeliveryTime` found, still in its queue. */
  peekCandidate(): QueuedMessage<TMessage> | undefined {
    return this.candidateQueue?.head;
  }

  /**
   * Takes the message `nextDeliveryTime` found out of the queue; the caller
   * sends it and then records the delivery (`recordDelivery`) at the time it went.
   */
  takeCandidate(): QueuedMessage<TMessage> {
    const entry = this.queues.take(this.candidateQueue as ChannelQueue<TMessage>);
    this.candidateQueue = undefined;
    return entry;
  }

  /** A message that arrived at `requestedAt` went to the target at `now`, from the queue or straight through. */
  recordDelivery(channel: string | undefined, cost: number, now: number, requestedAt: number): void {
    this.recordStart(channel, cost, now, requestedAt);
    this.counts.delivered += 1;
  }

  /**
   * Whether a message of this channel and cost could go right now with nothing
   * ahead of it (the caller checked the queue is empty). Invalid channels and
   * costs answer false so that the normal path reports them.
   */
  allowsNow(channel: string | undefined, cost: unknown, now: number): boolean {
    if (!Number.isInteger(cost) || (cost as number) < 1 || (cost as number) > this.smallestLimitFor(channel))
      return false;
    if (channel !== undefined && (typeof channel !== 'string' || !this.channelPolicies.has(channel))) return false;
    return this.earliestFor(channel, cost as number, now) <= now;
  }

  /** Whether the wake-up timer is armed for the exact moment rather than whole milliseconds. */
  get wakesExactly(): boolean {
    return this.options.timerPrecision === 'exact';
  }

  /** Most deliveries in one go before the machine yields to the event loop. */
  get maxDeliveriesPerTurn(): number {
    return this.options.maxDeliveriesPerTurn;
  }

  /** Whether the strategy starts something when the throttler becomes active (the timer's tick period). */
  get startsPeriodsOnActivation(): boolean {
    return this.options.strategy === 'timer';
  }

  /**
   * Whether a message of this channel may go while the throttler stays `idle`,
   * without the activation that `active` begins with. Yes unless that activation
   * would start something: the timer's tick period starts when the throttler
   * becomes active (Akka), so a message that would open a new period goes
   * through `active`; one inside the running period of the latest delivery
   * (the common case at a high rate) need not. A question: changes nothing.
   */
  mayDeliverWhileIdle(channel: unknown, now: number): boolean {
    if (this.overall.activationStartsPeriod?.(now)) return false;
    const channelPolicy = typeof channel === 'string' ? this.channelPolicies.get(channel) : undefined;
    return !channelPolicy?.activationStartsPeriod?.(now);
  }

  /**
   * Takes a permit now if one is free and nothing waits ahead of it: 0. Otherwise
   * takes nothing and returns how many ms until one may be free (at least).
   */
  tryAcquire(channel: string | undefined, cost: number, now: number): number {
    this.activate(now);
    if (!this.isEmpty) {
      // Queued messages go first; the permit can be free no sooner than the next of them has gone.
      return Math.max(this.nextDeliveryTime(now) - now, 1);
    }
    const at = this.earliestFor(channel, cost, now);
    if (at > now) return at - now;
    this.recordStart(channel, cost, now);
    return 0;
  }

  /**
   * A delivery sent earlier has settled (SETTLED event): it leaves the in-flight
   * count and, with countUntil 'done', enters the window now. It must match a
   * delivery in flight by channel and cost; otherwise nothing changes and a
   * ThrottlerOptionError says why (a wrong or repeated settle must never open
   * the window, nor hold a slot forever).
   */
  settle(channel: unknown, cost: unknown, now: number): void {
    if (!this.tracksInFlight) {
      throw new ThrottlerOptionError(
        'SETTLED',
        'sent only with maxConcurrent or countUntil "done" (nothing else is tracked in flight)',
        { channel, cost },
      );
    }
    if (channel !== undefined && typeof channel !== 'string') {
      throw new ThrottlerOptionError('channel', 'the channel of a delivery in flight, or undefined', channel);
    }
    const settled = cost ?? 1;
    if (typeof settled !== 'number' || !Number.isSafeInteger(settled) || settled <= 0) {
      throw new ThrottlerOptionError('cost', 'the positive integer cost of a delivery in flight', cost);
    }
    if (!this.inFlight.settle(channel, settled)) {
      throw new ThrottlerOptionError(
        'SETTLED',
        `the channel and cost of a delivery in flight (in flight: ${this.inFlight.describe()})`,
        { channel, cost: settled },
      );
    }
    if (this.options.countUntil === 'done') {
      this.overall.releaseInFlight?.(now, settled);
      if (channel !== undefined) this.channelPolicies.get(channel)?.releaseInFlight?.(now, settled);
      this.channelChanged(channel);
    }
  }

  /** The throttler became active: voucher periods start now. */
  activate(now: number): void {
    this.overall.activate(now);
    for (const policy of this.channelPolicies.values()) policy.activate(now);
    // A voucher period that starts afresh may free a channel sooner than its waiting head was filed for.
    this.schedule?.refileAll();
  }

  /** Replaces the overall rates, or one channel's; an unknown channel is an error. */
  setRates(rates: Rate[], channel: string | undefined, now: number): void {
    if (channel === undefined) {
      this.overall.setRates(rates, now);
      this.rates = rates;
      // A lowered limit may leave heads of every channel that can never go: each is looked at again.
      this.schedule?.refileAll();
      return;
    }
    const policy = this.channelPolicies.get(channel);
    if (policy === undefined) this.checkMessage(channel, 1);
    policy?.setRates(rates, now);
    this.channelRates.set(channel, rates);
    this.channelChanged(channel);
  }

  /** Nothing is delivered before `until` (Infinity: until resumed). */
  pause(until: number): void {
    this.pausedUntil = until;
  }

  resume(): void {
    this.pausedUntil = Number.NEGATIVE_INFINITY;
  }

  /** The waiting messages in arrival order (for inspection and persistence; O(n), never on a hot path). */
  waiting(): QueuedMessage<TMessage>[] {
    return this.queues.waiting();
  }

  /**
   * A short account of the queue for inspectors and logs: the counts and the
   * first `limit` waiting messages, never the whole queue (it may hold millions).
   */
  summary(limit: number): DispatcherSummary<TMessage> {
    return {
      ...this.counts,
      inFlight: this.inFlight.count,
      pausedUntil: this.pausedUntil,
      firstWaiting: this.queues
        .firstWaiting(limit)
        .map(({ message, channel, cost, queuedAt }) => ({ message, channel, cost, queuedAt })),
    };
  }

  /**
   * Everything needed to continue elsewhere, with times shifted by `shift` ms, saved at `now` (unshifted).
   * Messages must be serialisable.
   */
  save(now: number, shift: number): DispatcherState<TMessage> {
    const channels: Array<[string, PolicyState]> = [];
    for (const [name, policy] of this.channelPolicies) channels.push([name, policy.save(shift)]);
    return {
      savedAt: now + shift,
      queue: this.waiting().map((entry) => ({
        message: entry.message,
        channel: entry.channel,
        cost: entry.cost,
        queuedAt: entry.queuedAt + shift,
        id: entry.id,
      })),
      overall: this.overall.save(shift),
      channels,
      pausedUntil: Number.isFinite(this.pausedUntil)
        ? this.pausedUntil + shift
        : this.pausedUntil > 0
          ? 'forever'
          : null,
      counts: { ...this.counts },
    };
  }

  /**
   * What JSON.stringify writes for the dispatcher inside a persisted snapshot
   * (XState's getPersistedSnapshot leaves it as it is): the options and the
   * state, every time moved onto the wall clock so that another process, whose
   * monotonic clock starts elsewhere, can move it back onto its own.
   */
  toJSON(): PersistedDispatcher<TMessage> {
    const { now: _source, ...options } = this.options;
    // The machine's checked time line (never backwards), not the raw source: saved times must agree with it.
    const reading = this.readNow();
    return {
      format: PERSISTED_FORMAT,
      options: { ...options, rates: this.rates, channels: [...this.channelRates] },
      state: this.save(reading, Date.now() - reading),
    };
  }

  /**
   * Restores into this fresh dispatcher a saved state read back by `readState`, shifting its times by `shift`.
   * Each policy checks its own state as it loads it (a ThrottlerOptionError leaves this half-restored: throw it
   * away); cost in flight at the save settles at `settledAt`, since nothing can report it settled any more.
   */
  load(state: RestoredState<TMessage>, shift: number, settledAt: number): void {
    const { overall, savedAt = Number.POSITIVE_INFINITY } = state;
    this.overall.load(overall.saved, shift, overall.path, savedAt);
    for (const [name, { saved, path }] of state.channels) {
      this.channelPolicies.get(name)?.load(saved, shift, path, savedAt);
    }
    this.overall.settleAllInFlight?.(settledAt);
    for (const policy of this.channelPolicies.values()) policy.settleAllInFlight?.(settledAt);
    for (const saved of state.queue)
      this.enqueue(saved.message, saved.channel, saved.cost, saved.id, saved.queuedAt + shift);
    this.pausedUntil = state.pausedUntil + shift;
    Object.assign(this.counts, state.counts, { queued: this.counts.queued });
  }

  /** The message that has waited longest, left in place; no policy is asked (they may not be active). */
  peekOldest(): QueuedMessage<TMessage> | undefined {
    return this.queues.oldest();
  }

  /**
   * A start (a delivery or a permit) at `now`, asked for at `requestedAt`: into every policy's
   * history, or in flight with countUntil 'done'.
   */
  private recordStart(channel: string | undefined, cost: number, now: number, requestedAt = now): void {
    const channelPolicy = channel === undefined ? undefined : this.channelPolicies.get(channel);
    if (this.options.countUntil === 'done') {
      this.overall.holdInFlight?.(cost);
      channelPolicy?.holdInFlight?.(cost);
    } else {
      this.overall.recordDelivery(now, cost, requestedAt);
      channelPolicy?.recordDelivery(now, cost, requestedAt);
    }
    if (this.tracksInFlight) this.inFlight.start(channel, cost);
    this.channelChanged(channel);
  }

  /** A channel's policy changed: the head waiting in its queue is placed again (per-channel mode). */
  private channelChanged(channel: string | undefined): void {
    if (this.schedule === undefined || channel === undefined) return;
    const queue = this.queues.queueOf(channel);
    if (queue !== undefined) this.schedule.refile(queue);
  }

  /** When a message of this channel and cost could go, were it next: what every policy in force allows. */
  private earliestFor(channel: string | undefined, cost: number, now: number): number {
    const at = this.commonEarliest(cost, now);
    return at === Number.POSITIVE_INFINITY ? at : Math.max(at, this.channelEarliest(channel, cost, now));
  }

  /** What the overall policy, the pause and the in-flight cap allow: the same for every channel. */
  private commonEarliest(cost: number, now: number): number {
    if (this.inFlight.count >= this.options.maxConcurrent) return Number.POSITIVE_INFINITY;
    return Math.max(now, this.pausedUntil, this.overall.earliestDelivery(now, cost));
  }

  /** What the channel's own policy allows (no channel: no limit of its own). */
  private channelEarliest(channel: string | undefined, cost: number, now: number): number {
    if (channel === undefined) return now;
    return (this.channelPolicies.get(channel) as ThrottlePolicy<PolicyState>).earliestDelivery(now, cost);
  }

  private smallestLimitFor(channel: string | undefined): number {
    const channelPolicy = channel === undefined ? undefined : this.channelPolicies.get(channel);
    return Math.min(this.overall.smallestLimit, channelPolicy?.smallestLimit ?? Number.POSITIVE_INFINITY);
  }
}

/** What inspectors see instead of the live queue. */
export interface DispatcherSummary<TMessage> extends ThrottlerCounts {
  inFlight: number;
  pausedUntil: number;
  firstWaiting: Array<{ message: TMessage; channel: string | undefined; cost: number; queuedAt: number }>;
}
