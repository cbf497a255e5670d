/**
 * xstate-throttler/lean: the throttler for an app that picks its strategy as a value
 * (xstate-throttler/strategies) and so bundles only that strategy's code. The same machine and promise
 * API as the main entry, but no strategy is known by name: `strategy` is required, and a name is refused
 * with what to import instead. Features beyond the core load only when passed as values (`features:
 * [audit]`, docs/size.md): a question that needs one not given is refused with what to import. Everything
 * else (types, errors, rate helpers) comes from the main entry, whose other names a bundler leaves out as
 * usual. api/lean.api.txt lists the names here.
 */
export { leanCreateThrottler as createThrottler } from '../adapters/index.js';
export { rateLimitWatch } from '../adapters/rate-limit-watch.js';
export { retry } from '../adapters/retry-feature.js';
export { timeout } from '../adapters/task-timeout.js';
export { audit } from '../engine/audit/audit-feature.js';
export { dimensions } from '../engine/clearance/dimensions-feature.js';
export { settle } from '../engine/clearance/settle-book.js';
export { fairness } from '../engine/fair-share.js';
export type { ThrottlerFeature } from '../engine/options/features-option.js';
export { optionHints } from '../engine/options/option-hints.js';
export { transit } from '../engine/options/transit-feature.js';
export { overflow } from '../engine/queue/overflow-choice.js';
export { leanRestoreThrottler as restoreThrottler } from '../machine/persistence.js';
export { exactTimers } from '../machine/precise-clock.js';
export { leanThrottlerMachine as throttlerMachine } from '../machine/throttler-machine.js';
