import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { busiestWindows, type TimelineEvent } from '../../src/timeline/index.js';
import { worstWindows } from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import { recordedScenario } from './arbitraries.js';

const delivered = (at: number, cost = 1, channel?: string): TimelineEvent => ({
  type: 'delivered',
  at,
  queuedAt: at,
  cost,
  channel,
});

describe('busiestWindows', () => {
  it('equals the brute-force count for every rate, overall and per channel, counting cost', () => {
    fc.assert(
      fc.property(recordedScenario, ({ events, deliveries, rate, channels, config }) => {
        const found = busiestWindows({ events, rate: rate.length > 0 ? rate : undefined, channels });
        // In time order, the oracle's first-found worst window is the earliest, as busiestWindows picks it.
        const expected = worstWindows(
          config,
          [...deliveries].sort((a, b) => a.at - b.at),
        );
        expect(found.map((window) => [window.channel, window.limit, window.interval, window.count])).toEqual(
          expected.map((window) => [window.channel, window.rate.limit, window.rate.interval, window.cost]),
        );
        // Ties go to the earliest window, as in the oracle.
        expect(found.map((window) => window.start ?? Number.NaN)).toEqual(expected.map((window) => window.start));
      }),
      { numRuns: runs(300) },
    );
  });

  it('counts [t, t + interval): a delivery exactly one interval later is in the next window', () => {
    const [window] = busiestWindows({ events: [delivered(0), delivered(1000), delivered(1999.5)], rate: '3/1s' });
    expect(window).toMatchObject({ count: 2, start: 1000, deliveries: 2, rate: '3/1s', limit: 3, scope: 'overall' });
  });

  it('counts cost, not deliveries', () => {
    const [window] = busiestWindows({ events: [delivered(0, 2), delivered(10, 3), delivered(20)], rate: '5/1s' });
    expect(window).toMatchObject({ count: 6, deliveries: 3 });
  });

  it('reads events in any order, and ignores the events that say nothing about time', () => {
    const events: TimelineEvent[] = [
      delivered(900),
      { type: 'rejected' },
      delivered(0),
      { type: 'activated', at: 0 },
      delivered(500),
      { type: 'targetLost' },
    ];
    expect(busiestWindows({ events, rate: '3/1s' })[0]).toMatchObject({ count: 3, start: 0 });
  });

  it('with nothing delivered: a count of 0 and no window', () => {
    expect(busiestWindows({ events: [], rate: '3/1s', channels: { search: '1/1s' } })).toEqual([
      { scope: 'overall', rate: '3/1s', limit: 3, interval: 1000, start: undefined, count: 0, deliveries: 0 },
      {
        scope: 'channel',
        channel: 'search',
        rate: '1/1s',
        limit: 1,
        interval: 1000,
        start: undefined,
        count: 0,
        deliveries: 0,
      },
    ]);
  });

  it('takes 100,000 deliveries in well under a second (a sweep, not a window per delivery)', () => {
    const events = Array.from({ length: 100_000 }, (_, index) => delivered(index * 0.5, 1 + (index % 3)));
    const started = performance.now();
    const [window] = busiestWindows({ events, rate: ['1000/1s', '100000/1h'] });
    expect(performance.now() - started).toBeLessThan(2_000);
    // 2000 deliveries in each second, costs cycling 1, 2, 3: 666 cycles of 6, then 2 + 3.
    expect(window?.count).toBe(666 * 6 + 5);
  });
});
