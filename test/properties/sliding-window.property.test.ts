import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type Arrival, expectedSchedule, overfullWindows, type RateConfig } from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import {
  driveSchedule,
  expectArrivalOrder,
  expectEachDeliveredOnce,
  longestInterval,
  machineRates,
  type Ordering,
  type SendAs,
  scenarioArbitrary,
} from '../support/scenarios.js';
import { pendingTimers, restoreRealTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

const NUM_RUNS = 200;

/**
 * Runs a scenario through the real machine until the oracle says the last
 * message is due, then one longest interval more (nothing may arrive late or twice).
 */
function runSlidingWindow(config: RateConfig, ordering: Ordering, arrivals: readonly Arrival[], sendAs: SendAs) {
  const expected = expectedSchedule(config, arrivals, ordering);
  const input = { strategy: 'sliding-window', ordering, ...machineRates(config) } as const;
  const driven = driveSchedule(input, arrivals, undefined, sendAs);
  const lastDue = Math.max(...expected.map((delivery) => delivery.at));
  driven.advanceTo(lastDue);
  const stateWhenDrained = driven.actor.getSnapshot().value;
  const timersWhenDrained = pendingTimers();
  driven.advanceTo(lastDue + longestInterval(config));
  const deliveries = driven.deliveries();
  driven.actor.stop();
  return { expected, deliveries, stateWhenDrained, timersWhenDrained };
}

describe('sliding-window strategy, random rates, channels, costs and arrivals (virtual time)', () => {
  it('never holds more than the limit (by cost) in any window [t, t+T), overall and per channel', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals, sendAs }) => {
        const { deliveries } = runSlidingWindow(config, ordering, arrivals, sendAs);
        expect(overfullWindows(config, deliveries)).toEqual([]);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('delivers every message exactly once', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals, sendAs }) => {
        const { deliveries } = runSlidingWindow(config, ordering, arrivals, sendAs);
        expectEachDeliveredOnce(deliveries, arrivals);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("keeps arrival order: globally with 'fifo', within each channel with 'per-channel'", () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals, sendAs }) => {
        const { deliveries } = runSlidingWindow(config, ordering, arrivals, sendAs);
        expectArrivalOrder(deliveries, arrivals, ordering);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('is work-conserving: every delivery happens at the earliest time the brute-force oracle allows', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals, sendAs }) => {
        const { expected, deliveries } = runSlidingWindow(config, ordering, arrivals, sendAs);
        expect(deliveries.map(({ id, at }) => [id, at])).toEqual(expected.map(({ id, at }) => [id, at]));
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('is idle with no timer pending as soon as the last message has gone', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals, sendAs }) => {
        const { stateWhenDrained, timersWhenDrained } = runSlidingWindow(config, ordering, arrivals, sendAs);
        expect(stateWhenDrained).toBe('idle');
        expect(timersWhenDrained).toBe(0);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});
