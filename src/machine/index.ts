export type { Lease } from '../engine/clearance/lease.js';
export type { KeysOption, Ordering, Overflow, ThrottleOptions, TimerPrecision } from '../engine/options/options.js';
export type { DropReason, ThrottlerCounts } from '../engine/queue/message-queues.js';
export type { PersistedDispatcher } from '../engine/saved/persisted-format.js';
export { ThrottlerExpiredError } from './expired-error.js';
export { summarizeInspection } from './inspection.js';
export { type RestoreOptions, restoreThrottler, type ThrottlerActor } from './persistence.js';
export { PRECISE_CLOCK_LEAD_MS, preciseClock, turnClock } from './precise-clock.js';
export { MAX_TIMER_DELAY, throttlerMachine } from './throttler-machine.js';
export type {
  Clock,
  LeaseEvent,
  QueueBatchEvent,
  QueueEvent,
  ThrottlerContext,
  ThrottlerEmitted,
  ThrottlerEvent,
  ThrottlerInput,
} from './types.js';
