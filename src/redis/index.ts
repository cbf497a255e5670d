/**
 * xstate-throttler/redis: one limit shared by many processes through Redis, strict on Redis time.
 * Node, Bun, Deno and workerd (docs/runtimes.md); needs ioredis (an optional peer dependency of xstate-throttler).
 * The protocol it answers and the store's errors are xstate-throttler/store's.
 */
export { createRedisStore } from './redis-store.js';
export type { RedisClientLike, RedisStore, RedisStoreOptions } from './types.js';
