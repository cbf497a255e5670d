import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overfullWindows } from '../support/oracle.js';
import { startThrowawayRedis, type ThrowawayRedis } from '../support/redis-server.js';
import { storeThrottler } from '../support/store-throttler.js';

/**
 * A throttler whose store stops answering (CLIENT PAUSE on a throwaway Redis) in the middle of a
 * run, and whose state is flushed: it says so (storeDown / storeUp), keeps its queue, recovers by
 * itself, loses and duplicates nothing, and stays within the limit across the gap. The machine
 * runs in virtual time; the outage is real (the store's command timeout runs on real timers).
 */
const TIMEOUT = 150;
let counter = 0;
let own: ThrowawayRedis;
let redis: Redis;
let admin: Redis;

beforeAll(async () => {
  own = await startThrowawayRedis('throttler-outage');
  ({ redis, admin } = own);
});

afterAll(() => own?.close());

const jobs = (n: number) => Array.from({ length: n }, (_, i) => ({ message: { type: 'job', n: i } }));
const RATE = { overall: [{ limit: 5, interval: 1000 }], channels: {} };

describe('a throttler whose store goes down', () => {
  it("with onStoreDown 'pause': grants nothing new while down, says so, and resumes by itself", async () => {
    counter += 1;
    const t = storeThrottler(
      redis,
      `outage-pause-${counter}`,
      { rate: '5/1s', strategy: 'sliding-window' },
      {
        commandTimeout: TIMEOUT,
        maxReserveAheadMs: 0,
      },
    );
    t.actor.send({ type: 'QUEUE_BATCH', messages: jobs(15) });
    await t.runUntil(5);
    await admin.client('PAUSE', 1200, 'ALL');
    await t.runUntil(15, 15_000);
    const kinds = t.emitted.map((event) => event.type);
    const down = kinds.indexOf('storeDown');
    const up = kinds.indexOf('storeUp');
    expect(down).toBeGreaterThan(0);
    expect(up).toBeGreaterThan(down);
    // Nothing delivered between storeDown and storeUp (no grant was held: maxReserveAheadMs 0).
    expect(kinds.slice(down, up)).not.toContain('delivered');
    expect(t.deliveries.map((d) => d.n)).toEqual([...Array(15).keys()]);
    expect(overfullWindows(RATE, t.deliveries)).toEqual([]);
    t.actor.stop();
    await t.store.close();
  });

  it("with onStoreDown 'local': goes on with its share of the limit while down", async () => {
    counter += 1;
    const t = storeThrottler(
      redis,
      `outage-local-${counter}`,
      { rate: '10/1s', strategy: 'sliding-window' },
      {
        commandTimeout: TIMEOUT,
        maxReserveAheadMs: 0,
        onStoreDown: 'local',
        localShare: 0.5,
      },
    );
    t.actor.send({ type: 'QUEUE_BATCH', messages: jobs(10) });
    await t.runUntil(10);
    await admin.client('PAUSE', 1500, 'ALL');
    t.actor.send({
      type: 'QUEUE_BATCH',
      messages: jobs(10).map(({ message }) => ({ message: { ...message, n: message.n + 10 } })),
    });
    await t.runUntil(20, 15_000);
    const kinds = t.emitted.map((event) => event.type);
    const down = kinds.indexOf('storeDown');
    const up = kinds.indexOf('storeUp');
    expect(down).toBeGreaterThan(0);
    const whileDown = t.emitted.slice(down, up === -1 ? undefined : up).filter((e) => e.type === 'delivered');
    // The local window (5/1s, half of 10/1s) kept delivering, never over its share.
    expect(whileDown.length).toBeGreaterThan(0);
    const local = whileDown.map((e) => ({ at: (e as { at: number }).at, cost: 1, channel: undefined }));
    expect(overfullWindows({ overall: [{ limit: 5, interval: 1000 }], channels: {} }, local)).toEqual([]);
    expect(t.deliveries.map((d) => d.n)).toEqual([...Array(20).keys()]);
    t.actor.stop();
    await t.store.close();
  });

  it('while it lives on grants it holds (nothing else asks Redis): checks the store and reports the outage', async () => {
    // The server answers again (an earlier test's pause may still hold): a PING waits for it.
    await admin.ping();
    counter += 1;
    const t = storeThrottler(
      redis,
      `outage-held-${counter}`,
      { rate: '10/1s', strategy: 'sliding-window' },
      { commandTimeout: TIMEOUT, maxReserveAheadMs: 5000 },
    );
    const down = new Promise<{ at: number }>((resolve) => t.actor.on('storeDown', resolve));
    // 40 messages, all granted by the first call (4 s of the limit): then no reserve call is needed.
    t.actor.send({ type: 'QUEUE_BATCH', messages: jobs(40) });
    await t.runUntil(1);
    expect(t.emitted.map((event) => event.type)).not.toContain('storeDown');
    await admin.client('PAUSE', 3000, 'ALL');
    await t.runUntil(40, 15_000);
    // Reported, though the throttler never had to ask for a grant while Redis was paused.
    const reported = await Promise.race([down, new Promise<undefined>((resolve) => setTimeout(resolve, 5000))]);
    expect(reported).toBeDefined();
    expect(t.deliveries.map((d) => d.n)).toEqual([...Array(40).keys()]);
    expect(overfullWindows({ overall: [{ limit: 10, interval: 1000 }], channels: {} }, t.deliveries)).toEqual([]);
    // Idle means idle: nothing checks the store once nothing waits.
    expect(t.actor.getSnapshot().value).toBe('idle');
    expect(t.actor.getSnapshot().context.wakeAt).toBe(Number.POSITIVE_INFINITY);
    t.actor.stop();
    await t.store.close();
    // Later tests need the server answering again.
    await admin.client('UNPAUSE');
    await admin.ping();
  });

  it('after FLUSHALL mid-run: quarantine, then still within the limit across the gap', async () => {
    counter += 1;
    const t = storeThrottler(
      redis,
      `outage-flush-${counter}`,
      { rate: '5/1s', strategy: 'sliding-window' },
      {
        commandTimeout: 1000,
        maxReserveAheadMs: 0,
      },
    );
    t.actor.send({ type: 'QUEUE_BATCH', messages: jobs(15) });
    await t.runUntil(5);
    const flushedAt = t.clock.now();
    await admin.flushall();
    await t.runUntil(15, 15_000);
    // Nothing the flush made Redis forget can add up: no grant for a longest interval after it.
    const afterFlush = t.deliveries.filter((d) => d.at > flushedAt);
    expect(afterFlush.length).toBeGreaterThan(0);
    for (const delivery of afterFlush) expect(delivery.at).toBeGreaterThanOrEqual(flushedAt + 1000);
    // The quarantine is told, with its end on the throttler's clock, and nothing went before it.
    const quarantines = t.emitted.filter((event) => event.type === 'storeQuarantined');
    expect(quarantines).toHaveLength(1);
    const { until, at } = quarantines[0] as { until: number; at: number };
    expect(at).toBeGreaterThanOrEqual(flushedAt);
    expect(until).toBeGreaterThanOrEqual(flushedAt + 1000);
    for (const delivery of afterFlush) expect(delivery.at).toBeGreaterThanOrEqual(until);
    expect(t.deliveries.map((d) => d.n)).toEqual([...Array(15).keys()]);
    expect(overfullWindows(RATE, t.deliveries)).toEqual([]);
    t.actor.stop();
    await t.store.close();
  });
});
