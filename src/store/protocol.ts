/**
 * The protocol a shared store's backend answers: what a throttler's clearance (store-clearance.ts) and a
 * raw user ask of one shared limiter, whatever keeps it (Redis' scripts, src/redis/; the memory store,
 * memory-store.ts; a third, e.g. a Durable Object or Postgres: docs/store-protocol.md). Each call is
 * decided atomically on the store's one clock; the client keeps no state a backend must know of.
 */
import type { CountUntil, Ordering, ThrottlerAuditReport, ThrottleStore } from '../engine/index.js';
import type { StrategyName } from '../policies/index.js';
import type { Cost, Rate, RatesInput, ThrottlerOptionError } from '../rate/index.js';

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
   * `channel`; a name in `channels` is that channel). Each key's window is created by its first grant
   * and expires like the rest (in Redis: a key of its own under the limiter's hash tag).
   */
  keys?: RatesInput | undefined;
  /** token-bucket: permits stored while idle, at most. Default: the limit. */
  maxBurst?: number | undefined;
  /**
   * sliding-window: the uplink's spread J in ms (the `transit` option, stated): every interval is kept J
   * longer, so that the server counting at arrival holds the limit too. Every process must state the same
   * (a different one is a different configuration: a conflict). Default 0.
   */
  transit?: number | undefined;
  /**
   * 'fifo' (default): one reservation line, grants in arrival order across the fleet. 'per-channel': one
   * line per channel or key, so no key waits behind another's backlog (the overall rate stays strict).
   * Only how a throttler asks: processes sharing a name may differ in it.
   */
  ordering?: Ordering | undefined;
  /** Only 'start' can be shared. */
  countUntil?: CountUntil | undefined;
  /**
   * How far ahead of the store's now a grant may be reserved, in ms. A process that dies wastes at most
   * this much of the limit; beyond it a request is told to ask again later. Default: the store's
   * `maxReserveAheadMs`, else 3/4 of the shortest interval among all rates, at most 45 s.
   */
  maxReserveAheadMs?: number | undefined;
  /**
   * sliding-window: how long after its time a grant may still be sent, in ms (default: the store's
   * `grantGraceMs`, else 20, for the raw limiter and a throttler alike, so that both open the same
   * configuration; token-bucket: 0). The store spaces grants by interval + grace, so sends up to
   * this late still keep every window on any clock; a throttler gives back a grant it could not use
   * in time and asks again. 0: strict on the grants' store times only. Every process sharing a name
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
 * arrived: the store's and this host's clocks never need to agree.
 */
export type ReserveOutcome =
  /**
   * Send after `waitMs`: the slot is recorded in the store and counts from its time on the store's clock,
   * `redisTime` (ms; the name is Redis', the first backend's; `redisTime - waitMs` was the store's now as
   * it decided, which lets a caller map the two clocks: src/store/store-clock.ts).
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
  | { readonly type: 'quarantined'; readonly forMs: number }
  /**
   * The limiter's state is new, where the one this process last heard could not have expired yet (Redis
   * restarted empty, a flush): what other processes sent on their local windows meanwhile may not be
   * reported yet (onStoreDown 'local').
   */
  | { readonly type: 'fresh' };

/** One throttler's view of the shared limiter. Every method is one round trip. */
export interface SharedLimiter {
  /** The store's name. */
  readonly name: string;
  /** The rates in force as last heard from the store (initially the opened ones). */
  readonly rates: Rate[];
  /** The channel rates in force as last heard from the store. */
  readonly channels: ReadonlyMap<string, Rate[]>;
  /** The keys' template in force as last heard from the store; undefined without keys. */
  readonly keyRates: Rate[] | undefined;
  /** How late after its time a grant may still be sent (SharedLimiterConfig.grantGraceMs). */
  readonly grantGraceMs: number;
  /**
   * How far the rates of this process's clock and the store's may drift apart (a fraction: 1e-4 is
   * 100 ppm), which a throttler allows for when it maps a grant's store time onto its own clock;
   * 0 where both read one clock (a `testClock`, the memory store).
   */
  readonly clockDrift: number;
  /** Calls this handle sent to the store so far, answered or failed (one per method call that reached it). */
  readonly roundTrips: number;
  /**
   * Grants the whole batch in arrival order, atomically, in one round trip. Rejects with
   * StoreUnavailableError (nothing granted that you know of) or StoreConflictError. An empty batch
   * resolves to [] without asking the store.
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
  /** No grant for any process for `durationMs` from the store's now (a longer pause in force is kept). */
  pause(durationMs: number): Promise<void>;
  /** Lifts a pause for every process (not a quarantine). */
  resume(): Promise<void>;
  /**
   * One round trip that grants and changes nothing: whether the store answers (rejects as `reserve`
   * does), and what it teaches (pauses, rates, a lost state, heard by `subscribe`'s listeners).
   */
  check(): Promise<void>;
  /**
   * Listens for fleet-wide notices. In Redis the first listener opens the store's subscriber
   * connection and the last one to leave closes it. Returns the unsubscribe function.
   */
  subscribe(listener: (notice: StoreNotice) => void): () => void;
  /** The fleet's audit on the store's time, as {@link SharedStore.audit} (the same audit: the limiter's name is all it needs). */
  audit(): Promise<FleetAuditReport>;
}

/**
 * The audit of every window the whole fleet's grants filled, on the store's clock (ms): the local audit's
 * report (`auditThrottler`), over the grants the fleet kept up to `settledUntil`.
 */
export interface FleetAuditReport extends ThrottlerAuditReport {
  /** Grants up to this store time are counted (one longest interval + grace before the read); later ones at a later read. */
  settledUntil: number;
  /** Reads that came later than the shortest log's interval + grace after the one before: the audit may have missed grants. 0 is exact. */
  gaps: number;
}

/** A shared store: pass it as a throttler's `store` option, or `open` the raw limiter. */
export interface SharedStore extends ThrottleStore {
  readonly name: string;
  /** A throttler's handle on the shared limiter; validates the configuration (throws ThrottlerOptionError). */
  open(config: SharedLimiterConfig): SharedLimiter;
  /**
   * The audit of every window the fleet's grants filled since the limiter was first audited, per rate,
   * overall, per channel and per key, on the store's clock. Sliding window only. See docs/observing.md.
   */
  audit(): Promise<FleetAuditReport>;
  /** Refuses further calls and lets go of what the store holds open (never a client you passed it). */
  close(): Promise<void>;
}

/*
 * What a throttler's clearance asks beyond SharedLimiter: not public names of an entry, but part of
 * the protocol every backend answers (docs/store-protocol.md).
 */

/** What became of a late grant (`retime`): kept or moved to the store's now, with its new reservation, or given back. */
export type RetimeOutcome = Extract<ReserveOutcome, { kind: 'granted' }> | { readonly kind: 'gone' };

/**
 * An outcome of a per-line call (a throttler with per-channel ordering): the public ones, or nothing
 * reserved because the request's own channel or key cannot take it for `retryAfterMs` (its line waits).
 */
export type LineOutcome = ReserveOutcome | { readonly kind: 'line-later'; readonly retryAfterMs: number };

/** A line's weight for weighted fairness, by its channel or key (undefined: no channel). */
export type LineWeights = (channel: string | undefined) => number;

/** The per-line reserve, for a throttler with per-channel ordering. */
export interface LineReserver {
  /**
   * A request its own channel or key cannot take now is told when it can ('line-later'), and none waits
   * behind another line's grants (lua/reserve.ts). `weightOf` (weighted fairness): each line's weight; a
   * line is held by its own rates only and the room goes by the fleet's finish tags (lua/fair-tags.ts),
   * but for the first `reports` requests (what went on the local window during an outage), counted as they are.
   */
  reserveLines(
    requests: readonly ReservationRequest[],
    weightOf?: LineWeights,
    reports?: number,
    aheadMs?: number,
  ): Promise<LineOutcome[]>;
}

/** What a clearance needs of the limiter beyond SharedLimiter: moving late grants, and settling sent ones. */
export interface RetimingLimiter {
  /**
   * Sliding window: moves grants that could not be sent within the grace of their time to the store's
   * now (+ `leadMs`) where they still fit every window, and gives back those that do not (lua/retime.ts);
   * a grant whose time has not come is kept as it is. One outcome per reservation, in order.
   */
  retime(reservations: readonly Reservation[], leadMs?: number): Promise<RetimeOutcome[]>;
  /** A sent grant's actual cost replaces its estimate (ACTUAL_COST, lua/settle.ts). */
  settle(reservation: Reservation, actual: Cost): Promise<void>;
  /**
   * `reserve`, with no grant further than `aheadMs` ahead of the store's now (at most the reserve-ahead
   * bound): a throttler whose calls settle below their estimates asks near (settle-room.ts), since a grant
   * placed far ahead was placed on the estimates of every call not yet settled before it.
   */
  reserveNear(requests: readonly ReservationRequest[], aheadMs: number): Promise<ReserveOutcome[]>;
}

/** The part of the shared limiter that reads the store's clock. */
export interface ClockReader {
  /** The store's now (ms on its clock; the name is Redis', the first backend's). */
  redisNow(): Promise<number>;
}

/** Everything a throttler's clearance asks of one shared limiter: what every backend's `open` returns. */
export interface StoreLimiter extends SharedLimiter, RetimingLimiter, ClockReader, Partial<LineReserver> {}
