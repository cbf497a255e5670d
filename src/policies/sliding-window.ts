import { longestIntervalOf, type Rate, ThrottlerOptionError } from '../rate/index.js';
import { DeliveryLog } from './delivery-log.js';
import { Pacing } from './pacing.js';
import { smallestLimitOf, type ThrottlePolicy, type TransitSpread } from './policy.js';
import { field, readArray, readCost, readCount, readKind, readPastTime, readRecord } from './saved-fields.js';

/** What a sliding window saves: its recent deliveries as [time, cost], oldest first, and the cost held in flight. */
export interface SlidingWindowState {
  readonly kind: 'sliding-window';
  readonly deliveries: ReadonlyArray<readonly [time: number, cost: number]>;
  readonly inFlightCost: number;
}

/**
 * Most total cost a restored log may hold: the log keeps a running total in a
 * float, which stops counting unit costs past 2^53 and would then see no cost
 * in any window (far beyond any real log: the largest limit times the entries kept).
 */
const MAX_RESTORED_COST = 2 ** 52;

/**
 * Strict sliding window: never more than `limit` (total cost) in ANY window
 * [t, t + interval), for every rate at once.
 *
 * A delivery of cost c at time x is allowed when the deliveries in
 * (x - interval, x] cost at most limit - c. So x must come at or after
 * `interval` past the newest delivery at which the cost, counted back from the
 * newest, first exceeds limit - c; with unit costs that is the limit-th last
 * delivery plus the interval. No fixed spacing (unless paced): a message never waits while the
 * window allows it.
 *
 * Cost held "in flight" (countUntil: 'done') counts as if delivered at every
 * instant until it is released, which is then logged as a delivery at the
 * release time.
 *
 * With a transit spread J (the `transit` option) every decision counts each rate's
 * window as interval + J long: a server counting at arrival, each request after an
 * uplink within [umin, umin + J], then never holds more than the limit in any window
 * of the interval (its window's arrivals were sent within interval + J). The rates,
 * their window use and the audit stay the user's.
 *
 * With `pace` (pacing.ts) a delivery also waits its spacing after the one before: a
 * window's worth goes over the window, not at its start. It only ever waits longer,
 * and a lease (which lets k go at once) is not granted.
 */
export class SlidingWindowPolicy implements ThrottlePolicy<SlidingWindowState> {
  private rates: readonly Rate[];
  private readonly log: DeliveryLog;
  private longestInterval: number;
  private inFlightCost = 0;
  /** How many deliveries the log keeps: the largest limit ever in force. */
  private retainedEntries: number;
  private readonly transit: TransitSpread | undefined;
  /** How much longer than the longest interval the log keeps deliveries: the largest spread seen or promised. */
  private retainedSpread: number;
  /** The spacing between deliveries (`pace`), absent without. */
  private readonly pacing: Pacing | undefined;
  smallestLimit: number;

  /** `paceSpan`: with `pace`, the most a window's worth is spread over (Infinity: the whole interval). */
  constructor(rates: readonly Rate[], transit?: TransitSpread, paceSpan?: number) {
    this.rates = rates;
    this.transit = transit;
    this.pacing = paceSpan === undefined ? undefined : new Pacing(paceSpan);
    // k at once counts as k singly only without a spacing between them.
    this.grantsInBulk = this.pacing === undefined;
    this.retainedSpread = transit !== undefined && Number.isFinite(transit.most) ? transit.most : 0;
    this.smallestLimit = smallestLimitOf(rates);
    this.longestInterval = longestIntervalOf([rates]);
    this.retainedEntries = largestLimitOf(rates);
    this.log = new DeliveryLog(this.retainedEntries);
  }

  readonly startsPeriodsOnActivation = false;
  readonly grantsInBulk: boolean;

  activate(): void {}

  earliestDelivery(now: number, cost: number): number {
    const spread = this.spreadAt(now);
    this.log.forgetUpTo(now - this.longestInterval - this.retainedSpread);
    let earliest = now;
    for (const rate of this.rates) {
      const allowance = rate.limit - cost - this.inFlightCost;
      if (allowance < 0) return Number.POSITIVE_INFINITY;
      const blockingTime = this.log.timeWhereCostExceeds(allowance);
      earliest = Math.max(earliest, blockingTime + rate.interval + spread);
    }
    return this.pacing === undefined ? earliest : Math.max(earliest, this.pacing.earliest(now));
  }

