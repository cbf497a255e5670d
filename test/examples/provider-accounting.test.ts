/**
 * Each mock provider's accounting (examples/llm/model-limits.ts) against the client docs/llm-clients.md
 * recommends for it (examples/llm/provider-client.ts), in virtual time over the simulated network
 * (examples/llm/simulated-network.ts): every request held 20-150 ms before the provider counts it and the
 * answer 5-40 ms, drawn from a seed; the client's transit measured from its round trips (the default with
 * `serverLimits`). At the provider's stated limits: no 429, and at least 95% of what the provider lets
 * through in the binding quota used over the steady part. Also what settling against OpenAI, which gives
 * nothing back, costs (the 429s), what no transit costs, and what `token-bucket` does against a bucket.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ModelLimits,
  type ModelLimitsOptions,
  type ProviderMode,
  usedShare,
} from '../../examples/llm/model-limits.js';
import { NETWORK_JITTER, seeded } from '../../examples/llm/network.js';
import { type ClientOptions, PROVIDER_LIMITS, runClient } from '../../examples/llm/provider-client.js';
import { simulateProvider } from '../../examples/llm/simulated-network.js';
import { restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** The uplink's spread: sent in one order, counted up to this much closer together (the steady part's unit). */
const SPREAD = NETWORK_JITTER.uplinkMs[1] - NETWORK_JITTER.uplinkMs[0];

interface Outcome {
  refused: number;
  answered: number;
  share: number;
  limits: ModelLimits;
}

async function run(
  mode: ProviderMode,
  seed: number,
  client: Partial<ClientOptions> = {},
  provided: Partial<ModelLimitsOptions> = {},
): Promise<Outcome> {
  const { binding, ...stated } = PROVIDER_LIMITS[mode];
  const limits = { ...stated, ...provided };
  const provider = simulateProvider({ ...limits, random: seeded(seed + 1), network: { random: seeded(seed + 2) } });
  let done = false;
  const running = runClient({ limits, call: provider.call, jobs: 600, seed, ...client }).finally(() => {
    done = true;
  });
  while (!done) await vi.advanceTimersByTimeAsync(1_000);
  const outcome = await running;
  const windowMs = limits.windowMs as number;
  const arrivals = provider.limits.accepted.map((request) => request.at);
  // The steady part: whole client windows (the provider's plus the spread), from the second (a bucket
  // starts full) to the last that ends before the last arrival.
  const period = windowMs + SPREAD;
  const from = (arrivals[0] as number) + period;
  const to = from + Math.floor(((arrivals.at(-1) as number) - from) / period) * period;
  return { ...outcome, share: usedShare(provider.limits, binding, from, to), limits: provider.limits };
}

describe.each(['openai', 'anthropic', 'actual-usage'] as const)('against the %s provider, 20-150 ms uplink', (mode) => {
  it('is refused nothing and uses at least 95% of what the provider lets through', { timeout: 60_000 }, async () => {
    for (const seed of [1, 2]) {
      const { refused, answered, share, limits } = await run(mode, seed);
      console.log(
        `${mode} seed ${seed}: ${answered} answered, ${refused} 429s, ${(100 * share).toFixed(1)}% used`,
        limits.refused,
      );
      expect(refused).toBe(0);
      expect(answered).toBe(600);
      expect(share).toBeGreaterThanOrEqual(0.95);
    }
  });
});

describe('without transit', () => {
  it("requests sent a window apart meet in one of the provider's windows: 429s", { timeout: 60_000 }, async () => {
    const { refused, share } = await run('openai', 1, { throttler: { transit: 0 } });
    console.log(`openai, transit 0, seed 1: ${refused} 429s, ${(100 * share).toFixed(1)}% used`);
    expect(refused).toBeGreaterThan(0);
  });
});

describe('settling against OpenAI, which gives nothing back', () => {
  it('sends into 429s: the client counts room the provider never gave back', { timeout: 60_000 }, async () => {
    for (const seed of [1, 2]) {
      // max_tokens generous beside the answers (from 10% of it): what settling appears to give back.
      const shape = { promptTokens: [20, 100], maxTokens: [500, 1_000] } as const;
      const right = await run('openai', seed, { shape }, { minCompletionShare: 0.1 });
      expect(right.refused).toBe(0);
      const { refused, answered, share } = await run(
        'openai',
        seed,
        { shape, settleTotal: true },
        { minCompletionShare: 0.1 },
      );
      console.log(
        `openai settled to usage.total_tokens, seed ${seed}: ${refused} 429s for ${answered} answered, ${(100 * share).toFixed(1)}% used; not settled: ${right.refused} 429s, ${(100 * right.share).toFixed(1)}% used`,
      );
      expect(refused).toBeGreaterThan(0);
    }
  });
});

describe('against the anthropic provider, bursts after idle', () => {
  it('a full bucket there, sends in windows here: refused nothing', { timeout: 60_000 }, async () => {
    for (const seed of [1, 2]) {
      const { refused, answered } = await run('anthropic', seed, { waves: 4, idleMs: 12_000 });
      expect(answered).toBe(600);
      expect(refused).toBe(0);
    }
  });

  it(
    "strategy 'token-bucket': paced at the refill when busy; after idle its own full bucket may send one request past the provider's",
    { timeout: 60_000 },
    async () => {
      const bucket = { widenMs: 0, throttler: { strategy: 'token-bucket' } };
      for (const seed of [1, 2]) {
        const busy = await run('anthropic', seed, bucket);
        const waves = await run('anthropic', seed, { ...bucket, waves: 4, idleMs: 12_000 });
        console.log(
          `anthropic, token-bucket, seed ${seed}: busy ${busy.refused} 429s, ${(100 * busy.share).toFixed(1)}% used; in 4 waves 12 s apart ${waves.refused} 429s`,
          waves.limits.refused,
        );
        expect(busy.refused).toBe(0);
      }
    },
  );
});
