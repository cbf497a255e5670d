import { ThrottlerOptionError } from '../rate/index.js';

/**
 * Readers for saved state that may be damaged: each checks one field and
 * returns it typed, or throws a ThrottlerOptionError naming the field's path
 * and the value found (`...deliveries[3][0] must be a wall-clock time in ms,
 * got "x"`). Restoring goes through these so that damage is refused where it is
 * found, not met later as a TypeError, a NaN or a burst.
 */

/** The most a Date can hold either side of the epoch: a saved time is a Date.now() reading, so beyond this is damage. */
const LATEST_DATE = 8.64e15;

/** Reads a non-null, non-array object. */
export function readRecord(value: unknown, path: string, what = 'an object'): Readonly<Record<string, unknown>> {
  if (!isRecord(value)) throw new ThrottlerOptionError(path, what, value);
  return value;
}

/**
 * A field of a saved object, own properties only: a name such as `toString` or
 * `__proto__` must not read what Object.prototype holds.
 */
export function field(record: Readonly<Record<string, unknown>>, name: string): unknown {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

export function readArray(value: unknown, path: string, what = 'an array'): readonly unknown[] {
  if (!Array.isArray(value)) throw new ThrottlerOptionError(path, what, value);
  return value;
}

/** A wall-clock time in ms: finite and within what a Date can hold. */
export function readTime(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > LATEST_DATE) {
    throw new ThrottlerOptionError(path, 'a wall-clock time in ms (finite, within the range of a Date)', value);
  }
  return value;
}

/** A time the saver recorded as past (a delivery, a period start): no later than `savedAt`, when the save was made. */
export function readPastTime(value: unknown, path: string, savedAt: number): number {
  const time = readTime(value, path);
  if (time > savedAt) throw new ThrottlerOptionError(path, `a time no later than the save (savedAt, ${savedAt})`, time);
  return time;
}

/** A past time (see readPastTime), or null for "never" (a period not started yet). */
export function readPastTimeOrNull(value: unknown, path: string, savedAt: number): number | null {
  if (value === null) return null;
  if (typeof value !== 'number') {
    throw new ThrottlerOptionError(path, 'null or a wall-clock time in ms (finite, within the range of a Date)', value);
  }
  return readPastTime(value, path, savedAt);
}

/** A time, or null for "never" (a period not started yet). */
export function readTimeOrNull(value: unknown, path: string): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > LATEST_DATE) {
    throw new ThrottlerOptionError(path, 'null or a wall-clock time in ms (finite, within the range of a Date)', value);
  }
  return value;
}

/** A non-negative safe integer (a count, or a cost that may be nothing). */
export function readCount(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ThrottlerOptionError(path, 'a non-negative integer', value);
  }
  return value;
}

/** A message's cost: a positive safe integer. */
export function readCost(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new ThrottlerOptionError(path, 'a positive integer', value);
  }
  return value;
}

/** The `kind` a policy wrote: it must be the kind of the policy restoring it. */
export function readKind<TKind extends string>(
  record: Readonly<Record<string, unknown>>,
  kind: TKind,
  path: string,
): TKind {
  const value = field(record, 'kind');
  if (value !== kind)
    throw new ThrottlerOptionError(`${path}.kind`, `"${kind}" (what the strategy in the options saves)`, value);
  return kind;
}

/** Whether a value is a non-null, non-array object. */
export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
