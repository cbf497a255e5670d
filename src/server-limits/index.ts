export {
  applyServerLimits,
  type PausableThrottler,
  type ServerLimitsPick,
  type ServerLimitsTarget,
  serverLimitsListener,
  type ThrottlerRef,
} from './apply-server-limits.js';
export { EPOCH_MILLISECONDS_FROM, EPOCH_SECONDS_FROM } from './field-values.js';
export type { HeadersInput, HeaderValue, ResponseInput, ServerLimitsSource } from './header-fields.js';
export {
  DEFAULT_MAX_PAUSE_MS,
  DEFAULT_MAX_WINDOW_MS,
  DEFAULT_PAUSE_ON_429_MS,
  type ServerLimitsOptions,
} from './options.js';
export { MAX_SERVER_RATES, readServerLimits } from './read-server-limits.js';
export type { IgnoredServerValue, ServerLimits, ServerPauseEvent, ServerRateEvent } from './types.js';
