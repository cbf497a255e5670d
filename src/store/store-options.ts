/**
 * What every backend's store does alike with its options and a throttler's: the configuration a
 * throttler opens the limiter with, the store's defaults added to it (so that the raw limiter and a
 * throttler open the same one), and what a throttler does while the store does not answer.
 */
import type { ResolvedOptions } from '../engine/index.js';
import type { StrategyName } from '../policies/index.js';
import { type DurationInput, parseDuration, ThrottlerOptionError } from '../rate/index.js';
import { DEFAULT_GRANT_GRACE_MS, type DeclaredConfig, declareConfig } from './limiter-config.js';
import type { SharedLimiterConfig } from './protocol.js';
import type { StoreDownPolicy } from './store-down-policy.js';

/** The options every store takes beside its backend's own. */
export interface CommonStoreOptions {
  readonly maxReserveAheadMs?: number | undefined;
  readonly grantGraceMs?: number | undefined;
  readonly onStoreDown?: 'pause' | 'local' | undefined;
  readonly localShare?: number | undefined;
  readonly reconnectWithin?: DurationInput | undefined;
}

/**
 * `reconnectWithin`'s default, in ms: ioredis' default retryStrategy waits at most 2 s between
 * reconnects (min(times * 50, 2000)), plus half a second for the connect itself and its first reply.
 */
export const DEFAULT_RECONNECT_WITHIN_MS = 2500;

/** What a throttler opens the limiter with: its options (the store's reserve-ahead and grace are added by `declareWith`). */
export function throttlerConfig(throttle: ResolvedOptions): SharedLimiterConfig {
  return {
    // A strategy of one's own is refused with a store (strategy-option.ts): this is a library strategy's name.
    strategy: throttle.strategy as StrategyName,
    rates: throttle.rates,
    channels: throttle.channels,
    keys: throttle.keys?.rates,
    maxBurst: throttle.strategyOptions.maxBurst,
    // A measured spread is refused with a store before this (refuseMeasuredWithStore): one number is shared.
    ...(typeof throttle.transit === 'number' && throttle.transit > 0 ? { transit: throttle.transit } : {}),
    ordering: throttle.ordering,
    countUntil: throttle.countUntil,
  };
}

/** `config` validated with the store's defaults: one set for the raw limiter and a throttler, so that both open the same configuration. */
export function declareWith(
  options: CommonStoreOptions,
  config: SharedLimiterConfig,
  testClock: boolean,
): DeclaredConfig {
  return declareConfig(
    typeof config === 'object' && config !== null
      ? {
          ...config,
          maxReserveAheadMs: config.maxReserveAheadMs ?? options.maxReserveAheadMs,
          grantGraceMs:
            config.grantGraceMs ??
            options.grantGraceMs ??
            (config.strategy === 'sliding-window' ? DEFAULT_GRANT_GRACE_MS : 0),
        }
      : config,
    testClock,
  );
}

/** `onStoreDown`, `localShare` and `reconnectWithin` checked: what a throttler does while the store does not answer. */
export function checkStoreDown(options: CommonStoreOptions): StoreDownPolicy {
  const onStoreDown = options.onStoreDown ?? 'pause';
  if (onStoreDown !== 'pause' && onStoreDown !== 'local') {
    throw new ThrottlerOptionError('onStoreDown', '"pause" or "local"', onStoreDown);
  }
  const { localShare, reconnectWithin } = options;
  if (onStoreDown === 'pause') {
    if (localShare !== undefined)
      throw new ThrottlerOptionError('localShare', 'set only with onStoreDown "local"', localShare);
    if (reconnectWithin !== undefined)
      throw new ThrottlerOptionError('reconnectWithin', 'set only with onStoreDown "local"', reconnectWithin);
    return { onStoreDown, localShare: 1, reconnectWithinMs: 0 };
  }
  if (typeof localShare !== 'number' || !(localShare > 0 && localShare <= 1)) {
    throw new ThrottlerOptionError(
      'localShare',
      'the share of every limit one process may use alone while the store is down, in (0, 1], e.g. 1 / the number of processes',
      localShare,
    );
  }
  const reconnectWithinMs =
    reconnectWithin === undefined ? DEFAULT_RECONNECT_WITHIN_MS : parseDuration(reconnectWithin, 'reconnectWithin');
  return { onStoreDown, localShare, reconnectWithinMs };
}
