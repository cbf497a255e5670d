import type { Cost, Rate } from '../rate/index.js';
import type { ThrottlerAudit } from './audit/throttler-audit.js';
import type { Clearance, ClearanceRequest } from './clearance/clearance.js';
import { type Lease, OpenLease } from './clearance/lease.js';
import { LocalClearance } from './clearance/local-clearance.js';
import type { SettleBook } from './clearance/settle-book.js';
import { type DispatcherSummary, persistedForm, summarize } from './dispatcher-state.js';
import type { FairnessFeature } from './fair-share.js';
import { chooseConfirmed, type HeadSchedule, scheduleOver } from './head-schedule.js';
import type { ResolvedOptions } from './options/options.js';
import type { ChannelQueue } from './queue/channel-queue.js';
import { type DiscardedMessage, MessageQueues, type ThrottlerCounts } from './queue/message-queues.js';
import { DEFAULT_PRIORITY, type QueuedMessage } from './queue/queued-message.js';
import type { PersistedDispatcher, RestoredState } from './saved/persisted-format.js';

/**
 * The machine's one interface to its queue and its clearance: which waiting
 * message goes next, and when. The messages wait in MessageQueues; the time
 * comes from the Clearance (the seam: the local policies, or a shared store),
 * never computed here. Mutable on purpose, and only ever touched from the
 * machine's own actions: copying a queue per event is O(n^2).
 */
export class Dispatcher<TMessage> {
  readonly options: ResolvedOptions;
  /** When may a message go, and the record that it went: the seam (clearance.ts). */
  readonly clearance: Clearance;
  private readonly queues: MessageQueues<TMessage>;
  /** Per-channel mode: which queue head goes next (FIFO mode has one head and asks the clearance directly). */
  private readonly schedule: HeadSchedule<TMessage> | undefined;
  /** A LEASE's permits being spent: recorded when it ends (lease.ts), as one delivery of their number on no channel. */
  readonly lease = new OpenLease((spent, at) => {
    this.recordDelivery({ seq: -1, channel: undefined, cost: spent }, at, at);
    this.counts.delivered += spent - 1;
  });
  /** Messages that ever entered the queue (restored ones too), for metrics: a count, never an event per message. */
  queuedTotal = 0;
  /** What the last `chooseNext` found: the queue whose head goes next. */
  private chosenQueue: ChannelQueue<TMessage> | undefined;
  /** The time line the machine schedules on (the checked `now`), to move saved times off and back onto it. */
  private readonly readNow: () => number;
  /** Every window the deliveries filled, per rate and scope: what `auditThrottler` reports (undefined: not loaded). */
  readonly audit: ThrottlerAudit | undefined;
  /** Delivered messages with an id, awaiting their actual cost (ACTUAL_COST, settle-book.ts; undefined: not loaded). */
  readonly settleBook: SettleBook | undefined;

  constructor(
    options: ResolvedOptions,
    now: number,
    readNow: () => number = options.now,
    clearance: Clearance = new LocalClearance(options, now),
  ) {
    this.options = options;
    this.readNow = readNow;
    this.clearance = clearance;
    this.audit = options.features.audit?.create(options, now, clearance.ownRatesOf?.bind(clearance));
    // A transit spread widens every window the policies count: a delivery stays settleable as long.
    this.settleBook = options.features.settle?.book(
      [options.rates, ...options.channels.values(), options.keys?.rates ?? []],
      options.strategyOptions.transit?.most ?? 0,
    );
    this.schedule =
      options.ordering === 'per-channel'
        ? scheduleOver(clearance, options.fairness === 'weighted' ? options.features.fairness : undefined, {
            queueOf: (channel) => this.queues.queueOf(channel),
            discardHead: (queue) => this.queues.discardHead(queue, 'cost-exceeds-limit'),
          })
        : undefined;
    const { schedule } = this;
    this.queues = new MessageQueues<TMessage>(
      options,
      schedule === undefined ? undefined : (queue) => schedule.refile(queue),
    );
    // XState's getPersistedSnapshot walks context objects key by key and replaces any that reach an
    // actor ref (a message's replyTo) with a plain copy: that copy has no toJSON and would walk the
    // whole queue. With the fields hidden from for..in the walk stops here and JSON uses toJSON.
    for (const key of Object.keys(this)) Object.defineProperty(this, key, { enumerable: false });
  }

