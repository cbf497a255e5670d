import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ThrottlerEmitted } from '../../src/index.js';
import { instrumentThrottler, THROTTLER_METRICS as M } from '../../src/otel/index.js';
import { limiterKeysIn } from '../support/redis.js';
import { startThrowawayRedis, type ThrowawayRedis } from '../support/redis-server.js';
import { type StoreThrottler, storeThrottler } from '../support/store-throttler.js';
import { inMemoryMetrics, pointValue } from './sdk.js';

/**
 * The store's instruments on a throttler whose store is real: a throwaway Redis that is paused (CLIENT
 * PAUSE, until the throttler has said it is down; then up) and loses its keys (a quarantine). The
 * machine runs in virtual time; Redis and the outage are real. Each count is checked against what the throttler emitted, and the round
 * trips against the script calls that reached the client.
 */
let own: ThrowawayRedis;
let redis: Redis;
let admin: Redis;

beforeAll(async () => {
  own = await startThrowawayRedis('otel-store');
  ({ redis, admin } = own);
});

afterAll(() => own?.close());

/** The real client, counting the store's script calls (its commands are named `xthrottler…`). */
function countingCalls(client: Redis): { redis: Redis; calls: () => number } {
  let calls = 0;
  const proxy = new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !property.startsWith('xthrottler') || typeof value !== 'function')
        return value;
      return (...args: unknown[]) => {
        calls += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { redis: proxy, calls: () => calls };
}

/** The store's timeout: the outage costs this much real time. */
const COMMAND_TIMEOUT_MS = 3000;

/** The next event of `type` the throttler emits (awaited as an event rather than polled). */
function nextEmitted(t: StoreThrottler, type: ThrottlerEmitted['type']): Promise<void> {
  return new Promise((resolve) => {
    const subscription = t.actor.on(type, () => {
      subscription.unsubscribe();
      resolve();
    });
  });
}

const jobs = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ message: { type: 'job', n: from + i } }));

/** Milliseconds between each `from` event and the `to` event after it (the last one running until `now`). */
function spans(emitted: ThrottlerEmitted[], from: string, to: string, now: number): number {
  let total = 0;
  let since: number | undefined;
  for (const event of emitted) {
    if (event.type === from && since === undefined) since = (event as { at: number }).at;
    if (event.type === to && since !== undefined) {
      total += (event as { at: number }).at - since;
      since = undefined;
    }
  }
  return total + (since === undefined ? 0 : now - since);
}

describe('instrumentThrottler on a throttler with a Redis store', () => {
  it('counts round trips, grants given back, the time down and quarantined, and the quarantines', async () => {
    const metrics = inMemoryMetrics();
    const counting = countingCalls(redis);
    const t = storeThrottler(
      counting.redis,
      `otel-store-${process.pid}`,
      { rate: '5/1s', strategy: 'sliding-window' },
      // Ample for a round trip on a busy machine (at 150 ms one timed out there: the store was down before
      // the outage); the outage below is Redis paused until the timeout has been told, however long it is.
      { commandTimeout: COMMAND_TIMEOUT_MS, maxReserveAheadMs: 0 },
    );
    const handle = instrumentThrottler(t.actor, { meter: metrics.meter, name: 'fleet' });
    t.actor.send({ type: 'QUEUE_BATCH', messages: jobs(0, 10) });
    await t.runUntil(10);
    await t.quiet();
    let read = await metrics.read();
    expect(pointValue(read.get(M.storeRoundTrips.name))).toBe(counting.calls());
    expect(pointValue(read.get(M.storeRoundTrips.name))).toBeGreaterThan(0);
    expect(pointValue(read.get(M.storeUnavailableTime.name), { 'throttler.store.state': 'down' })).toBe(0);
    // No window is read locally with a store: the fleet's is in Redis.
    expect(read.get(M.windowUtilization.name) ?? []).toEqual([]);

    // Down: Redis runs no script while paused, until the throttler has told storeDown (its call timed
    // out); then it answers again. WRITE pauses scripts and still lets UNPAUSE through (ALL would not).
    await admin.client('PAUSE', 60_000, 'WRITE');
    const wentDown = nextEmitted(t, 'storeDown');
    t.actor.send({ type: 'QUEUE_BATCH', messages: jobs(10, 5) });
    const running = t.runUntil(15, 30_000);
    await wentDown;
    await admin.client('UNPAUSE');
    await running;
    await t.quiet();
    const kinds = t.emitted.map((event) => event.type);
    expect(kinds).toContain('storeDown');
    expect(kinds).toContain('storeUp');
    read = await metrics.read();
    const down = spans(t.emitted, 'storeDown', 'storeUp', t.clock.now());
    expect(down).toBeGreaterThan(0);
    expect(pointValue(read.get(M.storeUnavailableTime.name), { 'throttler.store.state': 'down' })).toBeCloseTo(
      down / 1000,
    );
    expect(pointValue(read.get(M.storeRoundTrips.name))).toBe(counting.calls());

    // Quarantine: the shared state is lost; no process is granted anything until it ends.
    const keys = await limiterKeysIn(admin, `otel-store-${process.pid}`);
    await admin.del(...keys);
    t.actor.send({ type: 'QUEUE_BATCH', messages: jobs(15, 3) });
    await t.runUntil(18, 15_000);
    await t.quiet();
    const quarantines = t.emitted.filter((event) => event.type === 'storeQuarantined') as Array<
      Extract<ThrottlerEmitted, { type: 'storeQuarantined' }>
    >;
    expect(quarantines).toHaveLength(1);
    const { at, until } = quarantines[0] as { at: number; until: number };
    read = await metrics.read();
    expect(pointValue(read.get(M.storeQuarantines.name))).toBe(1);
    expect(pointValue(read.get(M.storeUnavailableTime.name), { 'throttler.store.state': 'quarantined' })).toBeCloseTo(
      (Math.min(t.clock.now(), until) - at) / 1000,
    );
    expect(pointValue(read.get(M.storeRoundTrips.name))).toBe(counting.calls());
    expect(pointValue(read.get(M.messages.name), { 'throttler.result': 'delivered' })).toBe(18);
    handle.stop();
    t.actor.stop();
    await t.store.close();
    await admin.del(...(await limiterKeysIn(admin, `otel-store-${process.pid}`)));
    await metrics.shutdown();
  }, 60_000);
});
