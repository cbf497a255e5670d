/**
 * The mock language-model server (examples/llm/): its hidden limits against a brute-force oracle, in
 * virtual time (the limits take the time of each request), and its headers as the server-limits
 * reader reads them, over one real HTTP round trip (nothing timed).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callModel, startMockModelServer } from '../../examples/llm/mock-model-server.js';
import { goDuration, ModelLimits, tokensPerWindow } from '../../examples/llm/model-limits.js';
import { readServerLimits } from '../../src/server-limits/index.js';
import { readGoDuration } from '../../src/server-limits/provider-times.js';
import { runs } from '../support/property-runs.js';

const WINDOW = 1_000;

describe('ModelLimits', () => {
  it('accepts a request exactly when it fits both sliding windows of what was accepted (oracle)', () => {
    const request = fc.record({
      gap: fc.integer({ min: 0, max: 400 }),
      prompt: fc.integer({ min: 0, max: 300 }),
      most: fc.integer({ min: 0, max: 300 }),
      draw: fc.double({ min: 0, max: 0.999, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(request, { maxLength: 200 }), fc.integer({ min: 1, max: 8 }), (requests, requestLimit) => {
        let draw = 0;
        const limits = new ModelLimits({ requests: requestLimit, tokens: 1_000, windowMs: WINDOW, random: () => draw });
        const accepted: Array<{ at: number; tokens: number }> = [];
        let at = 0;
        for (const next of requests) {
          at += next.gap;
          draw = next.draw;
          const answer = limits.answer(at, { prompt_tokens: next.prompt, max_tokens: next.most });
          const completion = Math.round(next.most * (0.3 + 0.7 * next.draw));
          const recent = accepted.filter((request) => request.at > at - WINDOW);
          const used = recent.reduce((sum, request) => sum + request.tokens, 0);
          const fits = recent.length < requestLimit && used + next.prompt + completion <= 1_000;
          expect(answer.status).toBe(fits ? 200 : 429);
          const after = fits ? [...recent, { at, tokens: next.prompt + completion }] : recent;
          expect(answer.headers['x-ratelimit-remaining-requests']).toBe(String(requestLimit - after.length));
          expect(answer.headers['x-ratelimit-remaining-tokens']).toBe(
            String(1_000 - after.reduce((sum, request) => sum + request.tokens, 0)),
          );
          if (fits) {
            accepted.push({ at, tokens: next.prompt + completion });
            expect(answer.usage?.total_tokens).toBe(next.prompt + completion);
            // Never above the caller's estimate.
            expect(answer.usage?.total_tokens).toBeLessThanOrEqual(next.prompt + next.most);
          } else {
            // Retry-After: at that time it would fit (and not a second earlier).
            const wait = Number(answer.headers['retry-after']) * 1000;
            const later = accepted.filter((request) => request.at > at + wait - WINDOW);
            const laterUsed = later.reduce((sum, request) => sum + request.tokens, 0);
            expect(later.length < requestLimit && laterUsed + next.prompt + completion <= 1_000).toBe(true);
          }
        }
        expect(tokensPerWindow(limits.accepted, WINDOW).most).toBeLessThanOrEqual(1_000);
      }),
      { numRuns: runs(200) },
    );
  });

  it('refuses with 400 a request that could never fit, and a malformed one', () => {
    const limits = new ModelLimits({ requests: 5, tokens: 100, windowMs: WINDOW });
    expect(limits.answer(0, { prompt_tokens: 60, max_tokens: 50 }).status).toBe(400);
    expect(limits.answer(0, { prompt_tokens: -1, max_tokens: 5 }).status).toBe(400);
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
  it('answers with usage and OpenAI-style headers that readServerLimits reads by dimension; a 429 with retry-after', async () => {
    let now = 0;
    const server = await startMockModelServer({ requests: 2, tokens: 1_000, windowMs: WINDOW, now: () => now });
    try {
      const first = await callModel(server.url, { prompt_tokens: 100, max_tokens: 100 });
      expect(first.status).toBe(200);
      const total = first.usage?.total_tokens as number;
      expect(total).toBe((first.usage?.prompt_tokens as number) + (first.usage?.completion_tokens as number));
      now = 250;
      await callModel(server.url, { prompt_tokens: 10, max_tokens: 10 });
      now = 400;
      const refused = await callModel(server.url, { prompt_tokens: 10, max_tokens: 10 });
      expect(refused.status).toBe(429);
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
  });
});
