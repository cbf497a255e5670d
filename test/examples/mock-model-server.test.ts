/**
 * The mock language-model provider (examples/llm/): each mode's accounting against a brute-force oracle, in
 * virtual time (the limits take the time of each request), and its headers as the server-limits reader
 * reads them, over one real HTTP round trip (nothing timed).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callModel, startMockModelServer } from '../../examples/llm/mock-model-server.js';
import {
  goDuration,
  type ModelAnswer,
  ModelLimits,
  type ProviderMode,
  promptOfTokens,
  tokensPerWindow,
} from '../../examples/llm/model-limits.js';
import { NO_NETWORK_DELAY } from '../../examples/llm/network.js';
import { readServerLimits } from '../../src/server-limits/index.js';
import { readGoDuration } from '../../src/server-limits/provider-times.js';
import { runs } from '../support/property-runs.js';

const WINDOW = 1_000;

const step = fc.record({
  gap: fc.integer({ min: 0, max: 400 }),
  prompt: fc.integer({ min: 0, max: 300 }),
  most: fc.integer({ min: 1, max: 300 }),
  draw: fc.double({ min: 0, max: 0.999, noNaN: true }),
});
type Step = { gap: number; prompt: number; most: number; draw: number };

const body = (next: Step) => ({
  messages: [{ role: 'user', content: promptOfTokens(next.prompt) }],
  max_tokens: next.most,
});
const written = (next: Step) => Math.round(next.most * (0.3 + 0.7 * next.draw));

/** Sliding windows (`'openai'`, `'actual-usage'`): a request fits when both windows of what was counted have room. */
function slidingOracle(mode: 'openai' | 'actual-usage', steps: Step[], requestLimit: number): void {
  let draw = 0;
  const limits = new ModelLimits({ mode, requests: requestLimit, tokens: 1_000, windowMs: WINDOW, random: () => draw });
  const counted: Array<{ at: number; tokens: number }> = [];
  let at = 0;
  for (const next of steps) {
    at += next.gap;
    draw = next.draw;
    const charge = mode === 'openai' ? Math.max(next.most, next.prompt) : next.prompt + written(next);
    const answer = limits.answer(at, body(next));
    if (charge > 1_000) {
      expect(answer.status).toBe(400);
      continue;
    }
    const recent = counted.filter((request) => request.at > at - WINDOW);
    const used = recent.reduce((sum, request) => sum + request.tokens, 0);
    const fits = recent.length < requestLimit && used + charge <= 1_000;
    expect(answer.status).toBe(fits ? 200 : 429);
    const after = fits ? used + charge : used;
    expect(answer.headers['x-ratelimit-remaining-requests']).toBe(
      String(requestLimit - recent.length - (fits ? 1 : 0)),
    );
    expect(answer.headers['x-ratelimit-remaining-tokens']).toBe(String(1_000 - after));
    if (fits) {
      counted.push({ at, tokens: charge });
      expect(answer.usage).toEqual({
        prompt_tokens: next.prompt,
        completion_tokens: written(next),
        total_tokens: next.prompt + written(next),
      });
    } else {
      // Retry-After: at that time it would fit (and not a second earlier).
      const wait = Number(answer.headers['retry-after']) * 1000;
      const later = counted.filter((request) => request.at > at + wait - WINDOW);
      const laterUsed = later.reduce((sum, request) => sum + request.tokens, 0);
      expect(later.length < requestLimit && laterUsed + charge <= 1_000).toBe(true);
    }
  }
  const inWindows = limits.accepted.map((request) => ({ at: request.at, tokens: request.counted.tokens as number }));
  expect(tokensPerWindow(inWindows, WINDOW).most).toBeLessThanOrEqual(1_000);
}

/**
 * A token bucket full at the start, refilled at `limit` per window and never above it: by the reflection
 * of a path at its ceiling, its level is the least, over the start and the instant just before each event
 * (a take, or a refund given back), of limit + the refill since - the net taken since; and never above limit.
 */
