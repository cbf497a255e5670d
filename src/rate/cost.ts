import { ThrottlerOptionError } from './errors.js';
import type { Rate } from './rate.js';

/**
 * Costs in several dimensions at once (`rate: { requests: '500/1m', tokens: '30000/1m' }`).
 *
 * A user writes a cost as a number (that cost in every rate of every dimension) or as a map of dimension to
 * cost (`{ requests: 1, tokens: 1200 }`; a dimension it does not name costs 0 there). The engine holds a
 * map as a `DimensionCost`: one number per dimension, indexed by the throttler's dimension numbers
 * (`Dimensions`), resolved once as the message is admitted, so no later question looks a name up.
 */

/** A cost in one number per dimension, indexed by `Dimensions.indexOf`; an index past its end costs 0. */
export type DimensionCost = readonly number[];

/** A cost as the engine holds it: a number (the same in every dimension) or one per dimension. */
export type Cost = number | DimensionCost;

/** A cost as a user writes it. */
export type CostInput = number | { readonly [dimension: string]: number };

/** The dimensions of a throttler: those its `rate` names, numbered in that order, fixed for its life. */
export class Dimensions {
  readonly names: readonly string[];
  private readonly numbers = new Map<string, number>();

  private constructor(names: readonly string[]) {
    this.names = names;
    for (const [index, name] of names.entries()) this.numbers.set(name, index);
  }

  /** The dimensions the rates name, in order; undefined when they name none. */
  static of(rates: readonly Rate[]): Dimensions | undefined {
    const names: string[] = [];
    for (const rate of rates)
      if (rate.dimension !== undefined && !names.includes(rate.dimension)) names.push(rate.dimension);
    return names.length === 0 ? undefined : new Dimensions(names);
  }

  indexOf(name: string): number | undefined {
    return this.numbers.get(name);
  }

  /** The names, quoted, for messages. */
  describe(): string {
    return this.names.map((name) => JSON.stringify(name)).join(', ');
  }

