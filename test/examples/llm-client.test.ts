/**
 * The client of examples/llm-client.ts in one process and in virtual time, against the mock model
 * server's limits (examples/llm/model-limits.ts) answered at once, without HTTP: a requests throttler
 * and a tokens throttler charging each request's estimate, both hearing every answer (`serverLimits`).
 * With estimates that bound the actual tokens and the server judging at the instant the throttlers
 * decide, nothing is refused, and what the estimates hold back is measured.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ModelAnswer, ModelLimits, tokensPerWindow } from '../../examples/llm/model-limits.js';
import { createThrottler } from '../../src/index.js';
import { serverLimits } from '../../src/server-limits/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const LIMITS = { requests: 30, tokens: 6_000, windowMs: 1_000 };
const MAX_TOKENS = 200;

/** A seeded generator, so a failure replays. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

async function run(jobs: number, seed: number) {
  const random = seeded(seed);
  const server = new ModelLimits({ ...LIMITS, random: seeded(seed + 1) });
  const listen = serverLimits((answer: ModelAnswer) => answer, { providerWindow: '1s', followPolicy: false });
  // Seam: with rate: { requests, tokens } and settle, one throttler, each request costing
  // { requests: 1, tokens: estimate } and settled to { tokens: answer.usage.total_tokens }; then the mean
  // use per window below rises towards the limit, and this test asserts it.
  const requests = createThrottler({ rate: '30/1s', strategy: 'sliding-window', serverLimits: listen });
  const tokens = createThrottler({ rate: '6000/1s', strategy: 'sliding-window', serverLimits: listen });
  let estimated = 0;
  const answers = await Promise.all(
    Array.from({ length: jobs }, async () => {
      const prompt = 50 + Math.floor(random() * 100);
      estimated += prompt + MAX_TOKENS;
      const ask = () => server.answer(now(), { prompt_tokens: prompt, max_tokens: MAX_TOKENS });
      return tokens.schedule(() => requests.schedule(ask), { cost: prompt + MAX_TOKENS });
    }),
  );
  await Promise.all([requests.stop(), tokens.stop()]);
  return { server, answers, estimated };
}

describe('the LLM client of the example, in virtual time', () => {
  it('is never refused when its estimates bound the actual tokens, and uses what they leave', async () => {
    const done = run(200, 1);
    await vi.advanceTimersByTimeAsync(60_000);
    const { server, answers, estimated } = await done;
    expect(answers.map((answer) => answer.status).filter((status) => status !== 200)).toEqual([]);
    expect(server.refused).toEqual({ requests: 0, tokens: 0 });
    const used = tokensPerWindow(server.accepted, LIMITS.windowMs);
    const actual = server.accepted.reduce((sum, request) => sum + request.tokens, 0);
    expect(used.most).toBeLessThanOrEqual(LIMITS.tokens);
    // The estimates (prompt + max_tokens) fill each window; the actual tokens are what the model wrote.
    const share = actual / estimated;
    expect(share).toBeLessThan(0.9);
    expect(used.mean / LIMITS.tokens).toBeLessThan(0.9);
    console.log(
      `estimates ${estimated}, actual ${actual} (${(100 * share).toFixed(0)}%); tokens per window: most ${used.most}, mean ${used.mean.toFixed(0)} of ${LIMITS.tokens}`,
    );
  });
});