function bucketLevel(events: Array<{ at: number; net: number }>, limit: number, now: number): number {
  let least = limit + (now * limit) / WINDOW - events.reduce((sum, event) => sum + event.net, 0);
  events.forEach((event, index) => {
    const since = events.slice(index).reduce((sum, later) => sum + later.net, 0);
    least = Math.min(least, limit + ((now - event.at) * limit) / WINDOW - since);
  });
  return Math.min(limit, least);
}

function anthropicOracle(steps: Step[], generationMs: number): void {
  let draw = 0;
  const limits = new ModelLimits({
    mode: 'anthropic',
    requests: 4,
    inputTokens: 600,
    outputTokens: 400,
    windowMs: WINDOW,
    generationMs,
    random: () => draw,
  });
  const events: Record<'requests' | 'input' | 'output', Array<{ at: number; net: number }>> = {
    requests: [],
    input: [],
    output: [],
  };
  const refunds: Array<{ at: number; net: number }> = [];
  let at = 0;
  for (const next of steps) {
    at += next.gap;
    draw = next.draw;
    // Refunds due by now come first, in time order.
    for (const refund of refunds.filter((item) => item.at <= at)) events.output.push(refund);
    refunds.splice(0, refunds.length, ...refunds.filter((item) => item.at > at));
    events.output.sort((a, b) => a.at - b.at);
    const answer: ModelAnswer = limits.answer(at, body(next));
    if (next.prompt > 600 || next.most > 400) {
      expect(answer.status).toBe(400);
      continue;
    }
    const fits =
      bucketLevel(events.requests, 4, at) >= 1 - 1e-9 &&
      bucketLevel(events.input, 600, at) >= next.prompt - 1e-9 &&
      bucketLevel(events.output, 400, at) >= next.most - 1e-9;
    expect(answer.status).toBe(fits ? 200 : 429);
    if (!fits) continue;
    events.requests.push({ at, net: 1 });
    events.input.push({ at, net: next.prompt });
    events.output.push({ at, net: next.most });
    if (written(next) < next.most) {
      const refund = { at: at + generationMs, net: written(next) - next.most };
      // Done at once, it is given back before the answer's headers are written.
      if (generationMs === 0) events.output.push(refund);
      else refunds.push(refund);
    }
    expect(answer.usage).toEqual({ input_tokens: next.prompt, output_tokens: written(next) });
    const remaining = Math.floor(bucketLevel(events.output, 400, at) + 1e-9);
    expect(Number(answer.headers['anthropic-ratelimit-output-tokens-remaining'])).toBeCloseTo(
      Math.max(0, remaining),
      0,
    );
  }
}

describe('ModelLimits', () => {
  it.each(['openai', 'actual-usage'] as const)(
    '%s: counts each request in sliding windows as that provider does (oracle)',
    (mode) => {
      fc.assert(
        fc.property(fc.array(step, { maxLength: 150 }), fc.integer({ min: 1, max: 8 }), (steps, requestLimit) => {
          slidingOracle(mode, steps, requestLimit);
        }),
        { numRuns: runs(150) },
      );
    },
  );

  it('anthropic: token buckets, output reserved at max_tokens and given back when the model is done (oracle)', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), fc.integer({ min: 0, max: 600 }), (steps, generationMs) => {
        anthropicOracle(steps, generationMs);
      }),
      { numRuns: runs(150) },
    );
  });

  it('refuses with 400 a request that could never fit, and a malformed one', () => {
    const limits = new ModelLimits({ mode: 'actual-usage', requests: 5, tokens: 100, windowMs: WINDOW });
    expect(
      limits.answer(0, { messages: [{ role: 'user', content: promptOfTokens(120) }], max_tokens: 50 }).status,
    ).toBe(400);
    expect(limits.answer(0, { messages: [{ role: 'user', content: 'hi' }], max_tokens: -1 }).status).toBe(400);
    expect(limits.answer(0, JSON.parse('{"__proto__": 1}')).status).toBe(400);
  });

  it('writes durations as Go does, which the reader reads back', () => {
    expect([0, 20, 999, 1_000, 1_500, 60_000, 360_000, 3_600_000, 3_723_250].map(goDuration)).toEqual([
      '0s',
      '20ms',
      '999ms',
      '1s',
      '1.5s',
      '1m0s',
      '6m0s',
      '1h0m0s',
      '1h2m3.25s',
    ]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (ms) => {
        expect(readGoDuration(goDuration(ms))).toBeCloseTo(ms, 6);
      }),
    );
  });

  it('measures tokens per window: the fullest window and the mean', () => {
    const accepted = [0, 500, 1_000, 1_500].map((at) => ({ at, tokens: 100 }));
    expect(tokensPerWindow(accepted, WINDOW)).toEqual({ most: 200, mean: 160 });
  });
});

