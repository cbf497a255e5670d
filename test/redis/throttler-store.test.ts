import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { createRedisStore } from '../../src/redis/index.js';
import { describeThrottlerStore } from '../store/throttler-store.suite.js';
import { connectRedis, deleteLimiters } from '../support/redis.js';

/** The throttler machine with a Redis store: the store suite (test/store/throttler-store.suite.ts) against the real Redis. */
let redis: Redis;
const names: string[] = [];

beforeAll(async () => {
  redis = await connectRedis();
});
afterAll(async () => {
  if (!redis) return;
  await deleteLimiters(redis, names);
  redis.disconnect();
});

describeThrottlerStore(
  'a Redis store',
  () => redis,
  (name) => createRedisStore({ redis, name }),
  names,
);
