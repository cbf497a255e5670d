import { describe, expect, it } from 'vitest';
import { createThrottler } from '../../src/adapters/create-throttler.js';
import { ThrottlerOptionError } from '../../src/index.js';
import { createRedisStore } from '../../src/redis/index.js';
import { redisForFile } from '../support/redis.js';

/**
 * Rates in dimensions are not shared by a store yet: its configuration check refuses them, at the call,
 * naming the option, rather than counting one cost per message against every rate of every dimension.
 */
const file = redisForFile();

describe('a shared store and rates in dimensions', () => {
  it('refuses them at createThrottler, in the rate, a channel or the keys template, opening nothing', async () => {
    const store = createRedisStore({ redis: file.redis, name: file.fresh('dimensions') });
    const refused = (options: Record<string, unknown>) => {
      try {
        createThrottler({ strategy: 'sliding-window', store, ...options } as never);
      } catch (error) {
        expect(error).toBeInstanceOf(ThrottlerOptionError);
        return (error as ThrottlerOptionError).option;
      }
      return 'created';
    };
    expect(refused({ rate: { requests: '5/1s', tokens: '100/1s' } })).toBe('rate');
    expect(refused({ rate: { requests: '5/1s' }, channels: { a: { requests: '1/1s' } } })).toBe('rate');
    expect(() =>
      store.open({ strategy: 'sliding-window', rates: '5/1s', channels: { a: { tokens: '1/1s' } } }),
    ).toThrow(/channels\.a must be rates without dimensions/);
    await store.close();
  });
});
