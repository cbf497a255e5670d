/**
 * The engine's face: what the machine's clients beside it (src/store/, src/redis/, src/adapters/, src/otel/)
 * may use, and all of src/engine/ they may import.
 * The engine imports no XState (test/build/source-shape.test.ts): the queue, the clearance seam and
 * its local answer, the saved format, the options and the dispatcher. The machine asks it; a store
 * is a second answer to the same clearance seam.
 */
export type { RateAudit, ThrottlerAuditReport } from './audit/throttler-audit.js';
export { WindowAudit, type WindowAuditJSON, type WindowFindings } from './audit/window-audit.js';
export type {
  ClearanceRequest,
  GrantsRewoundReason,
  PerChannelClearance,
  StoreClearance,
  StoreConflict,
  StoreHooks,
  StoreTraffic,
  ThrottleStore,
} from './clearance/clearance.js';
export { InFlightDeliveries } from './clearance/in-flight.js';
export type { Lease } from './clearance/lease.js';
export { LocalClearance } from './clearance/local-clearance.js';
export { settleActualCost } from './clearance/settle-actual.js';
export { MAX_SETTLEABLE } from './clearance/settle-book.js';
export { TransitMeter, type TransitTicket } from './clearance/transit-meter.js';
export { fairCost } from './fair-share.js';
export { weightOf } from './options/fairness-option.js';
export type { FeatureName, FeatureValue } from './options/feature-value.js';
export {
  type Features,
  featureMissing,
  optionHintsIn,
  resolveFeatures,
  type ThrottlerFeature,
} from './options/features-option.js';
export { isKeyName } from './options/keys-option.js';
export { type OptionHintsFeature, optionHintsFeature } from './options/option-hints.js';
export { checkOptionNames } from './options/option-names.js';
export {
  type CommonOptions,
  type CountUntil,
  type Ordering,
  type ResolvedOptions,
  resolveOptions,
  resolveOptionsKnowing,
  type TransitInput,
  type TransitSetting,
  tracksInFlight,
  unknownChannelError,
} from './options/options.js';
export { byAnyName, byValueOnly, type StrategyLookup } from './options/strategy-option.js';
export { refuseMeasuredTransit, refuseMeasuredWithStore } from './options/transit-option.js';
export { Deque } from './queue/deque.js';
export { IndexedHeap } from './queue/indexed-heap.js';
export { checkPriority } from './queue/message-checks.js';
export { ALL_WAITING } from './queue/message-queues.js';
export { isWithdrawn, levelOf, type Place, SelfQueuedMessage } from './queue/queued-message.js';
export type { RestoredState } from './saved/persisted-format.js';
