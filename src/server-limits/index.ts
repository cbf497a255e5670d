/**
 * xstate-throttler/server-limits: what a response says about the server's limits (Retry-After,
 * X-RateLimit-*, IETF RateLimit / RateLimit-Policy, OpenAI's and Anthropic's quotas), as a PAUSE and a
 * SET_RATE for a throttler, and the limit learned from bare 429s (`adaptiveLimit`). Runs
 * in browsers too; the core never loads it. Every name here has a heading in docs/reference.md.
 */
export {
  type ActualUsageCharge,
  type ActualUsageSettled,
  actualUsageAccounting,
  actualUsageCharge,
  actualUsageSettle,
} from './accounting/actual-usage.js';
export {
  type AnthropicCharge,
  type AnthropicSettled,
  anthropicAccounting,
  anthropicCharge,
  anthropicSettle,
} from './accounting/anthropic.js';
export { type OpenAICharge, openaiAccounting, openaiCharge } from './accounting/openai.js';
export { CHARS_PER_TOKEN, type ChargeOptions } from './accounting/request-size.js';
export type { ProviderAccounting } from './accounting/types.js';
export { type AdaptiveLimit, type AdaptiveLimitOptions, adaptiveLimit } from './adaptive-limit.js';
export { applyServerLimits, type ServerLimitsTarget } from './apply-server-limits.js';
export type { ServerLimitsSource } from './header-fields.js';
export type { ReadServerLimitsOptions } from './options.js';
export { readServerLimits } from './read-server-limits.js';
export {
  type AdaptiveOption,
  type ServerLimitsOptions,
  type ServerLimitsPick,
  serverLimits,
} from './server-limits-option.js';
export type {
  DimensionLimit,
  IgnoredServerValue,
  LimitDimension,
  ServerLimits,
  ServerPauseEvent,
  ServerRateEvent,
} from './types.js';
