import type { Rate } from '../../rate/index.js';
import type { StrategyName, StrategyOptions, ThrottlePolicy } from '../policy.js';
import type { PolicyState, StrategyImplementation } from '../strategy.js';
import { slidingWindow } from './sliding-window.js';
import { timer } from './timer.js';
import { tokenBucket } from './token-bucket.js';
import { warmingUp } from './warming-up.js';

/**
 * Every strategy by its name: what the main entry resolves a `strategy` given by name with (options, a saved
 * snapshot). Importing this brings every policy into a bundle; xstate-throttler/lean never does.
 */
export function strategyNamed(name: string): StrategyImplementation | undefined {
  // The values are implementations typed as their public Strategy (strategy.ts).
  return ([timer, slidingWindow, tokenBucket, warmingUp] as StrategyImplementation[]).find(
    (strategy) => strategy.name === name,
  );
}

/** The policy of a strategy given by name (the library's own tools and tests); an unknown name throws. */
export function createPolicy(
  name: StrategyName,
  rates: readonly Rate[],
  options: StrategyOptions,
  now: number,
): ThrottlePolicy<PolicyState> {
  const strategy = strategyNamed(name);
  if (strategy === undefined) throw new TypeError(`no strategy is named ${JSON.stringify(name)}`);
  return strategy.createPolicy(rates, options, now);
}
