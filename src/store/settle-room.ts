/**
 * Room a settle below its estimate gave back, for a throttler on the store. The store reckoned on the
 * estimates both the wait it told (a reserve-ahead `later`) and the grants it reserved ahead, and a new
 * grant goes after the newest one: so the wait ends (ReserveCalls.freed), and the grants held whose time
 * has not come are given back and their messages asked for again at once, first in line, where they may
 * take the room (kept, they kept their times, and the room before them went unused). In a pause or after
 * close no grant is held. Not told as a rewind: nothing was lost, the messages keep their place.
 *
 * From the first saving on, the throttler asks for grants at most `nearAheadMs` ahead of the store's now
 * (ReserveCalls.nearAheadMs), not the store's reserve-ahead bound (3/4 of the shortest interval by default).
 * A grant reserved ahead was placed on the estimates of every grant before it in its windows, and a
 * settle gives room back at the settled grant's time, behind every grant already placed (a log grows in
 * time order): three processes sharing { requests, tokens }, settling 0.4-0.8 s after each call went,
 * used 89% of the token quota with grants 4.5 s ahead, 97% with grants at most a sixteenth of the
 * interval ahead, and gave back a fifth as many grants (test/store/fleet-late-settles.test.ts). Grants
 * within that bound are still given back at a saving: kept, a throttler alone with a 1 s interval and
 * settles 0-50 ms late used 93.6% of its limit, not 97.1% (test/redis/settle-use.test.ts).
 */
import type { StoreHooks } from '../engine/index.js';
import { type Cost, costIn } from '../rate/index.js';
import type { Grant, GrantBook } from './grant-book.js';
import type { LateGrants } from './late-grants.js';
import type { OutageSends } from './outage-sends.js';
import type { Reservation, RetimingLimiter } from './protocol.js';
import type { ReserveCalls } from './reserve-calls.js';
import type { ReservationQueue } from './reserve-lines.js';

export class SettleRoom {
  constructor(
    private readonly limiter: RetimingLimiter,
    private readonly hooks: StoreHooks,
    private readonly grants: GrantBook,
    private readonly toReserve: ReservationQueue,
    private readonly calls: ReserveCalls,
    private readonly late: LateGrants | undefined,
    private readonly outage: OutageSends,
  ) {}

  /** One script call (lua/settle.ts); once it has answered, what it saved is taken. */
  settle(reservation: Reservation, estimate: Cost, actual: Cost): void {
    const startedAt = this.hooks.now();
    this.limiter.settle(reservation, actual).then(
      () => {
        if (!savedAny(estimate, actual)) return;
        this.calls.nearAheadMs = this.calls.settlingAheadMs;
        this.freed();
      },
      (error: unknown) => this.calls.failed(error, startedAt),
    );
  }

  private freed(): void {
    this.reask();
    this.calls.freed();
  }

  /** Not while a call is out (a rewind may wait for it), a grant is being moved, or the store is down or just back. */
  private reask(): void {
    const now = this.hooks.now();
    if (this.calls.asking || this.late?.asking || this.calls.down !== undefined || this.outage.holds(now)) return;
    const ahead: Grant[] = [];
    for (const grant of this.grants.held()) {
      if (!grant.retiming && this.calls.sendWindow(grant.redisTime).from > now) ahead.push(grant);
    }
    if (ahead.length === 0) return;
    for (const grant of ahead) this.grants.drop(grant);
    this.toReserve.putBack(ahead.map((grant) => grant.request));
    this.calls.giveBack(ahead.map((grant) => grant.reservation));
    this.calls.askSoon();
  }
}

/** Whether the actual cost is below the estimate in some dimension (or, both numbers, below it). */
function savedAny(estimate: Cost, actual: Cost): boolean {
  if (typeof estimate === 'number' && typeof actual === 'number') return actual < estimate;
  const length = Math.max(
    typeof estimate === 'number' ? 0 : estimate.length,
    typeof actual === 'number' ? 0 : actual.length,
  );
  for (let index = 0; index < length; index += 1) if (costIn(actual, index) < costIn(estimate, index)) return true;
  return false;
}

/** The share of the shortest interval a settling throttler's grants are placed ahead at most. */
export const NEAR_AHEAD_SHARE = 1 / 16;
