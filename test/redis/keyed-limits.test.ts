import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/redis/index.js';
import { StoreConflictError } from '../../src/store/index.js';
import { type Arrival, expectedSchedule, overfullWindows, type RateConfig } from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import { connectRedis, deleteLimiters, limiterKeysIn, uniqueName } from '../support/redis.js';
import { driveArrivals, virtualLimiter } from '../support/redis-driver.js';
import { arrivalsArbitrary, rateConfigArbitrary, sendAsArbitrary } from '../support/scenarios.js';
import { type StoreThrottler, storeThrottler } from '../support/store-throttler.js';

/**
 * Keyed limits with the Redis store: one key space per key under the limiter's name (its log and its
 * state hash, both under the limiter's hash tag), created by the key's first grant and expiring like
 * the rest; the keys' template is part of the configuration every process must share.
 */
let redis: Redis;
const names: string[] = [];
const running: StoreThrottler[] = [];

beforeAll(async () => {
  redis = await connectRedis();
});
afterEach(async () => {
  for (const throttler of running.splice(0)) {
    throttler.actor.stop();
    await throttler.store.close();
  }
});
afterAll(async () => {
  if (!redis) return;
  await deleteLimiters(redis, names);
  redis.disconnect();
});

function fresh(label: string): string {
  const name = uniqueName(label);
  names.push(name);
  return name;
}

function keyed(input: Parameters<typeof storeThrottler>[2], name = fresh('keyed'), clock?: StoreThrottler['clock']) {
  const created = storeThrottler(redis, name, input, { grantGraceMs: 0 }, clock);
  running.push(created);
  return created;
}

const job = (n: number, channel?: string) => ({ message: { type: 'job', n }, channel });

