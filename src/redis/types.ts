import type { CountUntil, Ordering, ThrottlerAuditReport, ThrottleStore } from '../engine/index.js';
import type { StrategyName } from '../policies/index.js';
import type { Rate, RatesInput, ThrottlerOptionError } from '../rate/index.js';

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
  /** How far ahead of Redis' now grants may be held, in ms: the default of every `open` and throttler (SharedLimiterConfig.maxReserveAheadMs). */
  maxReserveAheadMs?: number | undefined;
  /** How late after its time a grant may still be sent, in ms: the default of every `open` and throttler (SharedLimiterConfig.grantGraceMs; else 20). */
  grantGraceMs?: number | undefined;
}

/** What a throttler opens the shared limiter with: the options it was given. */
export interface SharedLimiterConfig {
  /** Only 'sliding-window' and 'token-bucket' can be shared; the others are refused by name. */
  strategy: StrategyName;
  /** The overall rates (parsed `Rate`s or anything `parseRates` takes). */
  rates: RatesInput;
  /** Per-channel rates on top of the overall ones. */
  channels?: ReadonlyMap<string, RatesInput> | Readonly<Record<string, RatesInput>> | undefined;
  /**
   * Keyed limits: the template rates of keys that appear at run time (a request names its key in
   * `channel`; a name in `channels` is that channel). Each key's window is a Redis key of its own under
   * the limiter's hash tag, created by its first grant and expiring like the rest.
   */
  keys?: RatesInput | undefined;
  /** token-bucket: permits stored while idle, at most. Default: the limit. */
  maxBurst?: number | undefined;
  /**
   * 'fifo' (default): one reservation line, grants in arrival order across the fleet. 'per-channel': one
   * line per channel or key, so no key waits behind another's backlog (the overall rate stays strict).
   * Only how a throttler asks: processes sharing a name may differ in it.
   */
  ordering?: Ordering | undefined;
  /** Only 'start' can be shared. */
  countUntil?: CountUntil | undefined;
  /**
   * How far ahead of Redis' now a grant may be reserved, in ms. A process that dies wastes at most
   * this much of the limit; beyond it a request is told to ask again later. Default: the store's
   * `maxReserveAheadMs`, else 3/4 of the shortest interval among all rates, at most 45 s.
   */
  maxReserveAheadMs?: number | undefined;
  /**
   * sliding-window: how long after its time a grant may still be sent, in ms (default: the store's
   * `grantGraceMs`, else 20, for the raw limiter and a throttler alike, so that both open the same
   * configuration; token-bucket: 0). The script spaces grants by interval + grace, so sends up to
   * this late still keep every window on any clock; a throttler gives back a grant it could not use
   * in time and asks again. 0: strict on the grants' Redis times only. Every process sharing a name
   * must use the same.
   */
  grantGraceMs?: number | undefined;
}

/** One message that wants to go. */
export interface ReservationRequest {
  /** A configured channel, a key (with `keys`), or undefined for none. */
  readonly channel?: string | undefined;
  /**
   * A positive integer no larger than the smallest limit that applies; with rates in dimensions, that
   * cost in every dimension, a map of dimension to cost (a dimension it does not name costs 0), or one
   * cost per dimension in the order `rate` names them.
   */
  readonly cost: number | { readonly [dimension: string]: number } | readonly number[];
}

/** An opaque handle on one granted slot, for `release`. */
export type Reservation = string;

/** Why a request was told to ask again instead of being granted. */
export type LaterReason = 'reserve-ahead' | 'paused' | 'quarantine';

/**
 * The answer for one request, in the order asked. Durations only, counted from when the reply
 * arrived: Redis' and this host's clocks never need to agree.
 */
export type ReserveOutcome =
  /**
   * Send after `waitMs`: the slot is recorded in Redis and counts from its Redis time, `redisTime` (ms on
   * Redis' clock; `redisTime - waitMs` was Redis' now as the script ran, which lets a caller map the
   * two clocks: src/redis/redis-clock.ts).
   */
  | { readonly kind: 'granted'; readonly waitMs: number; readonly redisTime: number; readonly reservation: Reservation }
  /** Nothing was recorded: ask again after `retryAfterMs`. Every later request in the batch gets the same. */
  | { readonly kind: 'later'; readonly retryAfterMs: number; readonly reason: LaterReason }
  /** This request can never be granted as it is (its cost exceeds a limit, or its channel is unknown). */
  | { readonly kind: 'refused'; readonly error: ThrottlerOptionError };

