/**
 * Issue 36, the store over real sockets: two throttlers, each with its own Redis connection and store (as
 * two processes on one Redis), share one provider quota on the mock provider (examples/llm/mock-model-server.ts
 * on 127.0.0.1, real timers, the actual-usage mode: requests and tokens, each call settled to its usage),
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
const third = (value: number | undefined) => (value === undefined ? undefined : Math.round(value / 3));
const SPREAD = NETWORK_JITTER.uplinkMs[1] - NETWORK_JITTER.uplinkMs[0];

describe('two throttlers on one Redis store against one provider quota, over sockets', () => {
  it(
    'are refused at most 3 of 200 requests and use at least 80% of the binding quota',
    { timeout: 180_000 },
    async () => {
      const { binding, ...stated } = PROVIDER_LIMITS['actual-usage'];
      // Windows of 3 s and a third of the quotas, as test/examples/provider-sockets.test.ts: a run takes seconds.
      const limits = {
        ...stated,
        windowMs: 3_000,
        requests: third(stated.requests) as number,
        tokens: third(stated.tokens),
      };
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
            runClient({ limits, call, jobs: 100, seed: 30 + index, throttler: { store, transit: `${SPREAD}ms` } }),
          ),
        );
        const refused = runs.reduce((sum, run) => sum + run.refused, 0);
        const answered = runs.reduce((sum, run) => sum + run.answered, 0);
        // The steady part: from a window (plus the spread) after the first arrival to the last arrival.
        const arrivals = server.limits.accepted.map((request) => request.at).sort((a, b) => a - b);
        const from = (arrivals[0] as number) + limits.windowMs + SPREAD;
        const share = usedShare(server.limits, binding, from, (arrivals.at(-1) as number) + 1);
        const whole = usedShare(server.limits, binding, arrivals[0] as number, (arrivals.at(-1) as number) + 1);
        console.log(
          `two throttlers on one store: ${answered} answered, ${refused} 429s, ${(100 * share).toFixed(1)}% of ${binding} over the steady part (${(100 * whole).toFixed(1)}% from the first arrival)`,
        );
        expect(answered).toBe(200);
        expect(refused).toBeLessThanOrEqual(3);
        expect(share).toBeGreaterThanOrEqual(0.8);
      } finally {
        for (const store of stores) await store.close();
        for (const redis of connections) redis.disconnect();
        await server.close();
      }
    },
  );
});
