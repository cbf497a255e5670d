import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ThrottlerInput } from '../../src/index.js';
import { runJobs, seededJobs } from '../support/settle-harness.js';
import { bruteForceFindings, type TimedCost } from '../support/window-oracle.js';

/** FC_SEED (and FC_PATH) replay a run a report named. */
const REPLAY =
  process.env.FC_SEED === undefined
    ? {}
    : { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH, endOnFailure: true };

/**
 * Several dimensions and estimate-then-settle together (sliding window, virtual time): random rates per
 * dimension, estimates per dimension, actual costs at most the estimates given as a full map, a map naming one
 * dimension (the others keep their estimate), a plain number (that cost in each), or never. A brute force over
 * the costs that stand in the end scans every window of every rate of every dimension.
 */

type Costs = Map<string, number>;
interface Job {
  arriveAt: number;
  estimate: Costs;
  /** What the ACTUAL_COST says: a map (some dimensions), a number, or null (never settled). */
  settle: Costs | number | null;
  settleAfter: number;
}
interface Delivery {
  at: number;
  /** The cost per dimension that stands in the end. */
  cost: Costs;
}
type DimRates = Map<string, Array<{ limit: number; interval: number }>>;

function asRecord<T>(entries: Iterable<[string, T]>): Record<string, T> {
  const record: Record<string, T> = {};
  // defineProperty: `__proto__` is a dimension like any other.
  for (const [name, value] of entries) Object.defineProperty(record, name, { value, enumerable: true });
  return record;
}

/** Runs the jobs through the machine (runJobs); each delivery keeps its estimates until settled. */
function run(rates: DimRates, jobs: readonly Job[], until: number, capacity?: number) {
  const input = { rate: asRecord(rates) as ThrottlerInput['rate'], strategy: 'sliding-window' as const, capacity };
  return runJobs<Job, Delivery>(input, jobs, until, {
    estimate: (job) => asRecord(job.estimate),
    delivered: (job, at) => ({ at, cost: new Map(job.estimate) }),
    settleAfter: (job) => (job.settle === null ? null : job.settleAfter),
    settle: (job, delivery) => {
      // Never null here: settleAfter says null for a job never settled.
      const settle = job.settle as Costs | number;
      if (typeof settle === 'number') for (const name of rates.keys()) delivery.cost.set(name, settle);
      else for (const [name, part] of settle) delivery.cost.set(name, part);
      return typeof settle === 'number' ? settle : asRecord(settle);
    },
  });
}

const INTERVALS = [100, 250, 1_000] as const;
const rateArb = (low: number, high: number) =>
  fc.array(fc.record({ limit: fc.integer({ min: low, max: high }), interval: fc.constantFrom(...INTERVALS) }), {
    minLength: 1,
    maxLength: 2,
  });

const scenarioArb = fc
  .record({
    names: fc.constantFrom(['requests', 'tokens'], ['requests', '__proto__']),
    requests: rateArb(2, 8),
    tokens: rateArb(20, 60),
  })
  .chain(({ names, requests, tokens }) => {
    const [first, second] = names as [string, string];
    const rates: DimRates = new Map([
      [first, requests],
      [second, tokens],
    ]);
    const most = (list: Array<{ limit: number }>) => Math.min(...list.map((rate) => rate.limit));
    const job = fc
      .record({
        arriveAt: fc.integer({ min: 0, max: 3_000 }),
        requests: fc.integer({ min: 0, max: most(requests) }),
        tokens: fc.integer({ min: 0, max: most(tokens) }),
        shares: fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })),
        form: fc.constantFrom('map', 'one', 'number', 'never' as const),
        settleAfter: fc.integer({ min: 0, max: 99 }),
      })
      .map(({ arriveAt, requests: r, tokens: t, shares, form, settleAfter }): Job => {
        const estimate: Costs = new Map([
          [first, r === 0 && t === 0 ? 1 : r],
          [second, t],
        ]);
        const actual = new Map(
          [...estimate].map(([name, part], i) => [name, Math.floor(part * (shares[i] as number))]),
        );
        const settle =
          form === 'never'
            ? null
            : form === 'number'
              ? Math.min(...estimate.values())
              : form === 'one'
                ? new Map([[second, actual.get(second) as number]])
                : actual;
        return { arriveAt, estimate, settle, settleAfter };
      });
    return fc.record({ rates: fc.constant(rates), jobs: fc.array(job, { minLength: 1, maxLength: 30 }) });
  });