/** Fleet-wide news, from pub/sub or from a reply, whichever comes first (at most once each). */
export type StoreNotice =
  /** The current rates, after a `setRate` by any process (or back to the opened ones after the state expired). */
  | {
      readonly type: 'rates';
      readonly rates: Rate[];
      readonly channels: ReadonlyMap<string, Rate[]>;
      /** The keys' template in force (undefined without keys). */
      readonly keys: Rate[] | undefined;
      /** One key's own rates, when the notice is about them. */
      readonly key?: { readonly name: string; readonly rates: Rate[] } | undefined;
    }
  /** Every process is paused for `forMs` from now (no grant before then). */
  | { readonly type: 'paused'; readonly forMs: number }
  /** A pause was lifted by `resume`. */
  | { readonly type: 'resumed' }
  /** The limiter's state was lost (FLUSHALL, eviction, failover): nothing is granted for `forMs`. */
  | { readonly type: 'quarantined'; readonly forMs: number };

/** One throttler's view of the shared limiter. Every method is one round trip. */
export interface SharedLimiter {
  /** The store's name. */
  readonly name: string;
  /** The rates in force as last heard from Redis (initially the opened ones). */
  readonly rates: Rate[];
  /** The channel rates in force as last heard from Redis. */
  readonly channels: ReadonlyMap<string, Rate[]>;
  /** The keys' template in force as last heard from Redis; undefined without keys. */
  readonly keyRates: Rate[] | undefined;
  /** How late after its time a grant may still be sent (SharedLimiterConfig.grantGraceMs). */
  readonly grantGraceMs: number;
  /**
   * How far the rates of this process's clock and Redis' may drift apart (a fraction: 1e-4 is
   * 100 ppm), which a throttler allows for when it maps a grant's Redis time onto its own clock;
   * 0 with a `testClock`, where both read one clock.
   */
  readonly clockDrift: number;
  /** Calls this handle sent to Redis so far, answered or failed (one per method call that reached Redis). */
  readonly roundTrips: number;
  /**
   * Grants the whole batch in arrival order, atomically, in one round trip. Rejects with
   * StoreUnavailableError (nothing granted that you know of) or StoreConflictError. An empty batch
   * resolves to [] without asking Redis.
   */
  reserve(requests: readonly ReservationRequest[]): Promise<ReserveOutcome[]>;
  /**
   * Gives unused reservations back, so later requests may use their slots. Releasing a slot whose
   * message was (or will be) sent is a violation; releasing one twice, or one from a lost state, is a no-op.
   * token-bucket gives nothing back (a spent permit stays spent).
   */
  release(reservations: readonly Reservation[]): Promise<void>;
  /** Replaces the overall rates, or one channel's, or gives one key rates of its own, for every process. */
  setRate(rates: RatesInput, channel?: string): Promise<void>;
  /** Replaces the keys' template for every process: every key without rates of its own, from its next grant. */
  setKeyTemplate(rates: RatesInput): Promise<void>;
  /** No grant for any process for `durationMs` from Redis' now (a longer pause in force is kept). */
  pause(durationMs: number): Promise<void>;
  /** Lifts a pause for every process (not a quarantine). */
  resume(): Promise<void>;
  /**
   * One round trip that grants and changes nothing: whether Redis answers (rejects as `reserve`
   * does), and what it teaches (pauses, rates, a lost state, heard by `subscribe`'s listeners).
   */
  check(): Promise<void>;
  /**
   * Listens for fleet-wide notices. The first listener opens the store's subscriber connection;
   * the last one to leave closes it. Returns the unsubscribe function.
   */
  subscribe(listener: (notice: StoreNotice) => void): () => void;
  /** The fleet's audit on Redis time, as {@link RedisStore.audit} (the same audit: the limiter's name is all it needs). */
  audit(): Promise<FleetAuditReport>;
}

/**
 * The audit of every window the whole fleet's grants filled, on Redis' clock (ms): the local audit's
 * report (`auditThrottler`), over the grants the fleet kept up to `settledUntil`.
 */
export interface FleetAuditReport extends ThrottlerAuditReport {
  /** Grants up to this Redis time are counted (one longest interval + grace before the read); later ones at a later read. */
  settledUntil: number;
  /** Reads that came later than the shortest log's interval + grace after the one before: the audit may have missed grants. 0 is exact. */
  gaps: number;
}

/** A connection to one shared limiter in Redis; pass it as a throttler's `store` option. */
export interface RedisStore extends ThrottleStore {
  readonly name: string;
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
