import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { StrategyName } from '../../src/index.js';
import {
  type Arrival,
  deadlineOf,
  expectedRun,
  overfullWindows,
  type RateConfig,
  SCENARIO_MAX_PRIORITY_WAIT,
} from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import {
  arrivalsArbitrary,
  driveSchedule,
  driveToRest,
  longestInterval,
  machineRates,
  type Ordering,
  orderingArbitrary,
  overtakings,
  rateConfigArbitrary,
  type SendAs,
  sendAsArbitrary,
} from '../support/scenarios.js';
import { pendingTimers, restoreRealTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

/**
 * Priorities and deadlines against the brute-force oracle (test/support/oracle.ts, `expectedRun`):
 * the rank a message goes by (arrival less priority × maxPriorityWait / 9), the deadline it is
 * dropped at. maxPriorityWait is 900 ms here (100 ms a level), so that aging shows within a run.
 */

const NUM_RUNS = 200;
const W = SCENARIO_MAX_PRIORITY_WAIT;

const scenarioArbitrary = fc
  .tuple(rateConfigArbitrary, orderingArbitrary, sendAsArbitrary)
  .chain(([config, ordering, sendAs]) =>
    arrivalsArbitrary(config, 25, { priorities: true, deadlines: true }).map((arrivals) => ({
      config,
      ordering,
      arrivals,
      sendAs,
    })),
  );

function runSlidingWindow(config: RateConfig, ordering: Ordering, arrivals: readonly Arrival[], sendAs: SendAs) {
  const expected = expectedRun(config, arrivals, ordering);
  const driven = driveSchedule(
    { strategy: 'sliding-window', ordering, ...machineRates(config) },
    arrivals,
    undefined,
    sendAs,
  );
  const lastEvent = Math.max(0, ...expected.delivered.map((d) => d.at), ...expected.expired.map((d) => d.at));
  driven.advanceTo(lastEvent);
  const stateAtEnd = driven.actor.getSnapshot().value;
  const timersAtEnd = pendingTimers();
  driven.advanceTo(lastEvent + longestInterval(config));
  const result = {
    expected,
    deliveries: driven.deliveries(),
    dropped: driven.dropped,
    counts: driven.actor.getSnapshot().context.counts,
    stateAtEnd,
    timersAtEnd,
  };
  driven.actor.stop();
  return result;
}

/** The deadline each delivered or dropped message had: never delivered after it, dropped exactly at it (or on arrival). */
function expectDeadlinesKept(
  arrivals: readonly Arrival[],
  deliveries: readonly { id: number; at: number }[],
  dropped: readonly { id: number; at: number; reason: string }[],
) {
  const byId = new Map(arrivals.map((arrival) => [arrival.id, arrival]));
  for (const { id, at } of deliveries) expect(at).toBeLessThanOrEqual(deadlineOf(byId.get(id) as Arrival));
  for (const { id, at, reason } of dropped) {
    const arrival = byId.get(id) as Arrival;
    expect(reason).toBe('expired');
    // Virtual time: the one timer wakes at the deadline itself, so "one wake-up after it" is exactly it.
    expect(at).toBe(Math.max(arrival.at, deadlineOf(arrival)));
  }
}

/** Every message is accounted for exactly once: delivered + dropped + rejected + queued = sent. */
function expectNothingLost(
  arrivals: readonly Arrival[],
  deliveries: readonly { id: number }[],
  dropped: readonly { id: number }[],
  counts: { queued: number; delivered: number; dropped: number; rejected: number },
) {
  const ids = [...deliveries, ...dropped].map(({ id }) => id).sort((a, b) => a - b);
  expect(ids).toEqual(arrivals.map((arrival) => arrival.id));
  expect(counts.delivered + counts.dropped + counts.rejected + counts.queued).toBe(arrivals.length);
  expect(counts).toEqual({ queued: 0, delivered: deliveries.length, dropped: dropped.length, rejected: 0 });
}

describe('priorities and deadlines, sliding window, random rates, channels, costs and arrivals (virtual time)', () => {
  it('never holds more than the limit in any window, overall and per channel', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals, sendAs }) => {
        const { deliveries } = runSlidingWindow(config, ordering, arrivals, sendAs);
        expect(overfullWindows(config, deliveries)).toEqual([]);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('is work-conserving by rank: every delivery and every drop as the brute-force oracle has them', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals, sendAs }) => {
        const { expected, deliveries, dropped } = runSlidingWindow(config, ordering, arrivals, sendAs);
        expect(deliveries.map(({ id, at }) => [id, at])).toEqual(expected.delivered.map(({ id, at }) => [id, at]));
        // Drops at one moment may be told in any order (one on arrival, another at the end of the pass).
        const byTime = (a: { id: number; at: number }, b: { id: number; at: number }) => a.at - b.at || a.id - b.id;
        expect(dropped.map(({ id, at }) => ({ id, at })).sort(byTime)).toEqual(
          expected.expired.map(({ id, at }) => ({ id, at })).sort(byTime),
        );
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('starves nothing: a message is overtaken only by one that ranks lower, so never by one of equal priority, nor by one that arrived maxPriorityWait or more after it', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals, sendAs }) => {
        const { deliveries } = runSlidingWindow(config, ordering, arrivals, sendAs);
        expect(overtakings(deliveries, arrivals, ordering)).toEqual([]);
        const byId = new Map(arrivals.map((arrival) => [arrival.id, arrival]));
        const order = deliveries.map(({ id }) => byId.get(id) as Arrival);
        for (const [index, first] of order.entries()) {
          for (const later of order.slice(index + 1)) {
            if (first.id < later.id || (ordering === 'per-channel' && first.channel !== later.channel)) continue;
            // `first` arrived after `later` and went first: by less than maxPriorityWait, and with a higher priority.
            expect(first.at - later.at).toBeLessThan(W);
            expect(first.priority ?? 5).toBeGreaterThan(later.priority ?? 5);
          }
        }
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('never delivers after a deadline, drops at the deadline itself, and loses nothing; then idle, no timer', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals, sendAs }) => {
        const { deliveries, dropped, counts, stateAtEnd, timersAtEnd } = runSlidingWindow(
          config,
          ordering,
          arrivals,
          sendAs,
        );
        expectDeadlinesKept(arrivals, deliveries, dropped);
        expectNothingLost(arrivals, deliveries, dropped, counts);
        expect(stateAtEnd).toBe('idle');
        expect(timersAtEnd).toBe(0);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});

describe('priorities and deadlines with every local strategy', () => {
  it('keep the order by rank and every deadline, and lose nothing', () => {
    fc.assert(
      fc.property(
        scenarioArbitrary,
        fc.constantFrom<StrategyName>('timer', 'token-bucket', 'warming-up', 'sliding-window'),
        ({ config, ordering, arrivals, sendAs }, strategy) => {
          const input = {
            strategy,
            ordering,
            ...machineRates(config),
            ...(strategy === 'warming-up' ? { warmup: 500 } : {}),
          };
          const driven = driveToRest(input, config, arrivals, sendAs);
          const deliveries = driven.deliveries();
          expect(overtakings(deliveries, arrivals, ordering)).toEqual([]);
          expectDeadlinesKept(arrivals, deliveries, driven.dropped);
          expectNothingLost(arrivals, deliveries, driven.dropped, driven.actor.getSnapshot().context.counts);
          driven.actor.stop();
        },
      ),
      { numRuns: runs(120) },
    );
  });
});

describe('no starvation under a flood of higher priority', () => {
  it('delivers a low-priority message behind a flood of top-priority ones, after no message that arrived maxPriorityWait or more after it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 50, max: 400 }),
        fc.integer({ min: 2, max: 6 }),
        fc.constantFrom<Ordering>('fifo', 'per-channel'),
        (limit, interval, overload, ordering) => {
          const config: RateConfig = { overall: [{ limit, interval }], channels: {} };
          // A priority-0 message at 1 ms, then priority 9 at `overload` times the rate, for ten maxPriorityWaits.
          const spacing = Math.max(1, Math.floor(interval / (limit * overload)));
          const arrivals: Arrival[] = [{ id: 0, at: 1, cost: 1, channel: undefined, priority: 0 }];
          for (let at = 0; at <= 10 * W; at += spacing) {
            arrivals.push({ id: arrivals.length, at, cost: 1, channel: undefined, priority: 9 });
          }
          arrivals.sort((a, b) => a.at - b.at || a.id - b.id);
          const renumbered = arrivals.map((arrival, id) => ({ ...arrival, id }));
          const low = renumbered.find((arrival) => arrival.priority === 0) as Arrival;
          const driven = driveSchedule({ strategy: 'sliding-window', ordering, ...machineRates(config) }, renumbered);
          driven.advanceTo(12 * W);
          const deliveries = driven.deliveries();
          driven.actor.stop();
          const lowIndex = deliveries.findIndex(({ id }) => id === low.id);
          expect(lowIndex).toBeGreaterThanOrEqual(0);
          const before = deliveries.slice(0, lowIndex).map(({ id }) => renumbered[id] as Arrival);
          for (const overtaker of before) expect(overtaker.at - low.at).toBeLessThan(W);
          expect(overfullWindows(config, deliveries)).toEqual([]);
        },
      ),
      { numRuns: runs(40) },
    );
  });
});
