/**
 * The engine's face: what the machine's clients beside it (the Redis store, the adapters) may use.
 * The engine imports no XState (test/build/source-shape.test.ts): the queue, the clearance seam and
 * its local answer, the saved format, the options and the dispatcher. The machine asks it; a store
 * is a second answer to the same clearance seam.
 */
export type {
  ClearanceRequest,
  GrantsRewoundReason,
  StoreClearance,
  StoreConflict,
  StoreHooks,
  ThrottleStore,
} from './clearance/clearance.js';
export { InFlightDeliveries } from './clearance/in-flight.js';
export type { Lease } from './clearance/lease.js';
export { LocalClearance } from './clearance/local-clearance.js';
export { isKeyName } from './options/keys-option.js';
export {
  type CommonOptions,
  type CountUntil,
  type Ordering,
  type ResolvedOptions,
  resolveOptions,
  tracksInFlight,
  unknownChannelError,
} from './options/options.js';
export { Deque } from './queue/deque.js';
export { SelfQueuedMessage } from './queue/queued-message.js';
export type { RestoredState } from './saved/persisted-format.js';
