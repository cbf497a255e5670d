import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/redis/index.js';
import { hashTagOf, limiterKeys } from '../../src/redis/keys.js';
import { StoreConflictError } from '../../src/store/index.js';
import type { SharedLimiterConfig } from '../../src/store/protocol.js';
import { expectOptionError } from '../support/option-error.js';

/** Validation needs no server: a client that never connects is enough to be "usable" in shape. */
const idle = new Redis({ lazyConnect: true });
afterAll(() => idle.disconnect());

const open = (config: Partial<SharedLimiterConfig>) =>
  createRedisStore({ redis: idle, name: 'options' }).open({ strategy: 'sliding-window', rates: '1/1s', ...config });

describe('createRedisStore options', () => {
  it('refuses a store without a usable ioredis client, naming the option and the value', () => {
    const requirement =
      'an ioredis client (new Redis(url) or new Redis.Cluster(nodes)); node-redis and others are not supported';
    expectOptionError(() => createRedisStore({ redis: undefined as never, name: 'x' }), {
      message: `redis must be ${requirement}, got undefined`,
      option: 'redis',
      value: undefined,
    });
    expectOptionError(() => createRedisStore({ redis: { status: 'ready' } as never, name: 'x' }), {
      message: `redis must be ${requirement}, got {"status":"ready"}`,
      option: 'redis',
      value: { status: 'ready' },
    });
    expectOptionError(() => createRedisStore(undefined as never), {
      message: 'options must be an object { redis, name }, got undefined',
      option: 'options',
      value: undefined,
    });
  });

  it.each([[''], [42], [undefined], [null]])('refuses the name %j', (name) => {
    expectOptionError(() => createRedisStore({ redis: idle, name: name as never }), {
      message: `name must be a non-empty string naming the shared limiter, got ${name === '' ? '""' : String(name)}`,
      option: 'name',
      value: name,
    });
  });

  it.each([[0], [-1], [Number.NaN], ['1s'], [2 ** 31]])('refuses the commandTimeout %j', (commandTimeout) => {
    expect(() => createRedisStore({ redis: idle, name: 'x', commandTimeout: commandTimeout as never })).toThrow(
      /^commandTimeout must be a positive number of milliseconds below 2\^31, got/,
    );
  });

  it('refuses a testClock that is not a function', () => {
    expect(() => createRedisStore({ redis: idle, name: 'x', testClock: 5 as never })).toThrow(
      'testClock must be a function returning milliseconds (tests only), got 5',
    );
  });
});

describe('open(): what a shared limiter can keep exactly', () => {
  it.each([['timer'], ['warming-up'], ['leaky'], [undefined]])('refuses the strategy %j by name', (strategy) => {
    expectOptionError(() => open({ strategy: strategy as never }), {
      message: `strategy must be "sliding-window" or "token-bucket" with a shared store (the others cannot be kept exactly across processes), got ${strategy === undefined ? 'undefined' : `"${strategy}"`}`,
      option: 'strategy',
      value: strategy,
    });
  });

  it("refuses countUntil 'done' instead of approximating it, and an ordering it does not know", () => {
    expectOptionError(() => open({ countUntil: 'done' }), {
      message:
        'countUntil must be "start" with a shared store (a slot held until "done" would be lost with the process holding it), got "done"',
      option: 'countUntil',
      value: 'done',
    });
    expectOptionError(() => open({ ordering: 'lifo' as never }), {
      message: 'ordering must be "fifo" or "per-channel", got "lifo"',
      option: 'ordering',
      value: 'lifo',
    });
    expect(() => open({ ordering: 'per-channel' })).not.toThrow();
  });

  it('validates rates, channel rates, maxBurst and maxReserveAheadMs like the throttler does', () => {
    expect(() => open({ rates: '0/1s' })).toThrow('rate.limit must be a positive integer, got "0"');
    expect(() => open({ channels: new Map([['search', '3/0s']]) })).toThrow(
      'channels.search.interval must be a positive, finite duration in milliseconds, got "0s"',
    );
    expect(() => open({ strategy: 'token-bucket', maxBurst: -1 })).toThrow(
      'maxBurst must be a positive number of permits, got -1',
    );
    expect(() => open({ maxReserveAheadMs: Number.POSITIVE_INFINITY })).toThrow(
      'maxReserveAheadMs must be a finite number of milliseconds >= 0, got Infinity',
    );
  });

  it('takes channel names as data: __proto__, constructor and toString are channels like any other', () => {
    const limiter = open({
      channels: new Map([
        ['__proto__', '1/1s'],
        ['constructor', '2/1s'],
        ['toString', '3/1s'],
      ]),
    });
    expect([...limiter.channels.keys()].sort()).toEqual(['__proto__', 'constructor', 'toString']);
  });

  it('names the conflicting option with both values when the stored configuration differs', () => {
    const error = new StoreConflictError('api', 'rate', '10/1s', '5/1s');
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(
      'rate must be the same in every process sharing the Redis store "api" (stored by the first: "5/1s"); change it fleet-wide with setRate, or use another name, got "10/1s"',
    );
  });
});

describe('key names', () => {
  it('put every key of a limiter under one non-empty hash tag, whatever the name holds', () => {
    for (const name of ['plain', '}', '{', '{}', 'a}b{c', '%7D', '__proto__']) {
      const keys = limiterKeys(name, '');
      const tags = [keys.config, keys.overallLog, keys.channelLog('x}{'), keys.channelLog('')].map(
        (key) => /\{([^}]*)\}/.exec(key)?.[1],
      );
      expect(new Set(tags).size).toBe(1);
      expect(tags[0]).toBe(hashTagOf(name));
      expect(tags[0]?.length).toBeGreaterThan(0);
    }
    expect(hashTagOf('}')).not.toBe(hashTagOf('%7D'));
  });
});
