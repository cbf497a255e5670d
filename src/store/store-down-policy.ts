/**
 * What a throttler does while its store does not answer: 'pause' grants nothing new; 'local' runs
 * a local window with a stated share of every limit (documented as not a global guarantee: each
 * process of the fleet may use its share at once).
 */
import type { ResolvedOptions } from '../engine/index.js';
import type { Rate } from '../rate/index.js';

/** What the throttler does while the store does not answer. */
export interface StoreDownPolicy {
  /** 'pause': nothing new is granted. 'local': a local window with `localShare` of every limit. */
  readonly onStoreDown: 'pause' | 'local';
  readonly localShare: number;
  /**
   * 'local': how long after the store is back every process of the fleet has reconnected (its client's
   * longest reconnect delay plus a connect), in ms: the local window stays in force that much longer
   * after the return, so that no window holds another process's local sends and a whole empty store's grants.
   */
  readonly reconnectWithinMs: number;
}

/**
 * The options with every limit cut to `share` of itself (at least 1) and every interval widened by
 * `widenMs`: the local window while the store is down, and after it while its sends may be unreported.
 */
export function shareOf(options: ResolvedOptions, share: number, widenMs = 0): ResolvedOptions {
  const cut = (rates: Rate[]): Rate[] => shareOfRates(rates, share, widenMs);
  const channels = new Map<string, Rate[]>();
  for (const [name, rates] of options.channels) channels.set(name, cut(rates));
  const keys = options.keys && { ...options.keys, rates: cut(options.keys.rates) };
  return { ...options, rates: cut(options.rates), channels, keys };
}

/** Rates cut to `share` of each limit (at least 1), each interval widened by `widenMs`: `shareOf` for one list. */
export function shareOfRates(rates: readonly Rate[], share: number, widenMs = 0): Rate[] {
  return rates.map((rate) => ({
    ...rate,
    limit: Math.max(1, Math.floor(rate.limit * share)),
    interval: rate.interval + widenMs,
  }));
}
