import { parseDuration } from './duration.js';
import { ThrottlerOptionError } from './errors.js';

/**
 * A validated rate: at most `limit` (total cost) per `interval` milliseconds; with `dimension`, the cost a
 * message has in that dimension (`{ tokens: '30000/1m' }` parses to `{ limit: 30000, interval: 60000, dimension: 'tokens' }`).
 */
export interface Rate {
  /** The most total cost in any window of `interval`: a positive integer. */
  readonly limit: number;
  /** The window's length in ms. */
  readonly interval: number;
  /** The dimension whose costs count against it (`'tokens'`), with rates in dimensions; undefined: every cost. */
  readonly dimension?: string | undefined;
}

/**
 * What users write: `'3/1s'`, `'10/s'`, `'100/1m'`, `'1000/1d'`, `'5/500ms'`,
 * or `{ limit, interval }` with the interval in milliseconds (or a duration string).
 * A `Rate` as `parseRates` returns it (with its `dimension`) is read back as it is.
 */
export type RateInput = string | { limit: number; interval: number | string; dimension?: string | undefined };

/**
 * One rate, several that must all hold at once (`['10/1s', '500/1m']`), or several dimensions at once, each
 * with its own rates, a message's cost counted in each: `{ requests: '500/1m', tokens: ['30000/1m', '1000000/1d'] }`.
 * An object whose `limit` is a number, or that has an `interval`, is one rate; any other object is a dimension map.
 */
export type RatesInput =
  | RateInput
  | readonly RateInput[]
  | { readonly [dimension: string]: RateInput | readonly RateInput[] };

const RATE_PATTERN = /^\s*([^/\s]+)\s*\/\s*(.+?)\s*$/;

/** Parses and validates one rate, throwing a {@link ThrottlerOptionError} that names `option` and the value. */
export function parseRate(input: RateInput, option = 'rate'): Rate {
  if (typeof input === 'string') {
    const match = RATE_PATTERN.exec(input);
    if (!match) {
      throw new ThrottlerOptionError(option, 'a rate such as "10/1s", "100/1m" or { limit, interval }', input);
    }
    const limitText = match[1] as string;
    const limit = /^\d+$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!Number.isSafeInteger(limit) || limit <= 0) {
      throw new ThrottlerOptionError(`${option}.limit`, 'a positive integer', limitText);
    }
    return { limit, interval: parseDuration(match[2] as string, `${option}.interval`) };
  }
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const { limit, interval } = input as { limit: unknown; interval: unknown };
    if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit <= 0) {
      throw new ThrottlerOptionError(`${option}.limit`, 'a positive integer', limit);
    }
    if (typeof interval !== 'number' && typeof interval !== 'string') {
      throw new ThrottlerOptionError(`${option}.interval`, 'a positive duration in milliseconds', interval);
    }
    const dimension = (input as { dimension?: unknown }).dimension;
    if (dimension === undefined) return { limit, interval: parseDuration(interval, `${option}.interval`) };
    if (typeof dimension !== 'string' || dimension.length === 0) {
      throw new ThrottlerOptionError(`${option}.dimension`, 'a non-empty string (a dimension name)', dimension);
    }
    return { limit, interval: parseDuration(interval, `${option}.interval`), dimension };
  }
  throw new ThrottlerOptionError(option, 'a rate such as "10/1s", "100/1m" or { limit, interval }', input);
}

/**
 * Parses one rate, a non-empty list of rates that must all hold, or a dimension map (each dimension's rates
 * parsed under `option.<dimension>`, each rate labelled with its dimension, in the map's order). The rates of
 * a list are all of one dimension or all of none.
 */
