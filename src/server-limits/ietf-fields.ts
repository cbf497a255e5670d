/**
 * The IETF fields of draft-ietf-httpapi-ratelimit-headers, in both of the forms servers send:
 *
 * - draft 08 and later: `RateLimit-Policy: "default";q=100;w=60` (a List of named policies: quota
 *   `q`, window `w` in seconds, quota unit `qu`) and `RateLimit: "default";r=50;t=30` (what is left,
 *   `r`, and the seconds `t` within which no more than that may be used);
 * - drafts 07 and before: `RateLimit-Policy: 100;w=60` (the quota as the item) and the Dictionary
 *   `RateLimit: limit=100, remaining=50, reset=30` (`reset` in seconds from now); older still,
 *   `RateLimit-Limit: 10, 10;w=1` (the limit, then policies as `quota;w=window`).
 *
 * A policy with a window becomes a rate; `r=0` (or `remaining=0`) becomes a pause until `t` (or
 * `reset`), or over the named policy's window when `t` is left out. A field that does not parse is
 * ignored as a whole; a member that parses but carries a bad value is ignored alone.
 */
import type { Rate } from '../rate/index.js';
import { type FieldMember, parseStructuredField } from './structured-field.js';
import type { IgnoredServerValue } from './types.js';

/** A wait the server asks for, in ms (0: none), with where it comes from. */
export interface PauseCandidate {
  readonly ms: number;
  readonly field: string;
  readonly value: string;
}

/** The policies a response states: rates, and each named policy's window (for `r=0` without `t`). */
export interface StatedPolicies {
  readonly rates: Rate[];
  readonly windows: Map<string, number>;
}

const QUOTA_UNITS_COUNTED = new Set(['requests', 'request']);

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Rates from a RateLimit-Policy field, or from a *-Limit field's `quota;w=window` members (`limitField`:
 * there, a member without `w` is the plain limit, not a policy, and passes silently).
 */
export function readPolicies(
  field: string,
  text: string | undefined,
  maxWindow: number,
  ignored: IgnoredServerValue[],
  policies: StatedPolicies,
  limitField = false,
): void {
  if (text === undefined) return;
  const members = parseStructuredField(text);
  if (members === undefined) {
    ignored.push({ field, value: text, reason: 'malformed (not a structured field list): ignored as a whole' });
    return;
  }
  for (const member of members) {
    if (limitField && !member.params.has('w')) continue;
    const skip = (reason: string): void => {
      ignored.push({ field, value: member.text, reason });
    };
    const named = typeof member.value === 'string' && member.key === undefined;
    const quota = named ? member.params.get('q') : member.value;
    const window = member.params.get('w');
    const unit = member.params.get('qu');
    if (member.key !== undefined || (!named && typeof member.value !== 'number')) {
      skip('not a policy such as "default";q=100;w=60 or 100;w=60');
    } else if (window !== undefined && !(isCount(window) && window > 0)) {
      skip('w must be a whole number of seconds above 0');
    } else {
      if (named && window !== undefined) policies.windows.set(member.value as string, window * 1000);
      if (!isCount(quota)) skip('the quota must be a whole number, 0 or more');
      else if (unit !== undefined && !QUOTA_UNITS_COUNTED.has(unit as string))
        skip(`counts ${String(unit)}, not requests`);
      else if (window === undefined) skip('no window (w): informative only, not a rate');
      else if (quota === 0) skip('a quota of 0 is no rate (a pause comes from RateLimit or Retry-After)');
      else if (window * 1000 > maxWindow) skip(`a window over maxWindow (${maxWindow} ms): not followed`);
      else policies.rates.push({ limit: quota, interval: window * 1000 });
    }
  }
}

/** The waits a RateLimit field asks for: one per exhausted quota (`r=0`, or `remaining=0`). */
export function readRateLimitField(
  text: string | undefined,
  windows: ReadonlyMap<string, number>,
  ignored: IgnoredServerValue[],
): PauseCandidate[] {
  if (text === undefined) return [];
  const members = parseStructuredField(text);
  if (members === undefined) {
    ignored.push({ field: 'ratelimit', value: text, reason: 'malformed (not a structured field): ignored as a whole' });
    return [];
  }
  const waits: PauseCandidate[] = [];
  const dictionary = members.filter((member) => member.key !== undefined);
  if (dictionary.length > 0) readDictionaryForm(dictionary, ignored, waits);
  for (const member of members) {
    if (member.key === undefined) readServiceLimit(member, windows, ignored, waits);
  }
  return waits;
}

/** `"default";r=0;t=30`: the quota left and the seconds it is for. */
function readServiceLimit(
  member: FieldMember,
  windows: ReadonlyMap<string, number>,
  ignored: IgnoredServerValue[],
  waits: PauseCandidate[],
): void {
  const skip = (reason: string): void => {
    ignored.push({ field: 'ratelimit', value: member.text, reason });
  };
  const left = member.params.get('r');
  const seconds = member.params.get('t');
  if (typeof member.value !== 'string') skip('not a service limit such as "default";r=50;t=30');
  else if (!isCount(left)) skip('r must be a whole number, 0 or more');
  else if (seconds !== undefined && !isCount(seconds)) skip('t must be a whole number of seconds, 0 or more');
  else if (left > 0) return;
  else if (seconds !== undefined) waits.push({ ms: seconds * 1000, field: 'ratelimit', value: member.text });
  else {
    const window = windows.get(member.value);
    if (window === undefined) skip('r=0 with no t and no window (w) in its policy: no time to wait for');
    else waits.push({ ms: window, field: 'ratelimit', value: member.text });
  }
}

/** `limit=100, remaining=0, reset=30` (drafts up to 07): `reset` in seconds from now. */
function readDictionaryForm(members: FieldMember[], ignored: IgnoredServerValue[], waits: PauseCandidate[]): void {
  const value = (key: string): unknown => {
    let found: unknown;
    for (const member of members) if (member.key === key) found = member.value;
    return found;
  };
  const remaining = value('remaining');
  const reset = value('reset');
  const text = members.map((member) => member.text).join(', ');
  const skip = (reason: string): void => {
    ignored.push({ field: 'ratelimit', value: text, reason });
  };
  if (remaining === undefined) return;
  if (!isCount(remaining)) skip('remaining must be a whole number, 0 or more');
  else if (remaining > 0) return;
  else if (!isCount(reset)) skip('remaining=0 needs reset, a whole number of seconds, 0 or more');
  else waits.push({ ms: reset * 1000, field: 'ratelimit', value: text });
}
