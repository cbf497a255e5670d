/**
 * Each mock provider's accounting (examples/llm/model-limits.ts) against the client docs/llm-clients.md
 * recommends for it (examples/llm/provider-client.ts), in virtual time over the simulated network
 * (examples/llm/simulated-network.ts): every request held 20-150 ms before the provider counts it and the
 * answer 5-40 ms, drawn from a seed. At the provider's stated limits: no 429, and at least 95% of what the
 * provider lets through in the binding quota used over the steady part (from a window after the first
 * answer to the last). Also what settling against OpenAI, which gives nothing back, costs: the 429s.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ModelLimits, type ProviderMode, usedShare } from '../../examples/llm/model-limits.js';
import { NETWORK_JITTER, seeded } from '../../examples/llm/network.js';
import { type ClientOptions, PROVIDER_LIMITS, runClient } from '../../examples/llm/provider-client.js';
import { simulateProvider } from '../../examples/llm/simulated-network.js';
import { restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** The uplink's spread: sent in one order, counted up to this much closer together. */
const SPREAD = NETWORK_JITTER.uplinkMs[1] - NETWORK_JITTER.uplinkMs[0];

interface Outcome {
  refused: number;
  answered: number;
  share: number;
  limits: ModelLimits;
}

async function run(mode: ProviderMode, seed: number, client: Partial<ClientOptions> = {}): Promise<Outcome> {
  const { binding, ...limits } = PROVIDER_LIMITS[mode];
  const provider = simulateProvider({ ...limits, random: seeded(seed + 1), network: { random: seeded(seed + 2) } });
  let done = false;
  const running = runClient({ limits, call: provider.call, jobs: 600, seed, widenMs: SPREAD, ...client }).finally(
    () => {
      done = true;
    },
  );
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

it.skip('token bucket', { timeout: 60_000 }, async () => {
  for (const widenMs of [0, SPREAD]) {
    const o = await run('anthropic', 1, { widenMs, throttler: { strategy: 'token-bucket' } });
    console.log('token-bucket widen', widenMs, o.refused, o.share, o.limits.refused);
  }
});

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