  /**
   * A user's cost map as a vector. `limitOf(index)` is the smallest limit of that dimension among the rates
   * that apply to the message, undefined when none of them has it. Throws a ThrottlerOptionError naming
   * `path.<dimension>` (or `path`) and the value.
   */
  resolve(cost: object, limitOf: (index: number) => number | undefined, path = 'cost'): DimensionCost {
    const vector: number[] = new Array(this.names.length).fill(0);
    let positive = false;
    let names: string[];
    try {
      names = Object.keys(cost);
    } catch {
      throw new ThrottlerOptionError(path, 'a number or an object of dimension to cost', cost);
    }
    for (const name of names) {
      let value: unknown;
      try {
        value = (cost as Record<string, unknown>)[name];
      } catch {
        throw new ThrottlerOptionError(`${path}.${name}`, 'a readable cost', 'a field that throws when read');
      }
      const index = this.numbers.get(name);
      const limit = index === undefined ? undefined : limitOf(index);
      if (index === undefined || limit === undefined) {
        throw new ThrottlerOptionError(
          `${path}.${name}`,
          `absent: a dimension of the rates that apply (${this.describe()})`,
          value,
        );
      }
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
        throw new ThrottlerOptionError(`${path}.${name}`, 'a non-negative integer', value);
      }
      if (value > limit) {
        throw new ThrottlerOptionError(
          `${path}.${name}`,
          `at most ${limit} (the smallest limit of dimension ${JSON.stringify(name)} that applies; it could never be sent)`,
          value,
        );
      }
      vector[index] = value;
      if (value > 0) positive = true;
    }
    if (!positive) throw new ThrottlerOptionError(path, 'a cost with at least one dimension above 0', cost);
    return vector;
  }

  /** A vector back as a user's map (the dimensions it costs something in), for emitted events. */
  record(cost: DimensionCost): Record<string, number> {
    const record: Record<string, number> = {};
    for (const [index, value] of cost.entries()) {
      // defineProperty: a dimension named `__proto__` is a field like any other.
      if (value > 0)
        Object.defineProperty(record, this.names[index] as string, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return record;
  }
}

/** A cost as a user writes it: the number, or the engine's vector back as a map. */
export function costInput(cost: Cost, dimensions: Dimensions | undefined): CostInput {
  return typeof cost === 'number' || dimensions === undefined ? (cost as number) : dimensions.record(cost);
}

/** The same key for equal costs (a vector's zeros at its end do not count): what in-flight counting matches on. */
export function costKey(cost: Cost): number | string {
  if (typeof cost === 'number') return cost;
  let end = cost.length;
  while (end > 0 && cost[end - 1] === 0) end -= 1;
  return cost.slice(0, end).join(',');
}

/**
 * Checks that a list of rates fits the throttler's dimensions: without dimensions, rates without; with them,
 * a dimension map naming some of them. Refused with a ThrottlerOptionError naming `option` and the value.
 */
export function checkRateDimensions(rates: readonly Rate[], dimensions: Dimensions | undefined, option: string): void {
  const first = rates[0]?.dimension;
  if (dimensions === undefined) {
    if (first !== undefined) {
      throw new ThrottlerOptionError(`${option}.${first}`, "absent: the throttler's rate names no dimensions", rates);
    }
    return;
  }
  if (first === undefined) {
    throw new ThrottlerOptionError(
      option,
      `a map of dimension to rates, naming some of ${dimensions.describe()}`,
      rates.length === 1 ? rates[0] : rates,
    );
  }
  for (const rate of rates) {
    const name = rate.dimension as string;
    if (dimensions.indexOf(name) === undefined) {
      throw new ThrottlerOptionError(
        `${option}.${name}`,
        `absent: one of the throttler's dimensions (${dimensions.describe()})`,
        rate,
      );
    }
  }
}

/**
 * A SET_RATE's new rates in dimensions over the rates in force: each dimension it names takes its new rates,
 * each it does not keeps its own (so the overall rates, which name every dimension, always do). Each
 * dimension's rates together, in the order of the rates in force, new dimensions after. Plain rates as given.
 */
export function keepingDimensions(next: Rate[], current: readonly Rate[] | undefined): Rate[] {
  if (next[0]?.dimension === undefined || current === undefined) return next;
  const named = new Set(next.map((rate) => rate.dimension));
  const merged: Rate[] = [];
  const placed = new Set<string | undefined>();
  for (const rate of current) {
    if (!named.has(rate.dimension)) merged.push(rate);
    else if (!placed.has(rate.dimension)) {
      placed.add(rate.dimension);
      merged.push(...next.filter((one) => one.dimension === rate.dimension));
    }
  }
  for (const rate of next) if (!placed.has(rate.dimension)) merged.push(rate);
  return merged;
}

/** A cost's part in dimension `index`: a number is the same in every dimension; a vector's missing end costs 0. */
export function costIn(cost: Cost, index: number | undefined): number {
  return typeof cost === 'number' ? cost : index === undefined ? 0 : (cost[index] ?? 0);
}

/**
 * A delivery's actual cost (ACTUAL_COST, schedule's `settle`) read against its `estimate`: a number (that cost in
 * every dimension), or with dimensions a map whose unnamed dimensions keep their estimate. Each an integer >= 0;
 * an actual cost may exceed a limit (the overrun is charged). Throws a ThrottlerOptionError naming `path` (or
 * `path.<dimension>`) and the value.
 */
export function resolveActualCost(
  input: unknown,
  estimate: Cost,
  dimensions: Dimensions | undefined,
  path = 'cost',
): Cost {
  const isCount = (value: unknown): value is number =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
  if (isCount(input)) return input;
  if (dimensions === undefined || typeof input !== 'object' || input === null || Array.isArray(input)) {
    const expected = dimensions === undefined ? '' : ', or an object of dimension to actual cost';
    throw new ThrottlerOptionError(path, `the actual cost of a delivered message, an integer >= 0${expected}`, input);
  }
  const vector = dimensions.names.map((_name, index) => costIn(estimate, index));
  for (const name of Object.keys(input)) {
    const index = dimensions.indexOf(name);
    const value = (input as Record<string, unknown>)[name];
    if (index === undefined) {
      throw new ThrottlerOptionError(
        `${path}.${name}`,
        `absent: one of the dimensions (${dimensions.describe()})`,
        value,
      );
    }
    if (!isCount(value)) throw new ThrottlerOptionError(`${path}.${name}`, 'an integer >= 0', value);
    vector[index] = value;
  }
  return vector;
}
