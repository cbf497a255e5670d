/**
 * Issue 36, the store over real sockets: two throttlers, each with its own Redis connection and store (as
 * two processes on one Redis), share one provider quota on the mock provider (examples/llm/mock-model-server.ts
 * on 127.0.0.1, real timers, the actual-usage mode: requests and tokens per 6 s, each call settled to its usage),
 * with a 20-150 ms uplink and 5-40 ms downlink, at the provider's stated limits. A store takes a stated
 * transit (measured is refused with a store): the uplink's spread, 130 ms. Real time on a busy two-core
 * machine is no measure, so the bounds are generous; the numbers measured are in docs/llm-clients.md.
 */
import { describe, expect, it } from 'vitest';
import { callModel, startMockModelServer } from '../../examples/llm/mock-model-server.js';
import { type ModelRequest, usedShare } from '../../examples/llm/model-limits.js';
import { NETWORK_JITTER, seeded } from '../../examples/llm/network.js';
import { PROVIDER_LIMITS, runClient } from '../../examples/llm/provider-client.js';
import { createRedisStore } from '../../src/redis/index.js';
import { connectRedis, redisForFile } from '../support/redis.js';

const file = redisForFile();
/** Requests each throttler sends: about nine windows' worth for the two. */
const JOBS = 200;
const SPREAD = NETWORK_JITTER.uplinkMs[1] - NETWORK_JITTER.uplinkMs[0];

describe('two throttlers on one Redis store against one provider quota, over sockets', () => {
  it(
    'are refused at most 3 of 400 requests and use at least 85% of the binding quota over the steady part',
    { timeout: 180_000 },
    async () => {
      // The provider's stated limits (6 s windows, a minute scaled down 10x), where a transit of 130 ms costs 2%.
      const { binding, ...limits } = PROVIDER_LIMITS['actual-usage'];
      const windowMs = limits.windowMs as number;
      const server = await startMockModelServer({
        ...limits,
        random: seeded(21),
        network: { random: seeded(22) },
        stampedSends: true,
      });
      const name = file.fresh('provider-fleet');
      const connections = await Promise.all([connectRedis(), connectRedis()]);
      const stores = connections.map((redis) => createRedisStore({ redis, name }));
      try {
        const call = (request: ModelRequest) => callModel(server.url, request);
        const runs = await Promise.all(
          stores.map((store, index) =>
            runClient({
              limits,
              call,
              jobs: JOBS,
              seed: 30 + index,
              throttler: { store, transit: `${SPREAD}ms` },
            }),
          ),
        );
        const refused = runs.reduce((sum, run) => sum + run.refused, 0);
        const answered = runs.reduce((sum, run) => sum + run.answered, 0);
        // The steady part, as test/examples/provider-accounting.test.ts: whole windows (the provider's plus the
        // spread) from the second to the last that ends before the last arrival.
        const arrivals = server.limits.accepted.map((request) => request.at).sort((a, b) => a - b);
        const period = windowMs + SPREAD;
        const from = (arrivals[0] as number) + period;
        const to = from + Math.floor(((arrivals.at(-1) as number) - from) / period) * period;
        const share = usedShare(server.limits, binding, from, to);
        console.log(
          `two throttlers on one store: ${answered} answered, ${refused} 429s, ${(100 * share).toFixed(1)}% of ${binding} over the steady part`,
        );
        expect(answered).toBe(2 * JOBS);
        expect(refused).toBeLessThanOrEqual(3);
        expect(share).toBeGreaterThanOrEqual(0.85);
      } finally {
        for (const store of stores) await store.close();
        for (const redis of connections) redis.disconnect();
        await server.close();
      }
    },
  );
});