  /** The counts a snapshot shows; the machine adds the rejections it finds itself. */
  get counts(): ThrottlerCounts {
    return this.queues.counts;
  }

  /** Messages that left the queue undelivered since last taken, to be emitted; the clearance hears of each (withdraw). */
  get discarded(): DiscardedMessage<TMessage>[] {
    const { discarded } = this.queues;
    if (this.clearance.withdraw !== undefined) for (const { entry } of discarded) this.clearance.withdraw(entry);
    return discarded;
  }

  /** Deliveries not yet settled. */
  get inFlightCount(): number {
    return this.clearance.inFlightCount;
  }

  get isEmpty(): boolean {
    return this.queues.isEmpty;
  }

  /**
   * Queues a checked message (priority undefined: the default; deadline undefined: none): 'head' when it
   * goes first in its queue (it may be due at once), else 'queued'. With a full queue, refuses it ('rejected'
   * with overflow 'reject', 'outranked' when every waiting message has a higher priority), or queues it and
   * records the displaced one in `discarded`. A key's bad weight throws (ThrottlerOptionError), queueing nothing.
   */
  enqueue(
    message: TMessage,
    channel: string | undefined,
    cost: Cost,
    id: unknown,
    now: number,
    priority?: number,
    deadline?: number,
  ): 'head' | 'queued' | 'rejected' | 'outranked' {
    // Weighed as a key becomes backlogged, a bad weight throwing first; kept if overflow remakes its queue.
    const weight =
      this.queues.queueOf(channel)?.weight ??
      (this.options.fairness === 'weighted' && channel !== undefined
        ? (this.options.features.fairness as FairnessFeature).weightOf(this.options.weight, channel)
        : 1);
    const entry = this.queues.enqueue(message, channel, cost, id, now, priority, deadline);
    if (entry === undefined) return this.options.overflow === 'reject' ? 'rejected' : 'outranked';
    (this.queues.queueOf(channel) as ChannelQueue<TMessage>).weight = weight;
    this.queuedTotal += 1;
    this.clearance.admit?.(entry, now);
    return this.queues.queueOf(channel)?.head === entry ? 'head' : 'queued';
  }

  /**
   * Whether a message of the default priority, on no channel or in FIFO order, queued now would only join the
   * queue behind its head: none there outranks or is outranked, nothing is displaced or past its deadline (quiet.ts).
   */
  wouldWaitBehind(channel: string | undefined, now: number): boolean {
    return (
      // On a channel, behind the one queue's head only in FIFO order; per channel it may head its own queue.
      (channel === undefined || this.schedule === undefined) &&
      this.queues.counts.queued < this.options.capacity &&
      this.queues.queueOf(undefined)?.holdsOnly(DEFAULT_PRIORITY) === true &&
      this.queues.nextDeadline > now &&
      !this.lease.isOpen &&
      this.clearance.answersAtOnce === true
    );
  }

  /**
   * Whether a message on `channel` that its limits allow now, queued now while others wait, would only be
   * filed as its channel's head and taken again at once (quiet.ts): heads ordered per channel and not by
   * weighted fairness, nothing waiting on its channel, room in the queue (nothing displaced), nothing past
   * its deadline, no lease open, and a clearance that answers at once (a store's answer is an event).
   */
  wouldGoAheadOf(channel: string | undefined, now: number): boolean {
    return (
      this.schedule !== undefined &&
      this.options.fairness !== 'weighted' &&
      this.queues.counts.queued < this.options.capacity &&
      (this.queues.queueOf(channel)?.length ?? 0) === 0 &&
      this.queues.nextDeadline > now &&
      !this.lease.isOpen &&
      this.clearance.answersAtOnce === true
    );
  }

