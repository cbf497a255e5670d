import { describe, expect, it } from 'vitest';
import { createThrottler } from '../../src/adapters/create-throttler.js';
import { auditThrottler, ThrottlerOptionError } from '../../src/index.js';
import { createRedisStore } from '../../src/redis/index.js';
import type { RedisSharedLimiter } from '../../src/redis/shared-limiter.js';
import { StoreConflictError } from '../../src/store/index.js';
import { grantTimeOf, redisForFile } from '../support/redis.js';
import { stoppedAfterEach, storeThrottler } from '../support/store-throttler.js';

/**
 * Rates in dimensions on a shared store (real Redis, virtual time): a throttler's messages go when every
 * rate of every dimension they cost something in allows; a settle changes each dimension's cost; processes
 * with other dimensions conflict rather than mix; what does not fit the store's dimensions is refused at the call.
 */
const file = redisForFile();
const running = stoppedAfterEach();

const RATE = { requests: '3/1s', tokens: '100/1s' };

function limiterAt(name: string, now: { t: number }, rates: unknown = RATE) {
  const store = createRedisStore({ redis: file.redis, name, testClock: () => now.t, commandTimeout: 10_000 });
  const config = { strategy: 'sliding-window' as const, rates: rates as never, grantGraceMs: 0 };
  return { store, limiter: store.open(config) as RedisSharedLimiter };
}

describe('a throttler with rates in dimensions on a store', () => {
  it('sends each message when both dimensions allow, and every audit (its own, the fleet) agrees', async () => {
    const t = storeThrottler(file.redis, file.fresh('dims-throttler'), { rate: RATE, strategy: 'sliding-window' });
    running.push(t);
    const costs: Array<Record<string, number>> = [
      { tokens: 60 },
      { tokens: 30 },
      { requests: 1 },
      { tokens: 50 },
      { requests: 1, tokens: 10 },
    ];
    for (const [n, cost] of costs.entries()) t.actor.send({ type: 'QUEUE', message: { type: 'job', n }, cost });
    await t.runUntil(costs.length);
    const at = t.deliveries.map((delivery) => delivery.at);
    // 60 + 30 tokens, then a request (no tokens) at once; 50 tokens waits for the 60 to leave the window,
    // and the last (a 4th request in the window of 3) for the first request of the window to leave.
    expect(at.slice(0, 3)).toEqual([0, 0, 0]);
    expect(at[3]).toBeGreaterThanOrEqual(1_000);
    expect(at[4]).toBeGreaterThanOrEqual(1_000);
    expect(auditThrottler(t.actor).windowsOver).toBe(0);
    const fleet = await t.store.audit();
    expect(fleet.windowsOver).toBe(0);
    expect(fleet.rates.map((rate) => rate.dimension).sort()).toEqual(['requests', 'tokens']);
  });
});

describe('ACTUAL_COST with a cost map, a throttler on the store', () => {
  it('a saving in tokens is free for the next message once Redis has it; requests keep their estimate', async () => {
    const t = storeThrottler(file.redis, file.fresh('dims-actual'), { rate: RATE, strategy: 'sliding-window' });
    running.push(t);
    t.actor.send({ type: 'QUEUE', message: { type: 'job', n: 0 }, id: 'a', cost: { requests: 1, tokens: 90 } });
    await t.runUntil(1);
    t.actor.send({ type: 'QUEUE', message: { type: 'job', n: 1 }, id: 'b', cost: { requests: 1, tokens: 80 } });
    await t.quiet();
    t.actor.send({ type: 'ACTUAL_COST', id: 'a', cost: { tokens: 20 } as never }); // the event's type says number
    await t.quiet();
    const at = await t.runUntil(2);
    expect(at).toBeLessThan(1_000);
    expect(t.emitted.filter((event) => event.type === 'invalidEvent')).toHaveLength(0);
    expect(auditThrottler(t.actor).windowsOver).toBe(0);
    const fleet = await t.store.audit();
    expect(fleet.windowsOver).toBe(0);
  });
});

