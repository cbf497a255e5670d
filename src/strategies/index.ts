/**
 * xstate-throttler/strategies: the four strategies as values, for the `strategy` option of every entry
 * (`strategy: slidingWindow` is `strategy: 'sliding-window'`), and `defineStrategy` for one of your own
 * (its policy contract, `StrategyPolicy`). Each value imports its own policy's code and no other, so an app
 * that imports one (through xstate-throttler/lean) bundles that one only.
 * Every name here has a heading in docs/reference.md; api/strategies.api.txt lists them.
 */
export type { Strategy } from '../policies/index.js';
export type { StrategyPolicy } from '../policies/own-policy.js';
export { defineStrategy, type StrategyDefinition } from '../policies/own-strategy.js';
export { slidingWindow } from '../policies/strategies/sliding-window.js';
export { timer } from '../policies/strategies/timer.js';
export { tokenBucket } from '../policies/strategies/token-bucket.js';
export { warmingUp } from '../policies/strategies/warming-up.js';
