/**
 * The terms every party of one limit across regions agrees on (docs/regions.md, "Definitions"): the lease
 * length D, the regional stores' reserve-ahead bound A, the clocks' rate bound δ, how often a region asks;
 * and what follows from them: the span S an entry of home's book stays live, the regional window W(1 + δ).
 */
import { parseRates, type Rate, type RatesInput, ThrottlerOptionError } from '../../rate/index.js';

/** What both sides are given (durations in ms, on each side's own clock). */
export interface ShareTermsInput {
  /** The global rates, shared out per rate. */
  rate: RatesInput;
  /** D: how long a grant is in force after its ask left the region. */
  leaseMs: number;
  /** P: how often a region asks (renews, reports its bound and demand). Below leaseMs; default leaseMs / 4. */
  renewEveryMs?: number | undefined;
  /** A: how far ahead of its now the regional store may reserve a grant (its maxReserveAheadMs). */
  reserveAheadMs: number;
  /** δ: how far any clock's rate may stray from true time, a fraction in [0, 0.01]. Default 1e-4 (100 ppm). */
  clockDrift?: number | undefined;
}

/** The terms, checked, with what follows from them. */
export interface ShareTerms {
  readonly rates: readonly Rate[];
  readonly leaseMs: number;
  readonly renewEveryMs: number;
  readonly reserveAheadMs: number;
  readonly clockDrift: number;
  /** Per rate: S, how long home keeps an entry live after granting it (its own clock). */
  readonly spanMs: readonly number[];
  /** Per rate: W(1 + δ), the window each regional store keeps (its interval plus `windowWideningMs`). */
  readonly regionalIntervalMs: readonly number[];
  /** The regional stores' `transit`: ⌈W δ⌉ of the longest rate, so every interval is at least W(1 + δ). */
  readonly windowWideningMs: number;
}

function positiveMs(option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ThrottlerOptionError(option, 'a positive finite number of ms', value);
  }
  return value;
}

/** Checks every field (errors name it and its value) and derives the span and the regional windows. */
export function shareTerms(input: ShareTermsInput): ShareTerms {
  if (typeof input !== 'object' || input === null) {
    throw new ThrottlerOptionError('terms', 'an object { rate, leaseMs, reserveAheadMs }', input);
  }
  const rates = parseRates(input.rate);
  if (rates.some((rate) => rate.dimension !== undefined)) {
    throw new ThrottlerOptionError('rate', 'rates without dimensions (shares are per rate of cost units)', input.rate);
  }
  const leaseMs = positiveMs('leaseMs', input.leaseMs);
  const renewEveryMs = positiveMs('renewEveryMs', input.renewEveryMs ?? leaseMs / 4);
  if (renewEveryMs >= leaseMs) {
    throw new ThrottlerOptionError('renewEveryMs', `below leaseMs (${leaseMs})`, input.renewEveryMs);
  }
  const reserveAheadMs = input.reserveAheadMs;
  if (typeof reserveAheadMs !== 'number' || !Number.isFinite(reserveAheadMs) || reserveAheadMs < 0) {
    throw new ThrottlerOptionError('reserveAheadMs', 'a finite number of ms, 0 or more', reserveAheadMs);
  }
  const clockDrift = input.clockDrift ?? 1e-4;
  if (typeof clockDrift !== 'number' || !(clockDrift >= 0 && clockDrift <= 0.01)) {
    throw new ThrottlerOptionError('clockDrift', 'a fraction in [0, 0.01]', input.clockDrift);
  }
  const longest = Math.max(...rates.map((rate) => rate.interval));
  const windowWideningMs = Math.ceil(longest * clockDrift);
  return {
    rates,
    leaseMs,
    renewEveryMs,
    reserveAheadMs,
    clockDrift,
    spanMs: rates.map((rate) => spanOf(leaseMs + reserveAheadMs, rate.interval, clockDrift)),
    regionalIntervalMs: rates.map((rate) => rate.interval + windowWideningMs),
    windowWideningMs,
  };
}

/**
 * S = ((D + A)/(1 − δ) + W)(1 + δ) + 1: the true time from a grant to the end of the last window that may
 * hold a send under it, measured on home's clock (docs/regions.md, Lemma 2).
 */
function spanOf(leaseAndAhead: number, interval: number, drift: number): number {
  return Math.ceil((leaseAndAhead / (1 - drift) + interval) * (1 + drift)) + 1;
}

/** T_follow = 4P + 2 RTT + W(1 + δ) + A: how soon the shares follow demand that moved and stays (per rate). */
export function followWithinMs(terms: ShareTerms, roundTripMs: number, rateIndex = 0): number {
  const window = terms.regionalIntervalMs[rateIndex] ?? Number.NaN;
  return 4 * terms.renewEveryMs + 2 * roundTripMs + window + terms.reserveAheadMs;
}
