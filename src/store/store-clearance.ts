/**
 * A throttler's clearance over the shared limiter: the seam of src/engine/clearance/clearance.ts answered by
 * reservation. Admitted messages wait in arrival order; once the throttler asks about its head (so it has a
 * target), they are reserved, a turn's burst in one round trip; it gets Infinity until the answer wakes it
 * (CLEARANCE), then the granted time, which its one timer sends the message at. With priorities the head
 * sends on the earliest grant of its channel and cost, the message that held it taking the later one
 * (grant-book.ts). A message that leaves unsent gives its grant back; one sent on a grant is settled
 * (ACTUAL_COST) in Redis, and a saving taken at once (settle-room.ts).
 * With per-channel ordering, messages wait in one line per channel or key (reserve-lines.ts), asked for in
 * turn, and the head schedule asks this clearance per head (store-halves.ts): no key waits behind another's.
 *
 * It never sends on a grant long after its time (a grant counts at its Redis time; the script spaces grants
 * by interval + grace), so a grant left unused past `grantGraceMs` is moved to Redis' now where it still
 * fits, else given back and asked for again (late-grants.ts); in a pause, every grant held goes back and is
 * asked for again, in order. Each give-back is told once (`hooks.rewound`).
 */
import {
  type ClearanceRequest,
  LocalClearance,
  type ResolvedOptions,
  type RestoredState,
  type StoreClearance,
  type StoreHooks,
  type StoreTraffic,
} from '../engine/index.js';
import { type Cost, type Rate, ThrottlerOptionError } from '../rate/index.js';
import { FairAsks } from './fair-asks.js';
import { GrantBook } from './grant-book.js';
import { GrantRewind } from './grant-rewind.js';
import { LateGrants } from './late-grants.js';
import { longestInterval, OutageSends, shortestInterval } from './outage-sends.js';
import type { ClockReader, LineReserver, RetimingLimiter, SharedLimiter, StoreNotice } from './protocol.js';
import { MAX_HELD, MAX_RETRY_MS, ReserveCalls } from './reserve-calls.js';
import { ReserveLine } from './reserve-line.js';
import { type ReservationQueue, ReserveLines } from './reserve-lines.js';
import { NEAR_AHEAD_SHARE, SettleRoom } from './settle-room.js';
import { type StoreDownPolicy, shareOf, shareOfRates } from './store-down-policy.js';
import { StoreChannelHalves } from './store-halves.js';
import { StoreInFlight } from './store-in-flight.js';

export class RedisClearance implements StoreClearance {
  pausedUntil = Number.NEGATIVE_INFINITY;
  readonly perChannel: StoreChannelHalves | undefined; // per-channel ordering: one line per channel or key
  /** Granted and not yet sent, by queue seq, in the order granted, and by kind for swaps (grant-book.ts). */
  private readonly grants = new GrantBook();
  /** Admitted and not yet granted, in arrival order but for the head, and those the call out asks for (reserve-line.ts). */
  private readonly toReserve: ReservationQueue;
  private readonly refused = new Set<number>(); // refused for good: a cost above a limit, an unknown channel
  private readonly calls: ReserveCalls; // one reserve call out at a time, retries, up or down
  private readonly late: LateGrants | undefined; // grants back past their grace, moved to Redis' now
  /** Grants given back and asked for again (grant-rewind.ts). */
  private readonly rewinds: GrantRewind;
  private readonly room: SettleRoom; // settles, and the room a saving gives back taken at once
  private closed = false;
  private readonly local: LocalClearance; // checks messages; the local window while down ('local')
  /** What went on the local window while the store was down, until it leaves every window (outage-sends.ts). */
  private readonly outage: OutageSends;
  private readonly inFlight: StoreInFlight;
  private readonly unsubscribe: () => void;
  private readonly fair: FairAsks | undefined; // weighted fairness: lines told to the store beyond their heads

