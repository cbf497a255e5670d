/**
 * The fields older than the IETF draft's structured ones: `Retry-After` (RFC 9110 §10.2.3: seconds,
 * or an HTTP date) and the `X-RateLimit-Remaining` / `-Reset` / `-Limit` families (also spelled
 * `X-Rate-Limit-*`, as Twitter/X does, and `RateLimit-*`, as drafts up to 06 did).
 *
 * A reset is read by size (see `resetDelay`): below 1e9 it is seconds from now (the drafts, Reddit,
 * Discord's `X-RateLimit-Reset-After`), from 1e9 epoch seconds (GitHub, Twitter/X), from 1e12 epoch
 * milliseconds. Absolute times are measured from the response's `Date` when it has a valid one, so
 * a client clock that is off does not matter, and from the reader's `now` otherwise.
 */
import { readHttpDate, readPlainNumber, readPlainNumbers, resetDelay } from './field-values.js';
import type { PauseCandidate } from './ietf-fields.js';
import type { IgnoredServerValue } from './types.js';

/** The status codes whose Retry-After asks a client to slow down (RFC 9110 §10.2.3, RFC 6585 §4). */
const RETRY_STATUSES = new Set([429, 503]);

/** The prefixes of the Remaining / Reset / Limit families, as servers spell them. */
export const REMAINING_FAMILIES = ['x-ratelimit-', 'x-rate-limit-', 'ratelimit-'] as const;

/** A response's time in ms since the epoch: its Date field if valid, else the reader's clock; read once. */
export type ServerTime = () => number;

/** The wait a Retry-After asks for, or undefined: absent, malformed, in the past, or on a status that is no throttling. */
export function readRetryAfter(
  text: string | undefined,
  status: number | undefined,
  serverTime: ServerTime,
  now: number,
  ignored: IgnoredServerValue[],
): PauseCandidate | undefined {
  if (text === undefined) return undefined;
  const skip = (reason: string): undefined => {
    ignored.push({ field: 'retry-after', value: text, reason });
    return undefined;
  };
  if (status !== undefined && !RETRY_STATUSES.has(status)) {
    return skip(`on a ${status} response: only 429 and 503 ask a client to wait`);
  }
  const seconds = readPlainNumber(text);
  if (seconds !== undefined) return { ms: seconds * 1000, field: 'retry-after', value: text };
  const date = readHttpDate(text, now);
  if (date === undefined) return skip('neither seconds (digits) nor an HTTP date');
  const ms = date - serverTime();
  if (ms < 0) return skip(`a date ${Math.round(-ms / 1000)} s in the past`);
  return { ms, field: 'retry-after', value: text };
}

/** The waits the Remaining / Reset families ask for: one per family whose remaining is below 1. */
export function readRemainingFamilies(
  fields: ReadonlyMap<string, string>,
  serverTime: ServerTime,
  ignored: IgnoredServerValue[],
): PauseCandidate[] {
  const waits: PauseCandidate[] = [];
  for (const prefix of REMAINING_FAMILIES) {
    const remainingField = `${prefix}remaining`;
    const remainingText = fields.get(remainingField);
    if (remainingText === undefined) continue;
    const remaining = readPlainNumbers(remainingText);
    if (remaining === undefined) {
      ignored.push({ field: remainingField, value: remainingText, reason: 'not a number, 0 or more' });
      continue;
    }
    // Fields sent twice: the least left counts. Below 1 no request fits, whatever the unit.
    if (smallest(remaining) >= 1) continue;
    const wait =
      (prefix === 'x-ratelimit-' ? readResetAfter(fields, ignored) : undefined) ??
      readReset(`${prefix}reset`, fields, serverTime, ignored);
    if (wait !== undefined) waits.push(wait);
    else if (!fields.has(`${prefix}reset`) && !fields.has('x-ratelimit-reset-after')) {
      ignored.push({ field: remainingField, value: remainingText, reason: 'nothing left, but no reset time given' });
    }
  }
  return waits;
}

/** Discord's `X-RateLimit-Reset-After`: seconds from now, fractions allowed. */
function readResetAfter(
  fields: ReadonlyMap<string, string>,
  ignored: IgnoredServerValue[],
): PauseCandidate | undefined {
  const field = 'x-ratelimit-reset-after';
  const text = fields.get(field);
  if (text === undefined) return undefined;
  const seconds = readPlainNumbers(text);
  if (seconds === undefined) {
    ignored.push({ field, value: text, reason: 'not a number of seconds, 0 or more' });
    return undefined;
  }
  return { ms: largest(seconds) * 1000, field, value: text };
}

function readReset(
  field: string,
  fields: ReadonlyMap<string, string>,
  serverTime: ServerTime,
  ignored: IgnoredServerValue[],
): PauseCandidate | undefined {
  const text = fields.get(field);
  if (text === undefined) return undefined;
  const resets = readPlainNumbers(text);
  if (resets === undefined) {
    ignored.push({ field, value: text, reason: 'not seconds from now, epoch seconds or epoch ms' });
    return undefined;
  }
  const ms = resetDelay(largest(resets), serverTime());
  if (ms < 0) {
    ignored.push({ field, value: text, reason: `a reset ${Math.round(-ms / 1000)} s in the past` });
    return undefined;
  }
  return { ms, field, value: text };
}

// Loops, not Math.min(...list): a field of a million commas would overflow the call's arguments.
function smallest(numbers: readonly number[]): number {
  let least = Number.POSITIVE_INFINITY;
  for (const value of numbers) if (value < least) least = value;
  return least;
}

function largest(numbers: readonly number[]): number {
  let most = 0;
  for (const value of numbers) if (value > most) most = value;
  return most;
}
