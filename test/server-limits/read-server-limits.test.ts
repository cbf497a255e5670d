import { describe, expect, it } from 'vitest';
import type { HeadersInput } from '../../src/server-limits/header-fields.js';
import { type ReadServerLimitsOptions, readServerLimits, type ServerLimits } from '../../src/server-limits/index.js';
import { MAX_SERVER_RATES } from '../../src/server-limits/read-server-limits.js';

/** 2025-01-01 12:00:00 UTC: every absolute time below is measured from here. */
const NOW = Date.UTC(2025, 0, 1, 12, 0, 0);
const now = () => NOW;
const HOUR = 3_600_000;
const EPOCH_SECONDS = NOW / 1000;

function read(headers: HeadersInput, status?: number, options: ReadServerLimitsOptions = {}): ServerLimits {
  return readServerLimits(headers, { now, ...(status === undefined ? {} : { status }), ...options });
}

/** The pause in ms (0: none) and which field it came from. */
function pauseOf(limits: ServerLimits): [number, string | undefined] {
  return [limits.pause?.duration ?? 0, limits.pauseFrom];
}

function reasons(limits: ServerLimits): string[] {
  return limits.ignored.map((entry) => `${entry.field}: ${entry.reason}`);
}

describe('readServerLimits: Retry-After (RFC 9110 §10.2.3)', () => {
  it.each<[string, number | undefined, string, [number, string | undefined]]>([
    ['seconds on a 429', 429, '5', [5_000, 'retry-after']],
    ['seconds on a 503', 503, '120', [120_000, 'retry-after']],
    ['seconds, status unknown', undefined, '7', [7_000, 'retry-after']],
    ['a fraction of a second (lenient)', 429, '1.5', [1_500, 'retry-after']],
    ['spaces around', 429, '  3 ', [3_000, 'retry-after']],
    ['an IMF-fixdate 30 s ahead', 429, 'Wed, 01 Jan 2025 12:00:30 GMT', [30_000, 'retry-after']],
    ['an RFC 850 date 60 s ahead', 503, 'Wednesday, 01-Jan-25 12:01:00 GMT', [60_000, 'retry-after']],
    ['an asctime date 10 s ahead', 429, 'Wed Jan  1 12:00:10 2025', [10_000, 'retry-after']],
    ['0 on a 503: retry now', 503, '0', [0, undefined]],
  ])('%s', (_name, status, value, expected) => {
    const limits = read({ 'Retry-After': value }, status);
    expect(pauseOf(limits)).toEqual(expected);
    expect(limits.ignored).toEqual([]);
  });

  it('builds the PAUSE event as a duration, and when it ends on the reader clock', () => {
    const limits = read({ 'retry-after': '5' }, 429);
    expect(limits.pause).toEqual({ type: 'PAUSE', duration: 5_000 });
    expect(limits.events).toEqual([{ type: 'PAUSE', duration: 5_000 }]);
    expect(limits.resumeAt).toBe(NOW + 5_000);
    expect(limits.setRate).toBeUndefined();
  });

  it('is no throttling signal on other statuses (a 301 or a 200): listed, no pause', () => {
    const limits = read({ 'Retry-After': '30' }, 200);
    expect(limits.pause).toBeUndefined();
    expect(reasons(limits)).toEqual(['retry-after: on a 200 response: only 429 and 503 ask a client to wait']);
  });

  it.each<[string, string, string]>([
    ['negative', '-5', 'neither seconds (digits) nor an HTTP date'],
    ['words', 'soon', 'neither seconds (digits) nor an HTTP date'],
    ['NaN', 'NaN', 'neither seconds (digits) nor an HTTP date'],
    ['Infinity', 'Infinity', 'neither seconds (digits) nor an HTTP date'],
    ['an exponent', '1e3', 'neither seconds (digits) nor an HTTP date'],
    ['hex', '0x10', 'neither seconds (digits) nor an HTTP date'],
    ['empty', '', 'neither seconds (digits) nor an HTTP date'],
    ['a date Date.parse would take', '2025-01-01T12:00:30Z', 'neither seconds (digits) nor an HTTP date'],
    ['31 February', 'Fri, 31 Feb 2025 12:00:00 GMT', 'neither seconds (digits) nor an HTTP date'],
    ['hour 25', 'Wed, 01 Jan 2025 25:00:00 GMT', 'neither seconds (digits) nor an HTTP date'],
    ['a date in the past', 'Wed, 01 Jan 2025 11:59:00 GMT', 'a date 60 s in the past'],
  ])('on a 429, %s is ignored and the 429 pauses 1 s (pauseOn429)', (_name, value, reason) => {
    const limits = read({ 'Retry-After': value }, 429);
    expect(pauseOf(limits)).toEqual([1_000, 'status 429']);
    expect(reasons(limits)).toEqual([`retry-after: ${reason}`]);
  });

  it.each<[string, string, number]>([
    ['a year of seconds', String(365 * 86_400), 365 * 86_400_000],
    ['a thousand digits', '9'.repeat(1_000), Number.POSITIVE_INFINITY],
    ['a date in 2999', 'Tue, 01 Jan 2999 00:00:00 GMT', Date.UTC(2999, 0, 1) - NOW],
  ])('caps %s at maxPause (1 h by default), saying so', (_name, value, asked) => {
    const limits = read({ 'Retry-After': value }, 429);
    expect(pauseOf(limits)).toEqual([HOUR, 'retry-after']);
    expect(reasons(limits)).toEqual([
      `retry-after: asks for ${asked} ms, over maxPause (3600000 ms): paused 3600000 ms`,
    ]);
  });

  it('takes maxPause and pauseOn429 as options', () => {
    expect(pauseOf(read({ 'Retry-After': '600' }, 429, { maxPause: '5m' }))).toEqual([300_000, 'retry-after']);
    expect(pauseOf(read({}, 429, { pauseOn429: 250 }))).toEqual([250, 'status 429']);
    expect(pauseOf(read({}, 429, { pauseOn429: 0 }))).toEqual([0, undefined]);
  });

  it('a 429 with nothing to go by, or with "retry now", still pauses pauseOn429; a bare 503 does not', () => {
    expect(pauseOf(read({}, 429))).toEqual([1_000, 'status 429']);
    expect(pauseOf(read({ 'Retry-After': '0' }, 429))).toEqual([1_000, 'status 429']);
    expect(pauseOf(read({}, 503))).toEqual([0, undefined]);
  });

  it('measures dates from the response Date field when it has a valid one (a client clock that is off does not matter)', () => {
    const headers = { Date: 'Wed, 01 Jan 2025 13:00:00 GMT', 'Retry-After': 'Wed, 01 Jan 2025 13:00:20 GMT' };
    expect(pauseOf(read(headers, 429))).toEqual([20_000, 'retry-after']);
    const badDate = read({ Date: 'yesterday', 'Retry-After': 'Wed, 01 Jan 2025 12:00:20 GMT' }, 429);
    expect(pauseOf(badDate)).toEqual([20_000, 'retry-after']);
    expect(reasons(badDate)).toEqual(['date: not an HTTP date: absolute times measured from now instead']);
  });

  it('takes precedence over the RateLimit fields (draft §7), even when they ask for longer', () => {
    const limits = read({ 'Retry-After': '2', RateLimit: '"default";r=0;t=50', 'X-RateLimit-Remaining': '0' }, 429);
    expect(pauseOf(limits)).toEqual([2_000, 'retry-after']);
  });
});

