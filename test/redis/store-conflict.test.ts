import type { Redis } from 'ioredis';
import { from, lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThrottler } from '../../src/adapters/create-throttler.js';
import { createRedisStore } from '../../src/redis/index.js';
import { throttleQueue } from '../../src/rxjs/index.js';
import { StoreConflictError } from '../../src/store/index.js';
import { connectRedis, deleteLimiters, uniqueName } from '../support/redis.js';
import { type StoreThrottler, settle, storeThrottler } from '../support/store-throttler.js';

/**
 * A process started with another configuration under a name the fleet uses (a rolling deploy with a
 * new rate) is told so: `storeConflict` with the option, its value and the stored one, for every call
 * refused; never a `storeDown`. The machine keeps its queue; the promise API rejects its waiting tasks
 * with the StoreConflictError; the RxJS operator errors its stream.
 */
let redis: Redis;
const names: string[] = [];
const running: StoreThrottler[] = [];

beforeAll(async () => {
  redis = await connectRedis();
});
afterAll(async () => {
  for (const t of running) {
    t.actor.stop();
    await t.store.close();
  }
  if (!redis) return;
  await deleteLimiters(redis, names);
  redis.disconnect();
});

const fresh = () => {
  const name = uniqueName('conflict');
  names.push(name);
  return name;
};
const jobs = (n: number) => Array.from({ length: n }, (_, i) => ({ message: { type: 'job', n: i } }));

/** The fleet's limiter, created with 5/1s by a throttler that has sent one message. */
async function fleetAt5PerSecond(name: string): Promise<StoreThrottler> {
  const fleet = storeThrottler(redis, name, { rate: '5/1s', strategy: 'sliding-window' });
  running.push(fleet);
  fleet.actor.send({ type: 'QUEUE', message: { type: 'job', n: 0 } });
  await fleet.runUntil(1);
  return fleet;
}

describe('a configuration that differs from the one stored', () => {
  it('the machine emits storeConflict with both values for each call refused, never storeDown, and keeps its queue', async () => {
    const name = fresh();
    const fleet = await fleetAt5PerSecond(name);
    const newcomer = storeThrottler(redis, name, { rate: '10/1s', strategy: 'sliding-window' }, {}, fleet.clock);
    running.push(newcomer);
    const conflicts: unknown[] = [];
    newcomer.actor.on('storeConflict', (event) => conflicts.push(event));
    newcomer.actor.send({ type: 'QUEUE_BATCH', messages: jobs(3) });
    for (let steps = 0; conflicts.length < 3 && steps < 50; steps++) await newcomer.step();
    expect(conflicts.length).toBeGreaterThanOrEqual(3);
    const [first] = conflicts as Array<{ error: Error; option: string; ours: unknown; stored: unknown }>;
    expect(first).toMatchObject({ option: 'rate', ours: '10/1s', stored: '5/1s' });
    expect(first?.error).toBeInstanceOf(StoreConflictError);
    expect(newcomer.emitted.map((event) => event.type)).not.toContain('storeDown');
    expect(newcomer.deliveries).toEqual([]);
    expect(newcomer.actor.getSnapshot().context.counts.queued).toBe(3);
  });

  it('the promise API rejects its waiting tasks with the StoreConflictError, at once', async () => {
    const name = fresh();
    await fleetAt5PerSecond(name);
    // Another process: its own store and real time.
    const store = createRedisStore({ redis, name, testClock: () => 0 });
    const throttler = createThrottler({ rate: '10/1s', store });
    const ran: number[] = [];
    const tasks = [1, 2, 3].map((n) => throttler.schedule(() => ran.push(n)));
    const outcomes = await Promise.allSettled(tasks);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    const error = (outcomes[0] as PromiseRejectedResult).reason as StoreConflictError;
    expect(error).toBeInstanceOf(StoreConflictError);
    expect(error.message).toMatch(/^rate must be the same in every process sharing the Redis store/);
    expect(ran).toEqual([]);
    // Taken out of the machine's queue, not left to wait there.
    await settle();
    expect(throttler.counts).toMatchObject({ queued: 0, delivered: 0 });
    // A later task is told too.
    await expect(throttler.schedule(() => ran.push(4))).rejects.toBeInstanceOf(StoreConflictError);
    throttler.stop();
    await store.close();
  });

  it('the RxJS operator errors its stream with the StoreConflictError', async () => {
    const name = fresh();
    await fleetAt5PerSecond(name);
    const store = createRedisStore({ redis, name, testClock: () => 0 });
    await expect(lastValueFrom(from([1, 2, 3]).pipe(throttleQueue({ rate: '10/1s', store })))).rejects.toBeInstanceOf(
      StoreConflictError,
    );
    await store.close();
  });
});