describe('the shared limiter with keys', () => {
  it('gives every key a window of its own, under the overall rate, each in keys of its own under the hash tag', async () => {
    const name = fresh('raw');
    // Reserving a whole window ahead (the default is 3/4 of the shortest interval).
    const { limiter, store, setTime } = virtualLimiter(redis, name, {
      strategy: 'sliding-window',
      rates: '3/1s',
      keys: '2/1s',
      maxReserveAheadMs: 1000,
    });
    const outcomes = await limiter.reserve(['a', 'a', 'a', '__proto__'].map((channel) => ({ cost: 1, channel })));
    expect(outcomes.map((outcome) => outcome.kind === 'granted' && outcome.waitMs)).toEqual([0, 0, 1000, 1000]);
    expect((await limiterKeysIn(redis, name)).sort()).toEqual(
      [
        `xt:{${name}}:all`,
        `xt:{${name}}:cfg`,
        `xt:{${name}}:k:__proto__`,
        `xt:{${name}}:k:a`,
        `xt:{${name}}:ks:__proto__`,
        `xt:{${name}}:ks:a`,
        // The keys with grants, for the fleet audit (lua/audit-trail.ts): one sorted set, trimmed and expiring.
        `xt:{${name}}:ki`,
      ].sort(),
    );
    // The configuration hash does not grow with keys: a key's state is in its own hash.
    const fields = (await redis.hkeys(`xt:{${name}}:cfg`)).sort();
    for (let n = 0; n < 50; n++) {
      setTime(1_000 * (n + 2));
      await limiter.reserve([{ cost: 1, channel: `customer-${n}` }]);
    }
    expect((await redis.hkeys(`xt:{${name}}:cfg`)).sort()).toEqual(fields);
    expect(await redis.hkeys(`xt:{${name}}:ks:customer-7`)).toEqual(['t']);
    expect(await redis.zcard(`xt:{${name}}:k:customer-7`)).toBe(1);
    await store.close();
  });

  it('lets each key expire in Redis: its log and state carry the limiter horizon plus the margin, like the rest', async () => {
    const name = fresh('expiry');
    // Real Redis TIME: the test clock keeps every key for 10 minutes.
    const store = createRedisStore({ redis, name });
    const limiter = store.open({ strategy: 'sliding-window', rates: '100/1s', keys: '1/500ms', grantGraceMs: 0 });
    await limiter.reserve([{ cost: 1, channel: 'customer-1' }]);
    for (const key of [`xt:{${name}}:k:customer-1`, `xt:{${name}}:ks:customer-1`]) {
      const ttl = await redis.pttl(key);
      // The horizon (1 s, the longest interval) plus 10 s, plus 1%: expired within about 11 s of its last grant.
      expect(ttl, key).toBeGreaterThan(10_000);
      expect(ttl, key).toBeLessThanOrEqual(11_020);
    }
    await store.close();
  });

  it('grants as the brute-force oracle does, every key a channel with the template rates (virtual time)', async () => {
    const scenario = fc.tuple(rateConfigArbitrary, sendAsArbitrary).chain(([config, sendAs]) => {
      // The generated channels' first rates become the template; the oracle sees each key as a channel.
      const template = Object.values(config.channels)[0] ?? [{ limit: 2, interval: 500 }];
      const oracle: RateConfig = {
        overall: config.overall,
        channels: Object.fromEntries(['k1', '__proto__', 'constructor'].map((key) => [key, template])),
      };
      return arrivalsArbitrary(oracle).map((arrivals) => ({ oracle, template, sendAs, arrivals }));
    });
    await fc.assert(
      fc.asyncProperty(scenario, async ({ oracle, template, sendAs, arrivals }) => {
        const name = fresh('prop');
        const virtual = virtualLimiter(redis, name, {
          strategy: 'sliding-window',
          rates: oracle.overall.map((rate) => ({ ...rate })),
          keys: template.map((rate) => ({ ...rate })),
          maxReserveAheadMs: 1e9,
        });
        const grants = await driveArrivals(virtual, arrivals as Arrival[], sendAs);
        await virtual.store.close();
        await deleteLimiters(redis, [name]);
        expect(overfullWindows(oracle, grants)).toEqual([]);
        const expected = expectedSchedule(oracle, arrivals, 'fifo');
        expect(grants.map(({ id, at }) => [id, at])).toEqual(expected.map(({ id, at }) => [id, at]));
      }),
      { numRuns: runs(40) },
    );
  });

  it("gives a key's unused grant back (a cancelled message): it leaves the key's log", async () => {
    const name = fresh('release');
    const { limiter, store } = virtualLimiter(redis, name, {
      strategy: 'sliding-window',
      rates: '10/1s',
      keys: '2/1s',
      maxReserveAheadMs: 5_000,
    });
    const [, , third] = await limiter.reserve([1, 2, 3].map(() => ({ cost: 1, channel: 'a' })));
    expect(third).toMatchObject({ kind: 'granted', waitMs: 1_000 });
    expect(third?.kind === 'granted' && third.reservation.endsWith(' *a')).toBe(true);
    if (third?.kind === 'granted') await limiter.release([third.reservation]);
    expect(await redis.zcard(`xt:{${name}}:k:a`)).toBe(2);
    expect(await limiter.reserve([{ cost: 1, channel: 'a' }])).toMatchObject([{ kind: 'granted', waitMs: 1_000 }]);
    expect(await redis.zcard(`xt:{${name}}:k:a`)).toBe(3);
    await store.close();
  });

  it("detects a key's log evicted while its state says it held a grant inside its windows", async () => {
    const name = fresh('evicted');
    const { limiter, setTime, store } = virtualLimiter(redis, name, {
      strategy: 'sliding-window',
      rates: '10/1s',
      keys: '2/1s',
    });
    await limiter.reserve([{ cost: 1, channel: 'a' }]);
    setTime(10);
    await redis.del(`xt:{${name}}:k:a`);
    expect(await limiter.reserve([{ cost: 1, channel: 'a' }])).toMatchObject([{ kind: 'later', reason: 'quarantine' }]);
    await store.close();
  });

  it('token bucket: a key starts with an empty bucket at its first grant, as a local key does', async () => {
    const name = fresh('bucket');
    const { limiter, setTime, store } = virtualLimiter(redis, name, {
      strategy: 'token-bucket',
      rates: '100/1s',
      keys: '2/1s',
      maxReserveAheadMs: 1000,
    });
    await limiter.reserve([{ cost: 1 }]);
    // Long after the limiter began: a channel's bucket would be full by now, a new key's is empty.
    setTime(60_000);
    const outcomes = await limiter.reserve([1, 2, 3].map(() => ({ cost: 1, channel: 'late' })));
    expect(outcomes.map((outcome) => outcome.kind === 'granted' && outcome.waitMs)).toEqual([0, 500, 1000]);
    await store.close();
  });
});

