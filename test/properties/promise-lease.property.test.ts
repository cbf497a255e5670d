import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler } from '../../src/index.js';
import { type Arrival, expectedSchedule, overfullWindows, type RateConfig } from '../support/oracle.js';
import { runs } from '../support/property-runs.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/**
 * The promise API with leases (a task starts inside `schedule` while nothing
 * waits and the window allows it) against the brute-force oracle, in virtual
 * time: synchronous stretches of `schedule` calls at random moments, some
 * leased, some queued (a task with options always queues), some stretches
 * asking for `counts` in the middle (which ends the lease there). Every task
 * must start exactly when the oracle's strict FIFO sliding window says, so the
 * leases neither break a window nor delay or reorder anything.
 */
const rateArbitrary = fc.record({ limit: fc.integer({ min: 1, max: 4 }), interval: fc.integer({ min: 10, max: 200 }) });

const callArbitrary = fc.constantFrom('plain', 'plain', 'plain', 'with-options', 'counts');

const scenarioArbitrary = fc.record({
  rates: fc.array(rateArbitrary, { minLength: 1, maxLength: 2 }),
  stretches: fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: 150 }),
      calls: fc.array(callArbitrary, { minLength: 1, maxLength: 6 }),
    }),
    { minLength: 1, maxLength: 8 },
  ),
});

describe('createThrottler with leases, random rates and stretches of schedule calls (virtual time)', () => {
  it('starts every task when the strict FIFO oracle says, exactly once, never more than the limit in a window', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async ({ rates, stretches }) => {
        vi.setSystemTime(0);
        const start = now();
        const throttler = createThrottler({
          rate: rates.map(({ limit, interval }) => `${limit}/${interval}ms`),
          strategy: 'sliding-window',
        });
        const arrivals: Arrival[] = [];
        const starts: Array<{ id: number; at: number }> = [];
        const results: Promise<unknown>[] = [];
        let at = 0;
        for (const { gap, calls } of stretches) {
          await vi.advanceTimersByTimeAsync(gap);
          at += gap;
          for (const call of calls) {
            if (call === 'counts') {
              void throttler.counts;
              continue;
            }
            const id = arrivals.length;
            arrivals.push({ id, at, cost: 1, channel: undefined });
            const task = () => starts.push({ id, at: now() - start });
            results.push(call === 'plain' ? throttler.schedule(task) : throttler.schedule(task, { priority: 5 }));
          }
        }
        const longest = Math.max(...rates.map((rate) => rate.interval));
        await vi.advanceTimersByTimeAsync((arrivals.length + 1) * longest);
        await Promise.all(results);
        throttler.stop();

        const config: RateConfig = { overall: rates, channels: {} };
        const expected = expectedSchedule(config, arrivals, 'fifo');
        expect(starts).toEqual(expected.map(({ id, at: due }) => ({ id, at: due })));
        const deliveries = starts.map(({ at: startedAt }) => ({ at: startedAt, cost: 1, channel: undefined }));
        expect(overfullWindows(config, deliveries)).toEqual([]);
      }),
      { numRuns: runs(150) },
    );
  });
});
