import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, turnClock } from '../../src/index.js';
import { createThrottler as createLeanThrottler, exactTimers } from '../../src/lean/index.js';
import { slidingWindow } from '../../src/strategies/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const MISSING =
  "features must be a list holding exactTimers for timerPrecision: 'exact' without a clock: import { exactTimers } " +
  'from "xstate-throttler/lean" and pass features: [exactTimers] (the main entry, "xstate-throttler", loads every ' +
  'feature), got an array of 0';

/** Five tasks through 2 per 10 ms, run to the end in virtual time: when each started. */
async function startsOfFive(create: typeof createThrottler, extra: object) {
  const throttler = create({ rate: '2/10ms', strategy: slidingWindow, timerPrecision: 'exact', ...extra });
  const startedAt = now();
  const tasks = Array.from({ length: 5 }, () => throttler.schedule(() => now() - startedAt));
  await vi.advanceTimersByTimeAsync(100);
  const starts = await Promise.all(tasks);
  throttler.stop();
  return starts;
}

/**
 * `timerPrecision: 'exact'` on the promise API arms its wake-up on preciseClock, which xstate-throttler/lean
 * bundles only with the `exactTimers` feature (machine/precise-clock.ts); without it, the option is refused
 * at creation with what to import, unless the app gives its own `clock`. The main entry loads it by itself.
 */
describe('the exactTimers feature', () => {
  it('lean: refused without it, naming the option and what to import', () => {
    expect(() => createLeanThrottler({ rate: '2/10ms', strategy: slidingWindow, timerPrecision: 'exact' })).toThrow(
      MISSING,
    );
    // Whole milliseconds (the default) need nothing.
    createLeanThrottler({ rate: '2/10ms', strategy: slidingWindow, timerPrecision: 'ms' }).stop();
  });

  it('lean: with it, the tasks start at their times, as the main entry starts them', async () => {
    const lean = await startsOfFive(createLeanThrottler, { features: [exactTimers] });
    expect(lean).toEqual([0, 0, 10, 10, 20]);
    expect(await startsOfFive(createThrottler, {})).toEqual(lean);
  });

  it("lean: the app's own clock needs no feature", async () => {
    expect(await startsOfFive(createLeanThrottler, { clock: turnClock() })).toEqual([0, 0, 10, 10, 20]);
  });
});
