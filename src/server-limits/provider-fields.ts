/**
 * The language-model providers' own fields, one family per provider, each quota in its dimension:
 *
 * - OpenAI (https://platform.openai.com/docs/guides/rate-limits, "Rate limits in headers"):
 *   `x-ratelimit-limit-requests`, `x-ratelimit-remaining-requests`, `x-ratelimit-reset-requests` and the
 *   same three for `-tokens`; the reset is a Go duration until the quota is full again (`1s`, `6m0s`).
 * - Anthropic (https://docs.anthropic.com/en/api/rate-limits, now
 *   https://platform.claude.com/docs/en/api/rate-limits, "Response headers"):
 *   `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`; the reset
 *   is an RFC 3339 date-time, measured from the response's `Date` when it has a valid one.
 *
 * Both state their limits per minute (RPM, TPM; Anthropic's ITPM, OTPM) without naming the window in the
 * fields, so a limit becomes a rate over `providerWindow` (1 minute). A quota with nothing remaining asks
 * for a pause until its reset, whatever the dimension: the server refuses every request while any of its
 * quotas is spent. Every value not used is listed, with why; nothing here throws.
 */
import type { Rate } from '../rate/index.js';
import type { ServerTime } from './classic-fields.js';
import { readPlainNumbers } from './field-values.js';
import type { PauseCandidate } from './ietf-fields.js';
import { readGoDuration, readRfc3339 } from './provider-times.js';
import type { DimensionLimit, IgnoredServerValue, LimitDimension } from './types.js';

/** The dimensions a provider's fields may name, in the order they are reported. */
export const LIMIT_DIMENSIONS: readonly LimitDimension[] = ['requests', 'tokens', 'input-tokens', 'output-tokens'];

interface Family {
  readonly provider: DimensionLimit['provider'];
  /** The field's name for a dimension and a part (`limit`, `remaining`, `reset`). */
  readonly name: (dimension: LimitDimension, part: 'limit' | 'remaining' | 'reset') => string;
  readonly dimensions: readonly LimitDimension[];
  /** The reset in ms from the response, or undefined when unreadable. */
  readonly reset: (text: string, serverTime: ServerTime) => number | undefined;
  /** What the reset should look like, for the report. */
  readonly resetForm: string;
}

const FAMILIES: readonly Family[] = [
  {
    provider: 'openai',
    name: (dimension, part) => `x-ratelimit-${part}-${dimension}`,
    dimensions: ['requests', 'tokens'],
    reset: (text) => largestOf(text, readGoDuration),
    resetForm: 'a duration such as 1s, 6m0s or 20ms',
  },
  {
    provider: 'anthropic',
    name: (dimension, part) => `anthropic-ratelimit-${dimension}-${part}`,
    dimensions: LIMIT_DIMENSIONS,
    reset: (text, serverTime) => {
      const at = largestOf(text, readRfc3339);
      return at === undefined ? undefined : at - serverTime();
    },
    resetForm: 'an RFC 3339 date-time such as 2025-01-15T14:24:00Z',
  },
];

/** Every field of both families, for the reader's list of fields to keep. */
export const PROVIDER_FIELDS: readonly string[] = FAMILIES.flatMap((family) =>
  family.dimensions.flatMap((dimension) =>
    (['limit', 'remaining', 'reset'] as const).map((part) => family.name(dimension, part)),
  ),
);

type QuotaFields = Readonly<Record<'limit' | 'remaining' | 'reset', string>>;

/**
 * Each family's field names per dimension, built once: a response is read against all six quotas, and
 * names built per response cost more than the rest of the read when the fields are absent.
 */
const QUOTA_FIELDS: ReadonlyMap<Family, ReadonlyMap<LimitDimension, QuotaFields>> = new Map(
  FAMILIES.map((family) => [
    family,
    new Map(
      family.dimensions.map((dimension) => [
        dimension,
        {
          limit: family.name(dimension, 'limit'),
          remaining: family.name(dimension, 'remaining'),
          reset: family.name(dimension, 'reset'),
        },
      ]),
    ),
  ]),
);

export interface ProviderLimits {
  readonly dimensions: Partial<Record<LimitDimension, DimensionLimit>>;
  /** One wait per exhausted quota with a reset ahead. */
  readonly waits: PauseCandidate[];
}

