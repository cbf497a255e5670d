/**
 * Each mock provider over real sockets (examples/llm/mock-model-server.ts on 127.0.0.1, real timers), with
 * its 20-150 ms uplink and 5-40 ms downlink, against the client docs/llm-clients.md recommends for it
 * (examples/llm/provider-client.ts). Real time on a busy two-core machine stretches the transit beyond the
 * spread the client allows for, so the bounds are generous: the exact numbers are asserted in virtual
 * time (test/examples/provider-accounting.test.ts); here, that the same client over HTTP is refused
 * (almost) nothing and uses most of the quota.
 */
import { describe, expect, it } from 'vitest';
import { callModel, startMockModelServer } from '../../examples/llm/mock-model-server.js';
import { type ModelRequest, usedShare } from '../../examples/llm/model-limits.js';
import { NETWORK_JITTER, seeded } from '../../examples/llm/network.js';
import { PROVIDER_LIMITS, runClient } from '../../examples/llm/provider-client.js';

/**
 * The uplink's spread, and what a busy machine adds to it: a window's worth sent at once is read, parsed and
 * timed by one loaded process (load averages of 15 on two cores were seen), stretching its arrivals.
 */
const SPREAD = NETWORK_JITTER.uplinkMs[1] - NETWORK_JITTER.uplinkMs[0] + 400;

const third = (value: number | undefined) => (value === undefined ? undefined : Math.round(value / 3));

describe.each(['openai', 'anthropic', 'actual-usage'] as const)('over sockets, against the %s provider', (mode) => {
  it(
    'is refused at most 3 of 100 requests and uses at least 70% of the binding quota',
    { timeout: 120_000 },
    async () => {
      const { binding, ...stated } = PROVIDER_LIMITS[mode];
      // Windows of 3 s and a third of the virtual-time test's quotas: a run takes seconds, and a window's
      // worth sent at once is about 20 requests.
      const limits = {
        ...stated,
        windowMs: 3_000,
        requests: third(stated.requests) as number,
        tokens: third(stated.tokens),
        inputTokens: third(stated.inputTokens),
        outputTokens: third(stated.outputTokens),
      };
      const server = await startMockModelServer({ ...limits, random: seeded(11), network: { random: seeded(12) } });
      try {
        const call = (request: ModelRequest) => callModel(server.url, request);
        const run = await runClient({ limits, call, jobs: 100, seed: 10, widenMs: SPREAD });
        // From the first arrival to the last, against the quota's rate over that time.
        const arrivals = server.limits.accepted.map((request) => request.at);
        const share = usedShare(server.limits, binding, arrivals[0] as number, (arrivals.at(-1) as number) + 1);
        console.log(
          `${mode} over sockets: ${run.answered} answered, ${run.refused} 429s, ${(100 * share).toFixed(1)}% used`,
        );
        expect(run.answered).toBe(100);
        expect(run.refused).toBeLessThanOrEqual(3);
        expect(share).toBeGreaterThanOrEqual(0.7);
      } finally {
        await server.close();
      }
    },
  );
});
