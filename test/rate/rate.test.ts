import { describe, expect, it } from 'vitest';
import {
  formatRate,
  parseDuration,
  parseRate,
  parseRates,
  type Rate,
  type RateInput,
  validateCost,
} from '../../src/rate/index.js';
import { expectOptionError } from '../support/option-error.js';

const SECOND = 1_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const RATE_SHAPE = 'a rate such as "10/1s", "100/1m" or { limit, interval }';
const POSITIVE_DURATION = 'a positive, finite duration in milliseconds';
const DURATION_SHAPE = 'a duration such as 500ms, 1s, 1m, 1h or 1d';

/** Lets a test hand the parser what a JavaScript caller could, whatever the types say. */
const untyped = (value: unknown): RateInput => value as RateInput;

describe('parseRate', () => {
  it.each<[RateInput, Rate]>([
    ['3/1s', { limit: 3, interval: SECOND }],
    ['10/s', { limit: 10, interval: SECOND }],
    ['100/1m', { limit: 100, interval: MINUTE }],
    ['1000/1d', { limit: 1000, interval: DAY }],
    ['5/500ms', { limit: 5, interval: 500 }],
    ['2/30d', { limit: 2, interval: 30 * DAY }],
    [' 3 / 1s ', { limit: 3, interval: SECOND }],
    ['7/2h', { limit: 7, interval: 2 * HOUR }],
    ['4/1.5s', { limit: 4, interval: 1_500 }],
    ['4/.5s', { limit: 4, interval: 500 }],
    ['6/1min', { limit: 6, interval: MINUTE }],
    ['6/2sec', { limit: 6, interval: 2 * SECOND }],
    ['3/1 s', { limit: 3, interval: SECOND }],
    ['10/S', { limit: 10, interval: SECOND }],
    [
      { limit: 3, interval: 1_000 },
      { limit: 3, interval: SECOND },
    ],
    [
      { limit: 3, interval: 250 },
      { limit: 3, interval: 250 },
    ],
    [
      { limit: 3, interval: '1m' },
      { limit: 3, interval: MINUTE },
    ],
  ])('accepts %j as %j', (input, expected) => {
    expect(parseRate(input)).toEqual(expected);
  });

  it('reads a 30-day interval as its full length in ms, although that exceeds the 2^31 ms setTimeout limit', () => {
    // The machine arms long waits in chunks; the parser must not clamp them.
    expect(parseRate('2/30d').interval).toBe(2_592_000_000);
    expect(parseRate('2/30d').interval).toBeGreaterThan(2 ** 31);
  });

  it.each<[string, unknown, string, unknown]>([
    // [what, input, option, value]
    ['a zero limit', '0/1s', 'rate.limit', '0'],
    ['a negative limit', '-1/1s', 'rate.limit', '-1'],
    ['a fractional limit', '1.5/1s', 'rate.limit', '1.5'],
    ['an exponent limit', '1e3/1s', 'rate.limit', '1e3'],
    ['a limit beyond the safe integers', '99999999999999999999/1s', 'rate.limit', '99999999999999999999'],
  ])('rejects %s in a string rate, quoting the limit as written', (_what, input, option, value) => {
    expectOptionError(() => parseRate(untyped(input)), {
      message: `${option} must be a positive integer, got ${JSON.stringify(value)}`,
      option,
      value,
    });
  });

  it.each<[string, unknown]>([
    ['zero', 0],
    ['negative', -1],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['fractional', 1.5],
    ['a numeric string', '3'],
  ])('rejects a %s limit in { limit, interval }', (_what, limit) => {
    expectOptionError(() => parseRate(untyped({ limit, interval: 1_000 })), {
      message: `rate.limit must be a positive integer, got ${typeof limit === 'string' ? `"${limit}"` : String(limit)}`,
      option: 'rate.limit',
      value: limit,
    });
  });

  it('says the message a user will read for { limit: 0 }', () => {
    expectOptionError(() => parseRate({ limit: 0, interval: 1_000 }), {
      message: 'rate.limit must be a positive integer, got 0',
      option: 'rate.limit',
      value: 0,
    });
  });

  it.each<[string, unknown]>([
    ['zero', 0],
    ['negative', -1_000],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['NaN', Number.NaN],
  ])('rejects a %s interval in { limit, interval }', (_what, interval) => {
    expectOptionError(() => parseRate(untyped({ limit: 1, interval })), {
      message: `rate.interval must be ${POSITIVE_DURATION}, got ${String(interval)}`,
      option: 'rate.interval',
      value: interval,
    });
  });

  it('rejects a missing interval in { limit, interval }', () => {
    expectOptionError(() => parseRate(untyped({ limit: 1 })), {
      message: 'rate.interval must be a positive duration in milliseconds, got undefined',
      option: 'rate.interval',
      value: undefined,
    });
  });

  it('rejects a zero-length interval in a string rate', () => {
    expectOptionError(() => parseRate('3/0s'), {
      message: `rate.interval must be ${POSITIVE_DURATION}, got "0s"`,
      option: 'rate.interval',
      value: '0s',
    });
  });

  it.each(['-1s', 'xs', '1 week', '1s2'])('rejects the interval %j in a string rate as not a duration', (interval) => {
    expectOptionError(() => parseRate(`3/${interval}`), {
      message: `rate.interval must be ${DURATION_SHAPE}, got ${JSON.stringify(interval)}`,
      option: 'rate.interval',
      value: interval,
    });
  });

  it.each<[string, unknown, string]>([
    ['text without a slash', 'abc', '"abc"'],
    ['an empty string', '', '""'],
    ['a slash with nothing before it', '/1s', '"/1s"'],
    ['null', null, 'null'],
    ['undefined', undefined, 'undefined'],
    ['a bare number', 3, '3'],
    ['zero', 0, '0'],
    ['an array', ['3/1s'], 'an array of 1'],
  ])('rejects %s as not a rate at all', (_what, input, shown) => {
    expectOptionError(() => parseRate(untyped(input)), {
      message: `rate must be ${RATE_SHAPE}, got ${shown}`,
      option: 'rate',
      value: input,
    });
  });

  it('names the option it was given, so a channel rate error points at the channel', () => {
    expectOptionError(() => parseRate('0/1s', 'channels.search'), {
      message: 'channels.search.limit must be a positive integer, got "0"',
      option: 'channels.search.limit',
      value: '0',
    });
  });
});

