/**
 * The calls a store clearance makes to the shared limiter: at most one reserve call out at a time,
 * carrying a turn's whole burst (asked at the end of the turn, at most `MAX_BATCH` a call), its
 * answer filed in the grant book (and Redis' clock learned from it: redis-clock.ts), retries after
 * a failure with a doubling wait, and whether the store is up. What a grant means for the message
 * that holds it, pauses and rewinds are store-clearance.ts's.
 */

import type { ClearanceRequest, StoreHooks } from '../engine/index.js';
import { CALIBRATION_CALLS, calibrateClock } from './clock-calibration.js';
import { StoreConflictError, StoreUnavailableError } from './errors.js';
import type { GrantBook } from './grant-book.js';
import type { OutageSends } from './outage-sends.js';
import type {
  ClockReader,
  LineOutcome,
  LineReserver,
  Reservation,
  RetimingLimiter,
  SharedLimiter,
} from './protocol.js';
import type { ReservationQueue } from './reserve-lines.js';
import { RedisClock, type SendWindow } from './store-clock.js';

/** Most messages one reserve call asks for: a bigger burst takes one round trip per this many. */
export const MAX_BATCH = 200;
/**
 * Grants held unused at most before asking for more: a grant must be sent within the grace of its time,
 * and thousands granted for one moment go stale while the first are sent (each given back and asked again).
 */
export const MAX_HELD = MAX_BATCH;
/** A process living on grants it holds checks the store this long after it last answered (an outage is told). */
export const CHECK_AFTER_MS = 1000;

/** The first wait before asking a store that did not answer again; doubled up to `MAX_RETRY_MS`. */
const FIRST_RETRY_MS = 50;
export const MAX_RETRY_MS = 1000;

export class ReserveCalls {
  /** A reserve call is out. */
  asking = false;
  /** No reserve before this (the store said later, or did not answer). */
  retryAt = Number.NEGATIVE_INFINITY;
  /** `retryAt` as the store told it to wait for room (reserve-ahead): a settle that frees room may end that wait. */
  private roomAt = Number.NaN;
  /** Why the store is down; undefined while it answers. */
  down: Error | undefined;
  /** onStoreDown 'local': the store option `reconnectWithin` in ms (undefined: nothing is ever sent locally). */
  localWithinMs: number | undefined;
  /**
   * While the store is down ('local'): the local window is in force until then, on this process's own clock,
   * whether or not it has heard of the store's return: `MAX_RETRY_MS` after the end of its last call that
   * failed, that end counted at most `localWithinMs` after the call began (a call that waited for a client
   * still reconnecting: the client was not ready then, so the store came back less than `localWithinMs`
   * before, if at all). So every local send goes before the store's return + `reconnectWithin` + 1 s, however
   * late this process hears of it (starved of the CPU, its overdue timers run before its pending replies are
   * read), which the hold after an outage counts on (outage-sends.ts; docs/redis.md, "Redis down").
   */
  localUntil = Number.NEGATIVE_INFINITY;
  /**
   * Once the throttler's calls settle below their estimates: how far ahead of the store's now a grant may
   * be placed, below the store's reserve-ahead bound (settle-room.ts). Undefined: the store's bound.
   */
  nearAheadMs: number | undefined;
  /** What `nearAheadMs` becomes at the first saving: a share of the shortest interval (store-clearance.ts). */
  settlingAheadMs: number | undefined;
  /** Grants given back so far (StoreTraffic.grantsReturned). */
  grantsReturned = 0;
  /**
   * How long after Redis' clock surely reached a reply's now (as this process knows that clock) the reply
   * was read, in ms, rising at once and falling by halves: what a starved event loop adds to a reply. A late grant is moved
   * that far ahead of Redis' now (`retimeLeadMs`), so that it is due as its reply is read.
   */
  private readLagMs = 0;
  /** Per-channel: told of each line a reply answered for, before the wake (store-halves.ts). */
  replied: ((channel: string | undefined) => void) | undefined;
  /** Where Redis' clock stands from here, learned from every reply: when a grant may go. */
  readonly redisClock: RedisClock;
  private closed = false;
  private flushQueued = false;
  /** The queued flush asks only for reports (outage-sends.ts): no caller of this turn asked for messages. */
  private flushReportsOnly = false;
  /**
   * The throttler was answered "until the store wakes it" on the strength of the ask queued (`awaitAsk`):
   * if that ask does not go (the store said to wait meanwhile), it is woken to answer again (a time then).
   */
  private wakeOwed = false;
  private retryDelay = FIRST_RETRY_MS;
  /** When the store last answered (the throttler's clock). */
  private heardAt = Number.NEGATIVE_INFINITY;
  /** A check (limiter.check) is out. */
  private checking = false;
  /** storeSlow was emitted (once per throttler). */
  private toldSlow = false;

