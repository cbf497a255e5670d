/**
 * The providers' own fields, read from the header sets their documentation shows
 * (https://platform.openai.com/docs/guides/rate-limits, https://docs.anthropic.com/en/api/rate-limits),
 * each quota in its dimension, then applied to a throttler in virtual time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { createThrottler, throttlerMachine } from '../../src/index.js';
import type { HeadersInput } from '../../src/server-limits/header-fields.js';
import {
  applyServerLimits,
  type ReadServerLimitsOptions,
  readServerLimits,
  type ServerLimits,
  serverLimits,
} from '../../src/server-limits/index.js';
import { expectOptionError } from '../support/option-error.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime, now as virtualNow } from '../support/virtual-time.js';

/** 2025-01-15 14:23:00 UTC, the moment the Anthropic examples below are written at. */
const NOW = Date.UTC(2025, 0, 15, 14, 23, 0);
const now = () => NOW;
const MINUTE = 60_000;

const read = (headers: HeadersInput, options: ReadServerLimitsOptions = {}, status?: number): ServerLimits =>
  readServerLimits(status === undefined ? headers : { status, headers }, { now, ...options });

const reasons = (limits: ServerLimits) => limits.ignored.map((entry) => `${entry.field}: ${entry.reason}`);

/** OpenAI's documented example ("Rate limits in headers"). */
const OPENAI_EXAMPLE = {
  'x-ratelimit-limit-requests': '60',
  'x-ratelimit-limit-tokens': '150000',
  'x-ratelimit-remaining-requests': '59',
  'x-ratelimit-remaining-tokens': '149984',
  'x-ratelimit-reset-requests': '1s',
  'x-ratelimit-reset-tokens': '6m0s',
};

/** Anthropic's fields (its "Response headers" table), on a 429 for output tokens, with the response's Date. */
const ANTHROPIC_429 = {
  date: 'Wed, 15 Jan 2025 14:23:00 GMT',
  'retry-after': '15',
  'anthropic-ratelimit-requests-limit': '50',
  'anthropic-ratelimit-requests-remaining': '49',
  'anthropic-ratelimit-requests-reset': '2025-01-15T14:23:01Z',
  'anthropic-ratelimit-tokens-limit': '48000',
  'anthropic-ratelimit-tokens-remaining': '0',
  'anthropic-ratelimit-tokens-reset': '2025-01-15T14:23:15Z',
  'anthropic-ratelimit-input-tokens-limit': '40000',
  'anthropic-ratelimit-input-tokens-remaining': '39000',
  'anthropic-ratelimit-input-tokens-reset': '2025-01-15T14:23:02Z',
  'anthropic-ratelimit-output-tokens-limit': '8000',
  'anthropic-ratelimit-output-tokens-remaining': '0',
  'anthropic-ratelimit-output-tokens-reset': '2025-01-15T14:23:15.500Z',
};

