/**
 * xstate-throttler: the machine, the promise API, the RxJS operator and the rate helpers. Every name
 * here has a heading in docs/reference.md; api/main.api.txt lists them (test/build/api-report.test.ts).
 */
export {
  createThrottler,
  type ScheduleOptions,
  type ThrottleQueueOptions,
  type Throttler,
  ThrottlerClearedError,
  type ThrottlerOptions,
  ThrottlerStoppedError,
  type ThrottlerTaskEvents,
  ThrottlerTimeoutError,
  throttleQueue,
} from './adapters/index.js';
export {
  preciseClock,
  type RestoreOptions,
  restoreThrottler,
  summarizeInspection,
  type ThrottlerActor,
  type ThrottlerContext,
  type ThrottlerCounts,
  type ThrottlerEmitted,
  type ThrottlerEvent,
  ThrottlerExpiredError,
  type ThrottlerInput,
  throttlerMachine,
  turnClock,
} from './machine/index.js';
export type { StrategyName } from './policies/index.js';
export { formatRate, parseRate, parseRates, type Rate, type RatesInput, ThrottlerOptionError } from './rate/index.js';
