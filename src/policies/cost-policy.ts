import type { Cost, Dimensions, Rate } from '../rate/index.js';
import { DimensionsPolicy, type DimensionsState } from './dimensions.js';
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
 * The policy of `strategy` for these rates. Rates in dimensions get one of the strategy's policies per
 * dimension (DimensionsPolicy), numbered by `dimensions` (the throttler's; a channel's rates may name some).
 */
export function createCostPolicy(
  strategy: StrategyImplementation,
  rates: readonly Rate[],
  options: StrategyOptions,
  now: number,
  dimensions: Dimensions | undefined,
): CostPolicy {
  if (dimensions !== undefined && rates[0]?.dimension !== undefined) {
    const inner = (group: readonly Rate[], at: number) => strategy.createPolicy(group, options, at);
    return new DimensionsPolicy<PolicyState>(rates, dimensions, inner, now);
  }
  // A scalar policy is only ever told scalar costs (see CostPolicy).
  return strategy.createPolicy(rates, options, now) as CostPolicy;
}
