import { formatRate, type Rate, ThrottlerOptionError } from '../rate/index.js';
import { SmoothRatePolicy } from './smooth-rate.js';

/** Guava's warm-up curve for one rate (SmoothWarmingUp.doSetRate), in ms and permits. */
export interface WarmUpCurve {
  /** Stored permits up to here cost the stable interval each. */
  readonly thresholdPermits: number;
  readonly maxPermits: number;
  /** How much more each stored permit above the threshold costs than the one below it, in ms. */
  readonly slope: number;
}

/**
 * The warm-up curve for `rate`, or a ThrottlerOptionError naming what makes its arithmetic
 * leave the finite numbers (a NaN wait would send everything at once): a rate of 0 ms per permit,
 * a cold interval (interval × coldFactor, what a request of `limit` permits may cost) that
 * overflows, a warm-up so long that it holds more permits than a number can count, or a curve so
 * narrow (a tiny warm-up, or a huge coldFactor beside it) that its slope overflows.
 * `rateOption` names the rate in the error: `rate`, `rate[1]`, `channels.search`.
 */
export function warmUpCurve(rate: Rate, warmup: number, coldFactor: number, rateOption = 'rate'): WarmUpCurve {
  const stableInterval = rate.interval / rate.limit;
  if (!(stableInterval > 0)) {
    throw new ThrottlerOptionError(
      `${rateOption}.interval`,
      `long enough that interval / limit is above 0 ms for warming-up (limit ${rate.limit})`,
      rate.interval,
    );
  }
  if (!Number.isFinite(rate.interval * coldFactor)) {
    throw new ThrottlerOptionError(
      'coldFactor',
      `small enough that interval × coldFactor is finite (${rateOption} ${formatRate(rate)})`,
      coldFactor,
    );
  }
  const coldInterval = stableInterval * coldFactor;
  const thresholdPermits = (0.5 * warmup) / stableInterval;
  const maxPermits = thresholdPermits + (2 * warmup) / (stableInterval + coldInterval);
  const warmupError = (requirement: string) =>
    new ThrottlerOptionError('warmup', `${requirement} (${rateOption} ${formatRate(rate)})`, warmup);
  if (!Number.isFinite(maxPermits)) throw warmupError('short enough that warmup × limit / interval is finite');
  const width = maxPermits - thresholdPermits;
  // With coldFactor 1 the line is flat: every permit costs the stable interval.
  const slope = coldFactor === 1 ? 0 : (coldInterval - stableInterval) / width;
  if (!(Number.isFinite(slope) && Number.isFinite(warmup / maxPermits))) {
    // A width lost in rounding beside the threshold means coldFactor is too large; one that is
    // there but tiny means the warm-up is too short for this rate's cold interval.
    if (width === 0 && thresholdPermits > 0) {
      throw new ThrottlerOptionError(
        'coldFactor',
        `small enough that the warm-up, 4 / (1 + coldFactor) times as many permits as below its threshold, does not vanish in rounding (${rateOption} ${formatRate(rate)}, warmup ${warmup} ms)`,
        coldFactor,
      );
    }
    throw warmupError(
      'long enough that the slope of the warm-up, (cold interval² - stable interval²) / (2 × warmup), is finite',
    );
  }
  return { thresholdPermits, maxPermits, slope };
}

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
    const curve = warmUpCurve(this.rate, this.warmup, this.coldFactor);
    this.thresholdPermits = curve.thresholdPermits;
    this.maxPermits = curve.maxPermits;
    this.slope = curve.slope;
    // Scaled by the ratio: the product could overflow where the ratio is 1.
    this.storedPermits = previousMax === 0 ? this.maxPermits : this.storedPermits * (this.maxPermits / previousMax);
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