  constructor(
    private readonly limiter: SharedLimiter & Partial<LineReserver> & Pick<RetimingLimiter, 'reserveNear'>,
    private readonly hooks: StoreHooks,
    private readonly grants: GrantBook,
    private readonly toReserve: ReservationQueue,
    /** Requests the store refused for good (a cost above a limit it holds, a channel it does not know). */
    private readonly refused: Set<number>,
    /** Called as each call ends, answered or failed, before anything else is asked (a rewind waits for it). */
    private readonly callEnded: () => void,
    /** What went on the local window while the store was down: reported first in every call until counted. */
    private readonly outage: OutageSends,
  ) {
    this.redisClock = new RedisClock(limiter.clockDrift);
  }

  /**
   * Asks for the next batch at the end of this turn, so that the turn's whole burst goes in one call.
   * `reportsOnly`: only what went locally during an outage (outage-sends.ts), the local window holding the rest.
   */
  askSoon(reportsOnly = false): void {
    if (this.asking || this.closed) return;
    // One flush a turn, asking for messages if any caller did: a head the local window allows counts on it.
    if (this.flushQueued) {
      if (!reportsOnly) this.flushReportsOnly = false;
      return;
    }
    this.flushQueued = true;
    this.flushReportsOnly = reportsOnly;
    queueMicrotask(() => {
      this.flushQueued = false;
      this.ask(this.flushReportsOnly);
    });
  }

  /**
   * What the clearance answers for a head that waits for the ask queued this turn (`askSoon`): Infinity,
   * the call's end waking the throttler; should the ask not go, it is woken at once to answer again.
   */
  awaitAsk(): number {
    this.wakeOwed = !this.closed;
    return Number.POSITIVE_INFINITY;
  }

  get graceMs(): number {
    return this.limiter.grantGraceMs;
  }

  /** Where a grant at `redisTime` may be sent (redis-clock.ts: within the grace, widened on a slow link). */
  sendWindow(redisTime: number): SendWindow {
    return this.redisClock.sendWindow(redisTime, this.limiter.grantGraceMs);
  }

  /** Learns Redis' clock before the first grants are asked for (clock-calibration.ts). */
  calibrate(limiter: ClockReader): void {
    calibrateClock(limiter, CALIBRATION_CALLS, {
      closed: () => this.closed,
      now: () => this.hooks.now(),
      learn: (askedAt, now, redisNow) => {
        this.redisClock.learn(askedAt, now, redisNow);
        this.noticeSlowLink(now);
      },
      unsure: (now) =>
        this.limiter.grantGraceMs > 0 && this.redisClock.uncertainty(now) > this.limiter.grantGraceMs / 4,
    });
  }

  /**
   * A settle below its estimate is in Redis: the room it gave back may be what the head waits for, a wait
   * reckoned on the estimate. Unless something else has set the wait since, it ends: the head is asked again.
   */
  freed(): void {
    if (this.closed || this.retryAt !== this.roomAt || this.retryAt <= this.hooks.now()) return;
    this.retryAt = this.hooks.now();
    this.askSoon();
    this.hooks.wake();
  }

