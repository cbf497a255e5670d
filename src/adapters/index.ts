export { createThrottler, leanCreateThrottler } from './create-throttler.js';
export {
  type ScheduleOptions,
  type TaskOutcomeListener,
  type Throttler,
  ThrottlerClearedError,
  type ThrottlerOptions,
  ThrottlerStoppedError,
} from './promise-api.js';
export type { RunningTaskInfo } from './running-task.js';
export type { ThrottlerTaskEvents } from './task-events.js';
export { ThrottlerTimeoutError } from './task-timeout.js';
