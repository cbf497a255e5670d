import { type Cost, Dimensions, type Rate } from '../rate/index.js';
import { AllOfPolicies, type AllOfState, type PartState } from './all-of.js';
import { DimensionsPolicy, type DimensionsState } from './dimensions.js';
import type { StrategyName, StrategyOptions, ThrottlePolicy } from './policy.js';
import { SlidingWindowPolicy, type SlidingWindowState } from './sliding-window.js';
import { VoucherTimerPolicy } from './timer.js';
import { TokenBucketPolicy } from './token-bucket.js';
import { WarmingUpPolicy, warmUpCurve } from './warming-up.js';

export type { AllOfState, PartState } from './all-of.js';
export type { DimensionsState } from './dimensions.js';
export type { StrategyName, StrategyOptions, ThrottlePolicy } from './policy.js';
export { STRATEGIES } from './policy.js';
export type { SlidingWindowState } from './sliding-window.js';
export type { SmoothRateState } from './smooth-rate.js';
export type { VoucherTimerState } from './timer.js';

/**
 * A policy's saved state, told apart by `kind`: the sliding window's, one per rate for the other strategies,
 * or one per dimension.
 */
export type PolicyState = SlidingWindowState | AllOfState | DimensionsState<SlidingWindowState | AllOfState>;
export {
  AllOfPolicies,
  DimensionsPolicy,
  SlidingWindowPolicy,
  TokenBucketPolicy,
  VoucherTimerPolicy,
  WarmingUpPolicy,
  warmUpCurve,
};

/**
 * A policy as the engine holds it: the costs it is told may be vectors. Only a DimensionsPolicy is ever told
 * one, since a vector cost is refused on a throttler whose rates name no dimensions (and every rate of one
 * that does names its dimension).
 */
export interface CostPolicy
  extends Omit<
    ThrottlePolicy<PolicyState>,
    'earliestDelivery' | 'recordDelivery' | 'holdInFlight' | 'releaseInFlight'
  > {
  earliestDelivery(now: number, cost: Cost): number;
  recordDelivery(at: number, cost: Cost, requestedAt?: number): void;
  holdInFlight?(cost: Cost): void;
  releaseInFlight?(at: number, cost: Cost): void;
  /** A DimensionsPolicy's smallest limit in one dimension (undefined: its rates do not name it). */
  smallestLimitIn?(index: number): number | undefined;
}

/**
 * Builds the policy for a strategy and its rates. The sliding window checks all
 * its rates against one delivery log; the other strategies keep one state per
 * rate and must all agree. Rates in dimensions get one such policy per dimension
 * (DimensionsPolicy), numbered by `dimensions` (default: the dimensions these rates name).
 */
export function createPolicy(
  strategy: StrategyName,
  rates: readonly Rate[],
  options: StrategyOptions,
  now: number,
  dimensions?: Dimensions,
): CostPolicy {
  if (rates[0]?.dimension !== undefined) {
    const numbered = dimensions ?? (Dimensions.of(rates) as Dimensions);
    const inner = (group: readonly Rate[], at: number) => scalarPolicy(strategy, group, options, at);
    return new DimensionsPolicy<SlidingWindowState | AllOfState>(rates, numbered, inner, now);
  }
  // A scalar policy is only ever told scalar costs (see CostPolicy).
  return scalarPolicy(strategy, rates, options, now) as CostPolicy;
}

function scalarPolicy(
  strategy: StrategyName,
  rates: readonly Rate[],
  options: StrategyOptions,
  now: number,
): ThrottlePolicy<SlidingWindowState | AllOfState> {
  if (strategy === 'sliding-window') return new SlidingWindowPolicy(rates);
  const createPart = (rate: Rate, at: number): ThrottlePolicy<PartState> => {
    switch (strategy) {
      case 'timer':
        return new VoucherTimerPolicy(rate);
      case 'token-bucket':
        return new TokenBucketPolicy(rate, at, options.maxBurst);
      case 'warming-up':
        return new WarmingUpPolicy(rate, at, options.warmup as number, options.coldFactor ?? 3);
    }
  };
  return new AllOfPolicies<PartState>(rates, createPart, now);
}
