/**
 * Weighted fairness over a store: what a throttler asks beyond its heads, so that the fleet's finish tags
 * in Redis (lua/fair-tags.ts) see every line that waits, whichever process holds it. Without weights a
 * process asks for its lines only as their heads need grants, which leaves the store unaware of a line
 * just backlogged (it would then start behind what the others obtained meanwhile) and of the messages
 * behind a head that holds its grant (the room would go to whoever asked first).
 * - A line that has just become backlogged is told at once, even while the store has said to wait for
 *   room: it starts at the present virtual time and waits there, ahead of lines that have had their share.
 * - The messages behind a head holding its grant are asked for whenever the store allows (its retry,
 *   a line's hold), and the throttler wakes for it.
 * Costs: one call per line that becomes backlogged while the limit binds, and one per retry while any
 * line waits (without weights, the head that needs a grant would make the same call).
 */
import type { ReserveCalls } from './reserve-calls.js';
import type { ReservationQueue } from './reserve-lines.js';

export class FairAsks {
  /** When it last asked: not again at the same moment (a reply that leaves more to ask asks itself). */
  private askedAt = Number.NaN;

  constructor(
    private readonly lines: ReservationQueue,
    private readonly calls: ReserveCalls,
    /** Whether the throttler holds as many grants as it may (then it asks nothing more). */
    private readonly full: () => boolean,
  ) {}

  /**
   * Before a head is answered: a line that has just become backlogged is asked for now (the store's wait
   * for room does not hold for it, reserve-calls.ts: the call tells the store it waits, and when to retry),
   * or as the call out is answered. A line held is not counted, so this never asks in vain.
   */
  freshLines(): void {
    if ((this.lines.freshLines ?? 0) > 0 && this.calls.down === undefined && !this.full()) this.calls.askSoon();
  }

  /** A head holding its grant goes at `at`: the lines behind it are asked for when allowed, the throttler woken then. */
  behind(at: number, now: number): number {
    const next = this.lines.nextAskAt?.(now);
    if (next === undefined || this.full()) return at;
    const due = Math.max(next, this.calls.retryAt);
    if (due > now) return Math.min(at, due);
    this.ask(now);
    return at;
  }

  private ask(now: number): void {
    if (this.askedAt === now) return;
    this.askedAt = now;
    this.calls.askSoon();
  }
}
