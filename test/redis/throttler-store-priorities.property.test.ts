import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineContext } from '../support/machine-context.js';
import { type Arrival, deadlineOf, overfullWindows, type RateConfig } from '../support/oracle.js';
import { connectRedis, deleteLimiters, uniqueName } from '../support/redis.js';
import { machineRates, overtakings } from '../support/scenarios.js';
import { settle, storeThrottler } from '../support/store-throttler.js';

/**
 * A throttler with a Redis store, random priorities and deadlines, in virtual time against the
 * real Redis: the store reserves in arrival order and the clearance lets the head take grants
 * (grant-book.ts, store-clearance.ts). Whatever the mix, every window holds its limit, the order
 * is by rank, no message goes after its deadline, and every message is delivered or expired once:
 * nothing waits for ever behind a grant nobody can use.
 */
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

const rateArbitrary = fc.record({
  limit: fc.integer({ min: 1, max: 4 }),
  interval: fc.integer({ min: 50, max: 1000 }),
});

/**
 * A backlog (a burst at 0 the store grants ahead, as far as it grants), then later messages, some
 * of higher priority or another cost than what holds the grants, some with deadlines.
 */
const scenario = rateArbitrary.chain((rate) => {
  const config: RateConfig = { overall: [rate], channels: {} };
  const message = fc.record({
    cost: fc.integer({ min: 1, max: rate.limit }),
    priority: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
    maxWait: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: undefined, freq: 3 }),
  });
  const burst = fc.array(message, { minLength: 2 * rate.limit, maxLength: 4 * rate.limit + 2 });
  const later = fc.array(fc.tuple(fc.integer({ min: 0, max: 2 * rate.interval }), message), { maxLength: 5 });
  return fc.tuple(burst, later, fc.constantFrom(0, 1000, 1_000_000)).map(([first, then, ahead]) => {
    const arrivals: Arrival[] = first.map((m, id) => ({ id, at: 0, channel: undefined, ...m }));
    let at = 0;
    for (const [gap, m] of then) {
      at += gap;
      arrivals.push({ id: arrivals.length, at, channel: undefined, ...m });
    }
    return { config, ahead, arrivals };
  });
});

async function run(config: RateConfig, ahead: number, arrivals: readonly Arrival[]) {
  const name = uniqueName('prio-prop');
  names.push(name);
  const t = storeThrottler(
    redis,
    name,
    { strategy: 'sliding-window', maxPriorityWait: 900, ...machineRates(config) },
    { grantGraceMs: 0, ...(ahead === 1_000_000 ? {} : { maxReserveAheadMs: ahead }) },
  );
  const expired: Array<{ id: number; at: number }> = [];
  t.actor.on('dropped', (event) => expired.push({ id: event.message.n as number, at: t.clock.now() }));
  // Virtual time must stand still while a reserve call is out, as Redis TIME does not move during one
  // round trip: a grant is a wait from the moment Redis answered (read here, private, for the test only).
  const clearance = machineContext(t.actor).dispatcher.clearance as unknown as { asking: boolean };
  const quiet = async () => {
    const giveUpAt = performance.now() + 5_000;
    do await settle(5);
    while (clearance.asking && performance.now() < giveUpAt);
  };
  // Moves virtual time to `at`, stopping at every wake-up on the way, Redis answering in between.
  const advanceTo = async (at: number) => {
    for (;;) {
      await quiet();
      const { wakeAt } = t.actor.getSnapshot().context;
      const next = Math.min(wakeAt, at);
      if (next > t.clock.now()) t.clock.increment(next - t.clock.now());
      if (next >= at) return;
    }
  };
  for (const arrival of arrivals) {
    await advanceTo(arrival.at);
    const { priority, deadline, maxWait } = arrival;
    t.actor.send({ type: 'QUEUE', message: { type: 'job', n: arrival.id }, priority, deadline, maxWait });
  }
  const giveUpAt = performance.now() + 20_000;
  while (t.deliveries.length + expired.length < arrivals.length && performance.now() < giveUpAt) {
    await advanceTo(t.clock.now());
    await quiet();
    const { wakeAt } = t.actor.getSnapshot().context;
    if (Number.isFinite(wakeAt)) t.clock.increment(Math.max(0, wakeAt - t.clock.now()));
  }
  t.actor.stop();
  await t.store.close();
  return { deliveries: t.deliveries.map((d) => ({ ...d, id: d.n })), expired };
}

describe('a throttler with a Redis store, random priorities and deadlines (virtual time, real Redis)', () => {
  it('keeps every window, orders by rank, keeps every deadline, and delivers or expires every message once', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ config, ahead, arrivals }) => {
        const { deliveries, expired } = await run(config, ahead, arrivals);
        expect(overfullWindows(config, deliveries)).toEqual([]);
        expect(overtakings(deliveries, arrivals, 'fifo', 900)).toEqual([]);
        for (const { id, at } of deliveries) expect(at).toBeLessThanOrEqual(deadlineOf(arrivals[id] as Arrival));
        const ids = [...deliveries, ...expired].map(({ id }) => id).sort((a, b) => a - b);
        expect(ids).toEqual(arrivals.map((arrival) => arrival.id));
      }),
      { numRuns: 25 },
    );
  }, 300_000);
});
