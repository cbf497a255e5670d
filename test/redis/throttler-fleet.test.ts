import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/redis/index.js';
import { type Delivery, overfullWindows, type RateConfig } from '../support/oracle.js';
import { connectRedis, deleteLimiters, uniqueName } from '../support/redis.js';

/**
 * Eight throttler processes share one limit through the store (two rates, two channels, costs
 * 1-3, bursts, a backlog) on real timers and real Redis, across a fleet-wide PAUSE and a SET_RATE
 * that lowers the overall limit; a ninth, holding a burst of reservations, is killed with
 * SIGKILL. Every send is timed on the host's common clock and every window is checked by brute
 * force: none may hold more than its limit (sends, not only grants: the grace covers lateness).
 */
let redis: Redis;
const name = uniqueName('throttler-fleet');
const FLEET = 8;

beforeAll(async () => {
  redis = await connectRedis();
});
afterAll(async () => {
  if (!redis) return;
  await deleteLimiters(redis, [name]);
  redis.disconnect();
});

interface Report {
  deliveries: Array<Delivery & { n: number }>;
  queued: number;
  left: number;
  storeDown: string[];
  done: Promise<void>;
  child: ChildProcess;
}

function worker(seed: number, durationMs: number, role: 'worker' | 'victim'): Report {
  const script = join(import.meta.dirname, '..', 'fixtures', 'redis-throttler-worker.ts');
  const child = fork(script, [name, String(durationMs), String(seed), String(FLEET + 1), role], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const report: Report = { deliveries: [], queued: -1, left: -1, storeDown: [], child, done: Promise.resolve() };
  child.on('message', (message: Record<string, unknown>) => {
    if ('at' in message) report.deliveries.push(message as never);
    else if ('storeDown' in message) report.storeDown.push(String(message.storeDown));
    else {
      report.queued = Number(message.queued);
      report.left = Number(message.left ?? 0);
    }
  });
  report.done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker ${seed} did not finish`)), 90_000);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return report;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a fleet of throttler processes sharing one store', () => {
  it('keeps every limit on the common clock, across a fleet-wide PAUSE, a lowered rate and a killed worker', async () => {
    const workers = Array.from({ length: FLEET }, (_, seed) => worker(seed + 1, 3500, 'worker'));
    const victim = worker(99, 0, 'victim');
    const ready = `xt:{${name}}:test-ready`;
    while (Number(await redis.get(ready)) < FLEET + 1) await sleep(50);
    const control = createRedisStore({ redis, name }).open({
      strategy: 'sliding-window',
      rates: ['20/500ms', '50/2s'],
      channels: { a: '5/200ms', b: '8/1s' },
      grantGraceMs: 20,
    });
    await sleep(700);
    victim.child.kill('SIGKILL');
    await sleep(300);
    await control.pause(400);
    await sleep(1000);
    await control.setRate(['10/500ms', '50/2s']);
    const loweredAt = performance.timeOrigin + performance.now();
    await Promise.all([...workers, victim].map((w) => w.done));

    const all = [...workers, victim].flatMap((w) => w.deliveries);
    const config: RateConfig = {
      overall: [
        { limit: 20, interval: 500 },
        { limit: 50, interval: 2000 },
      ],
      channels: { a: [{ limit: 5, interval: 200 }], b: [{ limit: 8, interval: 1000 }] },
    };
    expect(overfullWindows(config, all)).toEqual([]);
    // After the lowered rate has reached everyone (a reserve-ahead span and the grace later): the new limit.
    const settledAt = loweredAt + 200 + 20 + 100;
    const after = all.filter((d) => d.at >= settledAt);
    expect(after.length).toBeGreaterThan(10);
    expect(overfullWindows({ ...config, overall: [{ limit: 10, interval: 500 }] }, after)).toEqual([]);
    // Nothing lost or sent twice by the workers that lived: each sent every message it queued, once.
    for (const w of workers) {
      expect(w.storeDown).toEqual([]);
      expect(w.left).toBe(0);
      const sent = w.deliveries.map((d) => d.n).sort((a, b) => a - b);
      expect(sent).toEqual([...Array(w.queued).keys()]);
    }
    // The victim held reservations when it died; they cost capacity, never a violation (checked above).
    expect(victim.queued).toBe(200);
    expect(victim.deliveries.length).toBeLessThan(200);
  }, 120_000);
});