describe('a throttler with a Redis store and keys', () => {
  it('shares each key, a key of its own rates and the template with every process of the fleet', async () => {
    const name = fresh('fleet');
    const input = { rate: '100/1s', strategy: 'sliding-window', keys: { rate: '3/1s' } } as const;
    const a = keyed(input, name);
    const b = keyed(input, name, a.clock);
    a.actor.send({ type: 'SET_RATE', rate: '1/1s', channel: 'slow' });
    await a.quiet();
    a.actor.send({ type: 'QUEUE_BATCH', messages: [job(0, 'slow'), job(1, 'x'), job(2, 'x')] });
    await a.runUntil(2);
    b.actor.send({ type: 'QUEUE_BATCH', messages: [job(3, 'slow'), job(4, 'x'), job(5, 'x')] });
    await b.runUntil(3);
    expect(a.deliveries.map(({ n, at }) => [n, at])).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
    ]);
    // b's 'slow' waits for a's grant (1/1s, set by a); x has used 2 of 3: one now, one after a second.
    expect(b.deliveries.map(({ n, at }) => [n, at])).toEqual([
      [3, 1_000],
      [4, 1_000],
      [5, 1_000],
    ]);
    a.actor.send({ type: 'SET_RATE', rate: '1/1s', keyTemplate: true });
    await a.quiet();
    b.actor.send({ type: 'QUEUE_BATCH', messages: [job(6, 'y'), job(7, 'y')] });
    await b.runUntil(5);
    expect(b.deliveries.slice(3).map(({ n, at }) => [n, at])).toEqual([
      [6, 1_000],
      [7, 2_000],
    ]);
  });

  it('rejects a hostile key before asking Redis, and runs on', async () => {
    const t = keyed({ rate: '10/1s', strategy: 'sliding-window', keys: { rate: '3/1s' } });
    t.actor.send({ type: 'QUEUE_BATCH', messages: [job(0, ''), job(1, 'k'.repeat(5_000)), job(2, 'fine')] });
    await t.runUntil(1);
    expect(t.deliveries.map(({ n }) => n)).toEqual([2]);
    const rejected = t.emitted.filter((event) => event.type === 'rejected');
    expect(rejected.map((event) => (event as unknown as { error: { option: string } }).error.option)).toEqual([
      'channel',
      'channel',
    ]);
  });

  it('refuses, by name, a process whose keys differ from the fleet', async () => {
    const name = fresh('conflict');
    const first = keyed({ rate: '4/1s', strategy: 'sliding-window', keys: { rate: '2/1s' } }, name);
    const second = keyed({ rate: '4/1s', strategy: 'sliding-window' }, name, first.clock);
    first.actor.send({ type: 'QUEUE', ...job(0, 'a') });
    await first.runUntil(1);
    second.actor.send({ type: 'QUEUE', ...job(1) });
    await second.quiet();
    const conflict = second.emitted.find((event) => event.type === 'storeConflict') as
      | { error: Error; option: string }
      | undefined;
    expect(conflict?.error).toBeInstanceOf(StoreConflictError);
    expect(conflict?.option).toBe('keys');
    expect(conflict?.error.message).toMatch(/^keys must be the same in every process sharing the Redis store/);
  });
});
