import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRedisStore } from '../../src/redis/index.js';
import type { SharedLimiterConfig } from '../../src/store/protocol.js';
import { connectRedis, deleteLimiters, grantTimeOf, uniqueName } from '../support/redis.js';

/**
 * The scripts read Redis TIME, never a client's clock: processes whose clocks are hours apart get
 * the same schedule, on Redis' clock. Real Redis time here (no testClock), generous bounds.
 */
let redis: Redis;
const names: string[] = [];

beforeAll(async () => {
  redis = await connectRedis();
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  if (!redis) return;
  await deleteLimiters(redis, names);
  redis.disconnect();
});

const CONFIG: SharedLimiterConfig = {
  strategy: 'sliding-window',
  rates: '2/300ms',
  maxReserveAheadMs: 1000,
  grantGraceMs: 0,
};

async function redisNow(): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

/** Runs `fn` with this process's clocks (Date.now and performance.now) shifted by `shiftMs`. */
async function withClockShift<T>(shiftMs: number, fn: () => Promise<T>): Promise<T> {
  const realDate = Date.now.bind(Date);
  const realPerformance = performance.now.bind(performance);
  const date = vi.spyOn(Date, 'now').mockImplementation(() => realDate() + shiftMs);
  const monotonic = vi.spyOn(performance, 'now').mockImplementation(() => realPerformance() + shiftMs);
  try {
    return await fn();
  } finally {
    date.mockRestore();
    monotonic.mockRestore();
  }
}

describe('clock independence', () => {
  it('schedules on Redis time whatever the processes clocks say', async () => {
    const name = uniqueName('clocks');
    names.push(name);
    const ahead = createRedisStore({ redis, name }).open(CONFIG);
    const behind = createRedisStore({ redis, name }).open(CONFIG);
    const before = await redisNow();
    const first = await withClockShift(3_600_000, () => ahead.reserve([{ cost: 1 }, { cost: 1 }]));
    const second = await withClockShift(-3_600_000, () => behind.reserve([{ cost: 1 }]));
    const after = await redisNow();

    const times = [...first, ...second].map((outcome) =>
      outcome.kind === 'granted' ? grantTimeOf(outcome.reservation) : Number.NaN,
    );
    // The first two go at once, at Redis' now; the third one window later, to the microsecond.
    expect(times[0]).toBeGreaterThanOrEqual(before);
    expect(times[0]).toBeLessThanOrEqual(after);
    expect(times[1]).toBe(times[0]);
    expect(times[2]).toBeCloseTo((times[0] as number) + 300, 6);
    const wait = second[0]?.kind === 'granted' ? second[0].waitMs : Number.NaN;
    expect(wait).toBeGreaterThan(300 - (after - before) - 1);
    expect(wait).toBeLessThanOrEqual(300);
  });
});
