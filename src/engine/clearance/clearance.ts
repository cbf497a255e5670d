/**
 * The seam for "when may the next message go": the one question about time
 * the machine asks, and the record that a message went. The dispatcher asks it
 * about the message it would send next; the machine arms its one timer for the
 * answer and asks again when it fires (timers may fire early).
 *
 * Two kinds of answer fit the same path. The local policies (LocalClearance)
 * answer at once. A shared store answers by reservation: asked about a message
 * it has not reserved yet, it starts a reservation (batched with the other
 * messages admitted in the same turn) and answers Infinity, "not until an
 * event"; when Redis replies it calls the `wake` it was built with, the machine
 * receives a CLEARANCE event, which runs the same delivery pass as a WAKE, and
 * asked again the clearance answers with the granted time. No event needs a
 * second code path: every event already ends in that pass.
 */
import type { CostPolicyState } from '../../policies/index.js';
import type { Cost, Rate } from '../../rate/index.js';
import type { ResolvedOptions } from '../options/options.js';
import type { QueuedMessage } from '../queue/queued-message.js';
import type { RestoredState } from '../saved/persisted-format.js';

/**
 * What the clearance is asked about: a waiting message (its `seq` names it; `scope` is the clearance's own,
 * set as it admits it) or one that would pass straight through.
 */
export type ClearanceRequest = Pick<QueuedMessage<unknown>, 'seq' | 'channel' | 'cost' | 'scope'>;

export interface Clearance {
  /**
   * True when every answer is given at once and nothing waits for a delivery pass to start it (the local
   * policies): a QUEUE that only joins the queue may then skip the pass (quiet.ts). A store reserves in passes.
   */
  readonly answersAtOnce?: boolean | undefined;

  /**
   * Checks a message's channel and cost before it is queued; returns the cost (a map per dimension resolved
   * into a vector), or throws a ThrottlerOptionError.
   */
  checkMessage(channel: unknown, cost: unknown): Cost;

  /**
   * A message entered the queue at `now` (a store may start reserving for it now, with the rest of the turn's
   * burst; the local policies keep its key while it waits).
   */
  admit?(request: ClearanceRequest, now: number): void;

  /** Whether this waiting message could ever go with the limits in force (a SET_RATE may have lowered one below its cost). */
  fits(request: ClearanceRequest): boolean;

  /**
   * When this message may go, were it next: a time >= now, or Infinity when
   * nothing can go until an event arrives (a RESUME, a SETTLED, or the store's
   * CLEARANCE). May start work (a reservation), never delivers.
   */
  clearAt(request: ClearanceRequest, now: number): number;

  /**
   * Whether a message that is not queued could go right now with nothing ahead of it (the idle fast path).
   * A question: changes nothing. False for anything invalid, so that the normal path reports it. A cost per
   * dimension is asked about only as `checkMessage` returned it.
   */
  allowsNow(channel: unknown, cost: unknown, now: number): boolean;

  /**
   * How many messages of cost 1 on no channel may go right now, at most `want`, counted as one delivery
   * when the lease ends (LEASE, lease.ts). A question: changes nothing. Absent (a store: its permits are
   * not answered synchronously): none.
   */
  leaseCapacity?(want: number, now: number): number;

  /**
   * The message went to the target at `at` (it asked at `requestedAt`): it counts from then on. Returns what
   * `settleDelivery` needs to settle it later (a channel's policy, a grant's name), or undefined (nothing can).
   */
  recordDelivery(request: ClearanceRequest, at: number, requestedAt: number): unknown;

  /**
   * ACTUAL_COST: the delivery recorded at `at` on `channel` with cost `estimate`, `handle` what its
   * `recordDelivery` returned, cost `actual`: the actual cost replaces the estimate at `at` (less: the
   * difference is usable again at once; more: later deliveries wait for every window holding it to have room).
   */
  settleDelivery?(
    handle: unknown,
    channel: string | undefined,
    at: number,
    estimate: Cost,
    actual: Cost,
    now: number,
  ): void;

