import { parseDuration } from './duration.js';
import { ThrottlerOptionError } from './errors.js';

/** A validated rate: at most `limit` (total cost) per `interval` milliseconds. */
export interface Rate {
  readonly limit: number;
  readonly interval: number;
}

/**
 * What users write: `'3/1s'`, `'10/s'`, `'100/1m'`, `'1000/1d'`, `'5/500ms'`,
 * or `{ limit, interval }` with the interval in milliseconds (or a duration string).
 */
export type RateInput = string | { limit: number; interval: number | string };

/** One rate, or several that must all hold at once (`['10/1s', '500/1m']`). */
export type RatesInput = RateInput | readonly RateInput[];

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
    return { limit, interval: parseDuration(interval, `${option}.interval`) };
  }
  throw new ThrottlerOptionError(option, 'a rate such as "10/1s", "100/1m" or { limit, interval }', input);
}

/** Parses one rate or a non-empty list of rates that must all hold. */
export function parseRates(input: RatesInput | undefined, option = 'rate'): Rate[] {
  if (input === undefined) {
    throw new ThrottlerOptionError(option, 'a rate such as "10/1s" (it is required)', input);
  }
  if (Array.isArray(input)) {
    if (input.length === 0) {
      throw new ThrottlerOptionError(option, 'a rate or a non-empty list of rates', input);
    }
    return input.map((one: RateInput, index: number) => parseRate(one, `${option}[${index}]`));
  }
  return [parseRate(input as RateInput, option)];
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
