/**
 * An independent port of Guava's SmoothRateLimiter (com.google.common.util.concurrent,
 * SmoothRateLimiter.java: SmoothBursty and SmoothWarmingUp), written from Guava's source, not
 * from src/policies, for the property tests to check the strategies against.
 *
 * Kept as Guava has it: the field names, the order of the arithmetic, the start-up (a limiter
 * is created at a time, its stopwatch starting there; SmoothBursty starts empty, SmoothWarmingUp
 * cold), setRate's resync. Changed on purpose:
 * - milliseconds instead of microseconds, and doubles throughout: Guava truncates every wait to
 *   a whole microsecond (`(long)`), which would drift from exact arithmetic by up to 1 µs a grant;
 * - time is passed in (`nowMs`) instead of read from a stopwatch, and `reserve` returns the
 *   moment the request is granted (Guava's acquire sleeps until it and returns the wait);
 * - SmoothBursty takes its burst in permits (`maxBurstPermits`), as the throttler's maxBurst is,
 *   rather than in seconds of the rate; converted back the way Guava would compute it.
 */

/** How the limiter treats stored permits: Guava's two subclasses. */
export type GuavaLimiterShape =
  | { readonly kind: 'bursty'; readonly maxBurstPermits: number }
  | { readonly kind: 'warming-up'; readonly warmupPeriodMs: number; readonly coldFactor: number };

export class GuavaSmoothRateLimiter {
  private storedPermits = 0;
  private maxPermits = 0;
  private stableIntervalMs = 0;
  /** Could be either in the past or in the future. */
  private nextFreeTicketMs = 0;
  private thresholdPermits = 0;
  private slope = 0;
  private readonly shape: GuavaLimiterShape;

  /** RateLimiter.create(permitsPerSecond, ...) at time `createdAtMs`. */
  constructor(shape: GuavaLimiterShape, permitsPerSecond: number, createdAtMs: number) {
    this.shape = shape;
    this.setRate(permitsPerSecond, createdAtMs);
  }

  /** SmoothRateLimiter.doSetRate(permitsPerSecond, nowMicros). */
  setRate(permitsPerSecond: number, nowMs: number): void {
    this.resync(nowMs);
    this.stableIntervalMs = 1_000 / permitsPerSecond;
    if (this.shape.kind === 'bursty') this.doSetRateBursty(permitsPerSecond);
    else this.doSetRateWarmingUp(this.stableIntervalMs);
  }

  /** reserveEarliestAvailable: the moment a request for `requiredPermits` made at `nowMs` is granted. */
  reserve(requiredPermits: number, nowMs: number): number {
    this.resync(nowMs);
    const returnValue = this.nextFreeTicketMs;
    const storedPermitsToSpend = Math.min(requiredPermits, this.storedPermits);
    const freshPermits = requiredPermits - storedPermitsToSpend;
    const waitMs =
      this.storedPermitsToWaitTime(this.storedPermits, storedPermitsToSpend) + freshPermits * this.stableIntervalMs;
    this.nextFreeTicketMs = this.nextFreeTicketMs + waitMs;
    this.storedPermits -= storedPermitsToSpend;
    return returnValue;
  }

  private resync(nowMs: number): void {
    // If nextFreeTicket is in the past, resync to now.
    if (nowMs > this.nextFreeTicketMs) {
      const newPermits = (nowMs - this.nextFreeTicketMs) / this.coolDownIntervalMs();
      this.storedPermits = Math.min(this.maxPermits, this.storedPermits + newPermits);
      this.nextFreeTicketMs = nowMs;
    }
  }

  /** SmoothBursty.doSetRate. */
  private doSetRateBursty(permitsPerSecond: number): void {
    const maxBurstSeconds = (this.shape as { maxBurstPermits: number }).maxBurstPermits / permitsPerSecond;
    const oldMaxPermits = this.maxPermits;
    this.maxPermits = maxBurstSeconds * permitsPerSecond;
    if (oldMaxPermits === Number.POSITIVE_INFINITY) this.storedPermits = this.maxPermits;
    else this.storedPermits = oldMaxPermits === 0 ? 0 : (this.storedPermits * this.maxPermits) / oldMaxPermits;
  }

  /** SmoothWarmingUp.doSetRate. */
  private doSetRateWarmingUp(stableIntervalMs: number): void {
    const { warmupPeriodMs, coldFactor } = this.shape as { warmupPeriodMs: number; coldFactor: number };
    const oldMaxPermits = this.maxPermits;
    const coldIntervalMs = stableIntervalMs * coldFactor;
    this.thresholdPermits = (0.5 * warmupPeriodMs) / stableIntervalMs;
    this.maxPermits = this.thresholdPermits + (2.0 * warmupPeriodMs) / (stableIntervalMs + coldIntervalMs);
    this.slope = (coldIntervalMs - stableIntervalMs) / (this.maxPermits - this.thresholdPermits);
    if (oldMaxPermits === Number.POSITIVE_INFINITY) this.storedPermits = 0;
    else
      this.storedPermits =
        oldMaxPermits === 0 ? this.maxPermits : (this.storedPermits * this.maxPermits) / oldMaxPermits;
  }

  private storedPermitsToWaitTime(storedPermits: number, permitsToTake: number): number {
    if (this.shape.kind === 'bursty') return 0;
    const availablePermitsAboveThreshold = storedPermits - this.thresholdPermits;
    let ms = 0;
    let toTake = permitsToTake;
    // The integral on the right part of the function (the climbing line).
    if (availablePermitsAboveThreshold > 0) {
      const permitsAboveThresholdToTake = Math.min(availablePermitsAboveThreshold, toTake);
      const length =
        this.permitsToTime(availablePermitsAboveThreshold) +
        this.permitsToTime(availablePermitsAboveThreshold - permitsAboveThresholdToTake);
      ms = (permitsAboveThresholdToTake * length) / 2.0;
      toTake -= permitsAboveThresholdToTake;
    }
    // The integral on the left part of the function (the horizontal line).
    ms += this.stableIntervalMs * toTake;
    return ms;
  }

  private permitsToTime(permits: number): number {
    return this.stableIntervalMs + permits * this.slope;
  }

  private coolDownIntervalMs(): number {
    if (this.shape.kind === 'bursty') return this.stableIntervalMs;
    return this.shape.warmupPeriodMs / this.maxPermits;
  }
}
