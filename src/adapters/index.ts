export {
  createThrottler,
  type ScheduleOptions,
  type Throttler,
  type ThrottlerOptions,
  ThrottlerStoppedError,
} from './promise.js';
export { type ThrottleQueueOptions, throttleQueue } from './rxjs.js';
