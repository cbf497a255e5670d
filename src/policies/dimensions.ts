import { type Cost, costIn, type Dimensions, type Rate, ThrottlerOptionError } from '../rate/index.js';
import type { SavedPolicyState, ThrottlePolicy } from './policy.js';
import { field, readArray, readKind, readRecord } from './saved-fields.js';

/**
 * Several dimensions at once (requests and tokens): one inner policy per dimension, built by the strategy from
 * that dimension's rates, and a cost counted in each. The guarantee is each inner policy's, in every dimension
 * at once: a delivery goes when every dimension it costs something in allows it (permission is monotone in
 * time in each, so the earliest time all allow is the latest of their answers).
 *
 * A cost is a number (that cost in every dimension) or a vector indexed by the throttler's dimension numbers
 * (`Dimensions`); a dimension the vector costs 0 in is not consulted, nor charged.
 */

/** What a DimensionsPolicy saves: one [dimension, state] pair per dimension, in the order of its rates. */
export interface DimensionsState<TInner extends SavedPolicyState = SavedPolicyState> {
  readonly kind: 'dimensions';
  readonly parts: ReadonlyArray<readonly [string, TInner]>;
}

interface Part<TInner extends SavedPolicyState> {
  /** The dimension's number: where a vector cost holds its cost. */
  readonly index: number;
  readonly name: string;
  readonly policy: ThrottlePolicy<TInner>;
}

export type CreateInner<TInner extends SavedPolicyState> = (
  rates: readonly Rate[],
  now: number,
) => ThrottlePolicy<TInner>;

