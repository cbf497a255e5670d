/**
 * `readServerLimits(response, options?)`: what a response says about the server's limits, as the
 * events a throttler understands. Pure: it reads the response and the clock and sends nothing
 * (`applyServerLimits` sends).
 *
 * The pause, in this order of precedence:
 * 1. `Retry-After` on a 429 or 503 (or when the status is unknown): it "MUST take precedence" over
 *    the RateLimit fields (draft-ietf-httpapi-ratelimit-headers §7).
 * 2. Otherwise the longest wait among the quotas the server reports exhausted: `RateLimit` `r=0`
 *    (until `t`, or over its policy's window), `remaining=0` (until `reset`), and
 *    `X-RateLimit-Remaining: 0` (or `X-Rate-Limit-`, `RateLimit-`) until its reset. Remaining
 *    above 0 asks for no pause.
 * 3. Otherwise, on a 429, `pauseOn429` (1 s): the request was refused, and retrying at once would be
 *    refused again. A 503 without Retry-After is a failure, not a limit: no pause.
 * A pause over `maxPause` (1 h) is cut to it; a wait of 0 is no pause; times in the past, negative,
 * malformed or NaN values are ignored. Everything not used as written is listed in `ignored`.
 *
 * The rate: the policies of `RateLimit-Policy` (and `*-Limit: 10;w=1`-style members) with a window,
 * all to hold at once, with `ceiling`'s (the default, the throttler's own, is added by applyServerLimits);
 * at most 8 of the server's, the first ones given. A plain
 * `X-RateLimit-Limit: 100` states no window, so no rate. The providers' quotas (provider-fields.ts) are
 * read by dimension into `dimensions`; the one the `dimension` option names (`requests` by default) is a
 * rate over `providerWindow`, and any exhausted one a pause until its reset, like the fields above.
 */
import type { Rate } from '../rate/index.js';
import { underCeiling } from './ceiling.js';
import { REMAINING_FAMILIES, readRemainingFamilies, readRetryAfter, type ServerTime } from './classic-fields.js';
import { readHttpDate } from './field-values.js';
import { readResponseFields, type ServerLimitsSource } from './header-fields.js';
import { type PauseCandidate, readPolicies, readRateLimitField, type StatedPolicies } from './ietf-fields.js';
import {
  type ReadServerLimitsOptions,
  type ResolvedServerLimitsOptions,
  readClock,
  resolveServerLimitsOptions,
} from './options.js';
import { readProviderFields } from './provider-fields.js';
import type { IgnoredServerValue, LimitDimension, ServerLimits, ServerPauseEvent, ServerRateEvent } from './types.js';

/** The most rates a SET_RATE carries: each is checked on every delivery, so a server cannot make that cost grow. */
export const MAX_SERVER_RATES = 8;

/**
 * Reads a fetch `Response`, a `Headers`, a `Map` or array of pairs, or a plain headers object (names
 * in any case). Never throws on what the server sent; throws a ThrottlerOptionError for a bad option,
 * or when `response` is not a response or headers at all.
 */
export function readServerLimits(response: ServerLimitsSource, options?: ReadServerLimitsOptions): ServerLimits {
  return readWithOptions(response, resolveServerLimitsOptions(options));
}

/** `readServerLimits` with options already checked (the listener checks them once, up front). */
export function readWithOptions(response: unknown, options: ResolvedServerLimitsOptions): ServerLimits {
  const ignored: IgnoredServerValue[] = [];
  const read = readResponseFields(response, ignored);
  const { fields } = read;
  const status = options.status ?? read.status;
  const now = readClock(options.now);
  const serverTime = serverTimeOf(fields, now, ignored);

  const policies: StatedPolicies = { rates: [], windows: new Map() };
  readPolicies('ratelimit-policy', fields.get('ratelimit-policy'), options.maxWindow, ignored, policies);
  for (const prefix of REMAINING_FAMILIES) {
    const field = `${prefix}limit`;
    readPolicies(field, fields.get(field), options.maxWindow, ignored, policies, true);
  }

  const provided = readProviderFields(fields, serverTime, options.providerWindow, options.maxWindow, ignored);
  const retryAfter = readRetryAfter(fields.get('retry-after'), status, serverTime, now, ignored);
  const quotaWaits = [
    ...readRateLimitField(fields.get('ratelimit'), policies.windows, ignored),
    ...readRemainingFamilies(fields, serverTime, ignored),
    ...provided.waits,
  ];
  let wait = retryAfter ?? longest(quotaWaits);
  if (status === 429 && !(wait !== undefined && wait.ms > 0) && options.pauseOn429 > 0) {
    wait = { ms: options.pauseOn429, field: 'status 429', value: '429' };
  }
  const pause = pauseFor(wait, options.maxPause, ignored);
  const setRate = options.followPolicy
    ? rateEvent(statedRates(policies.rates, provided.dimensions, options.dimension, ignored), options, ignored)
    : undefined;
  const events: Array<ServerPauseEvent | ServerRateEvent> = [];
  if (setRate !== undefined) events.push(setRate);
  if (pause !== undefined) events.push(pause);
  return {
    status,
    pause,
    resumeAt: pause === undefined ? undefined : now + pause.duration,
    pauseFrom: pause === undefined ? undefined : wait?.field,
    setRate,
    keepsConfiguredRates: options.followPolicy && options.ceiling === 'configured',
    dimensions: provided.dimensions,
    dimension: options.dimension,
    events,
    ignored,
  };
}

