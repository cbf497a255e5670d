import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/engine/index.js';
import { createThrottler } from '../../src/index.js';
import { type Strategy, slidingWindow, timer, tokenBucket, warmingUp } from '../../src/strategies/index.js';
import { expectOptionError } from '../support/option-error.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/**
 * What a strategy supports is read from its value (Strategy.leases, settlesInFlight, retimesLateGrants),
 * never from its name: a value that says otherwise than its name's is taken at its word.
 */
describe('strategy capabilities live on the value', () => {
  it('each of the four says what it supports; only the sliding window leases, settles in flight and retimes', () => {
    const capabilities = (strategy: Strategy) => [
      strategy.name,
      strategy.leases,
      strategy.settlesInFlight,
      strategy.retimesLateGrants,
    ];
    expect([timer, slidingWindow, tokenBucket, warmingUp].map(capabilities)).toEqual([
      ['timer', false, false, false],
      ['sliding-window', true, true, true],
      ['token-bucket', false, false, false],
      ['warming-up', false, false, false],
    ]);
  });

  it("countUntil 'done' follows settlesInFlight, not the name", () => {
    expect(resolveOptions({ rate: '2/1s', strategy: slidingWindow, countUntil: 'done' }).countUntil).toBe('done');
    const notSettling = { ...slidingWindow, settlesInFlight: false };
    expectOptionError(() => resolveOptions({ rate: '2/1s', strategy: notSettling, countUntil: 'done' }), {
      message: 'countUntil must be "start" unless strategy is "sliding-window", got "done"',
      option: 'countUntil',
      value: 'done',
    });
  });

  it('the promise API asks the machine for a lease only when the strategy leases', async () => {
    const eventsTo = async (strategy: Strategy) => {
      const types: string[] = [];
      const throttler = createThrottler({
        rate: '3/1s',
        strategy,
        inspect: (event) => {
          if (event.type === '@xstate.event') types.push(String((event.event as { type?: unknown }).type));
        },
      });
      const results = await Promise.all([1, 2].map((n) => throttler.schedule(() => n)));
      throttler.stop();
      return { results, leases: types.filter((type) => type === 'LEASE').length, at: now() };
    };
    const leasing = await eventsTo(slidingWindow);
    const notLeasing = await eventsTo({ ...slidingWindow, leases: false });
    expect(leasing.leases).toBeGreaterThan(0);
    expect(notLeasing.leases).toBe(0);
    // Either way both tasks run at once and settle as they return.
    expect([leasing.results, notLeasing.results, notLeasing.at]).toEqual([[1, 2], [1, 2], 0]);
  });
});
