import { type Rate, ThrottlerOptionError } from '../rate/index.js';
import type { ThrottlePolicy } from './policy.js';
import { field, readCount, readKind, readPastTimeOrNull, readRecord, readTimeOrNull } from './saved-fields.js';

/** What a voucher timer saves. Times are null where the policy holds -Infinity (never). */
export interface VoucherTimerState {
  readonly kind: 'timer';
  /** When the running tick period started; null before the first. */
  readonly periodStart: number | null;
  /** Vouchers left in that period. */
  readonly vouchers: number;
  /** The end of the period of the latest delivery (it keeps the throttler active until then); null before any. */
  readonly latestDeliveryPeriodEnd: number | null;
}

/** How far past its period a saved period end may lie: the times are shifted one by one, and rounding may differ. */
const SHIFT_ROUNDING_MS = 1;

/**
 * Voucher timer (Akka's TimerBasedThrottler): `limit` vouchers per interval,
 * refilled by a periodic tick that starts when the throttler becomes active.
 * Guarantee (weak): at most `limit` per tick period, so up to 2 x limit can land
 * in an arbitrary window of one interval straddling a tick.
 *
 * The tick is computed lazily from the period start instead of being a timer of
 * its own: the machine's single wake-up timer is armed for the next tick only
 * when something waits for it.
 */
export class VoucherTimerPolicy implements ThrottlePolicy<VoucherTimerState> {
  private rate: Rate;
  private periodStart = Number.NEGATIVE_INFINITY;
  private vouchers = 0;
  private latestDeliveryPeriodEnd = Number.NEGATIVE_INFINITY;

  constructor(rate: Rate) {
    this.rate = rate;
  }

  readonly startsPeriodsOnActivation = true;
  readonly grantsInBulk = false;

  get smallestLimit(): number {
    return this.rate.limit;
  }

  /**
   * The tick starts when the throttler becomes active, as in Akka. If the period
   * of the latest delivery is still running (the queue emptied, or the target was
   * unset, and work came back within it), it goes on: a fresh set of vouchers
   * there would exceed the rate. A period in which nothing was delivered holds
   * nothing back, so it never carries over: however the throttler went idle
   * (drained, target unset, target lost), the next activation starts a period.
   */
  activate(now: number): void {
    if (!this.activationStartsPeriod(now)) return;
    this.restartPeriod(now);
  }

  /** Whether an activation now would start a new period: none of the latest delivery's is running. */
  activationStartsPeriod(now: number): boolean {
    return now >= this.latestDeliveryPeriodEnd;
  }

  earliestDelivery(now: number, cost: number): number {
    if (this.periodStart === Number.NEGATIVE_INFINITY) return now;
    this.rollPeriod(now);
    return this.vouchers >= cost ? now : this.periodStart + this.rate.interval;
  }

  windowUse(now: number, into: number[]): void {
    // A period that has run out holds nothing: the next use refills it (rollPeriod), so nothing is rolled here.
    const running = this.periodStart !== Number.NEGATIVE_INFINITY && now - this.periodStart < this.rate.interval;
    into.push(running ? this.rate.limit - this.vouchers : 0);
  }

  recordDelivery(at: number, cost: number): void {
    if (this.periodStart === Number.NEGATIVE_INFINITY) this.restartPeriod(at);
    this.rollPeriod(at);
    this.vouchers -= cost;
    this.latestDeliveryPeriodEnd = this.periodStart + this.rate.interval;
  }

  /**
   * The running period's spend takes the difference when the delivery is in it; an overrun of a delivery in
   * an earlier period is charged to the running one. Vouchers stay between none and the limit: a period is
   * the timer's only memory, so what an overrun takes beyond the running period's vouchers is not carried on.
   */
  settleDelivery(at: number, estimate: number, actual: number, now: number): void {
    const delta = actual - estimate;
    if (delta === 0 || this.periodStart === Number.NEGATIVE_INFINITY) return;
    this.rollPeriod(now);
    if (delta < 0 && at < this.periodStart) return;
    this.vouchers = Math.min(this.rate.limit, Math.max(0, this.vouchers - delta));
  }

