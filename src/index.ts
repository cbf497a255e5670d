/**
 * xstate-throttler: the machine, the promise API and the rate helpers (the RxJS operator is
 * xstate-throttler/rxjs, so this entry never loads rxjs). Every name here has a heading in
 * docs/reference.md; api/main.api.txt lists them (test/build/api-report.test.ts).
 */
export {
  createThrottler,
  type ScheduleOptions,
  type Throttler,
  ThrottlerClearedError,
  type ThrottlerOptions,
  ThrottlerStoppedError,
  type ThrottlerTaskEvents,
  ThrottlerTimeoutError,
} from './adapters/index.js';
export {
  auditThrottler,
  preciseClock,
  type RestoreOptions,
  restoreThrottler,
  summarizeInspection,
  type ThrottlerActor,
  type ThrottlerAuditReport,
  type ThrottlerContext,
  type ThrottlerCounts,
  type ThrottlerEmitted,
  type ThrottlerEvent,
  ThrottlerExpiredError,
  type ThrottlerInput,
  ThrottlerOverflowError,
  throttlerMachine,
  turnClock,
} from './machine/index.js';
export type { StrategyName } from './policies/index.js';
export { formatRate, parseRate, parseRates, type Rate, type RatesInput, ThrottlerOptionError } from './rate/index.js';