/**
 * The rates the throttler's dimension is stated at: the provider's quota for it, and (for `requests`) the
 * IETF and X-RateLimit policies, which count requests. A token-counting throttler passes those over, listed.
 */
function statedRates(
  policies: readonly Rate[],
  dimensions: ServerLimits['dimensions'],
  dimension: LimitDimension,
  ignored: IgnoredServerValue[],
): Rate[] {
  const provided = dimensions[dimension]?.rate;
  const rates = provided === undefined ? [] : [provided];
  if (dimension === 'requests') return [...policies, ...rates];
  for (const rate of policies) {
    ignored.push({
      field: 'ratelimit-policy',
      value: `${rate.limit} per ${rate.interval / 1000} s`,
      reason: `counts requests, not ${dimension} (the dimension option): not followed`,
    });
  }
  return rates;
}

/** The response's own time (its Date field), read the first time an absolute time needs it. */
function serverTimeOf(fields: ReadonlyMap<string, string>, now: number, ignored: IgnoredServerValue[]): ServerTime {
  let time: number | undefined;
  return () => {
    if (time !== undefined) return time;
    const text = fields.get('date');
    time = text === undefined ? undefined : readHttpDate(text, now);
    if (text !== undefined && time === undefined) {
      ignored.push({
        field: 'date',
        value: text,
        reason: 'not an HTTP date: absolute times measured from now instead',
      });
    }
    time ??= now;
    return time;
  };
}

function longest(waits: readonly PauseCandidate[]): PauseCandidate | undefined {
  let most: PauseCandidate | undefined;
  for (const wait of waits) if (most === undefined || wait.ms > most.ms) most = wait;
  return most;
}

function pauseFor(
  wait: PauseCandidate | undefined,
  maxPause: number,
  ignored: IgnoredServerValue[],
): ServerPauseEvent | undefined {
  if (wait === undefined || !(wait.ms > 0)) return undefined;
  if (wait.ms <= maxPause) return { type: 'PAUSE', duration: wait.ms };
  ignored.push({
    field: wait.field,
    value: wait.value,
    reason: `asks for ${wait.ms} ms, over maxPause (${maxPause} ms): paused ${maxPause} ms`,
  });
  return { type: 'PAUSE', duration: maxPause };
}

function rateEvent(
  stated: readonly Rate[],
  options: ResolvedServerLimitsOptions,
  ignored: IgnoredServerValue[],
): ServerRateEvent | undefined {
  const rates: Rate[] = [];
  for (const rate of stated) {
    if (rates.some((kept) => kept.limit === rate.limit && kept.interval === rate.interval)) continue;
    if (rates.length === MAX_SERVER_RATES) {
      ignored.push({
        field: 'ratelimit-policy',
        value: `${rate.limit} per ${rate.interval / 1000} s`,
        reason: `more than ${MAX_SERVER_RATES} policies: the first ${MAX_SERVER_RATES} are followed`,
      });
      continue;
    }
    rates.push(rate);
  }
  if (rates.length === 0) return undefined;
  const rate = typeof options.ceiling === 'string' ? rates : underCeiling(rates, options.ceiling);
  return options.channel === undefined
    ? { type: 'SET_RATE', rate }
    : { type: 'SET_RATE', rate, channel: options.channel };
}