describe('parseRates', () => {
  it('wraps a single rate in a list', () => {
    expect(parseRates('3/1s')).toEqual([{ limit: 3, interval: SECOND }]);
    expect(parseRates({ limit: 3, interval: '1s' })).toEqual([{ limit: 3, interval: SECOND }]);
  });

  it('parses a list of rates that must all hold, in order', () => {
    expect(parseRates(['10/1s', '500/1m', { limit: 10_000, interval: '1d' }])).toEqual([
      { limit: 10, interval: SECOND },
      { limit: 500, interval: MINUTE },
      { limit: 10_000, interval: DAY },
    ]);
  });

  it('names the index of the bad entry in a list', () => {
    expectOptionError(() => parseRates(['3/1s', '3/0s']), {
      message: `rate[1].interval must be ${POSITIVE_DURATION}, got "0s"`,
      option: 'rate[1].interval',
      value: '0s',
    });
    expectOptionError(() => parseRates(['3/1s', { limit: 1.5, interval: 1_000 }]), {
      message: 'rate[1].limit must be a positive integer, got 1.5',
      option: 'rate[1].limit',
      value: 1.5,
    });
    expectOptionError(() => parseRates(['3/1s', untyped(null)]), {
      message: `rate[1] must be ${RATE_SHAPE}, got null`,
      option: 'rate[1]',
      value: null,
    });
  });

  it('says a rate is required when none is given', () => {
    expectOptionError(() => parseRates(undefined), {
      message: 'rate must be a rate such as "10/1s" (it is required), got undefined',
      option: 'rate',
      value: undefined,
    });
  });

  it('rejects an empty list', () => {
    expectOptionError(() => parseRates([]), {
      message: 'rate must be a rate or a non-empty list of rates, got an array of 0',
      option: 'rate',
      value: [],
    });
  });

  it('rejects null as not a rate', () => {
    expectOptionError(() => parseRates(untyped(null)), {
      message: `rate must be ${RATE_SHAPE}, got null`,
      option: 'rate',
      value: null,
    });
  });
});

