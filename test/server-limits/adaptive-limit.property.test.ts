/**
 * `serverLimits({ adaptive })` against a server enforcing a hidden sliding window of L a second
 * (test/support/hidden-limit-server.ts), in virtual time, for L drawn between 5 and 500, then L halved
 * or tripled. The targets of issue 26 §3, each asserted as stated except one, named below:
 *
 * - 95% of L reached within 10 intervals, and held;
 * - once steady, 429s at most 0.5% of the requests;
 * - back to 95% of the new L within 3 intervals after L halves;
 * - after L triples: within 3 intervals when L >= PROBE_SPACING / 2 (125). Below, the target is missed,
 *   by design: finding that the limit rose takes a request above it, refused when it did not rise, and
 *   0.5% of the requests allows one such probe per 200 of them (250 here), that is per 250 / L intervals
 *   (50 at L = 5). Probing every 3 intervals at L = 5 would refuse 1 request in 16 (6.3%). So below 125
 *   the bound asserted for any L is ceil(250 / L) + 3 intervals, and the test says so; the intervals the
 *   docs quote (L = 100 among those back within 3) are asserted as measured.
 *
 * Answers come back at once, or (three cases) a round trip after the send; one case has the server
 * count fixed windows instead.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROBE_SPACING } from '../../src/server-limits/limit-search.js';
import { type IntervalCounts, startAdaptiveRun } from '../support/hidden-limit-server.js';
import { restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const MIN = 5;
const MAX = 2_000;

/** The first interval from which every one up to `end` accepts at least 95% of `limit`; -1 if none. */
function reachedAt(intervals: readonly IntervalCounts[], from: number, end: number, limit: number): number {
  let first = -1;
  for (let index = from; index < end; index += 1) {
    const counts = intervals[index] ?? { accepted: 0, refused: 0 };
    if (counts.accepted >= 0.95 * limit) {
      if (first === -1) first = index;
    } else {
      first = -1;
    }
  }
  return first === -1 ? -1 : first - from;
}

function refusedShare(intervals: readonly IntervalCounts[], from: number, end: number): number {
  let accepted = 0;
  let refused = 0;
  for (const counts of intervals.slice(from, end)) {
    accepted += counts.accepted;
    refused += counts.refused;
  }
  return refused / (accepted + refused);
}

/** What one run measured, for the assertions and for the report when one fails. */
interface Measured {
  reached: number;
  steadyShare: number;
  back: number;
  changedLimit: number;
}

async function measure(limit: number, change: 'halves' | 'triples', latency = 0): Promise<Measured> {
  const changedLimit = change === 'halves' ? Math.floor(limit / 2) : limit * 3;
  const backlog = 4 * Math.max(limit, changedLimit) + 20;
  const run = startAdaptiveRun(limit, { min: MIN, max: MAX, backlog, latency });
  // Long enough for 3000 requests once steady, so that one probe more or less moves the share little.
  const steadyEnd = Math.max(30, 10 + Math.ceil(3_000 / limit));
  await run.run(steadyEnd);
  run.server.limit = changedLimit;
  const afterEnd = steadyEnd + Math.ceil(PROBE_SPACING / Math.min(limit, changedLimit)) + 15;
  await run.run(afterEnd - steadyEnd);
  run.stop();
  expect(run.errors).toEqual([]);
  return {
    reached: reachedAt(run.intervals, 0, steadyEnd, limit),
    steadyShare: refusedShare(run.intervals, 10, steadyEnd),
    back: reachedAt(run.intervals, steadyEnd, afterEnd, changedLimit),
    changedLimit,
  };
}

/** The bound on intervals back after L triples: 3, or the probe spacing's, said above. */
const tripledBound = (limit: number) => (limit * 2 >= PROBE_SPACING ? 3 : Math.ceil(PROBE_SPACING / limit) + 3);

async function check(limit: number, change: 'halves' | 'triples', latency = 0): Promise<void> {
  const measured = await measure(limit, change, latency);
  const context = `L = ${limit}, then ${change}, round trip ${latency} ms: ${JSON.stringify(measured)}`;
  expect(measured.reached, context).toBeGreaterThanOrEqual(0);
  expect(measured.reached, context).toBeLessThanOrEqual(10);
  // What the docs say, beyond the target: from the first interval on.
  expect(measured.reached, context).toBe(0);
  expect(measured.steadyShare, context).toBeLessThanOrEqual(0.005);
  expect(measured.back, context).toBeGreaterThanOrEqual(0);
  expect(measured.back, context).toBeLessThanOrEqual(change === 'halves' ? 3 : tripledBound(limit));
  // The docs: after L halves, from the next interval on (answers at once; a round trip may take one more).
  if (change === 'halves' && latency === 0) expect(measured.back, context).toBeLessThanOrEqual(1);
}

describe('adaptive against a hidden sliding window', () => {
  it.each([
    [5, 'halves'],
    [5, 'triples'],
    [500, 'halves'],
    [500, 'triples'],
    [125, 'triples'],
  ] as const)('L = %i, then it %s', async (limit, change) => {
    await check(limit, change);
  });

  // Answers a round trip after the send: refusals of sends already made arrive after the limit moved.
  it.each([
    [50, 'halves', 20],
    [50, 'triples', 100],
  ] as const)('L = %i, then it %s, answers %i ms after the send', async (limit, change, latency) => {
    await check(limit, change, latency);
  });

  it('a server counting fixed windows instead: the same share of 429s once steady, answers 30 ms after the send', async () => {
    for (const limit of [20, 300]) {
      // 300: where a probe let through at the edge of two fixed windows set off a climb, before probes had to hold a window.
      const run = startAdaptiveRun(limit, { min: MIN, max: MAX, backlog: 4 * limit + 20, latency: 30, kind: 'fixed' });
      await run.run(50);
      run.stop();
      const context = `L = ${limit}: ${run.intervals.map((counts) => `${counts.accepted}/${counts.refused}`).join(' ')}`;
      expect(reachedAt(run.intervals, 0, 50, limit), context).toBeLessThanOrEqual(10);
      expect(refusedShare(run.intervals, 10, 50), context).toBeLessThanOrEqual(0.005);
    }
  });

  it('any L from 5 to 500, halved or tripled', async () => {
    const change = fc.constantFrom<'halves' | 'triples'>('halves', 'triples');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 5, max: 500 }), change, (limit, how) => check(limit, how)),
      { numRuns: 8 },
    );
  });

  it('after L triples, back as the docs quote: within 3 intervals at L = 100, 125 and 500; below, within the probe spacing', async () => {
    // The numbers docs/server-limits.md and docs/llm-clients.md quote (deterministic: virtual time, no
    // randomness): how far below 100 the 3-interval target is missed. Change the docs with them.
    const backs: Array<[number, number]> = [];
    for (const limit of [5, 20, 50, 100, 125, 500]) backs.push([limit, (await measure(limit, 'triples')).back]);
    for (const [limit, back] of backs) expect(back).toBeLessThanOrEqual(tripledBound(limit));
    expect(backs).toEqual([
      [5, 41],
      [20, 10],
      [50, 6],
      [100, 3],
      [125, 3],
      [500, 2],
    ]);
  });
});
