/**
 * xstate-throttler/server-limits: what a response says about the server's limits (Retry-After,
 * X-RateLimit-*, IETF RateLimit / RateLimit-Policy), as a PAUSE and a SET_RATE for a throttler. Runs
 * in browsers too; the core never loads it. Every name here has a heading in docs/reference.md.
 */
export {
  applyServerLimits,
  type ServerLimitsOptions,
  type ServerLimitsPick,
  type ServerLimitsTarget,
  serverLimits,
} from './apply-server-limits.js';
export type { ServerLimitsSource } from './header-fields.js';
export type { ReadServerLimitsOptions } from './options.js';
export { readServerLimits } from './read-server-limits.js';
export type { IgnoredServerValue, ServerLimits, ServerPauseEvent, ServerRateEvent } from './types.js';
