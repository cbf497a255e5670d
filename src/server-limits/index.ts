export {
  applyServerLimits,
  type PausableThrottler,
  type ServerLimitsListener,
  type ServerLimitsOptionOptions,
  type ServerLimitsPick,
  type ServerLimitsTarget,
  serverLimits,
  type ThrottlerRef,
} from './apply-server-limits.js';
export type {
  HeadersInput,
  HeadersWithForEach,
  HeaderValue,
  ResponseInput,
  ServerLimitsSource,
} from './header-fields.js';
export type { ServerLimitsOptions } from './options.js';
export { readServerLimits } from './read-server-limits.js';
export type { IgnoredServerValue, ServerLimits, ServerPauseEvent, ServerRateEvent } from './types.js';
