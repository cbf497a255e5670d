/**
 * readServerLimits over any header strings: it never throws on what a server sends, never asks
 * for a pause beyond maxPause or one ending in the past, and every rate it hands on is one the
 * throttler accepts. Then, against plain arithmetic as the oracle, the pause for Retry-After in
 * seconds and as an HTTP date, and for a reset in each of its three encodings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRates, type Rate } from '../../src/index.js';
import { type ReadServerLimitsOptions, readServerLimits, type ServerLimits } from '../../src/server-limits/index.js';
import { MAX_SERVER_RATES } from '../../src/server-limits/read-server-limits.js';
import { runs } from '../support/property-runs.js';

const NUM_RUNS = 1_000;
const FIELDS = [
  'Retry-After',
  'Date',
  'RateLimit',
  'RateLimit-Policy',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-RateLimit-Reset-After',
  'X-Rate-Limit-Remaining',
  'X-Rate-Limit-Reset',
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-requests',
  'x-ratelimit-reset-tokens',
  'anthropic-ratelimit-requests-limit',
  'anthropic-ratelimit-requests-remaining',
  'anthropic-ratelimit-output-tokens-remaining',
  'anthropic-ratelimit-output-tokens-reset',
];

/** Around 2025, give or take thirty years: some resets are then in the past, some far ahead. */
const nowArbitrary = fc.integer({ min: Date.UTC(1995, 0, 1), max: Date.UTC(2055, 0, 1) });

const numberText = fc.oneof(
  fc.nat().map(String),
  fc.integer().map(String),
  fc.double().map(String),
  fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String),
  fc.constantFrom(
    '0',
    '-0',
    '1e3',
    'NaN',
    'Infinity',
    '0x10',
    ' 5 ',
    '1.5',
    '9'.repeat(400),
    '999999999',
    '1000000000',
  ),
);

const dateText = fc
  .integer({ min: -8_640_000_000_000, max: 8_640_000_000_000 })
  .map((at) => new Date(at).toUTCString());

/** The providers' resets: RFC 3339 times (Anthropic) and Go durations (OpenAI), some malformed. */
const providerResetText = fc.oneof(
  fc.integer({ min: -8_640_000_000_000, max: 8_640_000_000_000 }).map((at) => new Date(at).toISOString()),
  fc
    .array(
      fc.tuple(
        fc.oneof(fc.nat().map(String), fc.double().map(String)),
        fc.constantFrom('h', 'm', 's', 'ms', 'µs', 'x', ''),
      ),
      {
        maxLength: 4,
      },
    )
    .map((parts) => parts.map(([value, unit]) => `${value}${unit}`).join('')),
);

