/**
 * xstate-throttler/redis: one limit shared by many processes through Redis, strict on Redis time.
 * Node only; needs ioredis (an optional peer dependency of xstate-throttler).
 */
export { StoreConflictError, StoreUnavailableError } from '../store/errors.js';
export { createRedisStore } from './redis-store.js';
export type {
  FleetAuditReport,
  LaterReason,
  RedisClientLike,
  RedisStore,
  RedisStoreOptions,
  Reservation,
  ReservationRequest,
  ReserveOutcome,
  SharedLimiter,
  SharedLimiterConfig,
  StoreNotice,
} from './types.js';