describe('readServerLimits: X-RateLimit-Remaining / -Reset and their spellings', () => {
  it.each<[string, HeadersInput, [number, string | undefined]]>([
    ['remaining above 0: no pause', { 'X-RateLimit-Remaining': '3', 'X-RateLimit-Reset': '30' }, [0, undefined]],
    [
      'reset as seconds from now',
      { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '30' },
      [30_000, 'x-ratelimit-reset'],
    ],
    [
      'reset as epoch seconds (GitHub)',
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(EPOCH_SECONDS + 45) },
      [45_000, 'x-ratelimit-reset'],
    ],
    [
      'reset as epoch ms',
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW + 2_500) },
      [2_500, 'x-ratelimit-reset'],
    ],
    [
      'Twitter/X spelling, epoch seconds',
      { 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(EPOCH_SECONDS + 900) },
      [900_000, 'x-rate-limit-reset'],
    ],
    ['IETF drafts up to 06', { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '12' }, [12_000, 'ratelimit-reset']],
    [
      "Discord's Reset-After, fractions",
      {
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset-After': '1.25',
        'X-RateLimit-Reset': String(EPOCH_SECONDS + 2),
      },
      [1_250, 'x-ratelimit-reset-after'],
    ],
    [
      'remaining below 1 (a cost-based quota)',
      { 'X-RateLimit-Remaining': '0.5', 'X-RateLimit-Reset': '4' },
      [4_000, 'x-ratelimit-reset'],
    ],
    [
      'sent twice: the least left and the latest reset',
      { 'X-RateLimit-Remaining': '4, 0', 'X-RateLimit-Reset': '3, 8' },
      [8_000, 'x-ratelimit-reset'],
    ],
    [
      'two spellings: the longest wait',
      { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '5', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '9' },
      [9_000, 'ratelimit-reset'],
    ],
    ['reset 0: no wait', { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '0' }, [0, undefined]],
  ])('%s', (_name, headers, expected) => {
    const limits = read(headers);
    expect(pauseOf(limits)).toEqual(expected);
    expect(limits.ignored).toEqual([]);
  });

  it.each<[string, HeadersInput, string]>([
    [
      'a negative remaining',
      { 'X-RateLimit-Remaining': '-1', 'X-RateLimit-Reset': '5' },
      'x-ratelimit-remaining: not a number, 0 or more',
    ],
    [
      'remaining NaN',
      { 'X-RateLimit-Remaining': 'NaN', 'X-RateLimit-Reset': '5' },
      'x-ratelimit-remaining: not a number, 0 or more',
    ],
    [
      'a malformed reset',
      { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': 'later' },
      'x-ratelimit-reset: not seconds from now, epoch seconds or epoch ms',
    ],
    [
      'a negative reset',
      { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '-30' },
      'x-ratelimit-reset: not seconds from now, epoch seconds or epoch ms',
    ],
    [
      'an epoch reset in the past',
      { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(EPOCH_SECONDS - 120) },
      'x-ratelimit-reset: a reset 120 s in the past',
    ],
    [
      'no reset at all',
      { 'X-RateLimit-Remaining': '0' },
      'x-ratelimit-remaining: nothing left, but no reset time given',
    ],
    [
      'a malformed Reset-After',
      { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset-After': 'x' },
      'x-ratelimit-reset-after: not a number of seconds, 0 or more',
    ],
  ])('%s: ignored, no pause', (_name, headers, reason) => {
    const limits = read(headers);
    expect(limits.pause).toBeUndefined();
    expect(reasons(limits)).toEqual([reason]);
  });

  it('caps a reset of years (seconds just under the epoch-seconds threshold) at maxPause', () => {
    const limits = read({ 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '999999999' });
    expect(pauseOf(limits)).toEqual([HOUR, 'x-ratelimit-reset']);
    expect(limits.ignored).toHaveLength(1);
  });

  it('a plain X-RateLimit-Limit states no window: no rate', () => {
    expect(read({ 'X-RateLimit-Limit': '5000', 'X-RateLimit-Remaining': '4999' }).setRate).toBeUndefined();
  });
});