  /** Nothing is asked from now on; answers still out give their grants back. */
  close(): void {
    this.closed = true;
  }

  /** An unreleased slot is at worst unused capacity until it expires, never a violation: a failure is let go. */
  giveBack(reservations: Reservation[]): void {
    this.grantsReturned += reservations.length;
    if (reservations.length > 0) this.limiter.release(reservations).catch(() => {});
  }

  /**
   * A call failed: the store is down until a call answers, or (a StoreConflictError) it answered and
   * refused this process's configuration, which is told for every call refused: not an outage.
   * `startedAt`: when the call began (a failure without it renews no local window: `localUntil`).
   */
  failed(error: unknown, startedAt?: number): void {
    if (this.closed) return;
    const now = this.hooks.now();
    this.retryAt = now + this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, MAX_RETRY_MS);
    if (startedAt !== undefined && !(error instanceof StoreConflictError)) this.renewLocal(startedAt, now);
    if (error instanceof StoreConflictError) {
      this.heard();
      this.hooks.conflict({ error, option: error.option, ours: error.value, stored: error.stored });
    } else if (this.down === undefined) {
      this.down = error instanceof Error ? error : new StoreUnavailableError(this.limiter.name, String(error));
      this.hooks.status(false, this.down);
    }
    // A listener of what was just told may have stopped the throttler (the RxJS operator on a conflict).
    if (!this.closed) this.hooks.wake();
  }

  /**
   * A call begun at `startedAt` failed at `now`: the local window ('local') is in force a while longer
   * (`localUntil`). The next call goes early enough that, failing as slowly as this one, it renews it in
   * time (a call waiting for a reconnecting client fails only at its timeout), never sooner than at once.
   */
  private renewLocal(startedAt: number, now: number): void {
    if (this.localWithinMs === undefined) return;
    const unanswered = Math.min(now, startedAt + this.localWithinMs);
    this.localUntil = Math.max(this.localUntil, unanswered + MAX_RETRY_MS);
    const renewBy = this.localUntil - (now - startedAt) - FIRST_RETRY_MS;
    this.retryAt = Math.min(this.retryAt, Math.max(now, renewBy));
  }

  /** Whether the local window is in force at `now` (onStoreDown 'local', the store down: `localUntil`). */
  onLocalWindow(now: number): boolean {
    return this.down !== undefined && this.localWithinMs !== undefined && now < this.localUntil;
  }

  /**
   * When the store should next be checked, while the throttler sends on grants it holds and so asks
   * nothing: a second after it last answered, or when a retry is due while it is down. Infinity while
   * a call is out. Asked only about a message that holds a grant: an idle throttler checks nothing.
   */
  checkAt(): number {
    if (this.asking || this.checking || this.closed) return Number.POSITIVE_INFINITY;
    return this.down === undefined ? this.heardAt + CHECK_AFTER_MS : this.retryAt;
  }

  /**
   * What to answer for a message whose grant may go at `sendAt` (>= now): the same, or the earlier
   * moment the store is to be checked (the throttler then asks again, never sending early). A check
   * that is due starts now.
   */
  orCheckAt(sendAt: number, now: number): number {
    this.checkIfDue(now);
    return Math.min(sendAt, Math.max(this.checkAt(), now + 1));
  }

  /** Checks the store if it is time; the outcome comes as storeDown / storeUp (and a wake). */
  private checkIfDue(now: number): void {
    if (this.checkAt() > now) return;
    this.checking = true;
    const startedAt = now;
    this.limiter.check().then(
      () => {
        this.checking = false;
        if (this.closed) return;
        this.retryDelay = FIRST_RETRY_MS;
        this.heard();
        this.hooks.wake();
      },
      (error: unknown) => {
        this.checking = false;
        this.failed(error, startedAt);
      },
    );
  }

  private ask(reportsOnly: boolean): void {
    // With weights, a line just backlogged is told at once, even while the store said to wait (fair-asks.ts).
    const wait = this.hooks.now() < this.retryAt && !(this.toReserve.freshLines && this.down === undefined);
    if (this.asking || this.closed) return;
    if (wait) {
      // Told to wait since the throttler was answered: it answers again, with the wait's end (its timer).
      this.payOwedWake();
      return;
    }
    const reports = this.outage.toReport(this.hooks.now(), MAX_BATCH / 2);
    const batch = reportsOnly ? [] : this.toReserve.takeBatch(MAX_BATCH - reports.length, this.hooks.now());
    if (batch.length === 0 && reports.length === 0) return;
    // The call's end wakes the throttler, answered or failed.
    this.wakeOwed = false;
    this.asking = true;
    const askedAt = this.hooks.now();
    const requests = [...reports, ...batch].map(({ channel, cost }) => ({ channel, cost }));
    // Per line when the queue has lines (per-channel ordering): no line waits behind another's backlog.
    const call =
      this.toReserve.hold !== undefined && this.limiter.reserveLines !== undefined
        ? this.limiter.reserveLines(requests, this.toReserve.weightOf, reports.length, this.nearAheadMs)
        : this.nearAheadMs === undefined
          ? this.limiter.reserve(requests)
          : this.limiter.reserveNear(requests, this.nearAheadMs);
    call.then(
      (outcomes) => {
        // Reports come first: those granted are counted by the fleet; a 'later' one is asked again.
        const counted = outcomes
          .slice(0, reports.length)
          .findIndex(({ kind }) => kind === 'later' || kind === 'line-later');
        this.outage.reported(counted === -1 ? reports : reports.slice(0, counted));
        // A report told to wait holds every ask back, known before the answer wakes the throttler (set
        // after it, the throttler answered with the old wait, and the ask it counted on never went).
        const later = outcomes[counted];
        const reportsWait = later !== undefined && 'retryAfterMs' in later ? later.retryAfterMs : 0;
        this.answered(batch, outcomes.slice(reports.length), askedAt, outcomes, reportsWait);
      },
      (error: unknown) => {
        this.asking = false;
        this.toReserve.putBack(batch.filter(({ seq }) => !this.toReserve.withdrawnMeanwhile(seq)));
        this.toReserve.callEnded();
        this.callEnded();
        this.failed(error, askedAt);
      },
    );
  }

  private answered(
    batch: ClearanceRequest[],
    outcomes: LineOutcome[],
    askedAt: number,
    /** Every outcome of the call, reports included: what Redis' clock is learned from. */
    all: LineOutcome[],
    /** How long a report told `later` said to wait (0: none was). */
    reportsWait: number,
  ): void {
    this.asking = false;
    const now = this.hooks.now();
    const first = all.find((outcome) => outcome.kind === 'granted');
    if (first !== undefined) this.learnClock(askedAt, now, first);
    this.up();
    const late: Reservation[] = [];
    const held: ClearanceRequest[] = [];
    // Asked before other processes' local sends may be reported: these grants go on the local window too.
    const onLocal = this.outage.holds(askedAt) || this.outage.holds(now);
    for (const [index, outcome] of outcomes.entries()) {
      const request = batch[index] as ClearanceRequest;
      this.replied?.(request.channel);
      if (outcome.kind === 'granted') {
        if (this.toReserve.withdrawnMeanwhile(request.seq) || this.closed) late.push(outcome.reservation);
        else this.grants.add(request, outcome.redisTime, outcome.reservation, onLocal);
      } else if (outcome.kind === 'refused') {
        if (!this.toReserve.withdrawnMeanwhile(request.seq)) this.refused.add(request.seq);
      } else if (outcome.kind === 'line-later') {
        // Its own channel or key cannot take it yet: its line waits, the others are asked for.
        if (!this.toReserve.withdrawnMeanwhile(request.seq)) held.push(request);
        this.toReserve.hold?.(request.channel, now + outcome.retryAfterMs);
      } else {
        // Nothing from here on was recorded: ask again for all of it, in order, when the store says.
        this.toReserve.putBack(batch.slice(index).filter(({ seq }) => !this.toReserve.withdrawnMeanwhile(seq)));
        this.retryAt = now + outcome.retryAfterMs;
        if (outcome.reason === 'reserve-ahead') this.roomAt = this.retryAt;
        break;
      }
    }
    this.toReserve.putBack(held);
    this.toReserve.callEnded();
    this.giveBack(late);
    // Closed while the call was out (its throttler stopped): the grants went back above; nobody to wake.
    if (this.closed) return;
    this.callEnded();
    if (reportsWait > 0) this.retryAt = Math.max(this.retryAt, now + reportsWait);
    if (this.toReserve.length > 0 && this.grants.size < MAX_HELD) this.askSoon();
    this.hooks.wake();
  }

  /**
   * Redis' clock learned from a reply that left at `askedAt` and was handled at `arrivedAt` (local),
   * from a grant in it (its Redis time less its wait was Redis' now); the store answered.
   */
  learnClock(askedAt: number, arrivedAt: number, grant: { redisTime: number; waitMs: number }): void {
    const redisNow = grant.redisTime - grant.waitMs;
    this.redisClock.learn(askedAt, arrivedAt, redisNow);
    const lag = Math.max(0, arrivedAt - this.redisClock.window(redisNow, 0).from);
    // Up at once (a loop starved from now on), down by halves (one quick reply is not the load gone).
    if (Number.isFinite(lag)) this.readLagMs = lag >= this.readLagMs ? lag : (this.readLagMs + lag) / 2;
    this.noticeSlowLink(arrivedAt);
  }

  /**
   * How far ahead of Redis' now a late grant is moved (late-grants.ts), so that it is due when its reply is
   * read and goes then, with no timer (on a starved event loop the one timer fires past the grace): the
   * grant may go from the moment Redis' clock surely reached it to the grace less this process's uncertainty
   * about that clock after it, so the lead is the usual read lag less half that span, at least 0 and at most
   * `MAX_RETRY_MS`. (A lead of the whole round trip left the grant due a round trip after its reply: the
   * timer then, late again, and after two moves given back: W6 on a loaded host started 2 tasks of 600.)
   */
  retimeLeadMs(now: number): number {
    const span = Math.max(0, this.limiter.grantGraceMs - this.redisClock.uncertainty(now));
    return Math.min(MAX_RETRY_MS, Math.max(0, this.readLagMs - span / 2));
  }

  /** An answer counted on an ask that did not go: the throttler answers again (never during a call to the clearance). */
  private payOwedWake(): void {
    if (!this.wakeOwed) return;
    this.wakeOwed = false;
    this.hooks.wake();
  }

  /** Says once, with its facts, that the link is too slow for the grace (`sendWindow` widens it). */
  private noticeSlowLink(now: number): void {
    const grace = this.limiter.grantGraceMs;
    if (this.toldSlow || this.closed || !this.redisClock.tooSlowFor(grace, now)) return;
    this.toldSlow = true;
    const roundTrip = this.redisClock.uncertainty(now);
    this.hooks.slow(roundTrip, grace + roundTrip);
  }

  /** The store answered a call (storeUp if it was down). */
  up(): void {
    this.retryDelay = FIRST_RETRY_MS;
    this.heard();
  }

  /** The store answered: it is up (storeUp if it was down). */
  private heard(): void {
    this.heardAt = this.hooks.now();
    if (this.down === undefined) return;
    this.down = undefined;
    this.localUntil = Number.NEGATIVE_INFINITY;
    this.outage.recovered(this.heardAt);
    this.hooks.status(true);
  }
}
