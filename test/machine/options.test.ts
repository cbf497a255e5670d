import { describe, expect, it } from 'vitest';
import { audit } from '../../src/engine/audit/audit-feature.js';
import { dimensions } from '../../src/engine/clearance/dimensions-feature.js';
import { settle } from '../../src/engine/clearance/settle-book.js';
import { fairness } from '../../src/engine/fair-share.js';
import { optionHints } from '../../src/engine/options/option-hints.js';
import { type CommonOptions, monotonicNow, resolveOptions } from '../../src/engine/options/options.js';
import { transit } from '../../src/engine/options/transit-feature.js';
import { overflow } from '../../src/engine/queue/overflow-choice.js';
import { timer } from '../../src/strategies/index.js';
import { expectOptionError } from '../support/option-error.js';

/** Options as a JavaScript caller could pass them, whatever the types say. */
const resolve = (options: Record<string, unknown>) => resolveOptions(options as unknown as CommonOptions);

describe('resolveOptions', () => {
  it('applies the defaults to a bare rate', () => {
    const resolved = resolveOptions({ rate: '3/1s' });
    expect(resolved).toEqual({
      rates: [{ limit: 3, interval: 1_000 }],
      strategy: 'timer',
      strategyValue: timer,
      channels: new Map(),
      ordering: 'fifo',
      fairness: 'none',
      weight: undefined,
      strategyOptions: { maxBurst: undefined, coldFactor: undefined, warmup: undefined },
      capacity: Number.POSITIVE_INFINITY,
      overflow: 'reject',
      countUntil: 'start',
      maxConcurrent: Number.POSITIVE_INFINITY,
      now: monotonicNow,
      timerPrecision: 'ms',
      maxDeliveriesPerTurn: 1000,
      maxPriorityWait: 60_000,
      transit: 0,
      transitMeter: undefined,
      // The main entry loads every feature by itself (features-option.ts).
      features: { audit, dimensions, optionHints, overflow, settle, fairness, transit },
      splitByDimension: undefined,
    });
  });

  it('takes maxDeliveriesPerTurn as a positive integer, or Infinity for no bound', () => {
    expect(resolveOptions({ rate: '3/1s', maxDeliveriesPerTurn: 1 }).maxDeliveriesPerTurn).toBe(1);
    expect(resolveOptions({ rate: '3/1s', maxDeliveriesPerTurn: Number.POSITIVE_INFINITY }).maxDeliveriesPerTurn).toBe(
      Number.POSITIVE_INFINITY,
    );
  });

  it.each<[unknown, string]>([
    [0, '0'],
    [-5, '-5'],
    [2.5, '2.5'],
    [Number.NaN, 'NaN'],
    ['100', '"100"'],
    [null, 'null'],
  ])('rejects maxDeliveriesPerTurn %j', (maxDeliveriesPerTurn, shown) => {
    expectOptionError(() => resolve({ rate: '2/1s', maxDeliveriesPerTurn }), {
      message: `maxDeliveriesPerTurn must be a positive integer or Infinity, got ${shown}`,
      option: 'maxDeliveriesPerTurn',
      value: maxDeliveriesPerTurn,
    });
  });

  it('parses the warm-up duration and defaults coldFactor to 3 for warming-up', () => {
    const resolved = resolveOptions({ rate: '2/1s', strategy: 'warming-up', warmup: '3s' });
    expect(resolved.strategyOptions).toEqual({ warmup: 3_000, coldFactor: 3, maxBurst: undefined });
    expect(
      resolveOptions({ rate: '2/1s', strategy: 'warming-up', warmup: 1_500, coldFactor: 1 }).strategyOptions,
    ).toEqual({ warmup: 1_500, coldFactor: 1, maxBurst: undefined });
  });

  it('keeps maxBurst for token-bucket and parses channel rates', () => {
    const resolved = resolveOptions({
      rate: ['10/1s', '500/1m'],
      strategy: 'token-bucket',
      maxBurst: 3,
      channels: { search: '3/1s' },
    });
    expect(resolved.strategyOptions.maxBurst).toBe(3);
    expect(resolved.rates).toEqual([
      { limit: 10, interval: 1_000 },
      { limit: 500, interval: 60_000 },
    ]);
    expect(resolved.channels.get('search')).toEqual([{ limit: 3, interval: 1_000 }]);
  });

  it('accepts countUntil done with the sliding window', () => {
    expect(resolveOptions({ rate: '3/1s', strategy: 'sliding-window', countUntil: 'done' }).countUntil).toBe('done');
  });

  it.each<[string, unknown, string]>([
    ['undefined', undefined, 'undefined'],
    ['null', null, 'null'],
    ['a string', '3/1s', '"3/1s"'],
  ])('rejects %s as the options object', (_what, options, shown) => {
    expectOptionError(() => resolveOptions(options as CommonOptions), {
      message: `options must be an object with at least a rate, e.g. { rate: "10/1s" }, got ${shown}`,
      option: 'options',
      value: options,
    });
  });

  it('says the rate is required', () => {
    expectOptionError(() => resolve({}), {
      message: 'rate must be a rate such as "10/1s" (it is required), got undefined',
      option: 'rate',
      value: undefined,
    });
  });

  it('names the bad rate in a list', () => {
    expectOptionError(() => resolve({ rate: ['10/1s', '0/1m'] }), {
      message: 'rate[1].limit must be a positive integer, got "0"',
      option: 'rate[1].limit',
      value: '0',
    });
  });

  describe('warming-up', () => {
    it('requires warmup', () => {
      expectOptionError(() => resolve({ rate: '2/1s', strategy: 'warming-up' }), {
        message: 'warmup must be a positive duration for the warming-up strategy, e.g. "3s", got undefined',
        option: 'warmup',
        value: undefined,
      });
    });

    it.each<[unknown, string]>([
      [0, '0'],
      [-1_000, '-1000'],
      ['0s', '"0s"'],
      [Number.NaN, 'NaN'],
    ])('rejects warmup %j as not a positive duration', (warmup, shown) => {
      expectOptionError(() => resolve({ rate: '2/1s', strategy: 'warming-up', warmup }), {
        message: `warmup must be a positive, finite duration in milliseconds, got ${shown}`,
        option: 'warmup',
        value: warmup,
      });
    });

    it('rejects a warmup string that is not a duration', () => {
      expectOptionError(() => resolve({ rate: '2/1s', strategy: 'warming-up', warmup: '-3s' }), {
        message: 'warmup must be a duration such as 500ms, 1s, 1m, 1h or 1d, got "-3s"',
        option: 'warmup',
        value: '-3s',
      });
    });

    it.each<[unknown, string]>([
      [0.5, '0.5'],
      [0, '0'],
      [-3, '-3'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      ['3', '"3"'],
    ])('rejects coldFactor %j', (coldFactor, shown) => {
      expectOptionError(() => resolve({ rate: '2/1s', strategy: 'warming-up', warmup: '3s', coldFactor }), {
        message: `coldFactor must be a finite number >= 1, got ${shown}`,
        option: 'coldFactor',
        value: coldFactor,
      });
    });
  });

  it.each<[unknown, string]>([
    [0, '0'],
    [-1, '-1'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    ['2', '"2"'],
  ])('rejects maxBurst %j', (maxBurst, shown) => {
    expectOptionError(() => resolve({ rate: '2/1s', strategy: 'token-bucket', maxBurst }), {
      message: `maxBurst must be a positive number of permits, got ${shown}`,
      option: 'maxBurst',
      value: maxBurst,
    });
  });

  it.each<[unknown, string]>([
    [0, '0'],
    [1.5, '1.5'],
    [-1, '-1'],
    [Number.NaN, 'NaN'],
  ])('rejects capacity %j', (capacity, shown) => {
    expectOptionError(() => resolve({ rate: '2/1s', capacity }), {
      message: `capacity must be a positive integer, got ${shown}`,
      option: 'capacity',
      value: capacity,
    });
  });

  it.each<[unknown, string]>([
    [0, '0'],
    [2.5, '2.5'],
  ])('rejects maxConcurrent %j', (maxConcurrent, shown) => {
    expectOptionError(() => resolve({ rate: '2/1s', maxConcurrent }), {
      message: `maxConcurrent must be a positive integer, got ${shown}`,
      option: 'maxConcurrent',
      value: maxConcurrent,
    });
  });

  it('refuses null as a value instead of taking the default: only a missing option is defaulted', () => {
    expectOptionError(() => resolve({ rate: '2/1s', now: null }), {
      message: 'now must be a function returning the time in milliseconds, got null',
      option: 'now',
      value: null,
    });
    expectOptionError(() => resolve({ rate: '2/1s', strategy: null }), {
      message: 'strategy must be one of "timer", "sliding-window", "token-bucket", "warming-up", got null',
      option: 'strategy',
      value: null,
    });
    expectOptionError(() => resolve({ rate: '2/1s', capacity: null }), {
      message: 'capacity must be a positive integer, got null',
      option: 'capacity',
      value: null,
    });
  });

  it('rejects an unknown overflow', () => {
    expectOptionError(() => resolve({ rate: '2/1s', overflow: 'drop' }), {
      message: 'overflow must be "reject", "drop-oldest" or "drop-newest", got "drop"',
      option: 'overflow',
      value: 'drop',
    });
  });

  it('rejects an unknown ordering', () => {
    expectOptionError(() => resolve({ rate: '2/1s', ordering: 'lifo' }), {
      message: 'ordering must be "fifo" or "per-channel", got "lifo"',
      option: 'ordering',
      value: 'lifo',
    });
  });

  it('rejects an unknown strategy, listing the known ones', () => {
    expectOptionError(() => resolve({ rate: '2/1s', strategy: 'leaky-bucket' }), {
      message: 'strategy must be one of "timer", "sliding-window", "token-bucket", "warming-up", got "leaky-bucket"',
      option: 'strategy',
      value: 'leaky-bucket',
    });
  });

  it('rejects an unknown countUntil', () => {
    expectOptionError(() => resolve({ rate: '2/1s', strategy: 'sliding-window', countUntil: 'end' }), {
      message: 'countUntil must be "start" or "done", got "end"',
      option: 'countUntil',
      value: 'end',
    });
  });

  it.each(['timer', 'token-bucket', 'warming-up'])("rejects countUntil 'done' with the %s strategy", (strategy) => {
    expectOptionError(() => resolve({ rate: '2/1s', strategy, warmup: '3s', countUntil: 'done' }), {
      message: 'countUntil must be "start" unless strategy is "sliding-window", got "done"',
      option: 'countUntil',
      value: 'done',
    });
  });

  it("rejects countUntil 'done' with the default (timer) strategy", () => {
    expectOptionError(() => resolve({ rate: '2/1s', countUntil: 'done' }), {
      message: 'countUntil must be "start" unless strategy is "sliding-window", got "done"',
      option: 'countUntil',
      value: 'done',
    });
  });

  it.each<[unknown, string]>([
    [123, '123'],
    ['performance.now', '"performance.now"'],
  ])('rejects now %j as not a function', (now, shown) => {
    expectOptionError(() => resolve({ rate: '2/1s', now }), {
      message: `now must be a function returning the time in milliseconds, got ${shown}`,
      option: 'now',
      value: now,
    });
  });

  it('takes channel names as data, from an object or a Map: __proto__ and constructor are names like any other', () => {
    const fromObject = resolve({ rate: '2/1s', channels: JSON.parse('{"__proto__": "1/1s", "constructor": "2/1s"}') });
    const fromMap = resolve({
      rate: '2/1s',
      channels: new Map([
        ['__proto__', '1/1s'],
        ['constructor', '2/1s'],
      ]),
    });
    for (const { channels } of [fromObject, fromMap]) {
      expect([...channels]).toEqual([
        ['__proto__', [{ limit: 1, interval: 1_000 }]],
        ['constructor', [{ limit: 2, interval: 1_000 }]],
      ]);
    }
    expect(resolve({ rate: '2/1s', channels: {} }).channels.size).toBe(0);
    expectOptionError(() => resolve({ rate: '2/1s', channels: new Map([[1, '1/1s']]) }), {
      message: 'channels must be a Map whose keys are strings, got 1',
      option: 'channels',
      value: 1,
    });
  });

  it('rejects channels that are not an object of rates, and names the bad channel', () => {
    expectOptionError(() => resolve({ rate: '2/1s', channels: ['3/1s'] }), {
      message: 'channels must be an object of channel name to rate, got an array of 1',
      option: 'channels',
      value: ['3/1s'],
    });
    expectOptionError(() => resolve({ rate: '2/1s', channels: { search: '3/0s' } }), {
      message: 'channels.search.interval must be a positive, finite duration in milliseconds, got "0s"',
      option: 'channels.search.interval',
      value: '0s',
    });
  });
});