describe('readServerLimits: the IETF RateLimit and RateLimit-Policy fields', () => {
  it('draft 08+: RateLimit r=0 pauses for t; the named policy becomes the rate', () => {
    const limits = read({ RateLimit: '"default";r=0;t=30', 'RateLimit-Policy': '"default";q=100;w=60' });
    expect(pauseOf(limits)).toEqual([30_000, 'ratelimit']);
    expect(limits.setRate).toEqual({ type: 'SET_RATE', rate: [{ limit: 100, interval: 60_000 }] });
    expect(limits.events.map((event) => event.type)).toEqual(['SET_RATE', 'PAUSE']);
    expect(limits.ignored).toEqual([]);
  });

  it('draft 08+: r above 0 asks for no pause; the rate still follows the policy', () => {
    const limits = read({ RateLimit: '"default";r=50;t=30', 'RateLimit-Policy': '"default";q=100;w=60' });
    expect(limits.pause).toBeUndefined();
    expect(limits.events).toEqual([{ type: 'SET_RATE', rate: [{ limit: 100, interval: 60_000 }] }]);
  });

  it('draft 08+: r=0 without t waits out its policy window; several policies all become rates', () => {
    const limits = read({
      RateLimit: '"burst";r=0, "daily";r=900;t=40000',
      'RateLimit-Policy': '"burst";q=100;w=60,"daily";q=1000;w=86400',
    });
    expect(pauseOf(limits)).toEqual([60_000, 'ratelimit']);
    expect(limits.setRate?.rate).toEqual([
      { limit: 100, interval: 60_000 },
      { limit: 1000, interval: 86_400_000 },
    ]);
  });

  it('draft 08+: fields split over several header lines (joined with a comma) read as one list', () => {
    const headers = new Headers();
    headers.append('RateLimit-Policy', '"permin";q=50;w=60');
    headers.append('RateLimit-Policy', '"perhr";q=1000;w=3600');
    headers.append('RateLimit', '"permin";r=10;t=20');
    headers.append('RateLimit', '"perhr";r=0;t=1200');
    const limits = readServerLimits(headers, { now });
    expect(pauseOf(limits)).toEqual([1_200_000, 'ratelimit']);
    expect(limits.setRate?.rate).toEqual([
      { limit: 50, interval: 60_000 },
      { limit: 1000, interval: 3_600_000 },
    ]);
  });

  it('draft 08+: partition keys, vendor parameters and request quota units are fine', () => {
    const limits = read({
      RateLimit: '"peruser";r=0;t=5;pk=:cHsdsRa894==:',
      'RateLimit-Policy': '"peruser";q=100;qu="requests";w=60;pk=:cHsdsRa894==:;acme-burst=5',
    });
    expect(pauseOf(limits)).toEqual([5_000, 'ratelimit']);
    expect(limits.setRate?.rate).toEqual([{ limit: 100, interval: 60_000 }]);
  });

  it('drafts up to 07: RateLimit as a dictionary and RateLimit-Policy as quota;w=window', () => {
    const limits = read({ RateLimit: 'limit=100, remaining=0, reset=30', 'RateLimit-Policy': '100;w=60' });
    expect(pauseOf(limits)).toEqual([30_000, 'ratelimit']);
    expect(limits.setRate?.rate).toEqual([{ limit: 100, interval: 60_000 }]);
    expect(pauseOf(read({ RateLimit: 'limit=100, remaining=50, reset=30' }))).toEqual([0, undefined]);
  });

  it('older drafts: policies inside RateLimit-Limit (10, 10;w=1, 50;w=60)', () => {
    const limits = read({
      'RateLimit-Limit': '10, 10;w=1, 50;w=60',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '1',
    });
    expect(pauseOf(limits)).toEqual([1_000, 'ratelimit-reset']);
    expect(limits.setRate?.rate).toEqual([
      { limit: 10, interval: 1_000 },
      { limit: 50, interval: 60_000 },
    ]);
  });

  it.each<[string, HeadersInput, string[]]>([
    [
      'RateLimit malformed',
      { RateLimit: '"default";r=0;t=' },
      ['ratelimit: malformed (not a structured field): ignored as a whole'],
    ],
    [
      'RateLimit unterminated string',
      { RateLimit: '"default;r=0;t=5' },
      ['ratelimit: malformed (not a structured field): ignored as a whole'],
    ],
    [
      'RateLimit trailing comma',
      { RateLimit: '"a";r=0;t=5,' },
      ['ratelimit: malformed (not a structured field): ignored as a whole'],
    ],
    ['RateLimit negative r', { RateLimit: '"a";r=-1;t=5' }, ['ratelimit: r must be a whole number, 0 or more']],
    [
      'RateLimit fractional t',
      { RateLimit: '"a";r=0;t=1.5' },
      ['ratelimit: t must be a whole number of seconds, 0 or more'],
    ],
    ['RateLimit string r', { RateLimit: '"a";r="0";t=5' }, ['ratelimit: r must be a whole number, 0 or more']],
    ['RateLimit without r', { RateLimit: '"a";t=5' }, ['ratelimit: r must be a whole number, 0 or more']],
    [
      'RateLimit a number item',
      { RateLimit: '5;r=0;t=5' },
      ['ratelimit: not a service limit such as "default";r=50;t=30'],
    ],
    [
      'RateLimit r=0, no t, no policy',
      { RateLimit: '"a";r=0' },
      ['ratelimit: r=0 with no t and no window (w) in its policy: no time to wait for'],
    ],
    [
      'old form: negative remaining',
      { RateLimit: 'limit=5, remaining=-1, reset=3' },
      ['ratelimit: remaining must be a whole number, 0 or more'],
    ],
    [
      'old form: no reset',
      { RateLimit: 'limit=5, remaining=0' },
      ['ratelimit: remaining=0 needs reset, a whole number of seconds, 0 or more'],
    ],
    [
      'RateLimit over 15 digits',
      { RateLimit: '"a";r=0;t=1234567890123456' },
      ['ratelimit: malformed (not a structured field): ignored as a whole'],
    ],
  ])('%s: ignored, no pause', (_name, headers, expected) => {
    const limits = read(headers);
    expect(limits.pause).toBeUndefined();
    expect(reasons(limits)).toEqual(expected);
  });

  it.each<[string, string, string]>([
    ['q=0', '"a";q=0;w=1', 'a quota of 0 is no rate (a pause comes from RateLimit or Retry-After)'],
    ['no window', '"a";q=10', 'no window (w): informative only, not a rate'],
    ['w=0', '"a";q=10;w=0', 'w must be a whole number of seconds above 0'],
    ['negative q', '"a";q=-3;w=1', 'the quota must be a whole number, 0 or more'],
    ['fractional q', '"a";q=2.5;w=1', 'the quota must be a whole number, 0 or more'],
    ['bytes, not requests', '"a";q=65535;qu="content-bytes";w=10', 'counts content-bytes, not requests'],
    ['a window of a year', '"a";q=10;w=31536000', 'a window over maxWindow (86400000 ms): not followed'],
    ['a dictionary member', 'q=10', 'not a policy such as "default";q=100;w=60 or 100;w=60'],
    ['a boolean item', '?1;w=1', 'not a policy such as "default";q=100;w=60 or 100;w=60'],
  ])('RateLimit-Policy with %s: no rate, listed', (_name, policy, reason) => {
    const limits = read({ 'RateLimit-Policy': policy });
    expect(limits.setRate).toBeUndefined();
    expect(reasons(limits)).toEqual([`ratelimit-policy: ${reason}`]);
  });

  it('a bad policy beside a good one: the good one is followed', () => {
    const limits = read({ 'RateLimit-Policy': '"a";q=0;w=1, "b";q=5;w=1' });
    expect(limits.setRate?.rate).toEqual([{ limit: 5, interval: 1_000 }]);
    expect(limits.ignored).toHaveLength(1);
  });

  it(`follows at most ${MAX_SERVER_RATES} distinct policies (each is checked per delivery)`, () => {
    const policies = Array.from({ length: 12 }, (_, n) => `"p${n}";q=${n + 1};w=1`);
    policies.push('"again";q=1;w=1');
    const limits = read({ 'RateLimit-Policy': policies.join(', ') });
    expect(limits.setRate?.rate).toHaveLength(MAX_SERVER_RATES);
    expect(limits.ignored).toHaveLength(12 - MAX_SERVER_RATES);
  });

  it('keeps the ceiling beside the server rates, names the channel, and follows no policy when told not to', () => {
    const headers = { 'RateLimit-Policy': '"default";q=100;w=1, "day";q=5000;w=86400' };
    // 100/1s is implied by the ceiling's 20/1s (no more in any second): left out.
    expect(read(headers, undefined, { ceiling: '20/1s', channel: 'search' }).setRate).toEqual({
      type: 'SET_RATE',
      rate: [
        { limit: 5_000, interval: 86_400_000 },
        { limit: 20, interval: 1_000 },
      ],
      channel: 'search',
    });
    // By default the throttler's own rates are added when applied, not here.
    const plain = read(headers);
    expect(plain.setRate?.rate).toEqual([
      { limit: 100, interval: 1_000 },
      { limit: 5_000, interval: 86_400_000 },
    ]);
    expect(plain.keepsConfiguredRates).toBe(true);
    expect(read(headers, undefined, { ceiling: 'none' }).keepsConfiguredRates).toBe(false);
    expect(read(headers, undefined, { ceiling: '200/1s' }).keepsConfiguredRates).toBe(false);
    expect(read(headers, undefined, { followPolicy: false }).events).toEqual([]);
    expect(read(headers, undefined, { followPolicy: false }).keepsConfiguredRates).toBe(false);
    expect(read({}, undefined, { ceiling: '20/1s' }).setRate).toBeUndefined();
  });
});

