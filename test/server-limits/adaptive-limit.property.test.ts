/**
 * `serverLimits({ adaptive })` against a server enforcing a hidden sliding window of L a second
 * (test/support/hidden-limit-server.ts), in virtual time, for L drawn between 5 and 500, then L halved
 * or tripled. The targets of issue 26 §3, each asserted as stated except one, named below:
 *
 * - 95% of L reached within 10 intervals, and held;
 * - once steady, 429s at most 0.5% of the requests;
 * - back to 95% of the new L within 3 intervals after L halves;
 * - after L triples: within 3 intervals from L = 67 up, whenever between two probes it triples. Below,
 *   the target is missed, by design and for any search: finding that the limit rose takes a request
 *   above it, refused when it did not rise; to be back within 3 intervals a search must probe at least
 *   every 3, a refusal per 3L + 1 requests, over 0.5% below L = 67. This one probes every 3 intervals'
 *   worth of answers when that is 200 to 250 answers, else every 250 (0.4%), and climbs at once when a
 *   probe is accepted, so it is back within the probe spacing, ceil(250 / L) intervals below 67 (50 at
 *   L = 5; probing every 3 intervals there would refuse 1 request in 16); with a round trip, up to 3
 *   more. The intervals the docs quote are asserted as measured.
 *
 * Answers come back at once, or (three cases) a round trip after the send; one case has the server
 * count fixed windows instead.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROBE_INTERVALS, PROBE_SPACING, PROBE_SPACING_MIN } from '../../src/server-limits/limit-search.js';
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

/** A run at L = `limit`, changed after `extra` intervals more than the steady part needs (another moment between probes). */
async function measure(limit: number, change: 'halves' | 'triples', latency = 0, extra = 0): Promise<Measured> {
  const changedLimit = change === 'halves' ? Math.floor(limit / 2) : limit * 3;
  const backlog = 4 * Math.max(limit, changedLimit) + 20;
  const run = startAdaptiveRun(limit, { min: MIN, max: MAX, backlog, latency });
  // Long enough for 3000 requests once steady, so that one probe more or less moves the share little.
  const steadyEnd = Math.max(30, 10 + Math.ceil(3_000 / limit)) + extra;
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

/** From where the 3 intervals after L triples hold: 3 intervals hold PROBE_SPACING_MIN answers. */
const TRIPLED_FROM = Math.ceil(PROBE_SPACING_MIN / PROBE_INTERVALS);

/** Answers between probes at L (limit-search.ts): 3 intervals' worth when that is 200 to 250, else 250. */
function probeSpacing(limit: number): number {
  const answers = PROBE_INTERVALS * limit;
  return answers >= PROBE_SPACING_MIN ? Math.min(PROBE_SPACING, answers) : PROBE_SPACING;
}

/** The bound on intervals back after L triples, said above: the probe spacing's, a round trip adding up to 3. */
const tripledBound = (limit: number, latency: number) => Math.ceil(probeSpacing(limit) / limit) + (latency > 0 ? 3 : 0);

async function check(limit: number, change: 'halves' | 'triples', latency = 0, extra = 0): Promise<Measured> {
  const measured = await measure(limit, change, latency, extra);
  const context = `L = ${limit}, then ${change} ${extra} intervals later, round trip ${latency} ms: ${JSON.stringify(measured)}`;
  expect(measured.reached, context).toBeGreaterThanOrEqual(0);
  expect(measured.reached, context).toBeLessThanOrEqual(10);
  // What the docs say, beyond the target: from the first interval on.
  expect(measured.reached, context).toBe(0);
  expect(measured.steadyShare, context).toBeLessThanOrEqual(0.005);
  expect(measured.back, context).toBeGreaterThanOrEqual(0);
  expect(measured.back, context).toBeLessThanOrEqual(change === 'halves' ? 3 : tripledBound(limit, latency));
  // The target after L triples, from L = 67 (answers at once).
  if (change === 'triples' && latency === 0 && limit >= TRIPLED_FROM)
    expect(measured.back, context).toBeLessThanOrEqual(3);
  // The docs: after L halves, from the next interval on (answers at once; a round trip may take one more).
  if (change === 'halves' && latency === 0) expect(measured.back, context).toBeLessThanOrEqual(1);
  return measured;
}

describe('adaptive against a hidden sliding window', () => {
  // L tripled: below, at the L the docs quote and any L drawn.
  it.each([5, 500])('L = %i, then it halves', async (limit) => {
    await check(limit, 'halves');
  });

  // Answers a round trip after the send: refusals of sends already made arrive after the limit moved.
  it.each([
    [50, 'halves', 20],
    [50, 'triples', 100],
  ] as const)('L = %i, then it %s, answers %i ms after the send', async (limit, change, latency) => {
    await check(limit, change, latency);
  });

  it('a server counting fixed windows instead: the same share of 429s once steady, answers 30 ms after the send', async () => {
    for (const limit of [20, 67, 300]) {
      // 300: where a probe let through at the edge of two fixed windows set off a climb when any accepted probe
      // was believed (now it waits for the answers before it in its window to be sent again); 67: probes 3 intervals apart.
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
      fc.asyncProperty(fc.integer({ min: 5, max: 500 }), change, async (limit, how) => {
        await check(limit, how);
      }),
      { numRuns: 8 },
    );
  });

  it('after L triples, back within 3 intervals for any L from 67 to 500, whichever moment between probes it triples at', async () => {
    // Probes come at most 3 intervals apart there: 0 to 2 intervals more before the change cover each moment.
    expect(TRIPLED_FROM).toBe(67);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: TRIPLED_FROM, max: 500 }),
        fc.integer({ min: 0, max: 2 }),
        async (limit, extra) => {
          await check(limit, 'triples', 0, extra);
        },
      ),
      { numRuns: 10 },
    );
  });

  it('L = 5, 20, 50, 67, 100, 125, 500, then it triples: back as the docs quote, within 3 intervals from 67 up', async () => {
    // The numbers docs/server-limits.md and docs/llm-clients.md quote (deterministic: virtual time, no
    // randomness), at three moments between probes: how far below 67 the 3-interval target is missed.
    // Change the docs with them.
    const backs: Array<[number, number[]]> = [];
    for (const limit of [5, 20, 50, 67, 100, 125, 500]) {
      const moments: number[] = [];
      for (const extra of [0, 1, 2]) moments.push((await check(limit, 'triples', 0, extra)).back);
      backs.push([limit, moments]);
    }
    expect(backs).toEqual([
      [5, [40, 39, 38]],
      [20, [9, 8, 7]],
      [50, [5, 4, 3]],
      [67, [2, 1, 3]],
      [100, [2, 1, 3]],
      [125, [2, 1, 2]],
      [500, [1, 1, 1]],
    ]);
  });
});