  constructor(
    private readonly limiter: SharedLimiter & RetimingLimiter & ClockReader & Partial<LineReserver>,
    private readonly options: ResolvedOptions,
    private readonly hooks: StoreHooks,
    private readonly whenDown: StoreDownPolicy,
  ) {
    this.toReserve = options.ordering === 'per-channel' ? ReserveLines.of(options) : new ReserveLine();
    if (options.ordering === 'per-channel') {
      this.perChannel = new StoreChannelHalves(
        (request, now) => this.answer(request, now),
        (_cost, now) => (this.inFlight.count >= options.maxConcurrent ? Number.POSITIVE_INFINITY : now),
      );
      hooks = this.perChannel.refilingOnWake(hooks);
    }
    // Widened by the grace: a grant sent on it counts at its Redis time, up to the grace before it went.
    this.local = new LocalClearance(
      whenDown.onStoreDown === 'local' ? shareOf(options, whenDown.localShare, limiter.grantGraceMs) : options,
      hooks.now(),
    );
    this.inFlight = new StoreInFlight(options);
    const longestMs = longestInterval(options) + limiter.grantGraceMs;
    // After the return, others may send locally for reconnectWithin + 1 s (reserve-calls.ts, `localUntil`).
    const holdAfterOutage =
      whenDown.onStoreDown === 'local' ? longestMs + whenDown.reconnectWithinMs + MAX_RETRY_MS : undefined;
    this.outage = new OutageSends(longestMs, holdAfterOutage);
    const callEnded = () => this.rewinds.callEnded();
    this.calls = new ReserveCalls(limiter, hooks, this.grants, this.toReserve, this.refused, callEnded, this.outage);
    if (whenDown.onStoreDown === 'local') this.calls.localWithinMs = whenDown.reconnectWithinMs;
    this.calls.replied = this.perChannel && ((channel) => this.perChannel?.replied(channel));
    if (this.toReserve.weightOf)
      this.fair = new FairAsks(this.toReserve, this.calls, () => this.grants.size >= MAX_HELD);
    this.rewinds = new GrantRewind(this.grants, this.toReserve, () => this.calls, this.refused, hooks, this.perChannel);
    // Read from the value (Strategy.retimesLateGrants): only a strategy whose shared log keeps each grant's time.
    if (options.strategyValue.retimesLateGrants)
      this.late = new LateGrants(limiter, hooks, this.grants, this.toReserve, this.calls);
    this.calls.settlingAheadMs = Math.floor(shortestInterval(options) * NEAR_AHEAD_SHARE);
    this.room = new SettleRoom(limiter, hooks, this.grants, this.toReserve, this.calls, this.late, this.outage);
    this.unsubscribe = limiter.subscribe((notice) => this.hear(notice));
    this.calls.calibrate(limiter);
  }

  get rates(): Rate[] {
    return this.limiter.rates;
  }

  /** New rates as the local window takes them: with onStoreDown 'local', its share of each, as at the start. */
  private localRates(rates: readonly Rate[]): Rate[] {
    if (this.whenDown.onStoreDown !== 'local') return [...rates];
    return shareOfRates(rates, this.whenDown.localShare, this.limiter.grantGraceMs);
  }
  get traffic(): StoreTraffic {
    return { roundTrips: this.limiter.roundTrips, grantsReturned: this.calls.grantsReturned };
  }
  get channelRates(): ReadonlyMap<string, Rate[]> {
    return this.limiter.channels;
  }
  get keyRates(): Rate[] | undefined {
    return this.limiter.keyRates;
  }
  get startsPeriodsOnActivation(): boolean {
    return this.local.startsPeriodsOnActivation;
  }
  get inFlightCount(): number {
    return this.inFlight.count;
  }
  checkMessage(channel: unknown, cost: unknown): Cost {
    return this.local.checkMessage(channel, cost);
  }
  admit(request: ClearanceRequest): void {
    // Asked for once the throttler asks about its head (it has a target then), with the whole turn's burst.
    this.toReserve.push(request);
  }

  fits(request: ClearanceRequest): boolean {
    return !this.refused.has(request.seq) && this.local.fits(request);
  }

  clearAt(request: ClearanceRequest, now: number): number {
    if (this.inFlight.count >= this.options.maxConcurrent) return Number.POSITIVE_INFINITY;
    return this.answer(request, now);
  }

