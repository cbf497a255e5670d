/**
 * The rates a SET_RATE carries under a ceiling: the server's stated rates and the ceiling's, all to hold
 * at once, so the throttler is never allowed more in any window than the ceiling allows. A stated rate
 * the ceiling already implies is left out (checking it on every delivery would change nothing).
 */
import type { Rate } from '../rate/index.js';

/** The ceiling's rates, after the stated ones no ceiling rate implies; no rate twice. */
export function underCeiling(stated: readonly Rate[], ceiling: readonly Rate[]): Rate[] {
  const rates: Rate[] = [];
  const add = (rate: Rate): void => {
    if (!rates.some((kept) => kept.limit === rate.limit && kept.interval === rate.interval)) rates.push(rate);
  };
  for (const rate of stated) if (!ceiling.some((bound) => implies(bound, rate))) add(rate);
  for (const rate of ceiling) add(rate);
  return rates;
}

/**
 * Whether holding `bound` already keeps `rate`: at most `bound.limit` in any window of `bound.interval`
 * is at most as many in any shorter window, so no more than `rate.limit` when that is no smaller.
 */
function implies(bound: Rate, rate: Rate): boolean {
  return bound.limit <= rate.limit && bound.interval >= rate.interval;
}

/** The same text for the same set of rates, in any order: what the throttler holds, or was sent. */
export function ratesKey(rates: readonly Rate[]): string {
  return rates
    .map((rate) => [rate.interval, rate.limit] as const)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .map(([interval, limit]) => `${limit}/${interval}`)
    .join(',');
}