  /** The transit spread J at `now` (0 without one); the log keeps the largest ever seen. */
  private spreadAt(now: number): number {
    if (this.transit === undefined) return 0;
    const spread = this.transit.spreadAt(now);
    if (spread > this.retainedSpread) this.retainedSpread = spread;
    return spread;
  }

  windowUse(now: number, into: number[]): void {
    for (const rate of this.rates) into.push(this.log.costAfter(now - rate.interval) + this.inFlightCost);
  }

  recordDelivery(at: number, cost: number): void {
    this.log.append(at, cost);
    this.pacing?.recorded(at, cost, this.rates);
  }

  /**
   * The log entry at `at` takes the actual cost, O(log n). One the log let go by count (its windows held at
   * least a limit after it), or never logged (a dimension its estimate left at 0), passes an overrun on to the
   * first entry at or after `at`, which only holds back longer, or is logged at `at` when none is newer.
   */
  settleDelivery(at: number, estimate: number, actual: number, now: number): void {
    const delta = actual - estimate;
    if (delta !== 0) this.pacing?.settled(delta, this.rates);
    if (delta === 0 || this.log.adjust(at, delta)) return;
    if (delta > 0 && at > now - this.longestInterval - this.retainedSpread) this.log.addAtOrAfter(at, delta);
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
    this.longestInterval = longestIntervalOf([rates]);
    this.retainedEntries = Math.max(this.retainedEntries, largestLimitOf(rates));
    this.log.setMaxEntries(this.retainedEntries);
  }

  save(shift: number): SlidingWindowState {
    return {
      kind: 'sliding-window',
      // An entry settled to cost 0 holds nothing back: it is not saved.
      deliveries: this.log.entries().flatMap(([time, cost]) => (cost === 0 ? [] : [[time + shift, cost] as const])),
      inFlightCost: this.inFlightCost,
    };
  }

  /**
   * Deliveries must be in time order and no later than the save. A logged cost may exceed the limits now in
   * force (one lowered since): such a delivery only holds its windows full for longer.
   */
  load(saved: unknown, shift: number, path = 'state', savedAt = Number.POSITIVE_INFINITY): void {
    const state = readSlidingWindowState(saved, path, savedAt);
    for (const [time, cost] of state.deliveries) this.log.append(time + shift, cost);
    this.inFlightCost = state.inFlightCost;
  }

  /** The held cost is logged as one delivery at `at`, never before the newest one: the log is in time order. */
  settleAllInFlight(at: number): void {
    if (this.inFlightCost > 0) this.releaseInFlight(Math.max(at, this.log.newestTime), this.inFlightCost);
  }
}

function readSlidingWindowState(saved: unknown, path: string, savedAt: number): SlidingWindowState {
  const record = readRecord(saved, path);
  const kind = readKind(record, 'sliding-window', path);
  const entries = readArray(field(record, 'deliveries'), `${path}.deliveries`);
  const inFlightCost = readCount(field(record, 'inFlightCost'), `${path}.inFlightCost`);
  if (inFlightCost > MAX_RESTORED_COST) {
    throw new ThrottlerOptionError(`${path}.inFlightCost`, `at most 2^52 = ${MAX_RESTORED_COST}`, inFlightCost);
  }
  let totalCost = inFlightCost;
  let previousTime = Number.NEGATIVE_INFINITY;
  const deliveries = entries.map((entry, index): [number, number] => {
    const entryPath = `${path}.deliveries[${index}]`;
    const pair = readArray(entry, entryPath, 'a [time, cost] pair');
    if (pair.length !== 2) throw new ThrottlerOptionError(entryPath, 'a [time, cost] pair', pair);
    const time = readPastTime(pair[0], `${entryPath}[0]`, savedAt);
    if (time < previousTime) {
      throw new ThrottlerOptionError(
        `${entryPath}[0]`,
        `a time no earlier than the delivery before it (${previousTime})`,
        time,
      );
    }
    const cost = readCost(pair[1], `${entryPath}[1]`);
    totalCost += cost;
    if (totalCost > MAX_RESTORED_COST) {
      throw new ThrottlerOptionError(
        `${entryPath}[1]`,
        `a cost that keeps the log's total (with inFlightCost) at most 2^52 = ${MAX_RESTORED_COST}`,
        cost,
      );
    }
    previousTime = time;
    return [time, cost];
  });
  return { kind, deliveries, inFlightCost };
}

function largestLimitOf(rates: readonly Rate[]): number {
  let largest = 1;
  for (const rate of rates) largest = Math.max(largest, rate.limit);
  return largest;
}
