import type { Rate } from '../rate/index.js';
import { DeliveryLog } from './delivery-log.js';
import { type PolicyState, smallestLimitOf, type ThrottlePolicy } from './policy.js';

/**
 * Strict sliding window: never more than `limit` (total cost) in ANY window
 * [t, t + interval), for every rate at once.
 *
 * A delivery of cost c at time x is allowed when the deliveries in
 * (x - interval, x] cost at most limit - c. So x must come at or after
 * `interval` past the newest delivery at which the cost, counted back from the
 * newest, first exceeds limit - c; with unit costs that is the limit-th last
 * delivery plus the interval. No fixed spacing: a message never waits while the
 * window allows it.
 *
 * Cost held "in flight" (countUntil: 'done') counts as if delivered at every
 * instant until it is released, which is then logged as a delivery at the
 * release time.
 */
export class SlidingWindowPolicy implements ThrottlePolicy {
  private rates: readonly Rate[];
  private readonly log: DeliveryLog;
  private longestInterval: number;
  private inFlightCost = 0;
  /** How many deliveries the log keeps: the largest limit ever in force. */
  private retainedEntries: number;
  smallestLimit: number;

  constructor(rates: readonly Rate[]) {
    this.rates = rates;
    this.smallestLimit = smallestLimitOf(rates);
    this.longestInterval = longestIntervalOf(rates);
    this.retainedEntries = largestLimitOf(rates);
    this.log = new DeliveryLog(this.retainedEntries);
  }

  activate(): void {}

  earliestDelivery(now: number, cost: number): number {
    this.log.forgetUpTo(now - this.longestInterval);
    let earliest = now;
    for (const rate of this.rates) {
      const allowance = rate.limit - cost - this.inFlightCost;
      if (allowance < 0) return Number.POSITIVE_INFINITY;
      const blockingTime = this.log.timeWhereCostExceeds(allowance);
      earliest = Math.max(earliest, blockingTime + rate.interval);
    }
    return earliest;
  }

  recordDelivery(at: number, cost: number): void {
    this.log.append(at, cost);
  }

  /** Counts `cost` as occupying the window from now until {@link releaseInFlight}. */
  holdInFlight(cost: number): void {
    this.inFlightCost += cost;
  }

  /** The held cost settled at `at`: from now on it counts as a delivery at `at`. */
  releaseInFlight(at: number, cost: number): void {
    this.inFlightCost -= cost;
    this.log.append(at, cost);
  }

  /**
   * The log is kept: the new limits apply to deliveries already made, so a change never opens a
   * burst. It never shrinks either: a limit lowered and raised again within one window must still
   * see every delivery that window holds. What the log has already forgotten (deliveries older
   * than the longest interval in force when it was last asked) stays forgotten, so lengthening an
   * interval counts only the deliveries of the previous longest interval.
   */
  setRates(rates: readonly Rate[]): void {
    this.rates = rates;
    this.smallestLimit = smallestLimitOf(rates);
    this.longestInterval = longestIntervalOf(rates);
    this.retainedEntries = Math.max(this.retainedEntries, largestLimitOf(rates));
    this.log.setMaxEntries(this.retainedEntries);
  }

  save(shift: number): PolicyState {
    return {
      kind: 'sliding-window',
      deliveries: this.log.entries().map(([time, cost]) => [time + shift, cost]),
      inFlightCost: this.inFlightCost,
    };
  }

  load(state: PolicyState, shift: number): void {
    for (const [time, cost] of state.deliveries as Array<[number, number]>) this.log.append(time + shift, cost);
    this.inFlightCost = (state.inFlightCost as number | undefined) ?? 0;
  }
}

function longestIntervalOf(rates: readonly Rate[]): number {
  let longest = 0;
  for (const rate of rates) longest = Math.max(longest, rate.interval);
  return longest;
}

function largestLimitOf(rates: readonly Rate[]): number {
  let largest = 1;
  for (const rate of rates) largest = Math.max(largest, rate.limit);
  return largest;
}
