import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StoreConflictError } from '../../src/store/index.js';
import type { ReserveOutcome, SharedLimiterConfig, StoreNotice } from '../../src/store/protocol.js';
import { connectRedis, deleteLimiters, grantTimeOf, uniqueName } from '../support/redis.js';
import { type VirtualLimiter, virtualLimiter } from '../support/redis-driver.js';

/** The script's decisions, one by one, in virtual time against the real Redis. */
let redis: Redis;
const names: string[] = [];
const opened: VirtualLimiter[] = [];

beforeAll(async () => {
  redis = await connectRedis();
});
afterEach(async () => {
  for (const virtual of opened.splice(0)) await virtual.store.close();
});
afterAll(async () => {
  if (!redis) return;
  await deleteLimiters(redis, names);
  redis.disconnect();
});

function limiter(config: Partial<SharedLimiterConfig>, name = uniqueName('decide')): VirtualLimiter {
  names.push(name);
  const virtual = virtualLimiter(redis, name, {
    strategy: 'sliding-window',
    rates: '3/1s',
    maxReserveAheadMs: 1e9,
    ...config,
  });
  opened.push(virtual);
  return virtual;
}

/** Each outcome in short: the grant's wait in ms, `later <ms> <reason>`, or `refused <option>`. */
function summary(outcomes: ReserveOutcome[]): Array<number | string> {
  return outcomes.map((outcome) => {
    if (outcome.kind === 'granted') return outcome.waitMs;
    if (outcome.kind === 'later') return `later ${outcome.retryAfterMs} ${outcome.reason}`;
    return `refused ${outcome.error.option}`;
  });
}

const units = (n: number, channel?: string) => Array.from({ length: n }, () => ({ cost: 1, channel }));

describe('sliding window', () => {
  it('grants the earliest time at which each request fits every rate, in one call for the batch', async () => {
    const { limiter: shared } = limiter({ rates: ['3/1s', '4/10s'] });
    expect(summary(await shared.reserve(units(5)))).toEqual([0, 0, 0, 1000, 10000]);
  });

  it('counts cost, and a channel message against both its channel and the overall rates', async () => {
    const { limiter: shared, setTime } = limiter({ rates: '5/1s', channels: { search: '2/100ms' } });
    expect(
      summary(
        await shared.reserve([
          { cost: 2, channel: 'search' },
          { cost: 1, channel: 'search' },
          { cost: 2 },
          { cost: 1 },
        ]),
      ),
    ).toEqual([0, 100, 100, 1000]);
    setTime(150);
    // FIFO: not before the last grant (1000), where the overall window has room again.
    expect(summary(await shared.reserve([{ cost: 1, channel: 'search' }]))).toEqual([850]);
  });

  it('is FIFO by arrival across calls: a small request never overtakes a blocked earlier one', async () => {
    const { limiter: shared, setTime } = limiter({ rates: '3/1s' });
    expect(summary(await shared.reserve([{ cost: 2 }, { cost: 3 }]))).toEqual([0, 1000]);
    setTime(1);
    // Cost 1 would fit at 1 (2 of 3 used), but the cost-3 grant at 1000 came first.
    expect(summary(await shared.reserve([{ cost: 1 }]))).toEqual([1999]);
  });

  it('tells a request beyond the reserve-ahead bound to ask again, and every one behind it in the batch too', async () => {
    const { limiter: shared, setTime } = limiter({ rates: '2/1s', maxReserveAheadMs: 300 });
    const outcomes = await shared.reserve([{ cost: 1 }, { cost: 1 }, { cost: 1 }, { cost: 9 }, { cost: 1 }]);
    expect(summary(outcomes)).toEqual([0, 0, 'later 700 reserve-ahead', 'refused cost', 'later 700 reserve-ahead']);
    setTime(700);
    expect(summary(await shared.reserve(units(1)))).toEqual([300]);
  });

  it('gives released slots back, ignores a second release, and keeps FIFO on the grants left', async () => {
    const { limiter: shared, setTime } = limiter({ rates: '1/1s' });
    const [first, second, third] = (await shared.reserve(units(3))) as Array<ReserveOutcome & { kind: 'granted' }>;
    expect([first, second, third].map((o) => o?.waitMs)).toEqual([0, 1000, 2000]);
    await shared.release([(third as { reservation: string }).reservation]);
    await shared.release([(third as { reservation: string }).reservation]);
    setTime(10);
    expect(summary(await shared.reserve(units(1)))).toEqual([1990]);
    await shared.release([(second as { reservation: string }).reservation]);
    // The slot at 1000 is free again, but the grant at 2000 came earlier: FIFO keeps it first.
    expect(summary(await shared.reserve(units(1)))).toEqual([2990]);
  });

  it('keeps only grants that can still be in a window: memory bounded by the limits, not by traffic', async () => {
    const name = uniqueName('bounded');
    const { limiter: shared, setTime } = limiter(
      { rates: ['4/10ms', '6/100ms'], channels: { a: '3/1ms' }, maxReserveAheadMs: 0 },
      name,
    );
    for (let t = 0; t < 2000; t += 7) {
      setTime(t);
      await shared.reserve([...units(3, 'a'), ...units(2)]);
    }
    const overall = await redis.zcard(`xt:{${name}}:all`);
    const channel = await redis.zcard(`xt:{${name}}:c:a`);
    // At most 6 per 100 ms (the longest overall interval), 3 per 1 ms on the channel.
    expect(overall).toBeLessThanOrEqual(6);
    expect(channel).toBeLessThanOrEqual(3);
  });
});

