import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import type { RateAudit } from '../../src/engine/audit/throttler-audit.js';
import { auditThrottler, type ThrottlerEmitted, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { parseRate, type Rate } from '../../src/rate/index.js';
import { runs } from '../support/property-runs.js';
import { createRecorder, msg } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';
import { bruteForceFindings, type TimedCost } from '../support/window-oracle.js';

/** FC_SEED (and FC_PATH) replay a run a report named. */
const REPLAY =
  process.env.FC_SEED === undefined
    ? {}
    : { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH, endOnFailure: true };

/**
 * The audit judges a settled delivery's windows again, however long after the delivery the settle comes
 * (within the longest interval in force, as the settle book keeps it): against a brute-force count over the
 * costs that stand in the end, per rate overall, per key and for the keys together (issue 33, 3.1).
 */

interface Job {
  arriveAt: number;
  key: string;
  estimate: number;
  actual: number;
  settleAfter: number | null;
}

interface Delivery extends TimedCost {
  key: string;
}

function run(input: Partial<ThrottlerInput>, jobs: readonly Job[], until: number) {
  const target = createRecorder();
  const actor = createActor(throttlerMachine, {
    input: { rate: '10/1s', ...input, target: target.ref } as ThrottlerInput,
  });
  const deliveries: Delivery[] = [];
  const refused: string[] = [];
  actor.on('*', (event) => {
    const emitted = event as ThrottlerEmitted;
    if (emitted.type === 'invalidEvent' || emitted.type === 'rejected') refused.push(JSON.stringify(emitted));
    if (emitted.type !== 'delivered') return;
    const index = (emitted.message as unknown as { n: number }).n;
    const job = jobs[index] as Job;
    const delivery = { at: emitted.at, cost: job.estimate, key: job.key };
    deliveries.push(delivery);
    if (job.settleAfter === null) return;
    setTimeout(() => {
      delivery.cost = job.actual;
      actor.send({ type: 'ACTUAL_COST', id: index, cost: job.actual });
    }, job.settleAfter);
  });
  actor.start();
  for (const [index, job] of jobs.entries()) {
    setTimeout(
      () => actor.send({ type: 'QUEUE', message: msg(index), id: index, cost: job.estimate, channel: job.key }),
      job.arriveAt,
    );
  }
  advance(until);
  const audit = auditThrottler(actor);
  actor.stop();
  return { deliveries, refused, audit };
}

function findings(line: RateAudit | undefined) {
  return line === undefined ? undefined : { most: line.most, mostAt: line.mostAt, windowsOver: line.windowsOver };
}

/** The keys line as the audit merges it: the fullest of any key (the earliest on a tie), the windows over summed. */
function keysOracle(deliveries: readonly Delivery[], rate: Rate) {
  const merged = { most: 0, mostAt: undefined as number | undefined, windowsOver: 0 };
  for (const key of new Set(deliveries.map((one) => one.key))) {
    const found = bruteForceFindings(
      deliveries.filter((one) => one.key === key),
      rate.limit,
      rate.interval,
    );
    const earlier = (found.mostAt ?? Infinity) < (merged.mostAt ?? Infinity);
    if (found.most > merged.most || (found.most === merged.most && earlier)) {
      merged.most = found.most;
      merged.mostAt = found.mostAt;
    }
    merged.windowsOver += found.windowsOver;
  }
  return merged;
}

const RATE_SETS = [
  ['10/1s', '100/1m'],
  ['5/500ms', '20/5s'],
  ['8/1s', '30/10s', '100/1m'],
];

describe('the audit with settles that come after the rate’s own interval (virtual time, brute force)', () => {
  beforeEach(useVirtualTime);
  afterEach(restoreRealTime);

  it("['10/1s', '100/1m']: an overrun settled 2.5 s after it went takes the 1 s window it was in over: reported", () => {
    // Ten in [0, 1000), one at 2000 (the 1 s windows of the ten have all closed), then the first settled at 2.
    const jobs: Job[] = Array.from({ length: 11 }, (_, index) => ({
      arriveAt: index === 10 ? 2_000 : index * 100,
      key: 'k',
      estimate: 1,
      actual: index === 0 ? 2 : 1,
      settleAfter: index === 0 ? 2_500 : null,
    }));
    const { deliveries, refused, audit } = run(
      { rate: ['10/1s', '100/1m'], keys: { rate: ['10/1s', '100/1m'] }, strategy: 'sliding-window' },
      jobs,
      3_000,
    );
    expect(refused).toEqual([]);
    expect(deliveries.map((one) => one.at)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 2_000]);
    const second = audit.rates.find((line) => line.scope === 'overall' && line.rate === '10/1s');
    // [0, 1000) holds 11: the window the delivery at 900 closed.
    expect(findings(second)).toEqual({ most: 11, mostAt: 900, windowsOver: 1 });
    expect(findings(second)).toEqual(bruteForceFindings(deliveries, 10, 1_000));
    // The key's own line too (still live: its minute-long window holds the deliveries).
    const key = audit.rates.find((line) => line.scope === 'key' && line.rate === '10/1s');
    expect(findings(key)).toEqual({ most: 11, mostAt: 900, windowsOver: 1 });
  });

  it('every rate overall, per key and for the keys together agrees with brute force, settles up to the longest interval late', () => {
    const scenario = fc.record({
      rates: fc.constantFrom(...RATE_SETS),
      keyRates: fc.constantFrom(...RATE_SETS),
      strategy: fc.constantFrom('sliding-window' as const, 'timer' as const, 'token-bucket' as const),
      jobs: fc.array(
        fc.record({
          arriveAt: fc.integer({ min: 0, max: 4_000 }),
          key: fc.constantFrom('a', 'b', 'c', '__proto__'),
          estimate: fc.integer({ min: 1, max: 4 }),
          actual: fc.integer({ min: 0, max: 12 }),
          // A share of the longest interval in force (a settle at its end is refused as too late).
          settleShare: fc.option(
            fc.oneof(fc.double({ min: 0, max: 0.05, noNaN: true }), fc.double({ min: 0, max: 0.999, noNaN: true })),
            {
              freq: 4,
            },
          ),
        }),
        { minLength: 1, maxLength: 45 },
      ),
    });
    fc.assert(
      fc.property(scenario, ({ rates, keyRates, strategy, jobs: drawn }) => {
        const longest = Math.max(...[...rates, ...keyRates].map((text) => parseRate(text).interval));
        const jobs = drawn.map(({ settleShare, ...job }) => ({
          ...job,
          settleAfter: settleShare === null ? null : Math.floor(settleShare * (longest - 1)),
        }));
        const { deliveries, refused, audit } = run(
          { rate: rates, keys: { rate: keyRates }, strategy, capacity: 100 },
          jobs,
          130_000,
        );
        expect(refused).toEqual([]);
        for (const text of rates) {
          const rate = parseRate(text);
          const line = audit.rates.find((one) => one.scope === 'overall' && one.rate === text);
          expect({ text, ...findings(line) }).toEqual({
            text,
            ...bruteForceFindings(deliveries, rate.limit, rate.interval),
          });
        }
        for (const text of keyRates) {
          const rate = parseRate(text);
          const line = audit.rates.find((one) => one.scope === 'keys' && one.rate === text);
          expect({ text, ...findings(line) }).toEqual({ text, ...keysOracle(deliveries, rate) });
        }
        if (
          strategy === 'sliding-window' &&
          jobs.every((job) => job.settleAfter === null || job.actual <= job.estimate)
        )
          expect(audit.windowsOver).toBe(0);
      }),
      { numRuns: runs(120), ...REPLAY },
    );
  });
});
