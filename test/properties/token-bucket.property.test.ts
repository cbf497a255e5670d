import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { ThrottlerInput } from '../../src/index.js';
import type { Arrival, RateConfig } from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import {
  arrivalsArbitrary,
  driveToRest,
  expectArrivalOrder,
  expectEachDeliveredOnce,
  machineRates,
  type Ordering,
  orderingArbitrary,
  rateConfigArbitrary,
  type SendAs,
  sendAsArbitrary,
} from '../support/scenarios.js';
import { spansOverBound } from '../support/span-bound.js';
import { pendingTimers, restoreRealTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

const NUM_RUNS = 150;

/** Runs the arrivals through until nothing is queued and one longest interval more has passed. */
function run(input: Omit<ThrottlerInput, 'target'>, config: RateConfig, arrivals: readonly Arrival[], sendAs: SendAs) {
  const driven = driveToRest(input, config, arrivals, sendAs);
  const result = {
    deliveries: driven.deliveries(),
    state: driven.actor.getSnapshot().value,
    timers: pendingTimers(),
  };
  driven.actor.stop();
  return result;
}

/** Every message goes exactly once, in arrival order, and then the throttler is idle with no timer pending. */
function expectEachOnceInOrderThenIdle(
  input: Omit<ThrottlerInput, 'target'> & { ordering: Ordering },
  config: RateConfig,
  arrivals: readonly Arrival[],
  sendAs: SendAs,
) {
  const { deliveries, state, timers } = run(input, config, arrivals, sendAs);
  expectEachDeliveredOnce(deliveries, arrivals);
  expectArrivalOrder(deliveries, arrivals, input.ordering);
  expect(state).toBe('idle');
  expect(timers).toBe(0);
}

describe('token-bucket strategy (Guava SmoothBursty), random rates, channels, costs and arrivals', () => {
  const scenarioArbitrary = fc
    .tuple(
      rateConfigArbitrary,
      orderingArbitrary,
      fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
      sendAsArbitrary,
    )
    .chain(([config, ordering, maxBurst, sendAs]) =>
      arrivalsArbitrary(config, 25, { priorities: true }).map((arrivals) => ({
        config,
        ordering,
        maxBurst,
        arrivals,
        sendAs,
      })),
    );

  it('delivers at most maxBurst + limit × (b − a + 1 ms) / interval + the one pre-consumed request over any span [a, b]', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, maxBurst, arrivals, sendAs }) => {
        const { deliveries } = run(
          { strategy: 'token-bucket', ordering, maxBurst, ...machineRates(config) },
          config,
          arrivals,
          sendAs,
        );
        // The default burst is one interval's worth: the limit.
        expect(spansOverBound(config, deliveries, ({ rate }) => maxBurst ?? rate.limit)).toEqual([]);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('delivers every message exactly once, in arrival order, then is idle with no timer pending', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, maxBurst, arrivals, sendAs }) => {
        expectEachOnceInOrderThenIdle(
          { strategy: 'token-bucket', ordering, maxBurst, ...machineRates(config) },
          config,
          arrivals,
          sendAs,
        );
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});

describe('warming-up strategy (Guava SmoothWarmingUp), random rates, channels, costs and arrivals', () => {
  const scenarioArbitrary = fc
    .tuple(
      rateConfigArbitrary,
      orderingArbitrary,
      fc.integer({ min: 1, max: 5000 }),
      fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
      sendAsArbitrary,
    )
    .chain(([config, ordering, warmup, coldFactor, sendAs]) =>
      arrivalsArbitrary(config, 25, { priorities: true }).map((arrivals) => ({
        config,
        ordering,
        warmup,
        coldFactor,
        arrivals,
        sendAs,
      })),
    );

  it('is never faster than the full rate: over any span [a, b] at most limit × (b − a + 1 ms) / interval + the pre-consumed request', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, warmup, coldFactor, arrivals, sendAs }) => {
        const { deliveries } = run(
          { strategy: 'warming-up', ordering, warmup, coldFactor, ...machineRates(config) },
          config,
          arrivals,
          sendAs,
        );
        // Stored permits are no burst here: spending one costs at least the stable interval.
        expect(spansOverBound(config, deliveries, () => 0)).toEqual([]);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it('delivers every message exactly once, in arrival order, then is idle with no timer pending', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, ordering, warmup, coldFactor, arrivals, sendAs }) => {
        expectEachOnceInOrderThenIdle(
          { strategy: 'warming-up', ordering, warmup, coldFactor, ...machineRates(config) },
          config,
          arrivals,
          sendAs,
        );
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});
