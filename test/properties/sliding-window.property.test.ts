import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type Arrival, expectedSchedule, overfullWindows, type RateConfig } from '../support/oracle.js';
import {
  arrivalsArbitrary,
  driveSchedule,
  idsByChannel,
  longestInterval,
  machineRates,
  rateConfigArbitrary,
} from '../support/scenarios.js';
import { pendingTimers, restoreRealTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

const NUM_RUNS = 200;

const orderingArbitrary = fc.constantFrom<'fifo' | 'per-channel'>('fifo', 'per-channel');

/** Rates, an ordering, and arrivals that fit them. */
const scenarioArbitrary = fc
  .tuple(rateConfigArbitrary, orderingArbitrary)
  .chain(([config, ordering]) => arrivalsArbitrary(config).map((arrivals) => ({ config, ordering, arrivals })));

/**
 * Runs a scenario through the real machine until the oracle says the last
 * message is due, then one longest interval more (nothing may arrive late or twice).
 */
function runSlidingWindow(config: RateConfig, ordering: 'fifo' | 'per-channel', arrivals: readonly Arrival[]) {
  const expected = expectedSchedule(config, arrivals, ordering);
  const driven = driveSchedule({ strategy: 'sliding-window', ordering, ...machineRates(config) }, arrivals);
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
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals }) => {
        const { deliveries } = runSlidingWindow(config, ordering, arrivals);
        expect(overfullWindows(config, deliveries)).toEqual([]);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('delivers every message exactly once', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals }) => {
        const { deliveries } = runSlidingWindow(config, ordering, arrivals);
        const deliveredIds = deliveries.map((delivery) => delivery.id).sort((a, b) => a - b);
        expect(deliveredIds).toEqual(arrivals.map((arrival) => arrival.id));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("keeps arrival order: globally with 'fifo', within each channel with 'per-channel'", () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals }) => {
        const { deliveries } = runSlidingWindow(config, ordering, arrivals);
        if (ordering === 'fifo') {
          expect(deliveries.map((delivery) => delivery.id)).toEqual(arrivals.map((arrival) => arrival.id));
        } else {
          expect(idsByChannel(deliveries)).toEqual(idsByChannel(arrivals));
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('is work-conserving: every delivery happens at the earliest time the brute-force oracle allows', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals }) => {
        const { expected, deliveries } = runSlidingWindow(config, ordering, arrivals);
        expect(deliveries.map(({ id, at }) => [id, at])).toEqual(expected.map(({ id, at }) => [id, at]));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('is idle with no timer pending as soon as the last message has gone', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals }) => {
        const { stateWhenDrained, timersWhenDrained } = runSlidingWindow(config, ordering, arrivals);
        expect(stateWhenDrained).toBe('idle');
        expect(timersWhenDrained).toBe(0);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
