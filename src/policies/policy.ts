import type { Rate } from '../rate/index.js';

/**
 * What the local clearance asks a strategy. A policy is a pure, clock-free object:
 * it is told the time on every call and never reads a clock or starts a timer, so
 * the same object answers in virtual time and on real timers.
 *
 * The contract every policy keeps: once `earliestDelivery(now, cost)` returns
 * `t`, a delivery of that cost is allowed at every time >= t until another
 * delivery is recorded (permission is monotone in time). That is what lets the
 * machine combine several constraints by taking the latest of their answers and
 * lets it wake once, at that time.
 *
 * The shared Redis store does not go through policies: it asks both questions at
 * once, as one atomic reservation in its script (src/redis/lua/reserve.ts), and
 * answers the machine through the same clearance seam (engine/clearance/clearance.ts).
 */
export interface ThrottlePolicy<TState extends SavedPolicyState = SavedPolicyState> {
  /** The earliest time >= now at which a delivery of `cost` may happen. */
  earliestDelivery(now: number, cost: number): number;
  /**
   * Records a delivery of `cost` at time `at`; the caller has checked it was allowed.
   * `requestedAt` (default `at`) is when the message asked to go: its arrival, or `at` for one
   * that went at once. Windows and vouchers count `at`, the actual send. The smooth policies
   * reserve from the request, as Guava does, so their schedule is the same however late the timer
   * fired: a wake-up rounded up to whole ms is not idle time (idle time stores permits).
   */
  recordDelivery(at: number, cost: number, requestedAt?: number): void;
  /**
   * A delivery recorded at `at` with cost `estimate` turned out to cost `actual` (told at `now` >= `at`): the
   * actual cost replaces the estimate at the delivery's own time. Less: the difference is usable again at
   * once. More: the overrun is charged at `at`, so later deliveries wait until every window holding it has
   * room. A delivery the policy no longer holds (older than its longest window) changes nothing. O(log n).
   */
  settleDelivery(at: number, estimate: number, actual: number, now: number): void;
  /** The throttler went from idle to active at `now` (a voucher timer starts its period here). */
  activate(now: number): void;
  /**
   * Whether `activate` ever changes anything (only the voucher timer's does): when it never does, the
   * machine skips activation altogether, so that becoming active costs O(1) however many channels and keys live.
   */
  readonly startsPeriodsOnActivation: boolean;
  /**
   * Whether a delivery of cost k at t counts exactly as k deliveries of cost 1 at t, so that
   * `earliestDelivery(now, k) <= now` means k separate deliveries may go now: what a LEASE grants.
   * The sliding window's does. The smooth policies reserve from the request (a large cost goes at once
   * and is paid for afterwards, which k separate messages may not do) and the voucher timer's period
   * starts on activation: theirs does not.
   */
  readonly grantsInBulk: boolean;
  /**
   * Whether `activate(now)` would start something (a voucher timer's new period).
   * When it would not, a message may go while the throttler stays idle. A
   * question: changes nothing. Absent: activation never starts anything.
   */
  activationStartsPeriod?(now: number): boolean;
  /** Replaces the rates at `now`, keeping as much history as the algorithm allows. */
  setRates(rates: readonly Rate[], now: number): void;
  /**
   * A fresh part built by a SET_RATE that changed how many rates there are (AllOfPolicies), activated at
   * `now`, takes over what the parts it replaces still hold back: the voucher timer, the cost their running
   * period delivered. Absent: it starts as if nothing had been delivered.
   */
  takeOver?(previous: readonly ThrottlePolicy[], now: number): void;
  /**
   * countUntil 'done': counts `cost` as occupying the window from now until
   * {@link releaseInFlight}. Only strategies that can hold a slot open implement it.
   */
  holdInFlight?(cost: number): void;
  /** The held cost settled at `at`: from then on it counts as a delivery at `at`. */
  releaseInFlight?(at: number, cost: number): void;
  /**
   * Appends to `into`, one number per rate in order, the cost the window of that rate holds at `now`: a
   * question for metrics (xstate-throttler/otel), which changes nothing. A sliding window: the cost in
   * (now - interval, now] and in flight; the voucher timer: what its running period spent; a smooth rate:
   * its burst (maxPermits) not available now, scaled to the limit, plus what was granted ahead of it.
   */
  windowUse(now: number, into: number[]): void;
  /** The smallest limit among the rates: no single delivery may cost more. */
  readonly smallestLimit: number;
  /** The state with every time shifted by `shift` ms, as plain JSON (for persistence). */
  save(shift: number): TState;
  /**
   * Restores into this fresh policy what `save` wrote (after a JSON round trip, or damaged), shifting every
   * time by `shift` ms. Refuses, with a ThrottlerOptionError naming the field under `path` and its value,
   * anything this policy under its rates could not have saved or that would let more through than they
   * allow; a time the saver recorded as past may not be later than `savedAt` (on the saved times' clock;
   * Infinity when unknown). On an error the policy is half-restored: throw it away.
   */
  load(saved: unknown, shift: number, path?: string, savedAt?: number): void;
  /**
   * A restore: every cost held in flight settles at `at` (or at the newest delivery, if later), since the
   * process that held it can no longer report. Only strategies that can hold a slot open implement it.
   */
  settleAllInFlight?(at: number): void;
}

/** What every policy's saved state has: its kind. Each policy declares its own state beside it. */
export interface SavedPolicyState {
  readonly kind: string;
}

/** Strategies available by name. */
export type StrategyName = (typeof STRATEGIES)[number];

/** Every strategy's name; the list is also the type. */
export const STRATEGIES = ['timer', 'sliding-window', 'token-bucket', 'warming-up'] as const;

/** Options that only some strategies read. */
export interface StrategyOptions {
  /** token-bucket: permits stored while idle, at most (default: one interval's worth, the limit). */
  readonly maxBurst?: number | undefined;
  /** warming-up: how long, in ms, the rate takes to climb from cold to full. */
  readonly warmup?: number | undefined;
  /** warming-up: how many times slower than the full rate a cold throttler starts (default 3). */
  readonly coldFactor?: number | undefined;
  /**
   * The spread of the uplink (the `transit` option): how much later than the shortest one a request may reach
   * the server that counts it. Absent: none, the sender's own windows are the server's.
   */
  readonly transit?: TransitSpread | undefined;
  /**
   * sliding-window: spread a window's worth over the window (the `pace` option): `true` over each rate's
   * interval widened by the transit spread, a number of ms over at most that. Absent: no spacing.
   */
  readonly pace?: true | number | undefined;
  /**
   * Where a strategy of one's own reports its policies' breaches of the contract (own-policy.ts): one per
   * throttler, made as its context is (machine/initial-context.ts). Never saved.
   */
  readonly faults?: { report(error: Error): void } | undefined;
}

/**
 * The uplink's spread J in ms, as a policy reads it at each decision: stated (a constant) or measured (the
 * promise API's round trips). A question with its time passed in, as every policy question: a measured one
 * may prune what it no longer needs, and never reads a clock.
 */
export interface TransitSpread {
  /** J at `now`, >= 0 and at most {@link TransitSpread.most}. */
  spreadAt(now: number): number;
  /** The most J can ever be (Infinity when unbounded): what a check made up front judges. */
  readonly most: number;
}

export function smallestLimitOf(rates: readonly Rate[]): number {
  let smallest = Number.POSITIVE_INFINITY;
  for (const rate of rates) smallest = Math.min(smallest, rate.limit);
  return smallest;
}
