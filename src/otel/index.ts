/**
 * `xstate-throttler/otel`: OpenTelemetry metrics of a throttler (docs/metrics.md). A separate entry
 * point with `@opentelemetry/api` as an optional peer: the core package never loads it.
 */
export { instrumentThrottler, type ThrottlerInstrumentation } from './instrument.js';
export { type MessageResult, THROTTLER_ATTRIBUTES, THROTTLER_METRICS } from './names.js';
export type { InstrumentOptions } from './options.js';
