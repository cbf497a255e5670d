import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { ThrottlerEmitted } from '../../src/index.js';
import { type Arrival, type RateConfig, scopesOf, worstWindows } from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import {
  type DrivenThrottler,
  driveSchedule,
  driveToRest,
  expectArrivalOrder,
  expectEachDeliveredOnce,
  machineRates,
  type Ordering,
  type SendAs,
  scenarioArbitrary,
} from '../support/scenarios.js';
import { pendingTimers, restoreRealTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

const NUM_RUNS = 150;

/**
 * Runs a scenario through the timer strategy until the queue is empty, then one
 * longest interval more, so that the voucher period of the last delivery ends.
 */
function runTimer(
  config: RateConfig,
  ordering: Ordering,
  arrivals: readonly Arrival[],
  sendAs: SendAs,
): { driven: DrivenThrottler; deliveries: ReturnType<DrivenThrottler['deliveries']> } {
  // The period check reads delivered events in the order they were emitted: they must be heard.
  const heardAs = sendAs === 'unheard' ? 'events' : sendAs;
  const driven = driveToRest({ strategy: 'timer', ordering, ...machineRates(config) }, config, arrivals, heardAs);
  return { driven, deliveries: driven.deliveries() };
}

/** When the throttler went from idle to active: each starts a new train of tick periods. */
function activationTimes(emitted: readonly ThrottlerEmitted[]): number[] {
  return emitted.flatMap((event) => (event.type === 'activated' ? [event.at] : []));
}

/**
 * For every rate, the most cost delivered within one of its tick periods.
 * Periods follow the documented rule: an activation starts a train of ticks
 * [a, a + T), [a + T, a + 2T), ... unless the period in which this rate last
 * delivered is still running then; that train goes on, since a fresh set of
 * vouchers mid-period could exceed the rate. A period in which nothing was
 * delivered holds nothing back, so it never carries over an activation.
 * The emitted events are read in the order they happened: a delivery and an
 * activation at the same millisecond are told apart by that order alone.
 */
function fullestPeriods(config: RateConfig, emitted: readonly ThrottlerEmitted[]) {
  return scopesOf(config).map(({ channel, rate }) => {
    const costPerPeriod = new Map<number, number>();
    let trainStart = Number.NEGATIVE_INFINITY;
    let latestDelivery = Number.NEGATIVE_INFINITY;
    const periodStartOf = (at: number) => trainStart + Math.floor((at - trainStart) / rate.interval) * rate.interval;
    for (const event of emitted) {
      if (event.type === 'activated') {
        const activation = event.at;
        if (
          latestDelivery === Number.NEGATIVE_INFINITY ||
          activation >= periodStartOf(latestDelivery) + rate.interval
        ) {
          trainStart = activation;
        }
      } else if (event.type === 'delivered' && (channel === undefined || event.channel === channel)) {
        const period = periodStartOf(event.at);
        costPerPeriod.set(period, (costPerPeriod.get(period) ?? 0) + (event.cost as number));
        latestDelivery = event.at;
      }
    }
    return { channel, rate, cost: Math.max(0, ...costPerPeriod.values()) };
  });
}

describe('timer (voucher) strategy, random rates, channels, costs and arrivals (virtual time)', () => {
  it('never delivers more than the limit (by cost) within one tick period, the ticks starting at activation', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals, sendAs }) => {
        const { driven, deliveries } = runTimer(config, ordering, arrivals, sendAs);
        const activations = activationTimes(driven.emitted);
        expect(activations.length).toBeGreaterThan(0);
        expect(Math.min(...deliveries.map((delivery) => delivery.at))).toBeGreaterThanOrEqual(activations[0] as number);
        const overfull = fullestPeriods(config, driven.emitted).filter(({ rate, cost }) => cost > rate.limit);
        expect(overfull).toEqual([]);
        driven.actor.stop();
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('a counterexample fast-check found: in idle the policies are not asked before activation starts their periods', () => {
    // overall 1/1ms, alpha 1/3ms; idle again from t=1; three arrive at t=10. Asking the timer policy
    // in idle (to name the message a stopped target would miss) once restarted alpha's period too
    // early, and the second alpha message went at 12, inside the period that the first opened at 10.
    const config: RateConfig = {
      overall: [{ limit: 1, interval: 1 }],
      channels: { alpha: [{ limit: 1, interval: 3 }] },
    };
    const arrivals: Arrival[] = [
      { id: 0, at: 0, cost: 1, channel: undefined },
      { id: 1, at: 10, cost: 1, channel: 'alpha' },
      { id: 2, at: 10, cost: 1, channel: 'alpha' },
      { id: 3, at: 10, cost: 1, channel: undefined },
    ];
    for (const sendAs of ['events', 'batches'] as const) {
      const { deliveries } = runTimer(config, 'fifo', arrivals, sendAs);
      expect(deliveries.map((delivery) => [delivery.id, delivery.at])).toEqual([
        [0, 0],
        [1, 10],
        [2, 13],
        [3, 14],
      ]);
    }
  });

  it('delivers every message exactly once, in arrival order (globally, or within each channel)', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals, sendAs }) => {
        const { driven, deliveries } = runTimer(config, ordering, arrivals, sendAs);
        expectEachDeliveredOnce(deliveries, arrivals);
        expectArrivalOrder(deliveries, arrivals, ordering);
        driven.actor.stop();
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('is idle with no timer pending once the queue is empty and the last voucher period has ended', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals, sendAs }) => {
        const { driven } = runTimer(config, ordering, arrivals, sendAs);
        expect(driven.actor.getSnapshot().value).toBe('idle');
        expect(pendingTimers()).toBe(0);
        driven.actor.stop();
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('is weaker than the sliding window, but never puts more than 2N in a window of one interval', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, arrivals, sendAs }) => {
        const { driven, deliveries } = runTimer(config, ordering, arrivals, sendAs);
        const beyondTwiceTheLimit = worstWindows(config, deliveries).filter(({ rate, cost }) => cost > 2 * rate.limit);
        expect(beyondTwiceTheLimit).toEqual([]);
        driven.actor.stop();
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('reaches exactly 2N in one window when a period starts unused: N just before its tick, N at it', () => {
    // A pause lets the first period start (on activation, at 0) without a delivery,
    // so all N vouchers are spent late in it and the tick brings N more at once.
    const case_ = fc.record({
      limit: fc.integer({ min: 1, max: 5 }),
      interval: fc.integer({ min: 2, max: 2000 }),
      pauseFraction: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(case_, ({ limit, interval, pauseFraction }) => {
        const pause = 1 + Math.floor(pauseFraction * (interval - 2));
        const arrivals = Array.from({ length: 2 * limit }, (_, id) => ({ id, at: 0, cost: 1, channel: undefined }));
        const config: RateConfig = { overall: [{ limit, interval }], channels: {} };
        const driven = driveSchedule({ strategy: 'timer', rate: { limit, interval } }, arrivals, (actor) =>
          actor.send({ type: 'PAUSE', duration: pause }),
        );
        driven.advanceTo(2 * interval);
        const deliveries = driven.deliveries();
        expect(deliveries.map((delivery) => delivery.at)).toEqual([
          ...Array<number>(limit).fill(pause),
          ...Array<number>(limit).fill(interval),
        ]);
        const [worst] = worstWindows(config, deliveries);
        expect(worst?.cost).toBe(2 * limit);
        driven.actor.stop();
      }),
      { numRuns: runs(50) },
    );
  });
});