describe('startMockModelServer', () => {
  const modes: Array<[ProviderMode, Record<string, number>]> = [
    ['actual-usage', { requests: 2, tokens: 1_000 }],
    ['openai', { requests: 2, tokens: 1_000 }],
  ];
  it.each(modes)(
    '%s: answers with usage and OpenAI headers, which readServerLimits reads; a 429 with retry-after',
    async (mode, quotas) => {
      let now = 0;
      const server = await startMockModelServer({
        mode,
        ...quotas,
        requests: 2,
        windowMs: WINDOW,
        now: () => now,
        network: NO_NETWORK_DELAY,
      });
      try {
        const first = await callModel(server.url, {
          messages: [{ role: 'user', content: promptOfTokens(100) }],
          max_tokens: 100,
        });
        expect(first.status).toBe(200);
        expect(first.usage.total_tokens).toBe(first.usage.prompt_tokens + first.usage.completion_tokens);
        now = 250;
        await callModel(server.url, { messages: [{ role: 'user', content: 'hello' }], max_tokens: 10 });
        now = 400;
        const refused = await callModel(server.url, { messages: [{ role: 'user', content: 'hello' }], max_tokens: 10 });
        expect(refused.status).toBe(429);
        expect(refused.body.error?.type).toBe('rate_limit_error');
        const limits = readServerLimits(refused.headers, { providerWindow: '1s', status: refused.status });
        expect(limits.dimensions.requests).toMatchObject({ limit: 2, remaining: 0, resetIn: 850 });
        expect(limits.dimensions.tokens?.limit).toBe(1_000);
        expect(limits.ignored).toEqual([]);
        // Retry-After (1 s, rounded up from the 600 ms until the first request leaves) wins over the quota's reset.
        expect(limits.pause?.duration).toBe(1_000);
        expect(server.limits.refused).toEqual({ requests: 1, tokens: 0 });
      } finally {
        await server.close();
      }
    },
  );

  it("anthropic: Anthropic's usage and headers, resets as RFC 3339 date-times, which readServerLimits reads", async () => {
    const server = await startMockModelServer({
      mode: 'anthropic',
      requests: 2,
      inputTokens: 1_000,
      outputTokens: 500,
      windowMs: 60_000,
      now: () => 0,
      network: NO_NETWORK_DELAY,
    });
    try {
      const request = { messages: [{ role: 'user', content: promptOfTokens(100) }], max_tokens: 400 };
      const first = await callModel(server.url, request);
      expect(first.status).toBe(200);
      expect(first.usage.input_tokens).toBe(100);
      const output = first.usage.output_tokens as number;
      // The output not written is given back when the model is done (at once here: generationMs 0), before
      // the answer leaves, so its headers count what it wrote.
      expect(first.headers.get('anthropic-ratelimit-output-tokens-remaining')).toBe(String(500 - output));
      const second = await callModel(server.url, { ...request, max_tokens: 10 });
      expect(second.headers.get('anthropic-ratelimit-output-tokens-remaining')).toBe(
        String(500 - output - (second.usage.output_tokens as number)),
      );
      const refused = await callModel(server.url, { ...request, max_tokens: 10 });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('30');
      const limits = readServerLimits(refused.headers, { status: 429 });
      expect(limits.dimensions['output-tokens']?.limit).toBe(500);
      expect(limits.dimensions['input-tokens']?.limit).toBe(1_000);
      expect(limits.dimensions.requests).toMatchObject({ limit: 2, remaining: 0 });
      expect(limits.ignored).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
