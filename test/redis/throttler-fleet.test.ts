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
 * SIGKILL. Every grant's Redis time and every send's time on the host's clock are checked by brute
 * force: no window of grants holds more than its limit, and a window of sends only when a send
 * came later than the grace after its grant (which the throttler never does unless the OS or a GC
 * pause stops it between deciding and sending).
 */
let redis: Redis;
const name = uniqueName('throttler-fleet');
const FLEET = 8;
/** The store's default grace for a throttler. */
const GRACE_MS = 20;

beforeAll(async () => {
  redis = await connectRedis();
});
afterAll(async () => {
  if (!redis) return;
  await deleteLimiters(redis, [name]);
  redis.disconnect();
});

interface Report {
  /** Each send on the host's clock (`at`), and the Redis time of the grant it went on. */
  deliveries: Array<Delivery & { n: number; grantedAt: number }>;
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
      grantGraceMs: GRACE_MS,
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
    // The promise, on the clock it is made on: every message went on a grant, and no window of the
    // grants' Redis times holds more than a limit.
    expect(all.filter((d) => !Number.isFinite(d.grantedAt))).toEqual([]);
    const grants = all.map((d) => ({ ...d, at: d.grantedAt }));
    expect(overfullWindows(config, grants)).toEqual([]);
    // On the host's clock: a window over a limit can only come from a send later than the grace after its
    // grant (a process the OS or a GC pause stopped between deciding and sending, on this loaded machine).
    const late = (d: (typeof all)[number]) => d.at - d.grantedAt > GRACE_MS + 1;
    for (const window of overfullWindows(config, all)) {
      const inside = all.filter((d) => d.at >= window.start && d.at < window.start + window.rate.interval);
      expect(inside.some(late), JSON.stringify(window)).toBe(true);
    }
    // After the lowered rate has reached everyone (a reserve-ahead span and the grace later): the new limit.
    const settledAt = loweredAt + 200 + GRACE_MS + 100;
    const after = grants.filter((d) => d.at >= settledAt);
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