  /** Drops the messages whose deadline is before `now` (into `discarded`); true when there were any. */
  expire(now: number): boolean {
    return this.queues.expire(now, false);
  }

  /** The earliest deadline of a waiting message (the delivery pass wakes for it); Infinity when none. */
  get nextDeadline(): number {
    return this.queues.nextDeadline;
  }

  /** Takes a waiting message out by the id it was queued with (the oldest of several); false when none. */
  cancel(id: unknown): boolean {
    return this.queues.cancel(id);
  }

  /**
   * Chooses the message that goes next and returns when it may go (>= now); Infinity when nothing
   * waits or nothing can go until an event arrives. Not a question: it drops messages past their deadline,
   * heads that can never go (a lowered limit) and, as cancelled, heads their sender took back (`isWithdrawn`:
   * a task aborted mid-pass), and sets what `chosen` and `takeChosen` return. A message may go up to its
   * deadline: one whose deadline is `now` is dropped only once nothing can go at `now`, since it never can after.
   */
  chooseNext(now: number): number {
    this.queues.expire(now, false);
    let at = this.chooseHead(now);
    while (this.chosenQueue !== undefined && this.queues.discardWithdrawn(this.chosenQueue)) at = this.chooseHead(now);
    return at > now && this.queues.expire(now, true) ? this.chooseHead(now) : at;
  }

  private chooseHead(now: number): number {
    if (this.schedule !== undefined) {
      const at = chooseConfirmed(this.schedule, this.clearance, now);
      this.chosenQueue = at <= now ? this.schedule.chosen : undefined;
      return at;
    }
    const queue = this.queues.queueOf(undefined) as ChannelQueue<TMessage>;
    this.chosenQueue = undefined;
    for (let head = queue.head; head !== undefined; head = queue.head) {
      if (this.clearance.fits(head)) {
        this.chosenQueue = queue;
        return this.clearance.clearAt(head, now);
      }
      // SET_RATE lowered a limit below this message's cost: it could never go.
      this.queues.discardHead(queue, 'cost-exceeds-limit');
    }
    return Number.POSITIVE_INFINITY;
  }

  /** The message `chooseNext` chose, still in its queue. */
  get chosen(): QueuedMessage<TMessage> | undefined {
    return this.chosenQueue?.head;
  }

  /**
   * Takes the message `chooseNext` chose out of the queue; the caller sends it
   * and then records the delivery (`recordDelivery`) at the time it went.
   */
  takeChosen(): QueuedMessage<TMessage> {
    this.schedule?.taking(this.chosenQueue as ChannelQueue<TMessage>);
    const entry = this.queues.take(this.chosenQueue as ChannelQueue<TMessage>);
    this.chosenQueue = undefined;
    return entry;
  }

  /** LEASE (lease.ts): up to `want` permits now, none while anything waits; an open lease ends first. */
  grantLease(lease: Lease, want: number, now: number): void {
    this.lease.end(now);
    this.lease.open(lease, this.isEmpty ? (this.clearance.leaseCapacity?.(want, now) ?? 0) : 0);
  }

  /**
   * A message went to the target at `at`, asked for at `requestedAt`: a queue entry (its `seq` and the
   * `scope` it carries), or one straight through (seq -1). The caller may reuse the request; the clearance keeps
   * nothing of it. One with an `id` may be settled later (ACTUAL_COST, settle-book.ts's `settleActualCost`).
   */
  recordDelivery(request: ClearanceRequest & { readonly id?: unknown }, at: number, requestedAt: number): void {
    const handle = this.clearance.recordDelivery(request, at, requestedAt);
    this.audit?.record(request.channel, request.cost, at, this.settleBook?.settleableFrom(at));
    this.counts.delivered += 1;
    if (request.id !== undefined && handle !== undefined)
      this.settleBook?.add(request.id, at, request.channel, request.cost, handle);
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
    return this.clearance.startsPeriodsOnActivation;
  }