  /** A waiting message left the queue without going (cancelled, displaced, or too big): what it held goes back. */
  withdraw?(request: ClearanceRequest): void;

  /** The throttler became active (the timer strategy's voucher period starts). O(1), however many channels and keys. */
  activate(now: number): void;

  /** Whether `activate` ever starts anything (the timer strategy's policies say so): if not, activation is skipped. */
  readonly startsPeriodsOnActivation: boolean;

  /** Whether activating at `now` would start something (then a message cannot go while the throttler stays idle). */
  activationStarts(channel: unknown, now: number): boolean;

  /**
   * Replaces the overall rates, or one channel's, or gives one key rates of its own (kept while the key lives);
   * throws a ThrottlerOptionError for a name that is neither.
   */
  setRates(rates: Rate[], channel: string | undefined, now: number): void;

  /** Replaces the keys' template: every live key without rates of its own, and every later one (`keys` option only). */
  setKeyTemplate(rates: Rate[], now: number): void;

  /** A live key's rates of its own (a SET_RATE named it); undefined while it follows the template. A question (the audit's). */
  ownRatesOf?(key: string): readonly Rate[] | undefined;

  /** Nothing goes before `until` (Infinity: until resumed). */
  pause(until: number): void;
  resume(): void;
  readonly pausedUntil: number;

  /** A delivery in flight settled (SETTLED); throws a ThrottlerOptionError if it matches none. */
  settle(channel: unknown, cost: unknown, now: number): void;
  readonly inFlightCount: number;

  /**
   * Takes a permit now if one is free: 0; otherwise how many ms until one may be (nothing taken).
   * `queuedGoesAt`: when the next queued message may go, if one waits (it goes first).
   */
  tryAcquire(channel: string | undefined, cost: Cost, now: number, queuedGoesAt: number | undefined): number;

  /**
   * Per-channel ordering needs `clearAt` in two halves, what the message's channel allows and what
   * everything common to all channels allows, and to hear when a channel's half changed. Only a
   * clearance that can answer the halves separately supports it (the local policies can; a store's
   * channel half may be a time to ask again, so the dispatcher confirms a due head with `clearAt`
   * unless `answersAtOnce`).
   */
  readonly perChannel?: PerChannelClearance | undefined;

  /** The rates in force, overall and per channel (SET_RATE changes them): what a persisted snapshot keeps. */
  readonly rates: Rate[];
  readonly channelRates: ReadonlyMap<string, Rate[]>;
  /** The keys' template rates in force; undefined without the `keys` option. */
  readonly keyRates: Rate[] | undefined;

  /** What a persisted snapshot keeps of it, times shifted by `shift` ms. */
  save(shift: number): SavedClearance;

  /** Loads what `save` kept (checked as it loads: a ThrottlerOptionError leaves it half-loaded, to be thrown away). */
  load(state: RestoredState<unknown>, shift: number, settledAt: number): void;
}

export interface PerChannelClearance {
  /** What the request's channel allows: max(now, R), R fixed until that channel changes (then `channelChanged`). */
  channelClearAt(request: ClearanceRequest, now: number): number;
  /** What everything common to all channels allows a message of `cost`. */
  commonClearAt(cost: Cost, now: number): number;
  /** Set by the dispatcher: called when a channel's half may have changed. */
  channelChanged: (channel: string | undefined) => void;
  /** Set by the dispatcher where the clearance has it: every channel's half may have changed (a store's rewind). */
  allChanged?: (() => void) | undefined;
}

/** The policies' states as a persisted snapshot keeps them. */
export interface SavedClearance {
  overall: CostPolicyState;
  /** [name, state] pairs: a name is data, `__proto__` included. */
  channels: Array<[string, CostPolicyState]>;
  /** The live keys as [name, state, own rates or null (the template's)], least recently used first. */
  keys: Array<[string, CostPolicyState, Rate[] | null]>;
}