/** Fragments of the structured fields, put together at random: mostly almost-valid. */
const structuredText = fc
  .array(
    fc.oneof(
      fc.constantFrom('"default"', 'default', '"a"', '100', '-1', '?1', ':cHM=:', '"un'),
      fc.constantFrom(';r=', ';t=', ';q=', ';w=', ';qu=', ';pk=', 'limit=', 'remaining=', 'reset='),
      numberText,
      fc.constantFrom(', ', ',', ';', '=', '"', ' ', '"requests"', '"content-bytes"'),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

/** Whole members, well-formed or nearly: policies, service limits, dictionary entries, with any numbers. */
const smallNumber = fc.oneof(fc.nat({ max: 100_000 }).map(String), numberText);
const memberText = fc.oneof(
  fc.tuple(fc.constantFrom('"a"', '"b"', 'c'), smallNumber, smallNumber).map(([n, q, w]) => `${n};q=${q};w=${w}`),
  fc.tuple(smallNumber, smallNumber).map(([q, w]) => `${q};w=${w}`),
  fc.tuple(fc.constantFrom('"a"', '"b"'), smallNumber, smallNumber).map(([n, r, t]) => `${n};r=${r};t=${t}`),
  fc.tuple(fc.constantFrom('"a"', '"b"'), fc.constantFrom('0', '1')).map(([n, r]) => `${n};r=${r}`),
  fc.tuple(fc.constantFrom('limit', 'remaining', 'reset'), smallNumber).map(([key, value]) => `${key}=${value}`),
);
const listText = fc.array(memberText, { minLength: 1, maxLength: 12 }).map((members) => members.join(', '));

const valueText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  numberText,
  dateText,
  providerResetText,
  structuredText,
  listText,
  listText,
);

const headersArbitrary = fc.dictionary(fc.constantFrom(...FIELDS), valueText, { maxKeys: FIELDS.length });

const optionsArbitrary = fc.record(
  {
    status: fc.oneof(fc.constantFrom(200, 301, 429, 503), fc.integer({ min: 100, max: 599 })),
    maxPause: fc.integer({ min: 1, max: 7_200_000 }),
    pauseOn429: fc.integer({ min: 0, max: 10_000 }),
    maxWindow: fc.integer({ min: 1, max: 2 * 86_400_000 }),
    ceiling: fc.constantFrom<ReadServerLimitsOptions['ceiling']>('10/1s', ['5/1s', '100/1m'], 'none', 'configured'),
    dimension: fc.constantFrom<ReadServerLimitsOptions['dimension']>('requests', 'tokens', 'output-tokens'),
  },
  { requiredKeys: [] },
);

function checkInvariants(limits: ServerLimits, now: number, options: ReadServerLimitsOptions): void {
  const maxPause = (options.maxPause as number | undefined) ?? 3_600_000;
  const maxWindow = (options.maxWindow as number | undefined) ?? 86_400_000;
  if (limits.pause !== undefined) {
    expect(limits.pause.duration).toBeGreaterThan(0);
    expect(limits.pause.duration).toBeLessThanOrEqual(maxPause);
    expect(limits.resumeAt).toBe(now + limits.pause.duration);
    expect(limits.pauseFrom).toEqual(expect.any(String));
  } else {
    expect(limits.resumeAt).toBeUndefined();
  }
  if (limits.setRate !== undefined) {
    const rates = parseRates(limits.setRate.rate as never);
    const { ceiling: given = 'configured' } = options;
    const ceiling = given === 'configured' || given === 'none' ? [] : parseRates(given);
    const same = (a: Rate) => (b: Rate) => a.limit === b.limit && a.interval === b.interval;
    // Every ceiling rate holds; the server's, all from it, are at most MAX_SERVER_RATES within maxWindow.
    for (const rate of ceiling) expect(rates.some(same(rate))).toBe(true);
    const stated = rates.filter((rate) => !ceiling.some(same(rate)));
    expect(stated.length).toBeLessThanOrEqual(MAX_SERVER_RATES);
    if (ceiling.length === 0) expect(stated.length).toBeGreaterThan(0);
    for (const rate of stated) expect(rate.interval).toBeLessThanOrEqual(maxWindow);
    expect(limits.keepsConfiguredRates).toBe(given === 'configured' && options.followPolicy !== false);
  }
  expect(limits.events).toEqual([limits.setRate, limits.pause].filter((event) => event !== undefined));
  for (const entry of limits.ignored) {
    expect(Object.values(entry).every((text) => typeof text === 'string')).toBe(true);
  }
}

describe('readServerLimits over any header strings', () => {
  it('never throws, never pauses beyond maxPause or into the past, hands on only valid rates', () => {
    fc.assert(
      fc.property(headersArbitrary, nowArbitrary, optionsArbitrary, (headers, now, options) => {
        const limits = readServerLimits(headers, { ...options, now: () => now });
        checkInvariants(limits, now, options);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('the same through a Headers object, any status, any case', () => {
    fc.assert(
      fc.property(headersArbitrary, nowArbitrary, fc.boolean(), (headers, now, upper) => {
        const fetchHeaders = new Headers();
        for (const [name, value] of Object.entries(headers)) {
          // Headers refuses some bytes (what a network stack would never hand over): those are left out.
          try {
            fetchHeaders.append(upper ? name.toUpperCase() : name, value);
          } catch {}
        }
        checkInvariants(readServerLimits(fetchHeaders, { now: () => now }), now, {});
      }),
      { numRuns: runs(NUM_RUNS / 2) },
    );
  });
});

describe('readServerLimits against arithmetic', () => {
  const maxPause = 3_600_000;
  const pauseOn429 = 1_000;
  /** What a 429 asking for `ms` should pause: a positive wait up to the cap, else the 429's own pause. */
  const expected = (ms: number) => (ms > 0 ? Math.min(ms, maxPause) : pauseOn429);

  it('Retry-After in seconds on a 429', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), nowArbitrary, (seconds, now) => {
        const limits = readServerLimits({ 'Retry-After': String(seconds) }, { status: 429, now: () => now });
        expect(limits.pause?.duration).toBe(expected(seconds * 1000));
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('Retry-After as an HTTP date on a 429, up to a day either side (whole seconds: what the format holds)', () => {
    fc.assert(
      fc.property(nowArbitrary, fc.integer({ min: -86_400_000, max: 86_400_000 }), (now, offset) => {
        const at = Math.floor((now + offset) / 1000) * 1000;
        const limits = readServerLimits({ 'Retry-After': new Date(at).toUTCString() }, { status: 429, now: () => now });
        expect(limits.pause?.duration).toBe(expected(at - now));
        expect(limits.ignored.length).toBe(at < now ? 1 : at - now > maxPause ? 1 : 0);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('X-RateLimit-Reset as seconds from now, epoch seconds or epoch ms, with nothing remaining', () => {
    const encodings = ['delta', 'epoch-seconds', 'epoch-ms'] as const;
    fc.assert(
      fc.property(
        // The sizes tell the encodings apart only for a present after 2001-09-09 (1e9 epoch seconds).
        fc.integer({ min: Date.UTC(2002, 0, 1), max: Date.UTC(2055, 0, 1) }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.constantFrom(...encodings),
        (now, seconds, encoding) => {
          const whole = Math.floor(now / 1000) * 1000;
          const reset = {
            delta: String(seconds),
            'epoch-seconds': String(whole / 1000 + seconds),
            'epoch-ms': String(whole + seconds * 1000),
          }[encoding];
          const limits = readServerLimits(
            { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset },
            { now: () => whole },
          );
          expect(limits.pause?.duration).toBe(Math.min(seconds * 1000, maxPause));
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});