  /** Takes a permit now if one is free and nothing waits ahead of it: 0; else nothing, and the ms until one may be. */
  tryAcquire(channel: string | undefined, cost: Cost, now: number): number {
    this.activate(now);
    const queuedGoesAt = this.isEmpty ? undefined : this.chooseNext(now);
    // Choosing drops what is past its deadline: nothing may be left to go first.
    return this.clearance.tryAcquire(channel, cost, now, this.isEmpty ? undefined : queuedGoesAt);
  }

  /**
   * The throttler became active: voucher periods start now (other strategies: nothing to do). Heads are filed
   * afresh, O(queues waiting): only queues that waited without a target can wait as the throttler activates.
   */
  activate(now: number): void {
    if (!this.clearance.startsPeriodsOnActivation) return;
    this.clearance.activate(now);
    // A voucher period that starts afresh may free a channel sooner than its waiting head was filed for.
    this.schedule?.refileAll();
  }

  /** Replaces the overall rates, or one channel's or key's; a name that is neither is an error. */
  setRates(rates: Rate[], channel: string | undefined, now: number): void {
    this.clearance.setRates(rates, channel, now);
    this.audit?.setRates(rates, channel);
    this.settleBook?.widen(rates);
    // A lowered overall limit may leave heads of every channel that can never go: each is looked at again.
    if (channel === undefined) this.schedule?.refileAll();
  }

  /** Replaces the keys' template; every head is looked at again, as for the overall rates. */
  setKeyTemplate(rates: Rate[], now: number): void {
    this.clearance.setKeyTemplate(rates, now);
    this.audit?.setKeyTemplate(rates);
    this.settleBook?.widen(rates);
    this.schedule?.refileAll();
  }

  /** The waiting messages in arrival order (for inspection and persistence; O(n), never on a hot path). */
  waiting(): QueuedMessage<TMessage>[] {
    return this.queues.waiting();
  }

  /** A short account of the queue for inspectors and logs (dispatcher-state.ts): never the whole queue. */
  summary(limit: number): DispatcherSummary<TMessage> {
    return summarize(this.clearance, this.queues, limit, this.options.dimensions);
  }

  /** What JSON.stringify writes for it in a persisted snapshot (dispatcher-state.ts), on the machine's time line. */
  toJSON(): PersistedDispatcher<TMessage> {
    const reading = this.readNow();
    // Saved from inside a leased task: what the lease spent so far is in the window too.
    this.lease.end(reading);
    return persistedForm(this.options, this.clearance, this.queues, reading);
  }

  /**
   * Restores into this fresh dispatcher a saved state read back by `readState`, shifting its times by `shift`.
   * The clearance checks its own state as it loads it (a ThrottlerOptionError leaves this half-restored: throw
   * it away); cost in flight at the save settles at `settledAt`, since nothing can report it settled any more.
   */
  load(state: RestoredState<TMessage>, shift: number, settledAt: number): void {
    this.clearance.load(state, shift, settledAt);
    for (const { message, channel, cost, id, queuedAt, priority, deadline, arrivedAt } of state.queue) {
      const until = deadline === undefined ? undefined : deadline + shift;
      // A retry keeps the place it had in line (saved in that order: each goes in behind those before it).
      if (arrivedAt !== undefined) this.queues.placeNext(arrivedAt + shift);
      this.enqueue(message, channel, cost, id, queuedAt + shift, priority, until);
    }
    Object.assign(this.counts, state.counts, { queued: this.counts.queued });
  }

  /** The message that has waited longest, left in place; the clearance is not asked (may be inactive). */
  peekOldest(): QueuedMessage<TMessage> | undefined {
    return this.queues.oldest();
  }
}
