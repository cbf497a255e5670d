import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WindowAudit, type WindowFindings } from '../../../src/engine/audit/window-audit.js';
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
      { numRuns: 300 },
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
