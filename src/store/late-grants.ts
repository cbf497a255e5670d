/**
 * Grants a throttler could not send within the grace of their time, moved rather than given back.
 * At a fleet's start the first replies are slow (25-130 ms on a busy host) and timers late, so a
 * window's grants come past their grace; given back, they were asked for again behind the fleet's
 * newest reservations, and the window was lost. Instead they are re-timed in place, in one call
 * (lua/retime.ts): each moves to Redis' now where it still fits every window, so it goes at once
 * (the reply also teaches Redis' clock: redis-clock.ts); only those that no longer fit are given back
 * and their messages asked for again, first in line. A grant whose window is empty only because the
 * clock is not yet known well enough stays where it is, and the reply narrows the clock.
 * One call out at a time; its grants are not sent until it answers.
 */
import type { StoreHooks } from '../engine/index.js';
import type { Grant, GrantBook } from './grant-book.js';
import { MAX_BATCH, type ReserveCalls } from './reserve-calls.js';

/** Moves of one grant before it is given back instead. */
const MAX_RETIMES = 2;

import type { Reservation, RetimeOutcome, RetimingLimiter } from './protocol.js';
import type { ReservationQueue } from './reserve-lines.js';

export class LateGrants {
  /** A re-time call is out. */
  asking = false;

  constructor(
    private readonly limiter: RetimingLimiter,
    private readonly hooks: StoreHooks,
    private readonly grants: GrantBook,
    private readonly toReserve: ReservationQueue,
    private readonly calls: ReserveCalls,
  ) {}

  /**
   * Re-times every grant held that cannot be sent now (late, or in a window still empty: redis-clock.ts),
   * at most a batch, earliest first; the throttler is woken when the answer is filed.
   */
  retime(): void {
    if (this.asking) return;
    const now = this.hooks.now();
    const late: Grant[] = [];
    for (const grant of this.grants.held()) {
      const { from, until } = this.calls.sendWindow(grant.redisTime);
      if (until < Math.max(from, now)) late.push(grant);
    }
    if (late.length === 0) return;
    // Moved before and late again (the process keeps answering later than the move allowed for): given
    // back and asked for again, so that moves never repeat for ever (a fleet on a loaded host did).
    const worn = late.filter((grant) => grant.retimes >= MAX_RETIMES);
    if (worn.length > 0) {
      const given = this.giveUp(worn, true);
      if (given > 0) this.hooks.rewound(given, 0, 'late');
      this.hooks.wake();
      return;
    }
    // A swap between two messages reorders the book: the script sees them in time order.
    late.sort((a, b) => a.redisTime - b.redisTime);
    const batch = late.slice(0, MAX_BATCH);
    for (const grant of batch) {
      grant.retiming = true;
      grant.retimes += 1;
    }
    this.asking = true;
    const askedAt = now;
    // Ahead of Redis' now by what this process's replies take to be read, so that the grant is due as its
    // answer is read, and goes then (reserve-calls.ts, `retimeLeadMs`).
    const lead = this.calls.retimeLeadMs(now);
    this.limiter
      .retime(
        batch.map((grant) => grant.reservation),
        lead,
      )
      .then(
        (outcomes) => this.answered(batch, outcomes, askedAt),
        (error: unknown) => {
          this.asking = false;
          const given = this.giveUp(batch, true);
          if (given > 0) this.hooks.rewound(given, 0, 'late');
          this.calls.failed(error, askedAt);
        },
      );
  }

  private answered(batch: Grant[], outcomes: RetimeOutcome[], askedAt: number): void {
    this.asking = false;
    const now = this.hooks.now();
    const first = outcomes.find((outcome) => outcome.kind === 'granted');
    if (first?.kind === 'granted') this.calls.learnClock(askedAt, now, first);
    this.calls.up();
    const gone: Grant[] = [];
    const stale: Reservation[] = [];
    let moved = 0;
    for (const [index, grant] of batch.entries()) {
      const outcome = outcomes[index] as RetimeOutcome;
      grant.retiming = false;
      if (outcome.kind === 'granted') {
        // Given back meanwhile (a rewind, a cancel, a close): what the call kept goes back too.
        if (grant.spent) stale.push(outcome.reservation);
        else if (outcome.redisTime !== grant.redisTime) moved += 1;
        grant.redisTime = outcome.redisTime;
        grant.reservation = outcome.reservation;
      } else if (!grant.spent) {
        gone.push(grant);
      }
    }
    this.calls.giveBack(stale);
    // The script took those out of the logs already.
    const given = this.giveUp(gone, false);
    if (given + moved > 0) this.hooks.rewound(given, moved, 'late');
    this.hooks.wake();
  }

  /** Grants that could not be kept: out of the book, their messages asked for again, first in line, at once. How many. */
  private giveUp(grants: Grant[], release: boolean): number {
    for (const grant of grants) grant.retiming = false;
    const dropped = grants.filter((grant) => this.grants.drop(grant));
    if (dropped.length === 0) return 0;
    if (release) this.calls.giveBack(dropped.map((grant) => grant.reservation));
    const requests = dropped.map((grant) => grant.request);
    this.toReserve.putBack(requests);
    this.calls.retryAt = Math.min(this.calls.retryAt, this.hooks.now());
    this.calls.askSoon();
    return dropped.length;
  }
}
