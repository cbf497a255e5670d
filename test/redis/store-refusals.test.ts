import { firstValueFrom, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { createThrottler } from '../../src/adapters/create-throttler.js';
import { throttlerMachine } from '../../src/machine/named-machine.js';
import { ThrottlerOptionError } from '../../src/rate/index.js';
import { createRedisStore } from '../../src/redis/index.js';
import type { RedisStoreOptions } from '../../src/redis/types.js';
import { throttleQueue } from '../../src/rxjs/index.js';
import { redisForFile } from '../support/redis.js';

/**
 * What a store refuses (a strategy it cannot share, countUntil 'done', a bad
 * reserve-ahead or grace, a closed store) throws at the call for the adapters, and leaves the machine
 * in status 'error' with that error: never a throttler that hangs, nor an uncaught exception.
 */
const file = redisForFile();

const storeOf = (options: Partial<RedisStoreOptions> = {}) => {
  return createRedisStore({ redis: file.redis, name: file.fresh('refusals'), ...options });
};

const REFUSED: Array<[string, Record<string, unknown>, Partial<RedisStoreOptions>, RegExp]> = [
  ['strategy timer', { strategy: 'timer' }, {}, /^strategy must be "sliding-window" or "token-bucket"/],
  ['strategy warming-up', { strategy: 'warming-up', warmup: '1s' }, {}, /^strategy must be "sliding-window"/],
  ['countUntil done', { countUntil: 'done' }, {}, /^countUntil must be "start" with a shared store/],
  ['a negative grace', {}, { grantGraceMs: -1 }, /^grantGraceMs must be a number of milliseconds from 0 to 60000/],
  ['a grace with token-bucket', { strategy: 'token-bucket' }, { grantGraceMs: 5 }, /^grantGraceMs must be 0 unless/],
  ['a bad reserve-ahead', {}, { maxReserveAheadMs: -5 }, /^maxReserveAheadMs must be a finite number/],
];

describe('options a store refuses', () => {
  it.each(REFUSED)('%s: createThrottler throws at the call', (_, options, storeOptions, message) => {
    const store = storeOf(storeOptions);
    let thrown: unknown;
    try {
      createThrottler({ rate: '5/1s', store, ...options });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ThrottlerOptionError);
    expect((thrown as Error).message).toMatch(message);
  });

  it.each(REFUSED)(
    '%s: throttleQueue throws at the call, before any subscription',
    (_, options, storeOptions, message) => {
      const store = storeOf(storeOptions);
      expect(() => throttleQueue({ rate: '5/1s', store, ...options })).toThrow(message);
    },
  );

  it.each(REFUSED)(
    '%s: the machine is in status error with that error, and nothing escapes',
    (_, options, storeOptions, message) => {
      const store = storeOf(storeOptions);
      const actor = createActor(throttlerMachine, { input: { rate: '5/1s', store, ...options } as never });
      const errors: unknown[] = [];
      actor.subscribe({ error: (error) => errors.push(error) });
      actor.start();
      const snapshot = actor.getSnapshot();
      expect(snapshot.status).toBe('error');
      expect(snapshot.error).toBeInstanceOf(ThrottlerOptionError);
      expect((snapshot.error as Error).message).toMatch(message);
      expect(errors).toEqual([snapshot.error]);
      actor.stop();
    },
  );

  it('a closed store: the adapters throw at the call', async () => {
    const store = storeOf();
    await store.close();
    expect(() => createThrottler({ rate: '5/1s', store })).toThrow('store must be open (it was closed)');
    expect(() => throttleQueue({ rate: '5/1s', store })).toThrow('store must be open (it was closed)');
  });

  it('any option the throttler cannot start with throws at createThrottler (here a time source that fails)', () => {
    expect(() => createThrottler({ rate: '5/1s', now: () => Number.NaN })).toThrow(
      'now() must be a finite time in milliseconds, got NaN',
    );
  });
});

describe('a store with no strategy given', () => {
  // The store refuses every other strategy: that these run shows the default is 'sliding-window'.
  it("uses 'sliding-window', the strict one it shares: createThrottler, throttleQueue and the machine run", async () => {
    const store = storeOf();
    const throttler = createThrottler({ rate: '5/1s', store });
    await expect(throttler.schedule(() => 'ran')).resolves.toBe('ran');
    expect(throttler.counts).toEqual({ queued: 0, delivered: 1, dropped: 0, rejected: 0 });
    throttler.stop();
    await expect(firstValueFrom(of('a').pipe(throttleQueue({ rate: '5/1s', store })))).resolves.toBe('a');
    const actor = createActor(throttlerMachine, { input: { rate: '5/1s', store } }).start();
    expect(actor.getSnapshot().status).toBe('active');
    actor.stop();
    await store.close();
  });
});