describe('readServerLimits: what it reads', () => {
  const retryIn5 = { type: 'PAUSE', duration: 5_000 };

  it('a fetch Response, its status included', () => {
    const response = new Response(null, { status: 429, headers: { 'Retry-After': '5' } });
    const limits = readServerLimits(response, { now });
    expect(limits.status).toBe(429);
    expect(limits.pause).toEqual(retryIn5);
  });

  it('a Headers, a Map (any case), an array of pairs, a plain object with a list value', () => {
    expect(readServerLimits(new Headers({ 'retry-after': '5' }), { now, status: 429 }).pause).toEqual(retryIn5);
    expect(readServerLimits(new Map([['RETRY-AFTER', '5']]), { now, status: 429 }).pause).toEqual(retryIn5);
    expect(readServerLimits([['Retry-After', '5']], { now, status: 429 }).pause).toEqual(retryIn5);
    expect(readServerLimits({ 'retry-after': ['5'] }, { now, status: 429 }).pause).toEqual(retryIn5);
    expect(readServerLimits({ 'Retry-After': 5 }, { now, status: 429 }).pause).toEqual(retryIn5);
  });

  it("Node's IncomingMessage shape: headers and statusCode", () => {
    const limits = readServerLimits({ statusCode: 503, headers: { 'retry-after': '5' } }, { now });
    expect(limits.status).toBe(503);
    expect(limits.pause).toEqual(retryIn5);
  });

  it('the status option wins over the response status', () => {
    expect(readServerLimits({ status: 200, headers: { 'retry-after': '5' } }, { now, status: 429 }).pause).toEqual(
      retryIn5,
    );
  });

  it('hostile shapes: odd values are listed, an odd status is read as unknown, __proto__ and entries that are no pairs pass', () => {
    const headers = JSON.parse('{"__proto__": "x", "Retry-After": {"n": 5}, "RateLimit": null}');
    const limits = readServerLimits({ status: 1234, headers }, { now });
    expect(limits.status).toBeUndefined();
    expect(reasons(limits)).toEqual([
      'status: not an HTTP status (100 to 599): read as unknown',
      'retry-after: not a string, a number or a list of strings',
      'ratelimit: not a string, a number or a list of strings',
    ]);
    const pairs = [['Retry-After'], 'Retry-After: 5', null, [5, '5'], ['retry-after', '5']] as unknown as HeadersInput;
    expect(readServerLimits(pairs, { now, status: 429 }).pause).toEqual(retryIn5);
  });

  it('a response that says nothing asks for nothing', () => {
    const limits = readServerLimits(new Response('ok'), { now });
    expect(limits).toEqual({
      status: 200,
      pause: undefined,
      resumeAt: undefined,
      pauseFrom: undefined,
      setRate: undefined,
      keepsConfiguredRates: true,
      dimensions: {},
      dimension: 'requests',
      events: [],
      ignored: [],
    });
  });

  it('reads the clock once per response, Date.now by default', () => {
    let reads = 0;
    readServerLimits(
      { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(EPOCH_SECONDS + 5) },
      {
        now: () => {
          reads += 1;
          return NOW;
        },
      },
    );
    expect(reads).toBe(1);
    const limits = readServerLimits({ 'retry-after': '1' }, { status: 429 });
    expect(Math.abs((limits.resumeAt as number) - (Date.now() + 1_000))).toBeLessThan(1_000);
  });
});
