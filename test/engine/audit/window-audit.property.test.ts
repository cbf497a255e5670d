import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WindowAudit, type WindowFindings } from '../../../src/engine/audit/window-audit.js';
import { runs } from '../../support/property-runs.js';
import { bruteForceFindings, type TimedCost as Delivery } from '../../support/window-oracle.js';

function audited(log: readonly Delivery[], limit: number, interval: number): WindowFindings {
  const audit = new WindowAudit({ limit, interval });
  for (const { at, cost } of log) audit.record(at, cost);
  return { most: audit.most, mostAt: audit.mostAt, windowsOver: audit.windowsOver };
}

/** Gaps between deliveries (0 often: several at one time) and costs, as a log in time order. */
const logArbitrary = (fractional: boolean) =>
  fc
    .array(
      fc.record({
        gap: fc.oneof(fc.constant(0), fractional ? fc.double({ min: 0, max: 50, noNaN: true }) : fc.nat(50)),
        cost: fc.integer({ min: 1, max: 4 }),
      }),
      { maxLength: 400 },
    )
    .map((steps) => {
      let at = 1000;
      return steps.map(({ gap, cost }) => {
        at += gap;
        return { at, cost };
      });
    });

/** A random log from a seeded generator (xorshift), for the million-delivery run. */
function randomLog(size: number, seed: number, meanGap: number): Delivery[] {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const log: Delivery[] = [];
  let at = 0;
  for (let i = 0; i < size; i += 1) {
    // Bursts (a run at one time), quiet stretches and everything between.
    at += next() < 0.3 ? 0 : Math.floor(next() * next() * meanGap * 4);
    log.push({ at, cost: 1 + Math.floor(next() * next() * 5) });
  }
  return log;
}

describe('WindowAudit against a brute-force count over the delivery log', () => {
  it('agrees on the fullest window, its moment and the windows over the limit, whole ms and fractional times', () => {
    fc.assert(
      fc.property(
        fc.boolean().chain((fractional) => logArbitrary(fractional)),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 300 }),
        (log, limit, interval) => {
          expect(audited(log, limit, interval)).toEqual(bruteForceFindings(log, limit, interval));
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('agrees on 1,000,000 random deliveries, for short and long windows', () => {
    const log = randomLog(1_000_000, 20_261_127, 10);
    for (const [limit, interval] of [
      [5, 7],
      [40, 100],
      [200, 1000],
    ] as const) {
      const found = audited(log, limit, interval);
      expect(found).toEqual(bruteForceFindings(log, limit, interval));
      // The log is dense enough that every case has windows over its limit: the count is exercised.
      expect(found.windowsOver).toBeGreaterThan(0);
    }
  });

  it("counts a send at exactly t + interval outside t's window, as the strict policy computed it", () => {
    // (a + 1000) - a rounds below 1000 for this a: a subtraction would see both in one window.
    const a = 16174.722826411258;
    expect(a + 1000 - a).toBeLessThan(1000);
    const audit = new WindowAudit({ limit: 1, interval: 1000 });
    audit.record(a, 1);
    audit.record(a + 1000, 1);
    expect({ most: audit.most, windowsOver: audit.windowsOver }).toEqual({ most: 1, windowsOver: 0 });
  });

  it('keeps one entry per distinct time: a burst at one moment costs no memory per delivery', () => {
    const audit = new WindowAudit({ limit: 10, interval: 1000 });
    for (let i = 0; i < 100_000; i += 1) audit.record(5, 1);
    expect(audit.most).toBe(100_000);
    // Every one of them closes the window (0, 5], which holds all 100,000: the order at one time does not matter.
    expect(audit.windowsOver).toBe(100_000);
    expect(audit.isEmptyAt(1004)).toBe(false);
    expect(audit.isEmptyAt(1005)).toBe(true);
  });
});

describe('WindowAudit.settle against a brute-force count over the costs as they stand', () => {
  /**
   * Deliveries in time order, each counted in this rate only while its cost is above 0 (a rate in a dimension
   * the delivery may cost nothing in), settled later (a new cost, 0 included) in any order, interleaved with
   * the deliveries, up to `keep` ms after it went: the audit is told to keep that far back.
   */
  const scenario = fc.record({
    limit: fc.integer({ min: 1, max: 12 }),
    interval: fc.integer({ min: 1, max: 300 }),
    keepFactor: fc.integer({ min: 1, max: 5 }),
    steps: fc.array(
      fc.record({
        gap: fc.oneof(fc.constant(0), fc.nat(60)),
        cost: fc.integer({ min: 0, max: 4 }),
        settle: fc.option(fc.record({ back: fc.nat(40), cost: fc.integer({ min: 0, max: 9 }) }), { freq: 2 }),
      }),
      { maxLength: 150 },
    ),
  });

  it('agrees on most, mostAt and windowsOver after every step, settles up to the retention late', () => {
    fc.assert(
      fc.property(scenario, ({ limit, interval, keepFactor, steps }) => {
        const keep = interval * keepFactor;
        const retention = { from: Infinity };
        const audit = new WindowAudit({ limit, interval }, retention);
        const log: Array<Delivery & { settled: boolean }> = [];
        let at = 0;
        for (const step of steps) {
          at += step.gap;
          // The oldest delivery still settleable: what the settle book would say.
          const settleable = log.filter((one) => !one.settled && one.at + keep > at);
          retention.from = settleable[0]?.at ?? Infinity;
          log.push({ at, cost: step.cost, settled: false });
          if (step.cost > 0) audit.record(at, step.cost);
          if (step.settle !== null) {
            const open = log.filter((one) => !one.settled && one.at + keep > at);
            const target = open[Math.max(0, open.length - 1 - step.settle.back)];
            if (target !== undefined) {
              const was = target.cost;
              target.cost = step.settle.cost;
              target.settled = true;
              audit.settle(target.at, target.cost - was, Number(target.cost > 0) - Number(was > 0));
            }
          }
          const counted = log.filter((one) => one.cost > 0);
          expect({ most: audit.most, mostAt: audit.mostAt, windowsOver: audit.windowsOver }).toEqual(
            bruteForceFindings(counted, limit, interval),
          );
        }
      }),
      { numRuns: runs(300) },
    );
  });
});
