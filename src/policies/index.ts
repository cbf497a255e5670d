import type { Rate } from '../rate/index.js';
import { AllOfPolicies, type AllOfState, type PartState } from './all-of.js';
import type { StrategyName, StrategyOptions, ThrottlePolicy } from './policy.js';
import { SlidingWindowPolicy, type SlidingWindowState } from './sliding-window.js';
import { VoucherTimerPolicy } from './timer.js';
import { TokenBucketPolicy } from './token-bucket.js';
import { WarmingUpPolicy, warmUpCurve } from './warming-up.js';

export type { AllOfState, PartState } from './all-of.js';
export type { StrategyName, StrategyOptions, ThrottlePolicy } from './policy.js';
export { STRATEGIES } from './policy.js';
export type { SlidingWindowState } from './sliding-window.js';
export type { SmoothRateState } from './smooth-rate.js';
export type { VoucherTimerState } from './timer.js';

/** A policy's saved state, told apart by `kind`: the sliding window's, or one per rate for the other strategies. */
export type PolicyState = SlidingWindowState | AllOfState;
export { AllOfPolicies, SlidingWindowPolicy, TokenBucketPolicy, VoucherTimerPolicy, WarmingUpPolicy, warmUpCurve };

/**
 * Builds the policy for a strategy and its rates. The sliding window checks all
 * its rates against one delivery log; the other strategies keep one state per
 * rate and must all agree.
 */
export function createPolicy(
  strategy: StrategyName,
  rates: readonly Rate[],
  options: StrategyOptions,
  now: number,
): ThrottlePolicy<PolicyState> {
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
