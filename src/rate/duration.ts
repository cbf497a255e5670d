import { ThrottlerOptionError } from './errors.js';

/**
 * A length of time: milliseconds as a number, or a string such as `'500ms'`, `'1s'`, `'2.5m'`, `'30d'`, or
 * a compound of them, `'1m30s'`, `'1h 15m'` (the parts add up).
 */
export type DurationInput = number | string;

const MS_PER_UNIT: Record<string, number> = {
  ms: 1,
  s: 1_000,
  sec: 1_000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const DURATION_PATTERN = /^\s*(\d+(?:\.\d+)?|\.\d+)?\s*(ms|sec|s|min|m|h|d)\s*$/i;
/** Two parts or more, each with its amount (`'1m30s'`); read part by part with COMPOUND_PART. */
const COMPOUND_PATTERN = /^\s*(?:(?:\d+(?:\.\d+)?|\.\d+)\s*(?:ms|sec|s|min|m|h|d)\s*){2,}$/i;
const COMPOUND_PART = /(\d+(?:\.\d+)?|\.\d+)\s*(ms|sec|s|min|m|h|d)/gi;

/**
 * Parses a duration into milliseconds. A bare unit (`'s'`) means one of it, so
 * that `'10/s'` reads as ten per second.
 */
export function parseDuration(input: DurationInput, option: string): number {
  let ms: number;
  if (typeof input === 'number') {
    ms = input;
  } else if (typeof input === 'string') {
    const match = DURATION_PATTERN.exec(input);
    if (match) {
      const amount = match[1] === undefined ? 1 : Number(match[1]);
      ms = amount * (MS_PER_UNIT[(match[2] as string).toLowerCase()] as number);
    } else if (COMPOUND_PATTERN.test(input)) {
      ms = 0;
      for (const part of input.matchAll(COMPOUND_PART)) {
        ms += Number(part[1]) * (MS_PER_UNIT[(part[2] as string).toLowerCase()] as number);
      }
    } else {
      throw new ThrottlerOptionError(option, 'a duration such as 500ms, 1s, 1m, 1h or 1d', input);
    }
  } else {
    throw new ThrottlerOptionError(option, 'a duration in milliseconds or a string such as 1s', input);
  }
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new ThrottlerOptionError(option, 'a positive, finite duration in milliseconds', input);
  }
  return ms;
}
