import { describe, expect, it } from 'vitest';
import { createThrottler } from '../../src/adapters/create-throttler.js';
import { createRedisStore } from '../../src/redis/index.js';
import { redisForFile } from '../support/redis.js';

/**
 * A raw limiter (`store.open`) and a throttler on the same name, each with its defaults, open the same
 * configuration: one default grace (20 ms for sliding-window) and reserve-ahead for both.
 */
const file = redisForFile();

const fresh = () => file.fresh('defaults');

describe('a raw limiter and a throttler on one name, default options', () => {
  it('the throttler first, then the raw limiter: no conflict', async () => {
    const name = fresh();
    const throttlerStore = createRedisStore({ redis: file.redis, name });
    const throttler = createThrottler({ rate: '5/1s', strategy: 'sliding-window', store: throttlerStore });
    await expect(throttler.schedule(() => 'sent')).resolves.toBe('sent');
    const rawStore = createRedisStore({ redis: file.redis, name });
    const outcomes = await rawStore.open({ strategy: 'sliding-window', rates: '5/1s' }).reserve([{ cost: 1 }]);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['granted']);
    throttler.stop();
    await Promise.all([throttlerStore.close(), rawStore.close()]);
  });

  it('the raw limiter first, then the throttler: no conflict', async () => {
    const name = fresh();
    const rawStore = createRedisStore({ redis: file.redis, name });
    const outcomes = await rawStore.open({ strategy: 'sliding-window', rates: '5/1s' }).reserve([{ cost: 1 }]);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['granted']);
    const throttlerStore = createRedisStore({ redis: file.redis, name });
    const throttler = createThrottler({ rate: '5/1s', store: throttlerStore });
    const heard: string[] = [];
    throttler.actor.on('*', (event) => {
      // A busy machine's news, not a conflict: storeSlow says a round trip outlasted the grace, and a
      // 'late' rewind gives back grants the stalled process did not send in time
      // (test/redis/slow-link.test.ts and late-grants.test.ts test them).
      if (event.type === 'storeSlow' || (event.type === 'storeGrantsRewound' && event.reason === 'late')) return;
      heard.push(event.type);
    });
    await expect(throttler.schedule(() => 'sent')).resolves.toBe('sent');
    // Neither a conflict nor any other news of the store.
    expect(heard.filter((type) => type.startsWith('store'))).toEqual([]);
    throttler.stop();
    await Promise.all([throttlerStore.close(), rawStore.close()]);
  });

  it("the store's own grantGraceMs and maxReserveAheadMs apply to both", async () => {
    const name = fresh();
    const storeOptions = { redis: file.redis, name, grantGraceMs: 5, maxReserveAheadMs: 3000 };
    const rawStore = createRedisStore(storeOptions);
    const limiter = rawStore.open({ strategy: 'sliding-window', rates: '5/1s' });
    expect(limiter.grantGraceMs).toBe(5);
    await limiter.reserve([{ cost: 1 }]);
    const throttlerStore = createRedisStore(storeOptions);
    const throttler = createThrottler({ rate: '5/1s', store: throttlerStore });
    await expect(throttler.schedule(() => 'sent')).resolves.toBe('sent');
    throttler.stop();
    await Promise.all([throttlerStore.close(), rawStore.close()]);
  });
});
