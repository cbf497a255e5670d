import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { hashTagOf } from '../../src/redis/keys.js';

/**
 * The real Redis the store tests run against (never a mock): REDIS_URL, or 127.0.0.1:6379.
 * Tests that need it FAIL with a clear message when it does not answer under CI=true; on a
 * developer's machine without Redis they fail the same way, so that nobody mistakes a skipped
 * run for a passing one.
 */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A new client for one test file, checked with PING; throws a clear error when Redis is absent. */
export async function connectRedis(options: Record<string, unknown> = {}): Promise<Redis> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, ...options });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `These tests need a real Redis at ${REDIS_URL} (set REDIS_URL, or start one: redis-server --daemonize yes); ${String(error)}`,
    );
  }
  return redis;
}

let counter = 0;

/** A limiter name no other test (in this or another process) uses. */
export function uniqueName(label: string): string {
  counter += 1;
  return `test-${label}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}`;
}

/** Every key of the limiter `name`, found by its hash tag. */
export async function limiterKeysIn(redis: Redis, name: string): Promise<string[]> {
  const pattern = `xt:{${hashTagOf(name).replace(/[*?[\]\\]/g, '\\$&')}}:*`;
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}

/** Deletes what a test left (each limiter's keys). */
export async function deleteLimiters(redis: Redis, names: Iterable<string>): Promise<void> {
  for (const name of names) {
    const keys = await limiterKeysIn(redis, name);
    if (keys.length > 0) await redis.del(...keys);
  }
}

/** The Redis time of a granted reservation, in ms (tests only: the reservation is opaque to users). */
export function grantTimeOf(reservation: string): number {
  const member = reservation.split(' ')[1] as string;
  return Number(member.split(':')[0]) / 1000;
}

/**
 * One connection for a test file: opened before its tests, and after them every limiter named through
 * `fresh` is deleted and the connection closed.
 */
export function redisForFile(): { readonly redis: Redis; fresh(label: string): string } {
  let redis: Redis | undefined;
  const names: string[] = [];
  beforeAll(async () => {
    redis = await connectRedis();
  });
  afterAll(async () => {
    if (!redis) return;
    await deleteLimiters(redis, names);
    redis.disconnect();
  });
  return {
    get redis(): Redis {
      if (redis === undefined) throw new Error('redisForFile: Redis is connected in beforeAll, read it inside a test');
      return redis;
    },
    fresh(label: string): string {
      const name = uniqueName(label);
      names.push(name);
      return name;
    },
  };
}
