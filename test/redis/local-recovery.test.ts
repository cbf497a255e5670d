import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { overfullWindows } from '../support/oracle.js';
import { freePort, type RedisServer, serverDir, startRedisServer } from '../support/redis-server.js';
import { type StoreThrottler, settle, storeThrottler } from '../support/store-throttler.js';

/**
 * Issue 22, item 4: four processes at a quarter share each with onStoreDown 'local' (four
 * throttlers on one virtual clock, each with its own client), a throwaway Redis killed in the
 * middle of the run and started again empty. What went on the local windows during the outage
 * must count after it: the merged window never holds more than the limit (before, 35-40 of 20).
 * The machines run in virtual time; the outage is real (a killed server, real reconnects).
 */
let dir: ReturnType<typeof serverDir>;
let port: number;
let server: RedisServer;
const clients: Redis[] = [];

beforeAll(async () => {
  dir = serverDir('local-recovery');
  port = await freePort();
  server = await startRedisServer(port, dir.dir);
});

afterAll(async () => {
  for (const client of clients) client.disconnect();
  await server?.stop();
  dir?.remove();
});

const LIMIT = 20;
const jobs = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ message: { type: 'job', n: from + i } }));

/** Every throttler's next wake-up, once the replies out are back; moves the shared clock there (at most `maxStepMs`). */
async function stepAll(clock: SimulatedClock, fleet: StoreThrottler[], maxStepMs: number): Promise<void> {
  await settle(20);
  const next = Math.min(...fleet.map((t) => t.actor.getSnapshot().context.wakeAt));
  clock.increment(
    Math.min(maxStepMs, Math.max(0, (Number.isFinite(next) ? next : clock.now() + maxStepMs) - clock.now())),
  );
}

describe("onStoreDown 'local' across an outage", () => {
  it('counts what went locally during the outage after Redis is back empty: the merged window never holds more than the limit', async () => {
    const clock = new SimulatedClock();
    const fleet = Array.from({ length: 4 }, () => {
      const redis = new Redis({ port, host: '127.0.0.1', retryStrategy: () => 20, maxRetriesPerRequest: 1 });
      redis.on('error', () => {});
      clients.push(redis);
      return storeThrottler(
        redis,
        'local-recovery',
        { rate: `${LIMIT}/1s`, strategy: 'sliding-window' },
        { commandTimeout: 1000, onStoreDown: 'local', localShare: 0.25 },
        clock,
      );
    });
    let queued = 0;
    const feed = () => {
      for (const t of fleet) {
        if (t.actor.getSnapshot().context.counts.queued < 20) {
          t.actor.send({ type: 'QUEUE_BATCH', messages: jobs(queued, 20) });
          queued += 20;
        }
      }
    };
    // Up: the fleet shares 20 a second through Redis.
    while (clock.now() < 2500) {
      feed();
      await stepAll(clock, fleet, 100);
    }
    // Down: each goes on its local quarter.
    await server.stop();
    const downAt = clock.now();
    const wentDown = (t: StoreThrottler) => t.emitted.some((e) => e.type === 'storeDown' && e.at >= downAt);
    while (clock.now() < downAt + 2000 || !fleet.every(wentDown)) {
      feed();
      await stepAll(clock, fleet, 50);
    }
    // Back, empty: a new server on the same port.
    server = await startRedisServer(port, dir.dir);
    // Every client reconnected before virtual time goes on: each throttler hears of it at its next retry.
    for (let waited = 0; !clients.every((client) => client.status === 'ready') && waited < 500; waited++)
      await settle(10);
    const backAt = clock.now();
    while (clock.now() < backAt + 3000) {
      feed();
      await stepAll(clock, fleet, 50);
    }
    for (const t of fleet) {
      t.actor.stop();
      await t.store.close();
    }
    const all = fleet.flatMap((t) => t.deliveries);
    // Each went down and came back, and sent on its local window meanwhile.
    expect(fleet.every(wentDown)).toBe(true);
    expect(fleet.every((t) => t.emitted.some((e) => e.type === 'storeUp' && e.at >= backAt - 1000))).toBe(true);
    expect(all.filter((d) => d.at > downAt && d.at < backAt).length).toBeGreaterThan(0);
    expect(all.filter((d) => d.at > backAt + 1500).length).toBeGreaterThan(0);
    // From each throttler's own storeDown on, and from the fleet's last send on grants held from before the
    // outage (documented: those and the local shares may add up at the outage's start, since no process can
    // know of the others' then; on a busy machine a throttler may hear of the outage later than another, its
    // real 1 s command timeout being many steps of the shared clock, and send its held grants meanwhile):
    // across the outage and the recovery, never over the limit.
    const ownDown = (t: StoreThrottler) =>
      (t.emitted.find((e) => e.type === 'storeDown' && e.at >= downAt) as { at: number }).at;
    const firstDown = Math.min(...fleet.map(ownDown));
    const lastHeld = Math.max(...all.filter((d) => d.at < firstDown).map((d) => d.at));
    expect(lastHeld).toBeGreaterThanOrEqual(downAt - 1020);
    const fromOutage = fleet.flatMap((t) => t.deliveries.filter((d) => d.at > Math.max(lastHeld, ownDown(t) - 1)));
    expect(overfullWindows({ overall: [{ limit: LIMIT, interval: 1000 }], channels: {} }, fromOutage)).toEqual([]);
  }, 60_000);
});
