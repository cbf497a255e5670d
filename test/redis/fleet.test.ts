import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/redis/index.js';
import { type Delivery, overfullWindows, worstWindows } from '../support/oracle.js';
import { connectRedis, deleteLimiters, uniqueName } from '../support/redis.js';

/**
 * Eight processes share one limiter (two rates, two channels, costs 1-3, bursts) on real Redis
 * TIME for a few seconds, across a fleet-wide pause; every grant's Redis time is merged and every
 * window is checked by brute force: none may hold more than its limit.
 */
let redis: Redis;
const name = uniqueName('fleet');
const FLEET = 8;

beforeAll(async () => {
  redis = await connectRedis();
});
afterAll(async () => {
  if (!redis) return;
  await deleteLimiters(redis, [name]);
  redis.disconnect();
});

function worker(seed: number, durationMs: number): Promise<Delivery[]> {
  const script = join(import.meta.dirname, '..', 'fixtures', 'redis-fleet-worker.ts');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script, name, String(durationMs), String(seed), String(FLEET)],
      { timeout: 80_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`worker ${seed} failed: ${String(error)}\n${stderr}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1) as string) as Delivery[]);
      },
    );
  });
}

describe('a fleet of processes sharing one limiter', () => {
  it('never lets more than a limit into any window of Redis time, for every rate and channel, across a pause', async () => {
    const workers = Array.from({ length: FLEET }, (_, seed) => worker(seed + 1, 3000));
    // While they run (once all are up), one process pauses the whole fleet, as on a 429.
    const ready = `xt:{${name}}:test-ready`;
    while (Number(await redis.get(ready)) < FLEET) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const control = createRedisStore({ redis, name }).open({
      strategy: 'sliding-window',
      rates: ['20/500ms', '50/2s'],
      channels: { a: '5/200ms', b: '8/1s' },
    });
    await control.pause(400);
    const grants = (await Promise.all(workers)).flat();
    const config = {
      overall: [
        { limit: 20, interval: 500 },
        { limit: 50, interval: 2000 },
      ],
      channels: { a: [{ limit: 5, interval: 200 }], b: [{ limit: 8, interval: 1000 }] },
    };
    expect(grants.length).toBeGreaterThan(20);
    expect(overfullWindows(config, grants)).toEqual([]);
    // Some limit was binding (a window full to its limit), so the check above had something to catch.
    const full = worstWindows(config, grants).filter((window) => window.cost === window.rate.limit);
    expect(full.length).toBeGreaterThan(0);
  }, 120_000);
});