describe('parseDuration', () => {
  it.each<[number | string, number]>([
    [1_500, 1_500],
    [0.5, 0.5],
    ['500ms', 500],
    ['1s', SECOND],
    ['s', SECOND],
    ['.5s', 500],
    ['2.5m', 150_000],
    ['1min', MINUTE],
    ['3sec', 3 * SECOND],
    ['1h', HOUR],
    ['30d', 30 * DAY],
    [' 2 s ', 2 * SECOND],
    ['1H', HOUR],
    // Compound, as Go's durations and the ms package users bring: the parts add up.
    ['1m30s', 90 * SECOND],
    ['1h 15m', HOUR + 15 * MINUTE],
    ['2d12h', 2.5 * DAY],
    ['1s500ms', 1_500],
    ['1.5m30s', 2 * MINUTE],
  ])('reads %j as %d ms', (input, ms) => {
    expect(parseDuration(input, 'warmup')).toBe(ms);
  });

  it.each<[unknown, string]>([
    [0, '0'],
    [-5, '-5'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    ['0ms', '"0ms"'],
    ['0s', '"0s"'],
  ])('rejects %j as not a positive, finite duration', (input, shown) => {
    expectOptionError(() => parseDuration(input as number, 'warmup'), {
      message: `warmup must be ${POSITIVE_DURATION}, got ${shown}`,
      option: 'warmup',
      value: input,
    });
  });

  it.each(['', 'abc', '-1s', '1 week', '1.s', '5', '1m30', 'm30s', '1m-30s', '1m 30 weeks'])(
    'rejects the string %j as not a duration',
    (input) => {
      expectOptionError(() => parseDuration(input, 'warmup'), {
        message: `warmup must be ${DURATION_SHAPE}, got ${JSON.stringify(input)}`,
        option: 'warmup',
        value: input,
      });
    },
  );

  it.each<[unknown, string]>([
    [true, 'true'],
    [null, 'null'],
    [undefined, 'undefined'],
    [{ ms: 5 }, '{"ms":5}'],
  ])('rejects %j as neither a number nor a string', (input, shown) => {
    expectOptionError(() => parseDuration(input as number, 'warmup'), {
      message: `warmup must be a duration in milliseconds or a string such as 1s, got ${shown}`,
      option: 'warmup',
      value: input,
    });
  });
});

describe('formatRate', () => {
  it.each<[Rate, string]>([
    [{ limit: 3, interval: SECOND }, '3/1s'],
    [{ limit: 5, interval: 500 }, '5/500ms'],
    [{ limit: 100, interval: MINUTE }, '100/1m'],
    [{ limit: 2, interval: 90 * SECOND }, '2/90s'],
    [{ limit: 2, interval: HOUR }, '2/1h'],
    [{ limit: 1000, interval: DAY }, '1000/1d'],
    [{ limit: 2, interval: 30 * DAY }, '2/30d'],
    [{ limit: 1, interval: 1_500 }, '1/1500ms'],
    [{ limit: 1, interval: 0.5 }, '1/0.5ms'],
  ])('writes %j as %s', (rate, text) => {
    expect(formatRate(rate)).toBe(text);
  });

  it('writes text that parses back to the same rate', () => {
    const rates: Rate[] = [
      { limit: 3, interval: SECOND },
      { limit: 7, interval: 2 * HOUR },
      { limit: 9, interval: 2_500 },
      { limit: 1, interval: 0.25 },
      { limit: 2, interval: 30 * DAY },
    ];
    for (const rate of rates) expect(parseRate(formatRate(rate))).toEqual(rate);
  });
});

describe('validateCost', () => {
  it('returns a positive integer cost that fits in the smallest limit', () => {
    expect(validateCost(1, 3)).toBe(1);
    expect(validateCost(3, 3)).toBe(3);
  });

  it.each<[unknown, string]>([
    [0, '0'],
    [-1, '-1'],
    [1.5, '1.5'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    ['2', '"2"'],
    [undefined, 'undefined'],
  ])('rejects the cost %j', (cost, shown) => {
    expectOptionError(() => validateCost(cost, 3), {
      message: `cost must be a positive integer, got ${shown}`,
      option: 'cost',
      value: cost,
    });
  });

  it('rejects a cost above the smallest limit, since it could never be sent', () => {
    expectOptionError(() => validateCost(4, 3), {
      message: 'cost must be at most 3 (the smallest limit that applies; it could never be sent), got 4',
      option: 'cost',
      value: 4,
    });
  });
});
