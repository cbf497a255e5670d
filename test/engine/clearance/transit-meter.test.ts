import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TransitMeter, type TransitTicket } from '../../../src/engine/clearance/transit-meter.js';
import { runs } from '../../support/property-runs.js';

type Step =
  | { readonly kind: 'start'; readonly gap: number }
  | { readonly kind: 'finish'; readonly gap: number; readonly pick: number }
  | { readonly kind: 'ask'; readonly gap: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('start' as const), gap: fc.integer({ min: 0, max: 50 }) }),
  fc.record({
    kind: fc.constant('finish' as const),
    gap: fc.integer({ min: 0, max: 200 }),
    pick: fc.nat(),
  }),
  fc.record({ kind: fc.constant('ask' as const), gap: fc.integer({ min: 0, max: 300 }) }),
);

describe('TransitMeter: the largest recent round trip, or the oldest task in flight, at most max', () => {
  it('answers as a brute force over every round trip and every open task', () => {
    fc.assert(
      fc.property(
        fc.array(stepArbitrary, { maxLength: 80 }),
        fc.integer({ min: 10, max: 500 }),
        fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
        (steps, horizon, max) => {
          const meter = new TransitMeter(horizon, max);
          const trips: Array<{ end: number; trip: number }> = [];
          const open: Array<{ ticket: TransitTicket; start: number }> = [];
          let now = 0;
          let previous = 0;
          for (const step of steps) {
            now += step.gap;
            if (step.kind === 'start') open.push({ ticket: meter.started(now), start: now });
            else if (step.kind === 'finish' && open.length > 0) {
              const [task] = open.splice(step.pick % open.length, 1);
              if (task === undefined) continue;
              meter.finished(task.ticket, now);
              trips.push({ end: now, trip: now - task.start });
            } else if (step.kind === 'ask') {
              const cutoff = now - horizon - previous;
              let largest = 0;
              for (const { end, trip } of trips) if (end >= cutoff) largest = Math.max(largest, trip);
              for (const { start } of open) largest = Math.max(largest, now - start);
              const expected = Math.min(max ?? Number.POSITIVE_INFINITY, largest);
              expect(meter.spreadAt(now)).toBe(expected);
              previous = expected;
            }
          }
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('forgets a long round trip once it is older than the horizon plus J, and counts a task in flight by its age', () => {
    const meter = new TransitMeter(1000);
    const first = meter.started(0);
    meter.finished(first, 300);
    expect(meter.spreadAt(300)).toBe(300);
    const second = meter.started(400);
    meter.finished(second, 450);
    expect(meter.spreadAt(1500)).toBe(300);
    // 1601 - 1000 - 300 > 300: the 300 ms trip has left; the 50 ms one is the largest.
    expect(meter.spreadAt(1601)).toBe(50);
    const third = meter.started(1601);
    expect(meter.spreadAt(1801)).toBe(200);
    meter.withdrawn(third);
    // 1801 - 1000 - 200 > 450: the 50 ms trip has left too, and nothing is in flight.
    expect(meter.spreadAt(1801)).toBe(0);
  });

  it('is capped by max', () => {
    const meter = new TransitMeter(1000, 120);
    meter.finished(meter.started(0), 5000);
    expect(meter.spreadAt(5000)).toBe(120);
    expect(meter.most).toBe(120);
  });
});