  /** When this message may go, or when to ask again (a time >= now, or Infinity until the store wakes it), in-flight cap aside. */
  private answer(request: ClearanceRequest, now: number): number {
    this.fair?.freshLines();
    // The earliest grant of its kind: a message of higher priority takes one granted to a message behind it.
    let grant = this.grants.earliestFor(request);
    if (grant === undefined && this.calls.down === undefined && !(this.pausedUntil > now))
      grant = this.rewinds.takeForHead(request, now);
    // Being moved to Redis' now: the answer wakes the throttler.
    if (grant?.retiming) return Number.POSITIVE_INFINITY;
    if (grant !== undefined) {
      // A fresh reading, not the pass's `now`: a pass that sent before (and ran listeners) may be
      // behind the clock by then, and the message goes right after this answer.
      const sendAt = this.hooks.now();
      const { from, until } = this.calls.sendWindow(grant.redisTime);
      // After an outage on the local window, that window stays in force too (outage-sends.ts), and for
      // every grant asked meanwhile, whenever it goes.
      const localAt = this.outage.holds(now) || grant.onLocal ? this.local.clearAt(request, now) : now;
      const inTime = sendAt <= until && from <= until;
      // Living on grants asks Redis nothing: the timer may also wake earlier, to check that it answers.
      if (inTime && from >= this.pausedUntil && localAt <= until) {
        const at = this.calls.orCheckAt(Math.max(from, now, localAt), now);
        return this.fair ? this.fair.behind(at, now) : at;
      }
      if (!inTime && this.late !== undefined && from >= this.pausedUntil && localAt <= now) {
        this.late.retime();
        return Number.POSITIVE_INFINITY;
      }
      // In a pause or past the local window: every grant goes back and is asked for again, in order.
      const reason = from < this.pausedUntil ? 'pause' : inTime || this.late !== undefined ? 'outage' : 'late';
      this.rewinds.rewind(Math.max(now, this.pausedUntil, localAt), reason);
    }
    if (this.pausedUntil > now) return this.pausedUntil;
    if (this.calls.down === undefined && this.outage.holds(now)) {
      // Asked for once the local window allows it: a grant before then would only go stale.
      const localAt = this.local.clearAt(request, now);
      if (this.calls.retryAt <= now) this.calls.askSoon(true);
      if (localAt > now) return localAt;
    }
    if (this.calls.retryAt <= now) this.calls.askSoon();
    // Down, with 'local': a second past its last failed call at most (reserve-calls.ts, `localUntil`); after
    // that it waits for the next call, as with 'pause', which renews the local window if it fails.
    const onLocalWindow = this.calls.onLocalWindow(now);
    // Its line is held by its own channel or key (per-channel): asked for again when that ends (no ask
    // takes a held line, so no answer would come: the timer wakes it, down or not).
    const lineAt = this.toReserve.heldUntil?.(request.channel) ?? now;
    if (lineAt > now && !onLocalWindow) return Math.max(lineAt, this.calls.retryAt);
    if (onLocalWindow) {
      // The local window decides until the store answers again; the timer also wakes to ask it.
      const probeAt = this.calls.retryAt > now ? this.calls.retryAt : Number.POSITIVE_INFINITY;
      return Math.min(this.local.clearAt(request, now), probeAt);
    }
    if (this.calls.asking) return Number.POSITIVE_INFINITY; // its answer wakes the throttler
    return this.calls.retryAt > now ? this.calls.retryAt : this.calls.awaitAsk();
  }

  allowsNow(channel: unknown, cost: unknown, now: number): boolean {
    // Every message is reserved, except on the local window while the store is down.
    return this.calls.onLocalWindow(now) && this.local.allowsNow(channel, cost, now);
  }

  /** Returns the grant's reservation, what a settle names it by; undefined on the local window (it keeps its estimate). */
  recordDelivery(request: ClearanceRequest, at: number, requestedAt: number): string | undefined {
    // A granted message is already recorded in Redis; one that went on the local window is recorded
    // there, and whatever is still being asked for it is given back when the answer comes.
    const grant = this.grants.take(request.seq);
    if (grant === undefined) {
      this.local.recordDelivery(request, at, requestedAt);
      this.outage.record(request.channel, request.cost, at);
      if (request.seq >= 0) this.toReserve.withdraw(request.seq);
    } else {
      if (grant.onLocal || this.outage.holds(at)) this.local.recordDelivery(request, at, requestedAt);
      // Half the grants held are used: the next batch is asked for while the rest are sent.
      if (this.grants.size === MAX_HELD / 2 && this.toReserve.length > 0) this.calls.askSoon();
    }
    this.inFlight.start(request.channel, request.cost);
    return grant?.reservation;
  }

