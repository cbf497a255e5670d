/**
 * The machine's face: what src/index.ts makes public (it picks its names one by one) and what the
 * adapters use besides (the machine with its own events, the delivery gate's key, the lease's events, the
 * clock and timer helpers, the resolved input, the store check). src/adapters/ imports nothing else of
 * src/machine/ (test/build/source-shape.test.ts).
 */
export type { RateAudit, ThrottlerAuditReport } from '../engine/audit/throttler-audit.js';
export type { CommonOptions } from '../engine/options/options.js';
export type { ThrottlerCounts } from '../engine/queue/message-queues.js';
// The library's strategies' names: the replay tells a recorded strategy of one's own by them.
export { STRATEGIES } from '../policies/policy.js';
export { type AuditedThrottler, auditThrottler } from './audit.js';
export { MAX_TIMER_DELAY } from './effects.js';
export { rateScope } from './event-checks.js';
export { ThrottlerExpiredError } from './expired-error.js';
export { checkStoreFits } from './initial-context.js';
export { summarizeInspection } from './inspection.js';
export { DELIVERY_GATE, type MachineContext, type MachineEvent, MESSAGE_CHECK } from './machine-types.js';
export { throttlerMachine } from './named-machine.js';
export { ThrottlerOverflowError } from './overflow-error.js';
export { LEASE_END_EVENT, leaseEvent, type OwnEvent, WAKE_EVENT } from './own-events.js';
export { type RestoreOptions, restoreThrottler, type ThrottlerActor } from './persistence.js';
export { clockFor, exactTimers, preciseClock, turnClock, unrefTimeout } from './precise-clock.js';
export { withResolvedOptions } from './resolved-input.js';
export {
  type InternalMachine,
  internalThrottlerMachine,
  leanInternalMachine,
  leanThrottlerMachine,
} from './throttler-machine.js';
export type { Clock, ThrottlerContext, ThrottlerEmitted, ThrottlerEvent, ThrottlerInput } from './types.js';
export { listeningTarget } from './xstate-internals.js';
