import type { Rate } from '../rate/index.js';
import type { PolicyState, ThrottlePolicy } from './policy.js';

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

  recordDelivery(at: number, cost: number): void {
    this.resync(at);
    const storedToSpend = Math.min(cost, this.storedPermits);
    const freshPermits = cost - storedToSpend;
    const wait = this.storedPermitsToWaitTime(this.storedPermits, storedToSpend) + freshPermits * this.stableInterval;
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