/**
 * A store that answers for many throttlers at once, usually in many processes
 * (`createRedisStore` in `xstate-throttler/redis`). The throttler asks it once,
 * as it starts, for a clearance of its own.
 */
export interface ThrottleStore {
  /** The shared limiter's name, for messages. */
  readonly name: string;
  /**
   * This throttler's clearance over the store; throws a ThrottlerOptionError naming an option the store
   * cannot share. The clearance lives until `close`, which the throttler calls as it stops.
   */
  clearanceFor(options: ResolvedOptions, hooks: StoreHooks): StoreClearance;
  /**
   * Throws the ThrottlerOptionError `clearanceFor` would throw for these options, opening nothing: the
   * adapters ask it as they are created, so that an option the store cannot share throws at the call.
   */
  check?(options: ResolvedOptions): void;
}

/** A clearance over a store: it holds a subscription and reservations, given back on `close`. */
export interface StoreClearance extends Clearance {
  close(): void;
  /** What this throttler's clearance asked of the store so far, for metrics (xstate-throttler/otel). */
  readonly traffic?: StoreTraffic | undefined;
}

/** A store clearance's calls so far: counts that only grow. */
export interface StoreTraffic {
  /** Calls that went to the store and waited for its reply (answered or failed). */
  readonly roundTrips: number;
  /** Grants given back unsent: rewound and asked for again, too late to send, withdrawn, or at stop. */
  readonly grantsReturned: number;
}

/** How a store's clearance talks back to its throttler. Each is called asynchronously, never during a call to the clearance. */
export interface StoreHooks {
  /** The throttler's clock (checked, never backwards): grants are durations, turned into times on it. */
  now(): number;
  /** An answer arrived or a notice changed something: the throttler asks again (a CLEARANCE event). */
  wake(): void;
  /** The store stopped answering (`error` says why) or answers again: the throttler emits storeDown / storeUp. */
  status(up: boolean, error?: Error): void;
  /**
   * The store refused a call for this throttler's configuration (another process created the shared
   * limiter with other options): the throttler emits storeConflict. Told for every call refused.
   */
  conflict(conflict: StoreConflict): void;
  /** The shared state was lost: nothing is granted before `until` (the throttler's clock); the throttler emits storeQuarantined. */
  quarantined(until: number): void;
  /**
   * The link to the store is slower than its grace allows (a grant's Redis time cannot be placed on
   * this clock within the grace): the throttler emits storeSlow with the round trip and the grace in use.
   */
  slow(roundTripMs: number, graceMs: number): void;
  /**
   * Grants held were given back (`given`, their messages asked for again) or moved to Redis' now
   * (`retimed`), for `reason`: the throttler emits storeGrantsRewound. Once per give-back, not per grant.
   */
  rewound(given: number, retimed: number, reason: GrantsRewoundReason): void;
}

/**
 * Why a store's clearance gave grants back or moved them: `late` (not sent within the grace of their
 * time), `pause` (a pause, this process's or the fleet's), `quarantine` (the shared state was lost),
 * `rates` (new rates in force), `priority` (a message of higher priority had no grant of its kind),
 * `outage` (after an outage on the local window, that window still held the message back).
 */
export type GrantsRewoundReason = 'late' | 'pause' | 'quarantine' | 'rates' | 'priority' | 'outage';

/** What a store refused: the option whose value differs, this throttler's value and the stored one. */
export interface StoreConflict {
  /** The store's error (a ThrottlerOptionError: xstate-throttler/redis's StoreConflictError). */
  readonly error: Error;
  /** The option that differs, e.g. `rate`. */
  readonly option: string;
  /** This throttler's value for it. */
  readonly ours: unknown;
  /** The value stored by the process that created the shared limiter. */
  readonly stored: unknown;
}
