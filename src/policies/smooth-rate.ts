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
 * How far a grant may trail the send it is for, in ms. A send less than this after its grant was
 * a late wake-up (a timer armed in whole ms fires up to 1 ms after its moment): the grant stands,
 * as Guava's, which reserves at request time, would. A send held back longer (a pause, no target,
 * another rate that binds) counts as a request made then, less this slack, and the time before it
 * as idle: a schedule that fell further behind the sends would later let a backlog through at once.
 * So each send is at most this long after its grant, and never before it.
 */
export const GRANT_SLACK_MS = 1;

/**
 * How far past `nextFree` a rounding error may put it, in ms. Grants are sums of permit intervals
 * (10/3 ms, three times, is 10 ms exactly but adds up to 10.000000000000002): a grant that lies less
 * than this past the moment asked about is due then, so a timer that counts whole ms does not wait a
 * round more for a rounding error. One nanosecond: far below what a clock tells apart, far above the
 * rounding of any schedule's sums.
 */
export const GRANT_TOLERANCE_MS = 1e-6;

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

  readonly startsPeriodsOnActivation = false;
  readonly grantsInBulk = false;

  activate(): void {}

  earliestDelivery(now: number): number {
    return this.nextFree - now <= GRANT_TOLERANCE_MS ? now : this.nextFree;
  }

  windowUse(now: number, into: number[]): void {
    // Read as resync would leave it, without changing anything: idle time since nextFree stores permits.
    const stored =
      now > this.nextFree
        ? Math.min(this.maxPermits, this.storedPermits + (now - this.nextFree) / this.coolDownInterval())
        : this.storedPermits;
    const unavailable = this.maxPermits === 0 ? 1 : 1 - stored / this.maxPermits;
    const ahead = now < this.nextFree ? (this.nextFree - now) / this.stableInterval : 0;
    into.push(unavailable * this.rate.limit + ahead);
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

  /**
   * The next free time moves by the difference's worth of permits: a saving back, so the next request is
   * granted sooner (or, moved into the past, stores the permits as idle time does); an overrun forward.
   */
  settleDelivery(_at: number, estimate: number, actual: number): void {
    this.nextFree += (actual - estimate) * this.stableInterval;
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