describe('ACTUAL_COST with rates in dimensions (sliding window, virtual time, brute-force oracle)', () => {
  it('actual <= estimate per dimension: no window over in any rate of any dimension; the audit agrees', () => {
    fc.assert(
      fc.property(scenarioArb, ({ rates, jobs }) => {
        const { deliveries, refused, audit } = run(rates, jobs, 3_000 + 40 * 1_000);
        expect(refused).toEqual([]);
        expect(deliveries).toHaveLength(jobs.length);
        expect(audit.windowsOver).toBe(0);
        for (const [name, list] of rates) {
          const log: TimedCost[] = [];
          for (const delivery of deliveries) {
            const cost = delivery.cost.get(name) as number;
            if (cost > 0) log.push({ at: delivery.at, cost });
          }
          for (const rate of list) {
            const oracle = bruteForceFindings(log, rate.limit, rate.interval);
            expect({ name, rate, windowsOver: oracle.windowsOver }).toEqual({ name, rate, windowsOver: 0 });
            // The audit counts the costs as they stand, each delivery in the dimensions it costs something in.
            const line = audit.rates.find(
              (one) => one.dimension === name && one.limit === rate.limit && one.interval === rate.interval,
            );
            expect({ name, most: line?.most ?? 0, mostAt: line?.mostAt }).toEqual({
              name,
              most: oracle.most,
              mostAt: oracle.mostAt,
            });
            expect(line?.most ?? 0).toBeLessThanOrEqual(rate.limit);
          }
        }
      }),
      { numRuns: 80, ...REPLAY },
    );
  });
});

/**
 * Estimates twice the actual in tokens, settled with a map naming only tokens (requests keep their estimate of
 * 1): a saturated queue (every message waiting from the start), actual tokens 1 to 25 against 1000 a second,
 * each settled 0 to 50 ms after it went, over 50 windows. At least 95% of the tokens limit holds real tokens;
 * estimates alone hold it at most half.
 */
const BUSY = { tokens: 1_000, interval: 1_000, windows: 50, jobs: 4_200 };

function saturated(settled: boolean): fc.Arbitrary<Job[]> {
  return seededJobs(BUSY.jobs, (draw) => {
    const actual = 1 + draw(25);
    const settleAfter = draw(51);
    const estimate = new Map([
      ['requests', 1],
      ['tokens', 2 * actual],
    ]);
    return { arriveAt: 0, estimate, settle: settled ? new Map([['tokens', actual]]) : null, settleAfter };
  });
}

function tokensUsed(jobs: readonly Job[]): number {
  const span = BUSY.windows * BUSY.interval;
  const rates: DimRates = new Map([
    ['requests', [{ limit: 500, interval: 1_000 }]],
    ['tokens', [{ limit: BUSY.tokens, interval: BUSY.interval }]],
  ]);
  const { deliveries, refused } = run(rates, jobs, span, BUSY.jobs);
  expect(refused).toEqual([]);
  let used = 0;
  for (const [index, delivery] of deliveries.entries()) {
    const actual = ((jobs[index] as Job).estimate.get('tokens') as number) / 2;
    if (delivery.at < span) used += actual;
  }
  return used / (BUSY.windows * BUSY.tokens);
}

describe('ACTUAL_COST per dimension gives back what token estimates twice too high held (saturated, 50 windows)', () => {
  it('at least 95% of the tokens limit used by actual tokens; at most 50% without settles', () => {
    fc.assert(
      fc.property(saturated(true), (jobs) => {
        expect(tokensUsed(jobs)).toBeGreaterThanOrEqual(0.95);
      }),
      { numRuns: 3, ...REPLAY },
    );
    fc.assert(
      fc.property(saturated(false), (jobs) => {
        expect(tokensUsed(jobs)).toBeLessThanOrEqual(0.5);
      }),
      { numRuns: 1, ...REPLAY },
    );
  });
});