describe('settle with a cost per dimension on the store', () => {
  it('a saving in one dimension is free at once; a dimension the estimate did not cost is charged at the grant', async () => {
    const now = { t: 1_000 };
    const { store, limiter } = limiterAt(file.fresh('dims-settle'), now);
    const [first] = await limiter.reserve([{ cost: { requests: 1, tokens: 90 } }]);
    expect(first?.kind).toBe('granted');
    const [held] = await limiter.reserve([{ cost: { tokens: 50 } }]);
    expect(held?.kind).toBe('later');
    // Settled at 10 tokens (requests keep their estimate): 50 more fit at once.
    await limiter.settle((first as { reservation: string }).reservation, { requests: 1, tokens: 10 } as never);
    const [fits] = await limiter.reserve([{ cost: { tokens: 50 } }]);
    expect(fits?.kind).toBe('granted');
    // A request that cost no tokens, settled at 40: the window of its time is full (10 + 50 + 40).
    now.t += 10;
    const [plain] = await limiter.reserve([{ cost: { requests: 1 } }]);
    expect(plain?.kind).toBe('granted');
    await limiter.settle((plain as { reservation: string }).reservation, [1, 40] as never);
    const [full] = await limiter.reserve([{ cost: { tokens: 1 } }]);
    expect(full?.kind).toBe('later');
    now.t += 1_000;
    const [after] = await limiter.reserve([{ cost: { tokens: 1 } }]);
    expect(after?.kind).toBe('granted');
    expect(grantTimeOf((after as { reservation: string }).reservation)).toBe(now.t);
    const fleet = await limiter.audit();
    expect(fleet.windowsOver).toBe(0);
    await store.close();
  });
});

describe('one decision across dimensions on the store', () => {
  it('a batch costing requests and tokens, against two rates of tokens, is decided in one script call', async () => {
    const now = { t: 1_000 };
    const rates = { requests: '3/1s', tokens: ['100/1s', '150/2s'] };
    const { store, limiter } = limiterAt(file.fresh('dims-one-call'), now, rates);
    await limiter.audit(); // the store's first call (its configuration written), not a decision
    const granted = (outcomes: ReadonlyArray<{ kind: string; redisTime?: number }>) =>
      outcomes.map((outcome) => (outcome.kind === 'granted' ? outcome.redisTime : outcome.kind));
    let before = limiter.roundTrips;
    const first = await limiter.reserve([{ cost: { requests: 1, tokens: 60 } }, { cost: { tokens: 40 } }]);
    expect(limiter.roundTrips - before).toBe(1);
    expect(granted(first)).toEqual([1_000, 1_000]);
    now.t = 2_000;
    before = limiter.roundTrips;
    const second = await limiter.reserve([
      { cost: { requests: 1, tokens: 30 } }, // 100/1s: the 60 + 40 of 1000 have left; 150/2s: 130
      { cost: { requests: 2 } }, // 3/1s: the request of 1000 has left; no tokens
      { cost: { tokens: 30 } }, // 100/1s would take it; 150/2s would hold 160
    ]);
    expect(limiter.roundTrips - before).toBe(1);
    expect(granted(second)).toEqual([2_000, 2_000, 'later']);
    expect((await limiter.audit()).windowsOver).toBe(0);
    await store.close();
  });
});

describe('a late grant re-timed on the store', () => {
  it('moves in the log of every dimension it costs something in, checked against each dimension', async () => {
    const now = { t: 1_000 };
    const { store, limiter } = limiterAt(file.fresh('dims-retime'), now);
    const [late] = await limiter.reserve([{ cost: { requests: 1, tokens: 60 } }]);
    const [kept] = await limiter.reserve([{ cost: { tokens: 40 } }]);
    expect([late?.kind, kept?.kind]).toEqual(['granted', 'granted']);
    now.t = 1_050;
    const [moved] = await limiter.retime([(late as { reservation: string }).reservation]);
    expect(moved?.kind).toBe('granted');
    expect(grantTimeOf((moved as { reservation: string }).reservation)).toBe(1_050);
    // At 2000 the 40 tokens of 1000 have left; the 60 moved to 1050 hold the window until 2050.
    now.t = 2_000;
    const [tokens] = await limiter.reserve([{ cost: { tokens: 41 } }]);
    expect(tokens?.kind === 'granted' && tokens.redisTime).toBe(2_050);
    // Requests (3 a second): 2 at 2050 (the moved one has just left); 2 more wait for those to leave.
    const [requests] = await limiter.reserve([{ cost: { requests: 2 } }]);
    expect(requests?.kind === 'granted' && requests.redisTime).toBe(2_050);
    now.t = 2_400;
    const [more] = await limiter.reserve([{ cost: { requests: 2 } }]);
    expect(more?.kind === 'granted' && more.redisTime).toBe(3_050);
    await store.close();
  });
});