  settleDelivery(reservation: unknown, _channel: unknown, _at: number, estimate: Cost, actual: Cost): void {
    this.room.settle(reservation as string, estimate, actual);
  }

  withdraw(request: ClearanceRequest): void {
    const grant = this.grants.take(request.seq);
    if (grant === undefined) {
      this.toReserve.withdraw(request.seq);
      return;
    }
    this.calls.giveBack([grant.reservation]);
  }

  activate(now: number): void {
    this.local.activate(now);
  }

  activationStarts(): boolean {
    return false;
  }

  setRates(rates: Rate[], channel: string | undefined, now: number): void {
    this.local.setRates(this.localRates(rates), channel, now);
    const startedAt = this.hooks.now();
    this.limiter.setRate(rates, channel).catch((error: unknown) => this.calls.failed(error, startedAt));
  }

  setKeyTemplate(rates: Rate[], now: number): void {
    this.local.setKeyTemplate(this.localRates(rates), now);
    const startedAt = this.hooks.now();
    this.limiter.setKeyTemplate(rates).catch((error: unknown) => this.calls.failed(error, startedAt));
  }

  pause(until: number): void {
    const now = this.hooks.now();
    this.pausedUntil = until;
    // The whole fleet pauses; a pause until RESUME holds for the longest a store keeps a pause.
    const forMs = Number.isFinite(until) ? until - now : 2 ** 31 - 1;
    if (forMs > 0) this.limiter.pause(forMs).catch((error: unknown) => this.calls.failed(error, now));
    this.refileAll();
  }

  resume(): void {
    this.pausedUntil = Number.NEGATIVE_INFINITY;
    const startedAt = this.hooks.now();
    this.limiter.resume().catch((error: unknown) => this.calls.failed(error, startedAt));
    this.refileAll();
  }

  settle(channel: unknown, cost: unknown): void {
    this.inFlight.settle(channel, cost);
  }

  tryAcquire(): number {
    throw new ThrottlerOptionError(
      'TRY_ACQUIRE',
      'not sent to a throttler with a store (a shared permit is reserved asynchronously: queue the message instead)',
      this.limiter.name,
    );
  }

  save(shift: number) {
    return this.local.save(shift);
  }

  load(state: RestoredState<unknown>, shift: number, settledAt: number): void {
    this.local.load(state, shift, settledAt);
    this.pausedUntil = state.pausedUntil + shift;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.rewinds.closed = true;
    this.calls.close();
    this.unsubscribe();
    this.calls.giveBack(this.grants.takeAll().map((grant) => grant.reservation));
  }

  /** Fleet-wide news: a pause, new rates or a lost state make every grant held here stale. */
  private hear(notice: StoreNotice): void {
    if (this.closed) return;
    const now = this.hooks.now();
    if (notice.type === 'fresh') {
      // Redis lost the state, perhaps with a restart this process never saw fail: others' local sends may
      // not be reported yet, so the local window holds as after an outage (outage-sends.ts). Before the
      // reply's grants are filed: none goes past it.
      this.outage.recovered(now);
      return;
    }
    if (notice.type === 'rates') {
      this.local.setRates(this.localRates(notice.rates), undefined, now);
      for (const [channel, rates] of notice.channels) this.local.setRates(this.localRates(rates), channel, now);
      if (notice.keys !== undefined && this.local.keyRates !== undefined)
        this.local.setKeyTemplate(this.localRates(notice.keys), now);
      if (notice.key !== undefined) this.local.setRates(this.localRates(notice.key.rates), notice.key.name, now);
      this.rewinds.rewind(now, 'rates');
    } else if (notice.type === 'paused' || notice.type === 'quarantined') {
      if (notice.type === 'paused') this.pausedUntil = Math.max(this.pausedUntil, now + notice.forMs);
      else this.hooks.quarantined(now + notice.forMs);
      this.rewinds.rewind(now + notice.forMs, notice.type === 'paused' ? 'pause' : 'quarantine');
    } else {
      this.pausedUntil = Number.NEGATIVE_INFINITY;
      this.calls.retryAt = now;
      this.calls.askSoon();
    }
    this.refileAll();
    this.hooks.wake();
  }

  /** Per-channel: every head is asked again (a pause, a resume, a notice; a rewind's at the next wake). */
  private refileAll(): void {
    this.perChannel?.changedAll();
    this.perChannel?.refile();
  }
}