describe('OpenAI: x-ratelimit-{limit,remaining,reset}-{requests,tokens}', () => {
  it("reads the documented example into two dimensions; the requests' limit is the rate, per minute", () => {
    const limits = read(OPENAI_EXAMPLE);
    expect(limits.dimensions).toEqual({
      requests: {
        dimension: 'requests',
        provider: 'openai',
        limit: 60,
        remaining: 59,
        resetIn: 1_000,
        rate: { limit: 60, interval: MINUTE },
      },
      tokens: {
        dimension: 'tokens',
        provider: 'openai',
        limit: 150_000,
        remaining: 149_984,
        resetIn: 360_000,
        rate: { limit: 150_000, interval: MINUTE },
      },
    });
    expect(limits.setRate).toEqual({ type: 'SET_RATE', rate: [{ limit: 60, interval: MINUTE }] });
    expect(limits.pause).toBeUndefined();
    expect(limits.ignored).toEqual([]);
  });

  it("follows the tokens' limit for a throttler whose cost is tokens (dimension: 'tokens')", () => {
    const limits = read(OPENAI_EXAMPLE, { dimension: 'tokens', providerWindow: '1m' });
    expect(limits.setRate).toEqual({ type: 'SET_RATE', rate: [{ limit: 150_000, interval: MINUTE }] });
    // Anthropic's dimensions are absent from an OpenAI response: no rate for them.
    expect(read(OPENAI_EXAMPLE, { dimension: 'output-tokens' }).setRate).toBeUndefined();
  });

  it('remaining 0 pauses until that reset; the longest of the exhausted quotas wins', () => {
    const spent = { ...OPENAI_EXAMPLE, 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '20ms' };
    expect([read(spent).pause, read(spent).pauseFrom]).toEqual([
      { type: 'PAUSE', duration: 20 },
      'x-ratelimit-reset-requests',
    ]);
    const both = { ...spent, 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '1m2.5s' };
    expect([read(both).pause?.duration, read(both).pauseFrom]).toEqual([62_500, 'x-ratelimit-reset-tokens']);
    // A tokens quota spent pauses a requests throttler too: the server refuses every call until then.
    const tokensOnly = { ...OPENAI_EXAMPLE, 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '1.5s' };
    expect(read(tokensOnly).pause).toEqual({ type: 'PAUSE', duration: 1_500 });
  });

  it('reads the forms seen in the field: sub-second resets, an hour, bare seconds (Azure OpenAI)', () => {
    const reset = (text: string) => read({ 'x-ratelimit-reset-requests': text }).dimensions.requests?.resetIn;
    expect(['12ms', '1h2m3.5s', '0s', '17', '0.5', '2m', '.5s'].map(reset)).toEqual([
      12, 3_723_500, 0, 17_000, 500, 120_000, 500,
    ]);
  });

  it('lists every bad value, with its field and why, and uses the rest', () => {
    const limits = read(
      {
        'x-ratelimit-limit-requests': '-1',
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': 'soon',
        'x-ratelimit-limit-tokens': '0',
        'x-ratelimit-remaining-tokens': '12.5',
        'x-ratelimit-reset-tokens': '30000h',
      },
      {},
      429,
    );
    expect(reasons(limits)).toEqual([
      'x-ratelimit-limit-requests: not a whole number, 0 or more',
      'x-ratelimit-reset-requests: not a duration such as 1s, 6m0s or 20ms',
      'x-ratelimit-limit-tokens: a limit of 0 is no rate (a pause comes from remaining 0)',
      'x-ratelimit-remaining-tokens: not a whole number, 0 or more',
      'x-ratelimit-reset-tokens: a reset over maxWindow (86400000 ms) away: not believed',
    ]);
    // Nothing usable: the 429's own pause, and no rate.
    expect([limits.pause?.duration, limits.pauseFrom, limits.setRate]).toEqual([1_000, 'status 429', undefined]);
    expect(reasons(read({ 'x-ratelimit-remaining-requests': '0' }))).toEqual([
      'x-ratelimit-remaining-requests: nothing left, but no reset time given',
    ]);
  });
});

describe('Anthropic: anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}', () => {
  it('reads four dimensions, resets measured from the response Date; retry-after wins on the 429', () => {
    const limits = read(ANTHROPIC_429, {}, 429);
    expect(
      Object.values(limits.dimensions).map((d) => [d.dimension, d.provider, d.limit, d.remaining, d.resetIn]),
    ).toEqual([
      ['requests', 'anthropic', 50, 49, 1_000],
      ['tokens', 'anthropic', 48_000, 0, 15_000],
      ['input-tokens', 'anthropic', 40_000, 39_000, 2_000],
      ['output-tokens', 'anthropic', 8_000, 0, 15_500],
    ]);
    expect([limits.pause?.duration, limits.pauseFrom]).toEqual([15_000, 'retry-after']);
    expect(limits.setRate).toEqual({ type: 'SET_RATE', rate: [{ limit: 50, interval: MINUTE }] });
    expect(limits.ignored).toEqual([]);
    // Without retry-after: the longest exhausted quota.
    const { 'retry-after': _, ...quiet } = ANTHROPIC_429;
    expect([read(quiet).pause?.duration, read(quiet).pauseFrom]).toEqual([
      15_500,
      'anthropic-ratelimit-output-tokens-reset',
    ]);
    expect(read(quiet, { dimension: 'output-tokens' }).setRate?.rate).toEqual([{ limit: 8_000, interval: MINUTE }]);
  });

  it('takes offsets and fractions; without a Date, measures from the reader clock', () => {
    const reset = (text: string) => read({ 'anthropic-ratelimit-requests-reset': text }).dimensions.requests?.resetIn;
    expect(['2025-01-15T15:23:30+01:00', '2025-01-15t14:23:00.25z', '2025-01-15 14:24:00Z'].map(reset)).toEqual([
      30_000, 250, 60_000,
    ]);
  });

  it('a reset in the past, absurd or not RFC 3339 is listed and ignored, never thrown', () => {
    const limits = read({
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': '2025-01-15T14:22:00Z',
      'anthropic-ratelimit-tokens-remaining': '0',
      'anthropic-ratelimit-tokens-reset': '2099-01-01T00:00:00Z',
      'anthropic-ratelimit-input-tokens-reset': '2025-02-30T00:00:00Z',
      'anthropic-ratelimit-output-tokens-reset': 'Wed, 15 Jan 2025 14:24:00 GMT',
    });
    expect(reasons(limits)).toEqual([
      'anthropic-ratelimit-requests-reset: a reset 60 s in the past',
      'anthropic-ratelimit-tokens-reset: a reset over maxWindow (86400000 ms) away: not believed',
      'anthropic-ratelimit-input-tokens-reset: not an RFC 3339 date-time such as 2025-01-15T14:24:00Z',
      'anthropic-ratelimit-output-tokens-reset: not an RFC 3339 date-time such as 2025-01-15T14:24:00Z',
    ]);
    expect(limits.pause).toBeUndefined();
  });
});

