/**
 * Each mock provider over real sockets (examples/llm/mock-model-server.ts on 127.0.0.1, real timers), with
 * its 20-150 ms uplink and 5-40 ms downlink, against the client docs/llm-clients.md recommends for it
 * (examples/llm/provider-client.ts), its transit measured from its round trips (the default with
 * `serverLimits`), which follows what a busy machine adds to the network's own spread. Real time on a busy
 * two-core machine is no measure, so the bounds are generous: the exact numbers are asserted in virtual
 * time (test/examples/provider-accounting.test.ts); here, that the same client over HTTP is refused
 * (almost) nothing and uses most of the quota (measured: 0 429s and 91 to 97% at load averages of 23-25).
 */
import { describe, expect, it } from 'vitest';
import { callModel, startMockModelServer } from '../../examples/llm/mock-model-server.js';
import { type ModelRequest, usedShare } from '../../examples/llm/model-limits.js';
import { seeded } from '../../examples/llm/network.js';
import { PROVIDER_LIMITS, runClient } from '../../examples/llm/provider-client.js';

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
        const run = await runClient({ limits, call, jobs: 100, seed: 10 });
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
