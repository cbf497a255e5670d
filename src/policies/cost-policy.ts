import type { Cost, Rate } from '../rate/index.js';
import type { DimensionsState } from './dimensions.js';
import type { StrategyOptions, ThrottlePolicy } from './policy.js';
import type { PolicyState, StrategyImplementation } from './strategy.js';

/** What a policy the engine holds saves: the strategy's own state, or one per dimension. */
export type CostPolicyState = PolicyState | DimensionsState<PolicyState>;

/**
 * A policy as the engine holds it: the costs it is told may be vectors. Only a DimensionsPolicy is ever told
 * one, since a vector cost is refused on a throttler whose rates name no dimensions (and every rate of one
 * that does names its dimension).
 */
export interface CostPolicy
  extends Omit<
    ThrottlePolicy<CostPolicyState>,
    'earliestDelivery' | 'recordDelivery' | 'holdInFlight' | 'releaseInFlight' | 'settleDelivery'
  > {
  earliestDelivery(now: number, cost: Cost): number;
  recordDelivery(at: number, cost: Cost, requestedAt?: number): void;
  holdInFlight?(cost: Cost): void;
  releaseInFlight?(at: number, cost: Cost): void;
  settleDelivery(at: number, estimate: Cost, actual: Cost, now: number): void;
  /** A DimensionsPolicy's smallest limit in one dimension (undefined: its rates do not name it). */
  smallestLimitIn?(index: number): number | undefined;
}

/**
 * One policy per dimension for rates in dimensions (a DimensionsPolicy over the throttler's dimensions), each
 * built by `inner`: the dimensions feature's (dimensions-feature.ts), so that only a throttler whose rates
 * name dimensions needs its code.
 */
export type SplitByDimension = (
  rates: readonly Rate[],
  inner: (group: readonly Rate[], at: number) => ThrottlePolicy<PolicyState>,
  now: number,
) => CostPolicy;

/**
 * The policy of `strategy` for these rates. Rates in dimensions get one of the strategy's policies per
 * dimension, by `split` (the throttler's dimensions'; a channel's rates may name some).
 */
export function createCostPolicy(
  strategy: StrategyImplementation,
  rates: readonly Rate[],
  options: StrategyOptions,
  now: number,
  split: SplitByDimension | undefined,
): CostPolicy {
  if (split !== undefined && rates[0]?.dimension !== undefined) {
    return split(rates, (group, at) => strategy.createPolicy(group, options, at), now);
  }
  // A scalar policy is only ever told scalar costs (see CostPolicy).
  return strategy.createPolicy(rates, options, now) as CostPolicy;
}
