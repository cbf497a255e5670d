/**
 * `adaptive` against a hidden sliding window of L a second counted at arrival, each request's uplink drawn
 * uniformly from 20-150 ms and its downlink from 5-40 ms (seeded), in virtual time: once steady, what share of
 * L is used and what share of the requests is refused. What any client can reach there is argued and
 * measured in test/server-limits/jitter-bound.property.test.ts: 95% of L with <= 0.5% refused is out of
 * reach of even pacing below L = 100, and zero refusals whatever the uplinks costs J / (W + J) (11.5%).
 * The search reads a 429 a little below what held as jitter (limit-search.ts, `noisy`): a step down, the
 * limit paced, one step up per clean probe, so that 429s stay about one per probe spacing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAdaptiveRun } from '../support/hidden-limit-server.js';
import { restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** The least share of L held once steady, as measured (two seeds each) with room: see docs/server-limits.md. */
const LEAST_SHARE: Record<number, number> = { 10: 0.78, 30: 0.85, 100: 0.88, 300: 0.88 };

/** Once steady: the share of L used per interval and the share of requests refused. */
async function steadyRun(limit: number, transit: 0 | 'measured') {
  const run = startAdaptiveRun(limit, {
    min: 5,
    max: 1_000,
    backlog: Math.ceil(limit / 2) + 5,
    jitter: { uplink: [20, 150], downlink: [5, 40], seed: limit },
    transit,
  });
  await run.run(80);
  run.stop();
  expect(run.errors).toEqual([]);
  const steady = run.intervals.slice(20, 80);
  const accepted = steady.reduce((sum, one) => sum + one.accepted, 0);
  const refused = steady.reduce((sum, one) => sum + one.refused, 0);
  return {
    share: accepted / steady.length / limit,
    refused: refused / (accepted + refused),
    context: steady.map((one) => `${one.accepted}/${one.refused}`).join(' '),
  };
}

describe('adaptive against bare 429s with uplink jitter (20-150 ms), transit 0', () => {
  for (const limit of [10, 30, 100, 300]) {
    it(`L = ${limit}: at most 0.5% refused once steady, and the share measured`, async () => {
      const { share, refused, context } = await steadyRun(limit, 0);
      expect(refused, context).toBeLessThanOrEqual(0.005);
      expect(share, context).toBeGreaterThanOrEqual(LEAST_SHARE[limit] as number);
    });
  }
});

describe("with serverLimits' default, the transit measured (windows widened by the largest recent round trip)", () => {
  // The search counts answers over the widened window, as the throttler's own windows are: judged over the
  // bare interval it never saw its limit bind and stayed near min (L = 100 held 11%, L = 300 7%).
  for (const limit of [10, 30, 100, 300]) {
    it(`L = ${limit}: climbs to the widened limit (measured: 81% to 86% of L, 0.3% to 1% refused)`, async () => {
      const { share, refused, context } = await steadyRun(limit, 'measured');
      expect(refused, context).toBeLessThanOrEqual(0.012);
      expect(share, context).toBeGreaterThanOrEqual(0.75);
    });
  }
});