export function parseRates(input: RatesInput | undefined, option = 'rate'): Rate[] {
  if (input === undefined) {
    throw new ThrottlerOptionError(option, 'a rate such as "10/1s" (it is required)', input);
  }
  if (isDimensionMap(input)) return parseDimensionMap(input, option);
  if (Array.isArray(input)) {
    if (input.length === 0) {
      throw new ThrottlerOptionError(option, 'a rate or a non-empty list of rates', input);
    }
    const rates = input.map((one: RateInput, index: number) => parseRate(one, `${option}[${index}]`));
    checkDimensionsOfList(rates, option);
    return rates[0]?.dimension === undefined ? rates : groupedByDimension(rates);
  }
  return [parseRate(input as RateInput, option)];
}

/** An object that is not one rate (no numeric `limit`, no `interval`): a map of dimension to rates. */
export function isDimensionMap(input: unknown): input is { readonly [dimension: string]: unknown } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  return typeof (input as { limit?: unknown }).limit !== 'number' && !Object.hasOwn(input, 'interval');
}

function parseDimensionMap(input: { readonly [dimension: string]: unknown }, option: string): Rate[] {
  // Own keys only: a dimension is data, `__proto__` included (JSON.parse makes it an own key).
  const entries = Object.entries(input);
  if (entries.length === 0) {
    throw new ThrottlerOptionError(option, 'a rate, a list of rates or a non-empty map of dimension to rates', input);
  }
  const rates: Rate[] = [];
  for (const [dimension, value] of entries) {
    const path = `${option}.${dimension}`;
    if (dimension.length === 0)
      throw new ThrottlerOptionError(path, 'rates of a dimension with a non-empty name', value);
    if (isDimensionMap(value))
      throw new ThrottlerOptionError(path, 'a rate or a list of rates (not a dimension map)', value);
    for (const rate of parseRates(value as RatesInput, path)) {
      if (rate.dimension !== undefined && rate.dimension !== dimension) {
        throw new ThrottlerOptionError(`${path}.dimension`, `absent or "${dimension}"`, rate.dimension);
      }
      rates.push({ limit: rate.limit, interval: rate.interval, dimension });
    }
  }
  return rates;
}

/** Each dimension's rates together, the dimensions in the order they first appear (what the policies assume). */
function groupedByDimension(rates: readonly Rate[]): Rate[] {
  const groups = new Map<string | undefined, Rate[]>();
  for (const rate of rates) {
    const group = groups.get(rate.dimension);
    if (group === undefined) groups.set(rate.dimension, [rate]);
    else group.push(rate);
  }
  return [...groups.values()].flat();
}

/** A list read back from `Rate`s: every rate has a dimension, or none has. */
function checkDimensionsOfList(rates: readonly Rate[], option: string): void {
  const dimensioned = rates[0]?.dimension !== undefined;
  for (const [index, rate] of rates.entries()) {
    if ((rate.dimension !== undefined) !== dimensioned) {
      throw new ThrottlerOptionError(
        `${option}[${index}].dimension`,
        dimensioned ? 'a dimension name' : 'absent',
        rate.dimension,
      );
    }
  }
}

/** Formats a rate back into the compact string form, e.g. `3/1s`. */
export function formatRate(rate: Rate): string {
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ];
  for (const [unit, ms] of units) {
    if (rate.interval % ms === 0) return `${rate.limit}/${rate.interval / ms}${unit}`;
  }
  return `${rate.limit}/${rate.interval}ms`;
}

/** Checks a cost: a positive integer no larger than the smallest limit it must fit in. */
export function validateCost(cost: unknown, smallestLimit: number): number {
  if (typeof cost !== 'number' || !Number.isSafeInteger(cost) || cost <= 0) {
    throw new ThrottlerOptionError('cost', 'a positive integer', cost);
  }
  if (cost > smallestLimit) {
    throw new ThrottlerOptionError(
      'cost',
      `at most ${smallestLimit} (the smallest limit that applies; it could never be sent)`,
      cost,
    );
  }
  return cost;
}

/** The longest interval of any rate in these lists, in ms (0 with none). */
export function longestIntervalOf(lists: Iterable<readonly Rate[]>): number {
  let longest = 0;
  for (const list of lists) for (const rate of list) longest = Math.max(longest, rate.interval);
  return longest;
}
