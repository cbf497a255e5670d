import type { Rate } from '../rate/index.js';
import type { AllOfState } from './all-of.js';
import type { OwnPolicyState, PolicyFaults } from './own-policy.js';
import { STRATEGIES, type StrategyName, type StrategyOptions, type ThrottlePolicy } from './policy.js';
import type { SlidingWindowState } from './sliding-window.js';

/**
 * A policy's saved state, told apart by `kind`: the sliding window's, one per rate for the library's other
 * strategies, or a strategy of one's own (defineStrategy).
 */
export type PolicyState = SlidingWindowState | AllOfState | OwnPolicyState;

/**
 * A strategy as a value (xstate-throttler/strategies): what the `strategy` option takes besides a name, one
 * of the library's or one's own (`defineStrategy`). Its `name` is what a saved snapshot and a store's
 * configuration record, so it never changes.
 */
export interface Strategy<TName extends string = StrategyName> {
  readonly name: TName;
  /**
   * What the strategy supports, read from the value rather than its name. `leases`: the promise API may take
   * a run of permits for tasks started in one synchronous stretch (a lease, recorded as deliveries when it
   * ends), which only a strategy that counts every delivery on one log keeps strict.
   */
  readonly leases: boolean;
  /**
   * `countUntil: 'done'`: a delivery holds its cost until it settles (SETTLED), so the strategy must count
   * deliveries in flight as they end, not only as they start.
   */
  readonly settlesInFlight: boolean;
  /**
   * With a store, a grant that comes back past its grace is moved to the store's now (retimed) and sent,
   * rather than given back: the strategy keeps each grant's time in its shared log.
   */
  readonly retimesLateGrants: boolean;
}

/**
 * What a strategy value holds besides its name, out of the public type: how it builds its policy, and
 * the check of the options only it reads. The strategy values are the only things that import a
 * policy's code, so a bundle holds the policies of the values it reaches and no other. The values are
 * typed as their public `Strategy`; `isStrategy` tells the library's own from anything else.
 */
export interface StrategyImplementation extends Strategy<string> {
  /** The policy for these rates; a rate the strategy cannot serve throws a ThrottlerOptionError. */
  createPolicy(rates: readonly Rate[], options: StrategyOptions, now: number): ThrottlePolicy<PolicyState>;
  /**
   * The strategy's own options checked with every rate list configured (each named by its option path),
   * returned resolved. Absent: the options as they are.
   */
  checkOptions?(options: StrategyOptions, rateLists: ReadonlyMap<string, readonly Rate[]>): StrategyOptions;
  /**
   * Why the strategy refuses a transit spread (the `transit` option): it has no window or burst to give up
   * for it. Absent: its policies take the spread (StrategyOptions.transit).
   */
  readonly transitRefusal?: string | undefined;
  /**
   * Why the strategy refuses `pace` (StrategyOptions.pace): it spaces its deliveries already, or keeps no
   * window to spread. Absent: its policies take it.
   */
  readonly paceRefusal?: string | undefined;
  /** A strategy of the user's own (defineStrategy): no store, its policies checked (own-policy.ts). */
  readonly own?: true | undefined;
  /**
   * A strategy of the user's own: a fresh sink for one throttler's breaches (PolicyFaults), made here so that
   * only an app that defines a strategy bundles its code.
   */
  createFaults?(): PolicyFaults;
}

/** The strategies defineStrategy made: the exact values, so that a copy or a look-alike is never taken for one. */
const ownStrategies = /* @__PURE__ */ new WeakSet<object>();

/** Marks a value defineStrategy made (own-strategy.ts), so that `isStrategy` takes it. */
export function markOwnStrategy(strategy: StrategyImplementation): void {
  ownStrategies.add(strategy);
}

/** Whether `value` is a strategy value: one of the library's, by its name and what it builds, or one defineStrategy made. */
export function isStrategy(value: unknown): value is StrategyImplementation {
  if (typeof value !== 'object' || value === null) return false;
  if (ownStrategies.has(value)) return true;
  const { name, createPolicy } = value as Partial<StrategyImplementation>;
  return STRATEGIES.includes(name as StrategyName) && typeof createPolicy === 'function';
}

/** How a strategy's value is exported: `'sliding-window'` is `slidingWindow`. */
export function strategyValueName(name: StrategyName): string {
  return name.replace(/-(\w)/g, (_dash, letter: string) => letter.toUpperCase());
}
