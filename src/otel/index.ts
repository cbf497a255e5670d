/**
 * `xstate-throttler/otel`: OpenTelemetry metrics of a throttler (docs/metrics.md). A separate entry
 * point with `@opentelemetry/api` as an optional peer: the core package never loads it.
 */
export { instrumentThrottler, type ThrottlerInstrumentation } from './instrument.js';
export {
  MAX_CHANNEL_SERIES,
  type MessageResult,
  THROTTLER_ATTRIBUTES,
  THROTTLER_METRICS,
  TIME_IN_QUEUE_BUCKETS,
} from './names.js';
export type { InstrumentOptions } from './options.js';