describe('token bucket', () => {
  it('grants as Guava SmoothBursty: an empty bucket at start, one permit per interval/limit, pre-consumption', async () => {
    const { limiter: shared, setTime } = limiter({ strategy: 'token-bucket', rates: '4/1s', maxBurst: 2 });
    expect(summary(await shared.reserve([{ cost: 3 }, { cost: 1 }]))).toEqual([0, 750]);
    setTime(3000);
    // Idle since 1000: two permits stored (maxBurst), spent at once; the third waits a permit.
    expect(summary(await shared.reserve(units(3)))).toEqual([0, 0, 0]);
    expect(summary(await shared.reserve(units(1)))).toEqual([250]);
  });

  it('gives nothing back on release (a spent permit stays spent)', async () => {
    const { limiter: shared } = limiter({ strategy: 'token-bucket', rates: '1/1s' });
    const [granted] = await shared.reserve(units(1));
    await shared.release([(granted as { reservation: string }).reservation]);
    expect(summary(await shared.reserve(units(1)))).toEqual([1000]);
  });
});

describe('fleet-wide control', () => {
  it('pauses every process: no grant before the pause ends, told as "paused" beyond the bound', async () => {
    const name = uniqueName('pause');
    const a = limiter({ maxReserveAheadMs: 1000 }, name);
    const b = limiter({ maxReserveAheadMs: 1000 }, name);
    await a.limiter.pause(5000);
    await a.limiter.pause(2000);
    expect(summary(await b.limiter.reserve(units(1)))).toEqual(['later 4000 paused']);
    a.setTime(4000);
    b.setTime(4000);
    expect(summary(await b.limiter.reserve(units(1)))).toEqual([1000]);
  });

  it('resumes every process: the next request goes at once', async () => {
    const name = uniqueName('resume');
    const a = limiter({ maxReserveAheadMs: 1000 }, name);
    const b = limiter({ maxReserveAheadMs: 1000 }, name);
    await a.limiter.pause(5000);
    expect(summary(await b.limiter.reserve(units(1)))).toEqual(['later 4000 paused']);
    await a.limiter.resume();
    expect(summary(await b.limiter.reserve(units(1)))).toEqual([0]);
  });

  it('changes the rates of every process; the new limits count the grants already made', async () => {
    const name = uniqueName('rates');
    const a = limiter({ rates: '1/1s', channels: { x: '1/1s' } }, name);
    const b = limiter({ rates: '1/1s', channels: { x: '1/1s' } }, name);
    const heard: StoreNotice[] = [];
    b.limiter.subscribe((notice) => heard.push(notice));
    expect(summary(await b.limiter.reserve(units(1)))).toEqual([0]);
    await a.limiter.setRate('3/1s');
    await a.limiter.setRate(['2/1s'], 'x');
    expect(summary(await b.limiter.reserve([...units(2), { cost: 2, channel: 'x' }, { cost: 4 }]))).toEqual([
      0,
      0,
      1000,
      'refused cost',
    ]);
    expect(b.limiter.rates).toEqual([{ limit: 3, interval: 1000 }]);
    expect(b.limiter.channels.get('x')).toEqual([{ limit: 2, interval: 1000 }]);
    expect(heard.filter((notice) => notice.type === 'rates').length).toBeGreaterThanOrEqual(1);
    await expect(a.limiter.setRate('1/1s', 'nope')).rejects.toThrow('channel must be one of "x", got "nope"');
  });

  it('refuses a process whose configuration differs from the stored one, naming the option', async () => {
    const name = uniqueName('conflict');
    await limiter({ rates: '3/1s', channels: { x: '1/1s' } }, name).limiter.reserve(units(1));
    const cases: Array<[Partial<SharedLimiterConfig>, string, unknown, unknown]> = [
      [{ rates: '4/1s', channels: { x: '1/1s' } }, 'rate', '4/1s', '3/1s'],
      [{ rates: '3/1s', channels: { x: '2/1s' } }, 'channels', { x: '2/1s' }, { x: '1/1s' }],
      [
        { strategy: 'token-bucket', rates: '3/1s', channels: { x: '1/1s' } },
        'strategy',
        'token-bucket',
        'sliding-window',
      ],
    ];
    for (const [config, option, value, stored] of cases) {
      const other = limiter(config, name);
      const error = await other.limiter.reserve(units(1)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreConflictError);
      expect(error).toMatchObject({ option, value, stored });
    }
  });
});

describe('time', () => {
  it('never runs backwards for a limiter: a clock behind the last one seen is clamped', async () => {
    const { limiter: shared, setTime } = limiter({ rates: '1/1s' });
    setTime(5000);
    const [first] = await shared.reserve(units(1));
    setTime(100);
    const [second] = await shared.reserve(units(1));
    expect(grantTimeOf((first as { reservation: string }).reservation)).toBe(5000);
    expect(grantTimeOf((second as { reservation: string }).reservation)).toBe(6000);
    expect(summary([second as ReserveOutcome])).toEqual([1000]);
  });
});