describe('options', () => {
  it('dimension and providerWindow are checked, naming the option and the value', () => {
    expectOptionError(() => readServerLimits({}, { dimension: 'calls' as never }), {
      message: "dimension must be one of 'requests', 'tokens', 'input-tokens', 'output-tokens', got \"calls\"",
      option: 'dimension',
      value: 'calls',
    });
    expect(() => readServerLimits({}, { providerWindow: -1 })).toThrow(/providerWindow/);
    expectOptionError(() => readServerLimits({}, { providerWindow: '2d' }), {
      message: 'providerWindow must be at most maxWindow (86400000 ms), got "2d"',
      option: 'providerWindow',
      value: '2d',
    });
    expect(read(OPENAI_EXAMPLE, { providerWindow: '1d' }).setRate?.rate).toEqual([{ limit: 60, interval: 86_400_000 }]);
    // Under a maxWindow shorter than the default window, the limits are listed, not followed.
    const short = read(OPENAI_EXAMPLE, { maxWindow: '30s' });
    expect(short.setRate).toBeUndefined();
    expect(reasons(short)).toEqual([
      'x-ratelimit-limit-requests: a limit per providerWindow (60000 ms), over maxWindow: not followed',
      'x-ratelimit-reset-tokens: a reset over maxWindow (30000 ms) away: not believed',
      'x-ratelimit-limit-tokens: a limit per providerWindow (60000 ms), over maxWindow: not followed',
    ]);
  });

  it('a token throttler does not follow the IETF policies, which count requests: they are listed', () => {
    const limits = read({ ...OPENAI_EXAMPLE, 'ratelimit-policy': '"default";q=100;w=60' }, { dimension: 'tokens' });
    expect(limits.setRate?.rate).toEqual([{ limit: 150_000, interval: MINUTE }]);
    expect(reasons(limits)).toEqual([
      'ratelimit-policy: counts requests, not tokens (the dimension option): not followed',
    ]);
  });
});

describe('applied to a throttler, in virtual time', () => {
  beforeEach(useVirtualTime);
  afterEach(restoreRealTime);

  it('a machine: 60 a minute beside its own 10/1s, then a 429 pauses until the requests reset', () => {
    const target = createRecorder<Numbered>();
    const actor = createActor(throttlerMachine, {
      input: { rate: '10/1s', strategy: 'sliding-window', target: target.ref },
    }).start();
    applyServerLimits(actor, readServerLimits(OPENAI_EXAMPLE));
    for (let n = 1; n <= 62; n += 1) actor.send({ type: 'QUEUE', message: msg(n) });
    advance(59_000);
    // 10 a second for six seconds, then nothing until the minute's first ones leave the window.
    expect(target.received.length).toBe(60);
    expect(target.received[59]?.at).toBe(5_000);
    advance(1_000);
    expect(target.received.map((r) => r.at).slice(60)).toEqual([60_000, 60_000]);
    const spent = { ...OPENAI_EXAMPLE, 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '2.5s' };
    // Accepted, the throttler's own window not full (52 of 60): no pause (test/server-limits/overrun-pause.test.ts).
    expect(applyServerLimits(actor, readServerLimits(spent))).toEqual([]);
    // Refused: the server counts what the throttler's window does not, so its whole reset.
    const refused = readServerLimits(spent, { status: 429 });
    expect(applyServerLimits(actor, refused)).toEqual([{ type: 'PAUSE', duration: 2_500 }]);
    actor.send({ type: 'QUEUE', message: msg(63) });
    advance(70_000);
    expect(target.received.at(-1)).toMatchObject({ at: 62_500 });
    actor.stop();
  });

  it("the promise API with dimension 'tokens': a cost in tokens held to the stated tokens per minute", async () => {
    const throttler = createThrottler({
      rate: '100000/1m',
      strategy: 'sliding-window',
      serverLimits: serverLimits((value) => value, { dimension: 'tokens' }),
    });
    const starts: number[] = [];
    const headers = { ...OPENAI_EXAMPLE, 'x-ratelimit-limit-tokens': '30000' };
    const call = () => {
      starts.push(virtualNow());
      return { headers };
    };
    await throttler.schedule(call, { cost: 10_000 });
    // Its answer set [30000/1m, 100000/1m]: two more of 10 000 tokens fit this minute, the rest wait.
    const tasks = [1, 2, 3, 4].map(() => throttler.schedule(call, { cost: 10_000 }));
    await vi.advanceTimersByTimeAsync(61_000);
    await Promise.all(tasks);
    expect(starts).toEqual([0, 0, 0, MINUTE, MINUTE]);
    throttler.stop();
  });
});
