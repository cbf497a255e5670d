import type { Rate } from '../rate/index.js';
import { AllOfPolicies } from './all-of.js';
import type { StrategyName, StrategyOptions, ThrottlePolicy } from './policy.js';
import { SlidingWindowPolicy } from './sliding-window.js';
import { VoucherTimerPolicy } from './timer.js';
import { TokenBucketPolicy } from './token-bucket.js';
import { WarmingUpPolicy, warmUpCurve } from './warming-up.js';

export type { PolicyState, StrategyName, StrategyOptions, ThrottlePolicy } from './policy.js';
export { AllOfPolicies, SlidingWindowPolicy, TokenBucketPolicy, VoucherTimerPolicy, WarmingUpPolicy, warmUpCurve };

export const STRATEGIES: readonly StrategyName[] = ['timer', 'sliding-window', 'token-bucket', 'warming-up'];

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
): ThrottlePolicy {
  if (strategy === 'sliding-window') return new SlidingWindowPolicy(rates);
  const createPart = (rate: Rate, at: number): ThrottlePolicy => {
    switch (strategy) {
      case 'timer':
        return new VoucherTimerPolicy(rate);
      case 'token-bucket':
        return new TokenBucketPolicy(rate, at, options.maxBurst);
      case 'warming-up':
        return new WarmingUpPolicy(rate, at, options.warmup as number, options.coldFactor ?? 3);
    }
  };
  return new AllOfPolicies(rates, createPart, now);
}
