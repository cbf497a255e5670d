import type { Rate } from '../rate/index.js';
import { SmoothRatePolicy } from './smooth-rate.js';

/**
 * Token bucket (Guava SmoothBursty): one permit every interval/limit, unused
 * permits stored up to `maxBurst`. Guarantee: over any span of length d, grants
 * total at most maxBurst + limit x d / interval, plus the one request granted
 * ahead of its permits (pre-consumption), whose cost the next request waits off.
 */
export class TokenBucketPolicy extends SmoothRatePolicy {
  protected readonly kind = 'token-bucket';
  private readonly maxBurst: number | undefined;

  constructor(rate: Rate, now: number, maxBurst?: number) {
    super(rate, now);
    this.maxBurst = maxBurst;
    this.resize();
    // Guava's SmoothBursty starts with an empty bucket: no burst at start-up.
    this.storedPermits = 0;
  }

  protected resize(): void {
    const previousMax = this.maxPermits;
    this.maxPermits = this.maxBurst ?? this.rate.limit;
    // Scaled by the ratio: the product could overflow where the ratio is 1 (a maxBurst near 1e308).
    this.storedPermits = previousMax === 0 ? 0 : this.storedPermits * (this.maxPermits / previousMax);
  }

  protected coolDownInterval(): number {
    return this.stableInterval;
  }

  /** Stored permits are free: that is the burst. */
  protected storedPermitsToWaitTime(): number {
    return 0;
  }
}
