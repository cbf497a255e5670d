/**
 * xstate-throttler/store: the shared store's protocol, what every backend answers (docs/store-protocol.md),
 * and its errors. A backend of its own entry (xstate-throttler/redis) creates the store.
 */
export { StoreConflictError, StoreUnavailableError } from './errors.js';
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from './memory-store.js';
export type {
  FleetAuditReport,
  LaterReason,
  Reservation,
  ReservationRequest,
  ReserveOutcome,
  SharedLimiter,
  SharedLimiterConfig,
  SharedStore,
  StoreNotice,
} from './protocol.js';
export {
  createRegionShares,
  createShareHome,
  type RegionShares,
  type RegionSharesOptions,
  type RegionWatch,
  type RegionWatchOptions,
  type ShareAsk,
  type ShareGrant,
  type ShareHome,
  type ShareHomeOptions,
  type ShareTerms,
  type ShareTermsInput,
  watchRegionShares,
} from './regions/index.js';
