import type { FleetAuditReport, SharedLimiter, SharedLimiterConfig, SharedStore } from '../store/protocol.js';

/**
 * The part of an ioredis client (`Redis` or `Cluster`, v5 or v6) the store uses. Structural, so
 * that the store's types do not pin one ioredis version; anything else is refused by name.
 */
export interface RedisClientLike {
  /** ioredis' connection state: 'wait', 'connecting', 'connect', 'ready', 'reconnecting', 'close', 'end', ... */
  readonly status: string;
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number | undefined }): void;
  /** A new connection with the same options: the store's subscriber for fleet-wide notices. */
  duplicate(...args: any[]): RedisClientLike;
  on(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
  off(event: string, listener: (...args: any[]) => void): unknown;
  connect(): Promise<unknown>;
  disconnect(): void;
  subscribe(...channels: string[]): Promise<unknown>;
  readonly options?:
    | {
        readonly keyPrefix?: string | undefined;
        readonly redisOptions?: { readonly keyPrefix?: string | undefined } | undefined;
      }
    | undefined;
  readonly isCluster?: boolean | undefined;
}

/** What `createRedisStore` takes. */
export interface RedisStoreOptions {
  /**
   * An ioredis `Redis` or `Cluster`. The store never closes it (you own it) and never lets a call
   * wait in its offline queue: while it is not ready, a call waits for it at most `commandTimeout`.
   */
  redis: RedisClientLike;
  /** The shared limiter's identity: every process using this name shares every rate. Non-empty. */
  name: string;
  /** Each store call gives up after this many ms with a StoreUnavailableError. Default 1000. */
  commandTimeout?: number | undefined;
  /**
   * TESTS ONLY: the scripts read this time (ms) instead of Redis `TIME`. Stored with the limiter's
   * configuration, so a process without it conflicts with one that has it instead of mixing clocks.
   */
  testClock?: (() => number) | undefined;
  /**
   * What a throttler using this store does while Redis does not answer (it emits `storeDown`, keeps
   * its queue and asks again by itself, then emits `storeUp`). `'pause'` (default): nothing new goes
   * until Redis answers (grants already held are still used on time). `'local'`: a local window
   * with `localShare` of every limit decides meanwhile; not a global guarantee (docs/redis.md, "Redis down").
   */
  onStoreDown?: 'pause' | 'local' | undefined;
  /** With onStoreDown 'local': the share of every limit one process may use alone, in (0, 1]. */
  localShare?: number | undefined;
  /**
   * With onStoreDown 'local': how long after Redis is back every process of the fleet has reconnected
   * (its ioredis `retryStrategy`'s longest delay plus a connect), as ms or a duration string. After the
   * return a throttler keeps its local window in force for the longest interval + grace + this + 1 s (its
   * own longest wait before asking again), so that no window holds both the local sends of a process still
   * reconnecting and an empty Redis' whole limit. Default '2.5s' (ioredis' default cap of 2 s, plus 0.5 s).
   */
  reconnectWithin?: number | string | undefined;
  /** How far ahead of Redis' now grants may be held, in ms: the default of every `open` and throttler (SharedLimiterConfig.maxReserveAheadMs). */
  maxReserveAheadMs?: number | undefined;
  /** How late after its time a grant may still be sent, in ms: the default of every `open` and throttler (SharedLimiterConfig.grantGraceMs; else 20). */
  grantGraceMs?: number | undefined;
}

/** A connection to one shared limiter in Redis; pass it as a throttler's `store` option. */
export interface RedisStore extends SharedStore {
  /** A throttler's handle on the shared limiter; validates the configuration (throws ThrottlerOptionError). */
  open(config: SharedLimiterConfig): SharedLimiter;
  /**
   * The audit of every window the fleet's grants filled since the limiter was first audited, per rate,
   * overall, per channel and per key, on Redis' clock; read from the grants' logs and kept in Redis, so
   * any process carries it on. Exact when called at least once per the shortest interval + grace
   * (`gaps` says otherwise). Sliding window only. See docs/observing.md.
   */
  audit(): Promise<FleetAuditReport>;
  /** Closes the subscriber and refuses further calls. Leaves the ioredis client open (it is yours). */
  close(): Promise<void>;
}