export class DimensionsPolicy<TInner extends SavedPolicyState = SavedPolicyState>
  implements ThrottlePolicy<DimensionsState<TInner>>
{
  private parts: Part<TInner>[];
  smallestLimit = Number.POSITIVE_INFINITY;

  constructor(
    rates: readonly Rate[],
    private readonly dimensions: Dimensions,
    private readonly createInner: CreateInner<TInner>,
    now: number,
  ) {
    this.parts = this.build(rates, now);
    this.updateSmallest();
  }

  earliestDelivery(now: number, cost: Cost): number {
    let earliest = now;
    if (typeof cost === 'number') {
      for (const part of this.parts) earliest = Math.max(earliest, part.policy.earliestDelivery(now, cost));
      return earliest;
    }
    for (const part of this.parts) {
      const one = cost[part.index] ?? 0;
      if (one > 0) earliest = Math.max(earliest, part.policy.earliestDelivery(now, one));
    }
    return earliest;
  }

  recordDelivery(at: number, cost: Cost, requestedAt?: number): void {
    for (const part of this.parts) {
      const one = typeof cost === 'number' ? cost : (cost[part.index] ?? 0);
      if (one > 0) part.policy.recordDelivery(at, one, requestedAt);
    }
  }

  holdInFlight(cost: Cost): void {
    for (const part of this.parts) {
      const one = typeof cost === 'number' ? cost : (cost[part.index] ?? 0);
      if (one > 0) part.policy.holdInFlight?.(one);
    }
  }

  releaseInFlight(at: number, cost: Cost): void {
    for (const part of this.parts) {
      const one = typeof cost === 'number' ? cost : (cost[part.index] ?? 0);
      if (one > 0) part.policy.releaseInFlight?.(at, one);
    }
  }

  /** Each dimension's policy takes its part of the actual cost; one the two costs agree in is not told. */
  settleDelivery(at: number, estimate: Cost, actual: Cost, now: number): void {
    for (const part of this.parts) {
      const before = costIn(estimate, part.index);
      const after = costIn(actual, part.index);
      if (before !== after) part.policy.settleDelivery(at, before, after, now);
    }
  }

  settleAllInFlight(at: number): void {
    for (const part of this.parts) part.policy.settleAllInFlight?.(at);
  }

  /** One number per rate, in the order of the rates (each dimension's together, as parseRates groups them). */
  windowUse(now: number, into: number[]): void {
    for (const part of this.parts) part.policy.windowUse(now, into);
  }

  /** The smallest limit of a dimension's rates here; undefined when these rates do not name it. */
  smallestLimitIn(index: number): number | undefined {
    for (const part of this.parts) if (part.index === index) return part.policy.smallestLimit;
    return undefined;
  }

  get grantsInBulk(): boolean {
    return this.parts.every((part) => part.policy.grantsInBulk);
  }

  get startsPeriodsOnActivation(): boolean {
    return this.parts.some((part) => part.policy.startsPeriodsOnActivation);
  }

  activate(now: number): void {
    for (const part of this.parts) part.policy.activate(now);
  }

  activationStartsPeriod(now: number): boolean {
    for (const part of this.parts) if (part.policy.activationStartsPeriod?.(now)) return true;
    return false;
  }

  /**
   * A dimension named before and now keeps its state under its new rates; a new one starts afresh (activated
   * at `now`); one no longer named is no longer limited here. Every new part is built first, so that a rate
   * the strategy refuses throws before anything changed.
   */
  setRates(rates: readonly Rate[], now: number): void {
    const groups = byDimension(rates);
    for (const name of groups.keys()) {
      if (this.dimensions.indexOf(name) === undefined) {
        throw new ThrottlerOptionError(
          `rate.${name}`,
          `absent: one of the throttler's dimensions (${this.dimensions.describe()})`,
          groups.get(name),
        );
      }
    }
    const fresh = this.build(rates, now);
    const parts: Part<TInner>[] = [];
    for (const part of fresh) {
      const kept = this.parts.find((old) => old.index === part.index);
      if (kept === undefined) {
        part.policy.activate(now);
        parts.push(part);
      } else {
        kept.policy.setRates(groups.get(part.name) as Rate[], now);
        parts.push(kept);
      }
    }
    this.parts = parts;
    this.updateSmallest();
  }

  save(shift: number): DimensionsState<TInner> {
    return { kind: 'dimensions', parts: this.parts.map((part) => [part.name, part.policy.save(shift)] as const) };
  }

  /** One [dimension, state] pair per dimension, in order, each state restored (and checked) by its own policy. */
  load(saved: unknown, shift: number, path = 'state', savedAt = Number.POSITIVE_INFINITY): void {
    const record = readRecord(saved, path);
    readKind(record, 'dimensions', path);
    const pairs = readArray(field(record, 'parts'), `${path}.parts`);
    if (pairs.length !== this.parts.length) {
      throw new ThrottlerOptionError(
        `${path}.parts`,
        `an array of ${this.parts.length} (one state per dimension)`,
        pairs,
      );
    }
    for (const [index, part] of this.parts.entries()) {
      const pair = readArray(pairs[index], `${path}.parts[${index}]`, 'a [dimension, state] pair');
      if (pair[0] !== part.name) {
        throw new ThrottlerOptionError(`${path}.parts[${index}][0]`, JSON.stringify(part.name), pair[0]);
      }
      part.policy.load(pair[1], shift, `${path}.parts[${index}][1]`, savedAt);
    }
  }

  private build(rates: readonly Rate[], now: number): Part<TInner>[] {
    const parts: Part<TInner>[] = [];
    for (const [name, group] of byDimension(rates)) {
      parts.push({ index: this.dimensions.indexOf(name) as number, name, policy: this.createInner(group, now) });
    }
    return parts;
  }

  private updateSmallest(): void {
    this.smallestLimit = Number.POSITIVE_INFINITY;
    for (const part of this.parts) this.smallestLimit = Math.min(this.smallestLimit, part.policy.smallestLimit);
  }
}

/** The rates of each dimension, in the order the dimensions first appear. */
function byDimension(rates: readonly Rate[]): Map<string, Rate[]> {
  const groups = new Map<string, Rate[]>();
  for (const rate of rates) {
    const name = rate.dimension as string;
    const group = groups.get(name);
    if (group === undefined) groups.set(name, [rate]);
    else group.push(rate);
  }
  return groups;
}
