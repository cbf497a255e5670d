import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { StrategyName, ThrottlerInput } from '../../src/index.js';
import {
  type Arrival,
  expectedSchedule,
  type OracleRate,
  overfullWindows,
  type RateConfig,
  worstWindows,
} from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import {
  arrivalsArbitrary,
  driveSchedule,
  driveToRest,
  expectArrivalOrder,
  expectEachDeliveredOnce,
  longestInterval,
  type Ordering,
  orderingArbitrary,
  type SendAs,
  sendAsArbitrary,
} from '../support/scenarios.js';
import { spansOverBound } from '../support/span-bound.js';
import { pendingTimers, restoreRealTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

/**
 * Keyed limits against the same brute-force oracle as channels: a key obeys the template's rates exactly
 * as a configured channel with those rates would, however often it is forgotten and created again in
 * between (gaps up to 2.5 s, intervals up to 2 s, idleAfter from 0 to 3 s, so keys are forgotten in most
 * runs). For the strict window the schedule must be the oracle's to the millisecond: forgetting a key
 * that has been idle past its longest interval changes no decision. The other strategies keep their
 * promise per key. Names include ones an object would inherit.
 */

const KEYS = ['__proto__', 'constructor', 'k1', 'k2', 'k3'];
const NUM_RUNS = 100;

const rateArbitrary: fc.Arbitrary<OracleRate> = fc.record({
  limit: fc.integer({ min: 1, max: 5 }),
  interval: fc.integer({ min: 1, max: 2000 }),
});
const ratesArbitrary = fc.array(rateArbitrary, { minLength: 1, maxLength: 2 });

interface KeyedScenario {
  config: RateConfig;
  template: OracleRate[];
  idleAfter: number;
  ordering: Ordering;
  sendAs: SendAs;
  arrivals: Arrival[];
}

const keyedArbitrary: fc.Arbitrary<KeyedScenario> = fc
  .tuple(ratesArbitrary, ratesArbitrary, fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3000 })))
  .chain(([overall, template, idleAfter]) => {
    // The oracle sees every key as a channel with the template's rates.
    const config: RateConfig = { overall, channels: Object.fromEntries(KEYS.map((key) => [key, template])) };
    return fc
      .tuple(orderingArbitrary, sendAsArbitrary, arrivalsArbitrary(config, 30))
      .map(([ordering, sendAs, arrivals]) => ({ config, template, idleAfter, ordering, sendAs, arrivals }));
  });

function inputOf(strategy: StrategyName, scenario: KeyedScenario): Omit<ThrottlerInput, 'target'> {
  return {
    strategy,
    ordering: scenario.ordering,
    rate: scenario.config.overall.map((rate) => ({ ...rate })),
    keys: { rate: scenario.template.map((rate) => ({ ...rate })), idleAfter: scenario.idleAfter },
  };
}

function runToRest(input: Omit<ThrottlerInput, 'target'>, scenario: KeyedScenario) {
  const driven = driveToRest(input, scenario.config, scenario.arrivals, scenario.sendAs);
  const result = { deliveries: driven.deliveries(), state: driven.actor.getSnapshot().value, timers: pendingTimers() };
  driven.actor.stop();
  expectEachDeliveredOnce(result.deliveries, scenario.arrivals);
  expectArrivalOrder(result.deliveries, scenario.arrivals, scenario.ordering);
  expect(result.state).toBe('idle');
  expect(result.timers).toBe(0);
  return result.deliveries;
}

describe('keyed limits, random rates, keys, costs and arrivals (virtual time)', () => {
  it('sliding window: delivers exactly when the oracle does, every window of every key within its limit', () => {
    fc.assert(
      fc.property(keyedArbitrary, (scenario) => {
        const { config, arrivals, ordering, sendAs } = scenario;
        const expected = expectedSchedule(config, arrivals, ordering);
        const driven = driveSchedule(inputOf('sliding-window', scenario), arrivals, undefined, sendAs);
        driven.advanceTo(Math.max(...expected.map((delivery) => delivery.at)) + longestInterval(config));
        const deliveries = driven.deliveries();
        driven.actor.stop();
        expect(overfullWindows(config, deliveries)).toEqual([]);
        expectEachDeliveredOnce(deliveries, arrivals);
        expectArrivalOrder(deliveries, arrivals, ordering);
        expect(deliveries.map(({ id, at }) => [id, at])).toEqual(expected.map(({ id, at }) => [id, at]));
      }),
      { numRuns: runs(200) },
    );
  });

  it('timer: at most 2 × the limit in any window of one interval, overall and per key', () => {
    fc.assert(
      fc.property(keyedArbitrary, (scenario) => {
        const deliveries = runToRest(inputOf('timer', scenario), scenario);
        const overfull = worstWindows(scenario.config, deliveries).filter(({ rate, cost }) => cost > 2 * rate.limit);
        expect(overfull).toEqual([]);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('token bucket: at most maxBurst + limit × (b − a + 1 ms) / interval + one pre-consumed request over any span, per key', () => {
    fc.assert(
      fc.property(
        keyedArbitrary,
        fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
        (scenario, maxBurst) => {
          const deliveries = runToRest({ ...inputOf('token-bucket', scenario), maxBurst }, scenario);
          expect(spansOverBound(scenario.config, deliveries, ({ rate }) => maxBurst ?? rate.limit)).toEqual([]);
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('warming-up: never faster than the full rate over any span, per key', () => {
    fc.assert(
      fc.property(keyedArbitrary, fc.integer({ min: 1, max: 5000 }), (scenario, warmup) => {
        const deliveries = runToRest({ ...inputOf('warming-up', scenario), warmup }, scenario);
        expect(spansOverBound(scenario.config, deliveries, () => 0)).toEqual([]);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});
