import fc from 'fast-check';
import type { TimelineEvent } from '../../src/timeline/index.js';
import type { Delivery, OracleRate, RateConfig } from '../support/oracle.js';

/** Channel names users could pick, hostile ones included: names are data. */
export const CHANNEL_NAMES = ['search', '__proto__', 'constructor', '<script>&"', ''] as const;

/** Recorded deliveries (unsorted, as a merged log might be) with the rates to measure them by. */
export interface RecordedScenario {
  readonly events: TimelineEvent[];
  readonly deliveries: Delivery[];
  readonly rate: string[];
  readonly channels: Record<string, string[]>;
  readonly config: RateConfig;
}

const rateArbitrary: fc.Arbitrary<OracleRate> = fc.record({
  limit: fc.integer({ min: 1, max: 8 }),
  interval: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 400 })),
});
const format = (rate: OracleRate) => `${rate.limit}/${rate.interval}ms`;

export const recordedScenario: fc.Arbitrary<RecordedScenario> = fc
  .record({
    deliveries: fc.array(
      fc.record({
        // Close whole times land exactly on a window's edge; fractional ones just beside it.
        at: fc.oneof(
          fc.integer({ min: 0, max: 100 }),
          fc.integer({ min: 0, max: 2000 }),
          fc.double({ min: 0, max: 2000, noNaN: true }),
        ),
        wait: fc.integer({ min: 0, max: 300 }),
        cost: fc.integer({ min: 1, max: 4 }),
        channel: fc.option(fc.constantFrom(...CHANNEL_NAMES), { nil: undefined }),
      }),
      { maxLength: 60 },
    ),
    overall: fc.array(rateArbitrary, { maxLength: 2 }),
    channelRates: fc.array(
      fc.tuple(fc.constantFrom(...CHANNEL_NAMES), fc.array(rateArbitrary, { minLength: 1, maxLength: 2 })),
      {
        maxLength: 3,
      },
    ),
  })
  .map(({ deliveries, overall, channelRates }) => {
    // fromEntries defines own properties, so `__proto__` is a channel like any other.
    const configChannels = Object.fromEntries(channelRates);
    return {
      events: deliveries.map(
        ({ at, wait, cost, channel }): TimelineEvent => ({ type: 'delivered', at, queuedAt: at - wait, cost, channel }),
      ),
      deliveries: deliveries.map(({ at, cost, channel }) => ({ at, cost, channel })),
      rate: overall.map(format),
      channels: Object.fromEntries(Object.entries(configChannels).map(([name, rates]) => [name, rates.map(format)])),
      config: { overall, channels: configChannels },
    };
  });
