/**
 * LEASE: permits valid now, for a sender that starts work itself. The machine
 * answers how many messages of cost 1 on no channel may start at this moment
 * (at most `want`, none while anything waits); the sender starts up to that
 * many synchronously, counting each in the shared `lease` object, and ends the
 * lease with LEASE_END. The machine records what was spent as one delivery of
 * that cost when the lease ends, or before it handles anything else, whichever
 * comes first: nothing else is recorded while a lease is open.
 *
 * Why that is strict: the policies' permission is monotone in time (policy.ts),
 * so what was allowed at the grant is still allowed when the lease ends, and a
 * delivery recorded at the end, no earlier than any of the starts it counts,
 * holds each slot at least as long as the real start would (a sliding window
 * frees it an interval after the recorded time). Only policies for which k at
 * once count as k singly (`grantsInBulk`: the sliding window) grant leases.
 *
 * The promise API spends a lease on the `schedule` calls of one synchronous
 * stretch while nothing waits (adapters/task-lease.ts): each such task starts
 * inside its own `schedule` call, with no event and no queue entry of its own.
 */

/** The object a LEASE shares: the machine writes `granted`, the holder counts `spent`. */
export interface Lease {
  granted: number;
  spent: number;
}

/** The one lease a throttler may have open, and what it granted (kept here: the holder could change the object). */
export class OpenLease {
  private lease: Lease | undefined = undefined;
  private granted = 0;
  /** Set while the answer is written: a write that throws leaves the lease charged whole. */
  private chargedWhole = false;

  /** `record(spent, at)` logs what a lease spent as one delivery of that cost at `at`. */
  constructor(private readonly record: (spent: number, at: number) => void) {}

  get isOpen(): boolean {
    return this.lease !== undefined;
  }

  /**
   * Opens `lease` with `granted` permits (none: it stays closed); an open one must have ended first.
   * The writes may throw (a Proxy the machine's checks could not see through): a lease opened is then
   * charged whole, since the holder may have read what was granted.
   */
  open(lease: Lease, granted: number): void {
    if (granted === 0) {
      lease.granted = 0;
      lease.spent = 0;
      return;
    }
    this.lease = lease;
    this.granted = granted;
    this.chargedWhole = true;
    lease.spent = 0;
    lease.granted = granted;
    this.chargedWhole = false;
  }

  /**
   * Ends it, if open: what it spent is recorded at `now`. A count the holder damaged (not an integer
   * from 0 to what was granted, or a field that throws) counts as all of it, so a broken holder can
   * only leave the window fuller than it is, never emptier.
   */
  end(now: number): void {
    const lease = this.lease;
    if (lease === undefined) return;
    this.lease = undefined;
    let spent: unknown;
    try {
      lease.granted = 0;
      spent = lease.spent;
    } catch {
      spent = undefined;
    }
    const trusted = !this.chargedWhole && Number.isInteger(spent) && (spent as number) >= 0;
    const counted = trusted && (spent as number) <= this.granted ? (spent as number) : this.granted;
    if (counted > 0) this.record(counted, now);
  }
}
