import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { describeStorePriorities } from '../store/throttler-store-priorities.suite.js';
import { connectRedis, deleteLimiters } from '../support/redis.js';

/** Priorities and deadlines with a Redis store (throttler-store-priorities.suite.ts) against the real Redis. */
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

describeStorePriorities('a Redis store', () => redis, names);
