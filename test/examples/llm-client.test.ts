/**
 * The client of examples/llm-client.ts in virtual time, against the mock model server's limits
 * (examples/llm/model-limits.ts) answered at once, without HTTP and in one process, without the store
 * (the two processes on one store are run in test/examples.test.ts; the store's dimensions and settle are
 * tested against an oracle in test/redis/): one throttler with
 * `rate: { requests, tokens }`, each request costing `{ requests: 1, tokens: estimate }` and settled to
 * the answer's `usage.total_tokens`, hearing every answer (`serverLimits`). With estimates that bound the
 * actual tokens and the server judging at the instant the throttler decides, nothing is refused; settling
 * gives back what the estimates held, so the actual tokens fill the windows. Without settling (the same
 * throttler, estimates only), they fill only what the estimates leave.
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

async function run(jobs: number, seed: number, settled: boolean) {
  const random = seeded(seed);
  const server = new ModelLimits({ ...LIMITS, random: seeded(seed + 1) });
  const listen = serverLimits((answer: ModelAnswer) => answer, { providerWindow: '1s', followPolicy: false });
  const llm = createThrottler({
    rate: { requests: '30/1s', tokens: '6000/1s' },
    strategy: 'sliding-window',
    serverLimits: listen,
  });
  const settle = (answer: ModelAnswer): Record<string, number> =>
    answer.usage === undefined ? { requests: 0, tokens: 0 } : { tokens: answer.usage.total_tokens };
  let estimated = 0;
  const answers = await Promise.all(
    Array.from({ length: jobs }, async () => {
      const prompt = 50 + Math.floor(random() * 100);
      estimated += prompt + MAX_TOKENS;
      const ask = () => server.answer(now(), { prompt_tokens: prompt, max_tokens: MAX_TOKENS });
      const cost = { requests: 1, tokens: prompt + MAX_TOKENS };
      return llm.schedule(ask, settled ? { cost, settle } : { cost });
    }),
  );
  const finished = now();
  await llm.stop();
  return { server, answers, estimated, finished };
}

/** Tokens the server accepted per window, over the windows the run filled (the last, partial one left out). */
function fullWindowsUse(server: ModelLimits, finished: number): number {
  const full = Math.floor(finished / LIMITS.windowMs);
  const tokens = server.accepted.filter((request) => request.at < full * LIMITS.windowMs);
  return tokens.reduce((sum, request) => sum + request.tokens, 0) / (full * LIMITS.tokens);
}

describe('the LLM client of the example, in virtual time', () => {
  it('is never refused when its estimates bound the actual tokens; settled, the actual tokens fill the windows', async () => {
    const done = run(300, 1, true);
    await vi.advanceTimersByTimeAsync(60_000);
    const { server, answers, estimated, finished } = await done;
    expect(answers.map((answer) => answer.status).filter((status) => status !== 200)).toEqual([]);
    expect(server.refused).toEqual({ requests: 0, tokens: 0 });
    const used = tokensPerWindow(server.accepted, LIMITS.windowMs);
    const actual = server.accepted.reduce((sum, request) => sum + request.tokens, 0);
    expect(used.most).toBeLessThanOrEqual(LIMITS.tokens);
    // The estimates (prompt + max_tokens) are well above the actual tokens the model wrote...
    expect(actual / estimated).toBeLessThan(0.9);
    // ...and settled, the actual tokens still fill every full window to within one estimate of the limit.
    const share = fullWindowsUse(server, finished);
    expect(share).toBeGreaterThanOrEqual(0.95);
    console.log(
      `estimates ${estimated}, actual ${actual} (${(100 * (actual / estimated)).toFixed(0)}%); full windows used ${(100 * share).toFixed(1)}%, fullest ${used.most} of ${LIMITS.tokens}`,
    );
  });

  it('estimates alone fill only the share of the limit the actual tokens are of the estimates', async () => {
    const done = run(300, 1, false);
    await vi.advanceTimersByTimeAsync(60_000);
    const { server, estimated, finished } = await done;
    const actual = server.accepted.reduce((sum, request) => sum + request.tokens, 0);
    expect(server.refused).toEqual({ requests: 0, tokens: 0 });
    expect(fullWindowsUse(server, finished)).toBeLessThanOrEqual(actual / estimated + 0.01);
  });
});