  /**
   * As Akka's SetRate, the tick restarts now under the new rate; unlike it, what the period cut short
   * delivered counts against the new limit. A full set on every SET_RATE let a target that re-sets its
   * rate on each delivery receive without bound at one instant (5 at t=0 under 2/1s), past the 2 x limit
   * a window may see.
   */
  setRates(rates: readonly Rate[], now: number): void {
    if (this.periodStart === Number.NEGATIVE_INFINITY) {
      this.rate = rates[0] as Rate;
      return;
    }
    // Rolled under the old rate first: a tick due by now (even at this very millisecond) refilled it.
    this.rollPeriod(now);
    const spent = this.rate.limit - this.vouchers;
    this.rate = rates[0] as Rate;
    this.periodStart = now;
    this.vouchers = Math.max(0, this.rate.limit - spent);
    if (this.latestDeliveryPeriodEnd > now) this.latestDeliveryPeriodEnd = now + this.rate.interval;
  }

  /** The period the replaced parts were in goes on from now, with what it delivered spent (as setRates does). */
  takeOver(previous: readonly ThrottlePolicy[], now: number): void {
    let spent = 0;
    for (const part of previous) {
      if (!(part instanceof VoucherTimerPolicy) || part.latestDeliveryPeriodEnd <= now) continue;
      part.rollPeriod(now);
      spent = Math.max(spent, part.rate.limit - part.vouchers);
    }
    if (spent === 0) return;
    this.periodStart = now;
    this.vouchers = Math.max(0, this.rate.limit - spent);
    this.latestDeliveryPeriodEnd = now + this.rate.interval;
  }

  save(shift: number): VoucherTimerState {
    return {
      kind: 'timer',
      periodStart: this.periodStart === Number.NEGATIVE_INFINITY ? null : this.periodStart + shift,
      vouchers: this.vouchers,
      latestDeliveryPeriodEnd:
        this.latestDeliveryPeriodEnd === Number.NEGATIVE_INFINITY ? null : this.latestDeliveryPeriodEnd + shift,
    };
  }

  /** At most the limit in vouchers; the latest delivery's period no later than the period running. */
  load(saved: unknown, shift: number, path = 'state', savedAt = Number.POSITIVE_INFINITY): void {
    const state = this.readState(saved, path, savedAt);
    const { periodStart, latestDeliveryPeriodEnd } = state;
    this.periodStart = periodStart === null ? Number.NEGATIVE_INFINITY : periodStart + shift;
    this.vouchers = state.vouchers;
    this.latestDeliveryPeriodEnd =
      latestDeliveryPeriodEnd === null ? Number.NEGATIVE_INFINITY : latestDeliveryPeriodEnd + shift;
  }

  private readState(saved: unknown, path: string, savedAt: number): VoucherTimerState {
    const record = readRecord(saved, path);
    const kind = readKind(record, 'timer', path);
    const periodStart = readPastTimeOrNull(field(record, 'periodStart'), `${path}.periodStart`, savedAt);
    const vouchers = readCount(field(record, 'vouchers'), `${path}.vouchers`);
    if (vouchers > this.rate.limit) {
      throw new ThrottlerOptionError(`${path}.vouchers`, `at most ${this.rate.limit} (the limit)`, vouchers);
    }
    const periodEndPath = `${path}.latestDeliveryPeriodEnd`;
    const latestDeliveryPeriodEnd = readTimeOrNull(field(record, 'latestDeliveryPeriodEnd'), periodEndPath);
    if (latestDeliveryPeriodEnd !== null) {
      if (periodStart === null) {
        throw new ThrottlerOptionError(
          periodEndPath,
          'null while periodStart is null (no period has run)',
          latestDeliveryPeriodEnd,
        );
      }
      const periodEnd = periodStart + this.rate.interval;
      if (latestDeliveryPeriodEnd > periodEnd + SHIFT_ROUNDING_MS) {
        throw new ThrottlerOptionError(
          periodEndPath,
          `null or no later than the end of the period running (periodStart + interval = ${periodEnd})`,
          latestDeliveryPeriodEnd,
        );
      }
    }
    return { kind, periodStart, vouchers, latestDeliveryPeriodEnd };
  }

  private restartPeriod(now: number): void {
    this.periodStart = now;
    this.vouchers = this.rate.limit;
  }

  /** Ticks that passed since the period start each restored the full set of vouchers. */
  private rollPeriod(now: number): void {
    const elapsed = now - this.periodStart;
    if (elapsed < this.rate.interval) return;
    this.periodStart += Math.floor(elapsed / this.rate.interval) * this.rate.interval;
    this.vouchers = this.rate.limit;
  }
}
