import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThrottler } from '../../src/index.js';
import type { ThrottlerEmitted } from '../../src/machine/types.js';
import { createRedisStore } from '../../src/redis/index.js';
import { type DelayingProxy, startDelayingProxy } from '../support/delaying-proxy.js';
import { machineContext } from '../support/machine-context.js';
import { overfullWindows } from '../support/oracle.js';
import { deleteLimiters, grantTimeOf, REDIS_URL, uniqueName } from '../support/redis.js';

/**
 * A Redis farther away than the grace (issue 22, item 2): through a proxy adding 15 ms each way, a
 * throttler with the store's default options runs every task (before, none ran: every grant was
 * unusable, given back and asked for again for ever), keeps the limit on Redis time, and says once,
 * with storeSlow, what round trip it saw and what grace it uses. Real timers and a real round trip:
 * the bounds are loose (the machine is shared), the facts are not.
 */
let proxy: DelayingProxy;
let redis: Redis;
const names: string[] = [];

beforeAll(async () => {
  const target = new URL(REDIS_URL);
  proxy = await startDelayingProxy({ host: target.hostname, port: Number(target.port || 6379) }, 15);
  redis = new Redis({ host: '127.0.0.1', port: proxy.port, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
});

afterAll(async () => {
  await deleteLimiters(redis, names);
  redis.disconnect();
  await proxy.close();
});

describe('a store behind a 30 ms round trip', () => {
  it('runs every task, strict on Redis time, and emits one storeSlow with the round trip and the grace in use', async () => {
    const name = uniqueName('slow-link');
    names.push(name);
    const store = createRedisStore({ redis, name });
    const throttler = createThrottler({ rate: '5/1s', strategy: 'sliding-window', store });
    const slow: Array<Extract<ThrottlerEmitted, { type: 'storeSlow' }>> = [];
    throttler.actor.on('storeSlow', (event) => slow.push(event));
    // The Redis time of each grant a task went on (tests only: the reservation names it).
    const clearance = machineContext(throttler.actor).dispatcher.clearance as unknown as {
      grants: { get(seq: number): { reservation: string } | undefined };
      recordDelivery(request: { seq: number }, at: number, requestedAt: number): void;
    };
    const grantedAt: number[] = [];
    const recordDelivery = clearance.recordDelivery.bind(clearance);
    clearance.recordDelivery = (request, at, requestedAt) => {
      const reservation = clearance.grants.get(request.seq)?.reservation;
      grantedAt.push(reservation === undefined ? Number.NaN : grantTimeOf(reservation));
      recordDelivery(request, at, requestedAt);
    };
    const startedAt = performance.now();
    const ran: number[] = [];
    const tasks = Array.from({ length: 10 }, (_, n) => throttler.schedule(async () => ran.push(n)));
    const outcome = await Promise.race([
      Promise.all(tasks).then(() => 'all ran'),
      new Promise((resolve) => setTimeout(() => resolve('stalled'), 15_000)),
    ]);
    const tookMs = performance.now() - startedAt;
    throttler.stop();
    await store.close();

    expect(outcome).toBe('all ran');
    expect(ran).toEqual([...Array(10).keys()]);
    // Two windows of 5 (spaced by 1 s + the grace): measured, not asserted tightly.
    console.log(`slow link: 10 tasks in ${tookMs.toFixed(0)} ms; storeSlow ${JSON.stringify(slow)}`);
    expect(grantedAt.filter((at) => !Number.isFinite(at))).toEqual([]);
    const overall = [{ limit: 5, interval: 1000 }];
    expect(
      overfullWindows(
        { overall, channels: {} },
        grantedAt.map((at) => ({ at, cost: 1, channel: undefined })),
      ),
    ).toEqual([]);
    expect(slow).toHaveLength(1);
    const [event] = slow as [(typeof slow)[number]];
    // The proxy adds 30 ms to every round trip; the grace in use is the store's 20 ms plus it.
    expect(event.roundTripMs).toBeGreaterThanOrEqual(30);
    expect(event.graceMs).toBeCloseTo(20 + event.roundTripMs, 6);
  }, 30_000);
});
