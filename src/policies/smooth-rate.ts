import { type Rate, ThrottlerOptionError } from '../rate/index.js';
import type { ThrottlePolicy } from './policy.js';
import { field, readKind, readRecord, readTime } from './saved-fields.js';

/** What a token bucket or a warming-up policy saves. */
export interface SmoothRateState {
  readonly kind: 'token-bucket' | 'warming-up';
  readonly storedPermits: number;
  /** The most permits that could be stored when saved: stored permits are restored as a share of it. */
  readonly maxPermits: number;
  /** The time from which the next request may be granted. */
  readonly nextFree: number;
}

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
export abstract class SmoothRatePolicy implements ThrottlePolicy<SmoothRateState> {
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

  holdsActiveUntil(): number {
    return Number.NEGATIVE_INFINITY;
  }

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

  save(shift: number): SmoothRateState {
    return {
      kind: this.kind,
      storedPermits: this.storedPermits,
      maxPermits: this.maxPermits,
      nextFree: this.nextFree + shift,
    };
  }

  /**
   * Stored permits come back as the same share of this policy's maximum, as after a rate change (the saved
   * maximum differs only if the options or their arithmetic did), so they never exceed it. `nextFree` may lie
   * ahead of the save (a request pays its wait forward); one far ahead only holds deliveries back.
   */
  load(saved: unknown, shift: number, path = 'state'): void {
    const { storedPermits, maxPermits, nextFree } = this.readState(saved, path);
    const share = maxPermits === 0 ? 0 : storedPermits / maxPermits;
    // Equal maxima (the usual case) are copied as they are: a share multiplied back may round.
    this.storedPermits =
      maxPermits === this.maxPermits ? storedPermits : Math.min(this.maxPermits, share * this.maxPermits);
    this.nextFree = nextFree + shift;
  }

  protected abstract readonly kind: SmoothRateState['kind'];

  /** Recomputes maxPermits (and rescales storedPermits) after the rate changed. */
  protected abstract resize(): void;

  /** Milliseconds of idle time that store one permit. */
  protected abstract coolDownInterval(): number;

  /** Milliseconds that spending `permitsToTake` of `stored` permits adds to the wait. */
  protected abstract storedPermitsToWaitTime(stored: number, permitsToTake: number): number;

  private readState(saved: unknown, path: string): SmoothRateState {
    const record = readRecord(saved, path);
    const kind = readKind(record, this.kind, path);
    const maxPermits = field(record, 'maxPermits');
    if (typeof maxPermits !== 'number' || !Number.isFinite(maxPermits) || maxPermits < 0) {
      throw new ThrottlerOptionError(`${path}.maxPermits`, 'a finite number of permits >= 0', maxPermits);
    }
    const storedPermits = field(record, 'storedPermits');
    if (typeof storedPermits !== 'number' || !(storedPermits >= 0 && storedPermits <= maxPermits)) {
      throw new ThrottlerOptionError(
        `${path}.storedPermits`,
        `a number of permits from 0 to maxPermits (${maxPermits})`,
        storedPermits,
      );
    }
    return { kind, storedPermits, maxPermits, nextFree: readTime(field(record, 'nextFree'), `${path}.nextFree`) };
  }

  /** Idle time since nextFree turns into stored permits. */
  private resync(now: number): void {
    if (now > this.nextFree) {
      const newPermits = (now - this.nextFree) / this.coolDownInterval();
      this.storedPermits = Math.min(this.maxPermits, this.storedPermits + newPermits);
      this.nextFree = now;
    }
  }
}
