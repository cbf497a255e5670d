export { AllOfPolicies, type AllOfState, type PartState } from './all-of.js';
export { type CostPolicy, type CostPolicyState, createCostPolicy, type SplitByDimension } from './cost-policy.js';
export { DimensionsPolicy, type DimensionsState } from './dimensions.js';
export { OwnPolicy, type OwnPolicyState, PolicyFaults, type StrategyPolicy } from './own-policy.js';
export { defineStrategy, type StrategyDefinition } from './own-strategy.js';
export type { StrategyName, StrategyOptions, ThrottlePolicy, TransitSpread } from './policy.js';
export { STRATEGIES } from './policy.js';
export { SlidingWindowPolicy, type SlidingWindowState } from './sliding-window.js';
export type { SmoothRateState } from './smooth-rate.js';
export { createPolicy, strategyNamed } from './strategies/by-name.js';
export { slidingWindow } from './strategies/sliding-window.js';
export { timer } from './strategies/timer.js';
export { tokenBucket } from './strategies/token-bucket.js';
export { warmingUp } from './strategies/warming-up.js';
export {
  isStrategy,
  type PolicyState,
  type Strategy,
  type StrategyImplementation,
  strategyValueName,
} from './strategy.js';
export { VoucherTimerPolicy, type VoucherTimerState } from './timer.js';
export { TokenBucketPolicy } from './token-bucket.js';
export { WarmingUpPolicy, warmUpCurve } from './warming-up.js';
