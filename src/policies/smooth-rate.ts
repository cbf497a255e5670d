import type { Rate } from '../rate/index.js';
import type { PolicyState, ThrottlePolicy } from './policy.js';

/**
 * How far a grant may trail the send it is for, in ms. A send less than this after its grant was
 * a late wake-up (a timer armed in whole ms fires up to 1 ms after its moment): the grant stands,
 * as Guava's, which reserves at request time, would. A send held back longer (a pause, no target,
 * another rate that binds) counts as a request made then, less this slack, and the time before it
 * as idle: a schedule that fell further behind the sends would later let a backlog through at once.
 * So each send is at most this long after its grant, and never before it.
 */
export const GRANT_SLACK_MS = 1;

/**
 * The reservation arithmetic shared by Guava's SmoothBursty and SmoothWarmingUp
 * (SmoothRateLimiter): permits are granted one `stableInterval` apart, unused
 * time is stored as permits up to `maxPermits`, and a request is granted at
 * `nextFree` whatever its size, its cost pushing `nextFree` forward so that the
 * NEXT request pays the wait (pre-consumption).
 *
 * Subclasses say how many permits are stored at most, how fast idle time turns
 * into stored permits, and what spending stored permits costs in time.
 */
export abstract class SmoothRatePolicy implements ThrottlePolicy {
  protected rate: Rate;
  /** Milliseconds between two permits at the full rate. */
  protected stableInterval: number;
  protected storedPermits = 0;
  protected maxPermits = 0;
  /** The time from which the next request may be granted. */
  protected nextFree: number;

  constructor(rate: Rate, now: number) {
    this.rate = rate;
    this.stableInterval = rate.interval / rate.limit;
    this.nextFree = now;
  }

  get smallestLimit(): number {
    return this.rate.limit;
  }

  activate(): void {}

  earliestDelivery(now: number): number {
    return Math.max(now, this.nextFree);
  }

  /**
   * Guava's reserveEarliestAvailable, for a request made at `requestedAt` and sent at `at`: it is
   * granted at the later of its request and `nextFree`, and the schedule goes on from that grant,
   * not from the send (see {@link GRANT_SLACK_MS} for how far apart the two may be).
   */
  recordDelivery(at: number, cost: number, requestedAt = at): void {
    const grantedAt = Math.min(at, Math.max(requestedAt, this.nextFree, at - GRANT_SLACK_MS));
    this.resync(grantedAt);
    const storedToSpend = Math.min(cost, this.storedPermits);
    const freshPermits = cost - storedToSpend;
    const wait = this.storedPermitsToWaitTime(this.storedPermits, storedToSpend) + freshPermits * this.stableInterval;
    // The options are refused where this arithmetic would not be finite; a NaN let through here
    // would answer every later earliestDelivery with NaN, and the machine would send everything at once.
    if (!(wait >= 0 && wait < Number.POSITIVE_INFINITY)) {
      throw new RangeError(
        `${this.kind}: a delivery of cost ${cost} came to a wait of ${wait} ms at ${this.rate.limit} per ${this.rate.interval} ms`,
      );
    }
    this.nextFree += wait;
    this.storedPermits -= storedToSpend;
  }

  setRates(rates: readonly Rate[], now: number): void {
    this.resync(now);
    this.rate = rates[0] as Rate;
    this.stableInterval = this.rate.interval / this.rate.limit;
    this.resize();
  }

  save(shift: number): PolicyState {
    return {
      kind: this.kind,
      storedPermits: this.storedPermits,
      maxPermits: this.maxPermits,
      nextFree: this.nextFree + shift,
    };
  }

  load(state: PolicyState, shift: number): void {
    this.storedPermits = state.storedPermits as number;
    this.nextFree = (state.nextFree as number) + shift;
  }

  protected abstract readonly kind: string;

  /** Recomputes maxPermits (and rescales storedPermits) after the rate changed. */
  protected abstract resize(): void;

  /** Milliseconds of idle time that store one permit. */
  protected abstract coolDownInterval(): number;

  /** Milliseconds that spending `permitsToTake` of `stored` permits adds to the wait. */
  protected abstract storedPermitsToWaitTime(stored: number, permitsToTake: number): number;

  /** Idle time since nextFree turns into stored permits. */
  private resync(now: number): void {
    if (now > this.nextFree) {
      const newPermits = (now - this.nextFree) / this.coolDownInterval();
      this.storedPermits = Math.min(this.maxPermits, this.storedPermits + newPermits);
      this.nextFree = now;
    }
  }
}