/** What the providers' fields say; `window` is a limit's interval, `maxWindow` the furthest reset believed. */
export function readProviderFields(
  fields: ReadonlyMap<string, string>,
  serverTime: ServerTime,
  window: number,
  maxWindow: number,
  ignored: IgnoredServerValue[],
): ProviderLimits {
  const dimensions: Partial<Record<LimitDimension, DimensionLimit>> = {};
  const waits: PauseCandidate[] = [];
  for (const family of FAMILIES) {
    for (const dimension of family.dimensions) {
      const read = readQuota(family, dimension, fields, serverTime, window, maxWindow, ignored);
      if (read === undefined) continue;
      const earlier = dimensions[dimension];
      dimensions[dimension] = earlier === undefined ? read.limit : tighter(earlier, read.limit);
      if (read.wait !== undefined) waits.push(read.wait);
    }
  }
  return { dimensions, waits };
}

function readQuota(
  family: Family,
  dimension: LimitDimension,
  fields: ReadonlyMap<string, string>,
  serverTime: ServerTime,
  window: number,
  maxWindow: number,
  ignored: IgnoredServerValue[],
): { limit: DimensionLimit; wait: PauseCandidate | undefined } | undefined {
  const quotaFields = QUOTA_FIELDS.get(family)?.get(dimension);
  if (quotaFields === undefined) return undefined;
  const { limit: limitField, remaining: remainingField, reset: resetField } = quotaFields;
  const limitText = fields.get(limitField);
  const remainingText = fields.get(remainingField);
  const resetText = fields.get(resetField);
  if (limitText === undefined && remainingText === undefined && resetText === undefined) return undefined;
  const skip = (field: string, value: string, reason: string): undefined => {
    ignored.push({ field, value, reason });
    return undefined;
  };

  let limit: number | undefined;
  if (limitText !== undefined) {
    const count = readCount(limitText);
    if (count === undefined) skip(limitField, limitText, 'not a whole number, 0 or more');
    else if (count === 0) skip(limitField, limitText, 'a limit of 0 is no rate (a pause comes from remaining 0)');
    else limit = count;
  }
  let remaining: number | undefined;
  if (remainingText !== undefined) {
    remaining = readCount(remainingText);
    if (remaining === undefined) skip(remainingField, remainingText, 'not a whole number, 0 or more');
  }
  let resetIn: number | undefined;
  if (resetText !== undefined) {
    const ms = family.reset(resetText, serverTime);
    if (ms === undefined) skip(resetField, resetText, `not ${family.resetForm}`);
    else if (ms < 0) skip(resetField, resetText, `a reset ${Math.round(-ms / 1000)} s in the past`);
    else if (ms > maxWindow) skip(resetField, resetText, `a reset over maxWindow (${maxWindow} ms) away: not believed`);
    else resetIn = ms;
  }

  let wait: PauseCandidate | undefined;
  // Below 1 nothing fits, whatever the unit.
  if (remaining !== undefined && remaining < 1 && remainingText !== undefined) {
    if (resetIn !== undefined) wait = { ms: resetIn, field: resetField, value: resetText as string };
    else if (resetText === undefined) skip(remainingField, remainingText, 'nothing left, but no reset time given');
  }
  let rate: Rate | undefined;
  if (limit !== undefined && window > maxWindow) {
    skip(limitField, limitText as string, `a limit per providerWindow (${window} ms), over maxWindow: not followed`);
  } else if (limit !== undefined) {
    rate = { limit, interval: window };
  }
  return { limit: { dimension, provider: family.provider, limit, remaining, resetIn, rate }, wait };
}

/** A count a field may carry more than once (joined with `, `): the smallest, or undefined unless every part is one. */
function readCount(text: string): number | undefined {
  const numbers = readPlainNumbers(text);
  if (numbers === undefined) return undefined;
  let least = Number.POSITIVE_INFINITY;
  for (const value of numbers) {
    if (!Number.isSafeInteger(value)) return undefined;
    if (value < least) least = value;
  }
  return least;
}

/** The latest of a field sent more than once; undefined unless every part reads. */
function largestOf(text: string, read: (part: string) => number | undefined): number | undefined {
  let most: number | undefined;
  for (const part of text.split(',')) {
    const value = read(part);
    if (value === undefined) return undefined;
    if (most === undefined || value > most) most = value;
  }
  return most;
}

/** Both providers' fields for one dimension (a proxy adding its own): the tighter of each. */
function tighter(a: DimensionLimit, b: DimensionLimit): DimensionLimit {
  const least = (x: number | undefined, y: number | undefined) =>
    x === undefined ? y : y === undefined ? x : Math.min(x, y);
  const most = (x: number | undefined, y: number | undefined) =>
    x === undefined ? y : y === undefined ? x : Math.max(x, y);
  const limit = least(a.limit, b.limit);
  const rate = a.rate === undefined ? b.rate : b.rate === undefined || a.rate.limit <= b.rate.limit ? a.rate : b.rate;
  return { ...a, limit, remaining: least(a.remaining, b.remaining), resetIn: most(a.resetIn, b.resetIn), rate };
}
