import { type Rate, ThrottlerOptionError } from '../rate/index.js';
import type { TransitSpread } from './policy.js';
import { SmoothRatePolicy } from './smooth-rate.js';

/**
 * Token bucket (Guava SmoothBursty): one permit every interval/limit, unused
 * permits stored up to `maxBurst`. Guarantee: over any span of length d, grants
 * total at most maxBurst + limit x d / interval, plus the one request granted
 * ahead of its permits (pre-consumption), whose cost the next request waits off.
 *
 * With a transit spread J (the `transit` option) the bucket stores at most
 * maxBurst - limit x J / interval: a server's bucket counting at arrival sees, over
 * any span d of arrivals, the sends of a span d + J, so the same guarantee holds
 * there. Only the burst shrinks, never the steady rate.
 */
export class TokenBucketPolicy extends SmoothRatePolicy {
  protected readonly kind = 'token-bucket';
  private readonly maxBurst: number | undefined;
  private readonly transit: TransitSpread | undefined;
  /** The spread the capacity was last reduced by. */
  private spread = 0;

  constructor(rate: Rate, now: number, maxBurst?: number, transit?: TransitSpread) {
    super(rate, now);
    this.maxBurst = maxBurst;
    this.transit = transit;
    if (transit !== undefined) {
      checkTransitCapacity(rate, maxBurst, transit.most);
      this.spread = transit.spreadAt(now);
    }
    this.resize();
    // Guava's SmoothBursty starts with an empty bucket: no burst at start-up.
    this.storedPermits = 0;
  }

  /** The capacity follows a measured spread as it changes: shrunk, stored permits beyond it are dropped. */
  override recordDelivery(at: number, cost: number, requestedAt?: number): void {
    if (this.transit !== undefined) {
      const spread = this.transit.spreadAt(at);
      if (spread !== this.spread) {
        this.spread = spread;
        this.maxPermits = this.capacity();
        // Clamped, never scaled up: a grown capacity fills from idle time, not from nothing.
        this.storedPermits = Math.min(this.storedPermits, this.maxPermits);
      }
    }
    super.recordDelivery(at, cost, requestedAt);
  }

  override setRates(rates: readonly Rate[], now: number): void {
    // Checked before anything changes: a stated spread the new rate cannot absorb refuses the SET_RATE.
    if (this.transit !== undefined) checkTransitCapacity(rates[0] as Rate, this.maxBurst, this.transit.most);
    super.setRates(rates, now);
  }

  protected resize(): void {
    const previousMax = this.maxPermits;
    this.maxPermits = this.capacity();
    // Scaled by the ratio: the product could overflow where the ratio is 1 (a maxBurst near 1e308).
    this.storedPermits = previousMax === 0 ? 0 : this.storedPermits * (this.maxPermits / previousMax);
  }

  /** maxBurst (default the limit), less the permits the rate makes over the spread; never below 0. */
  private capacity(): number {
    const burst = this.maxBurst ?? this.rate.limit;
    return this.spread === 0 ? burst : Math.max(0, burst - (this.rate.limit * this.spread) / this.rate.interval);
  }

  protected coolDownInterval(): number {
    return this.stableInterval;
  }

  /** Stored permits are free: that is the burst. */
  protected storedPermitsToWaitTime(): number {
    return 0;
  }
}

/**
 * A bounded spread (stated, or measured with `max`) must leave the bucket at least one permit: J as long as the
 * bucket takes to fill leaves no burst the server could absorb, and the steady rate alone would overfill it.
 */
export function checkTransitCapacity(rate: Rate, maxBurst: number | undefined, most: number): void {
  if (!Number.isFinite(most)) return;
  const burst = maxBurst ?? rate.limit;
  const left = burst - (rate.limit * most) / rate.interval;
  if (left < 1) {
    throw new ThrottlerOptionError(
      'transit',
      `a spread that leaves the token bucket at least one permit (maxBurst ${burst} less ${rate.limit} per ${rate.interval} ms over the spread leaves ${left}): at most ${((burst - 1) * rate.interval) / rate.limit} ms`,
      most,
    );
  }
}
