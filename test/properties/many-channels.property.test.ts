import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Arrival,
  expectedSchedule,
  type OracleRate,
  overfullWindows,
  type RateConfig,
} from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import {
  driveSchedule,
  expectArrivalOrder,
  expectEachDeliveredOnce,
  largestCostFor,
  longestInterval,
  machineRates,
  priorityArbitrary,
  type SendAs,
  sendAsArbitrary,
} from '../support/scenarios.js';
import { restoreRealTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

/**
 * Per-channel ordering with many channels (up to 50) and mixed costs, against
 * the brute-force oracle: what the head schedule decides in O(log channels)
 * must be what a look at every head decides, priorities included. The oracle is
 * cubic, so runs are short; the names include some an object would inherit.
 */

const NAMES = ['constructor', 'toString', ...Array.from({ length: 48 }, (_, index) => `key-${index}`)];

const rateArbitrary = (maxLimit: number): fc.Arbitrary<OracleRate> =>
  fc.record({ limit: fc.integer({ min: 1, max: maxLimit }), interval: fc.integer({ min: 1, max: 2000 }) });

/** 1-2 overall rates (room for several channels at once), and 1-50 channels with 1-2 rates each. */
const manyChannelsArbitrary: fc.Arbitrary<RateConfig> = fc
  .tuple(
    fc.array(rateArbitrary(12), { minLength: 1, maxLength: 2 }),
    fc.array(fc.array(rateArbitrary(5), { minLength: 1, maxLength: 2 }), {
      minLength: 1,
      maxLength: NAMES.length,
      size: 'max',
    }),
  )
  .map(([overall, channelRates]) => ({
    overall,
    channels: Object.fromEntries(channelRates.map((rates, index) => [NAMES[index] as string, rates])),
  }));

/** Sized to the full range (fast-check keeps arrays short by default): up to 60 messages, any channel or none. */
function manyArrivalsArbitrary(config: RateConfig): fc.Arbitrary<Arrival[]> {
  const names = [undefined, ...Object.keys(config.channels)];
  const message = fc.record({
    gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 1500 })),
    // Half the time one of the first few channels, so that some channels hold a queue.
    channel: fc.oneof(fc.nat(Math.min(4, names.length - 1)), fc.nat(names.length - 1)).map((index) => names[index]),
    cost: fc.integer({ min: 1, max: 5 }),
    priority: priorityArbitrary,
  });
  return fc.array(message, { minLength: 1, maxLength: 60, size: 'max' }).map((messages) => {
    let at = 0;
    return messages.map(({ gap, channel, cost, priority }, id) => {
      at += gap;
      return { id, at, channel, cost: Math.min(cost, largestCostFor(config, channel)), priority };
    });
  });
}

const scenarioArbitrary = fc
  .tuple(manyChannelsArbitrary, sendAsArbitrary)
  .chain(([config, sendAs]) => manyArrivalsArbitrary(config).map((arrivals) => ({ config, arrivals, sendAs })));

function run(config: RateConfig, arrivals: readonly Arrival[], sendAs: SendAs) {
  const expected = expectedSchedule(config, arrivals, 'per-channel');
  const input = { strategy: 'sliding-window', ordering: 'per-channel', ...machineRates(config) } as const;
  const driven = driveSchedule(input, arrivals, undefined, sendAs);
  driven.advanceTo(Math.max(...expected.map((delivery) => delivery.at)) + longestInterval(config));
  const deliveries = driven.deliveries();
  driven.actor.stop();
  return { expected, deliveries };
}

describe("sliding window, ordering 'per-channel', up to 50 channels and mixed costs (virtual time)", () => {
  it('delivers each message once, in order (by rank) within its channel, every window within its limit, at the earliest time the oracle allows', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ config, arrivals, sendAs }) => {
        const { expected, deliveries } = run(config, arrivals, sendAs);
        expect(overfullWindows(config, deliveries)).toEqual([]);
        expectEachDeliveredOnce(deliveries, arrivals);
        expectArrivalOrder(deliveries, arrivals, 'per-channel');
        expect(deliveries.map(({ id, at }) => [id, at])).toEqual(expected.map(({ id, at }) => [id, at]));
      }),
      { numRuns: runs(150) },
    );
  });
});