describe('token-bucket with dimensions on the store', () => {
  it("spends each dimension's buckets by its cost there, and none of a dimension it costs 0 in", async () => {
    const now = { t: 1_000 };
    const store = createRedisStore({ redis: file.redis, name: file.fresh('dims-bucket'), testClock: () => now.t });
    const limiter = store.open({ strategy: 'token-bucket', rates: { requests: '2/1s', tokens: '100/1s' } } as never);
    const outcomes = await limiter.reserve([
      { cost: { tokens: 50 } },
      { cost: { requests: 1 } },
      { cost: { tokens: 10 } },
    ]);
    // The tokens' bucket is at 1500 after 50 (10 ms a token); the requests' one is untouched by them.
    expect(outcomes.map((outcome) => outcome.kind === 'granted' && outcome.redisTime)).toEqual([1_000, 1_000, 1_500]);
    await store.close();
  });
});

describe('setRate on a store with dimensions', () => {
  it('replaces the rates of the dimensions it names and keeps the others', async () => {
    const now = { t: 1_000 };
    const { store, limiter } = limiterAt(file.fresh('dims-setrate'), now);
    await limiter.setRate({ tokens: '50/1s' });
    expect(limiter.rates.map((rate) => `${rate.dimension} ${rate.limit}`)).toEqual(['requests 3', 'tokens 50']);
    const [tokens, requests, over] = await limiter.reserve([
      { cost: { tokens: 50 } },
      { cost: { requests: 3 } },
      { cost: { tokens: 51 } },
    ]);
    expect([tokens?.kind, requests?.kind]).toEqual(['granted', 'granted']);
    expect(over?.kind === 'refused' && over.error.option).toBe('cost');
    await store.close();
  });
});

describe('the stored configuration names the dimensions', () => {
  it('a process with other dimensions, or none, conflicts on the rate instead of mixing', async () => {
    const name = file.fresh('dims-conflict');
    const now = { t: 1_000 };
    const fleet = limiterAt(name, now);
    expect((await fleet.limiter.reserve([{ cost: { tokens: 10 } }]))[0]?.kind).toBe('granted');
    for (const rates of [{ requests: '3/1s' }, { requests: '3/1s', tokens: '100/1s', images: '5/1s' }, '3/1s']) {
      const other = limiterAt(name, now, rates);
      const error = await other.limiter.reserve([{ cost: 1 }]).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreConflictError);
      expect((error as StoreConflictError).option).toBe('rate');
      await other.store.close();
    }
    await fleet.store.close();
  });
});

describe('what does not fit the store dimensions is refused at the call', () => {
  it('names the option or the cost and the value', async () => {
    const now = { t: 1_000 };
    const { store, limiter } = limiterAt(file.fresh('dims-refused'), now);
    expect(() =>
      store.open({ strategy: 'sliding-window', rates: RATE, channels: { a: { images: '1/1s' } } } as never),
    ).toThrow(/channels\.a/);
    expect(() =>
      store.open({ strategy: 'sliding-window', rates: '5/1s', channels: { a: { tokens: '1/1s' } } }),
    ).toThrow(/channels\.a must be rates without dimensions/);
    await expect(limiter.setRate({ images: '1/1s' } as never)).rejects.toThrow(ThrottlerOptionError);
    await expect(limiter.setRate('1/1s')).rejects.toThrow(/rate must be rates in the store's dimensions/);
    const [unknown, zero, plainObject] = await limiter.reserve([
      { cost: { images: 1 } },
      { cost: { tokens: 0 } },
      { cost: -1 },
    ]);
    expect(unknown?.kind === 'refused' && unknown.error.option).toBe('cost.images');
    expect(zero?.kind === 'refused' && zero.error.option).toBe('cost');
    expect(plainObject?.kind === 'refused' && plainObject.error.option).toBe('cost');
    const [above] = await limiter.reserve([{ cost: { tokens: 101 } }]);
    expect(above?.kind === 'refused' && above.error.option).toBe('cost');
    const plain = limiterAt(file.fresh('dims-plain'), now, '5/1s');
    const [map] = await plain.limiter.reserve([{ cost: { tokens: 1 } }]);
    expect(map?.kind === 'refused' && map.error.option).toBe('cost');
    await plain.store.close();
    await store.close();
  });

  it('a throttler whose channel names a dimension its rate does not is refused by createThrottler', () => {
    const store = createRedisStore({ redis: file.redis, name: file.fresh('dims-create') });
    expect(() =>
      createThrottler({
        strategy: 'sliding-window',
        store,
        rate: { requests: '5/1s' },
        channels: { a: { tokens: '1/1s' } },
      } as never),
    ).toThrow(ThrottlerOptionError);
    return store.close();
  });
});
