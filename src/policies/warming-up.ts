import type { Rate } from '../rate/index.js';
import { SmoothRatePolicy } from './smooth-rate.js';

/**
 * Warm-up (Guava SmoothWarmingUp): after idling, the rate starts at
 * rate / coldFactor and climbs linearly to the full rate over `warmup` ms of
 * steady use. Guarantee: never faster than the full rate; after a long idle,
 * slower, so a cold backend (caches, connection pools) is not hit at full speed.
 *
 * Stored permits above `thresholdPermits` cost more time the fuller the store
 * is (the integral of a line from stableInterval to coldInterval), so spending
 * them is slow; idle time refills the store at maxPermits per warm-up period.
 */
export class WarmingUpPolicy extends SmoothRatePolicy {
  protected readonly kind = 'warming-up';
  private readonly warmup: number;
  private readonly coldFactor: number;
  private thresholdPermits = 0;
  private slope = 0;

  constructor(rate: Rate, now: number, warmup: number, coldFactor: number) {
    super(rate, now);
    this.warmup = warmup;
    this.coldFactor = coldFactor;
    this.resize();
    // A new throttler is cold, as in Guava: it warms up before reaching the full rate.
    this.storedPermits = this.maxPermits;
  }

  protected resize(): void {
    const previousMax = this.maxPermits;
    const coldInterval = this.stableInterval * this.coldFactor;
    this.thresholdPermits = (0.5 * this.warmup) / this.stableInterval;
    this.maxPermits = this.thresholdPermits + (2 * this.warmup) / (this.stableInterval + coldInterval);
    // With coldFactor 1 the line is flat: every permit costs the stable interval.
    this.slope =
      this.maxPermits > this.thresholdPermits
        ? (coldInterval - this.stableInterval) / (this.maxPermits - this.thresholdPermits)
        : 0;
    this.storedPermits = previousMax === 0 ? this.maxPermits : (this.storedPermits * this.maxPermits) / previousMax;
  }

  protected coolDownInterval(): number {
    return this.warmup / this.maxPermits;
  }

  protected storedPermitsToWaitTime(stored: number, permitsToTake: number): number {
    const aboveThreshold = stored - this.thresholdPermits;
    let wait = 0;
    let remaining = permitsToTake;
    if (aboveThreshold > 0) {
      const aboveToTake = Math.min(aboveThreshold, remaining);
      const length = this.permitsToTime(aboveThreshold) + this.permitsToTime(aboveThreshold - aboveToTake);
      wait = (aboveToTake * length) / 2;
      remaining -= aboveToTake;
    }
    return wait + this.stableInterval * remaining;
  }

  private permitsToTime(permitsAboveThreshold: number): number {
    return this.stableInterval + permitsAboveThreshold * this.slope;
  }
}
