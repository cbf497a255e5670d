export { createThrottler } from './promise.js';
export {
  type ScheduleOptions,
  type TaskOutcomeListener,
  type Throttler,
  type ThrottlerOptions,
  ThrottlerStoppedError,
} from './promise-api.js';
