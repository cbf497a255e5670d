import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler } from '../../src/index.js';
import { serverLimits } from '../../src/server-limits/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/** The promise API measures the transit spread from its tasks' round trips (issue 36), in virtual time. */
beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Schedules `trips.length` tasks at once, each answering after its trip; the time each started. */
async function startsOf(options: Parameters<typeof createThrottler>[0], trips: readonly number[], runFor: number) {
  const throttler = createThrottler(options);
  const starts: number[] = [];
  const from = now();
  const all = trips.map((trip) =>
    throttler.schedule(async () => {
      starts.push(now() - from);
      await sleep(trip);
    }),
  );
  await advance(runFor);
  await Promise.all(all);
  throttler.stop();
  return starts;
}

describe('createThrottler with transit "measured"', () => {
  it('widens each window by the largest round trip once one is known (the uplink is within it)', async () => {
    const starts = await startsOf(
      { rate: '3/1s', strategy: 'sliding-window', transit: 'measured' },
      Array.from({ length: 9 }, () => 200),
      10_000,
    );
    // The first three go before any round trip is known; then every window is 1000 + 200 ms long.
    expect(starts).toEqual([0, 0, 0, 1200, 1200, 1200, 2400, 2400, 2400]);
  });

  it('follows the largest recent round trip down once the long ones have left the horizon', async () => {
    const trips = [600, 100, 100, ...Array.from({ length: 12 }, () => 100)];
    const starts = await startsOf({ rate: '3/1s', strategy: 'sliding-window', transit: 'measured' }, trips, 20_000);
    const gaps = [];
    for (let index = 3; index < starts.length; index += 3)
      gaps.push((starts[index] as number) - (starts[index - 3] as number));
    expect(gaps[0]).toBe(1600);
    // The 600 ms trip ended at 600: gone once 1000 + J behind; then 1000 + 100.
    expect(gaps.at(-1)).toBe(1100);
  });

  it('counts a task still in flight by its age, at most max', async () => {
    const starts = await startsOf(
      { rate: '1/1s', strategy: 'sliding-window', transit: { measure: true, max: '300ms' } },
      [5000, 10, 10],
      20_000,
    );
    // The first answers after 5 s: until then its age bounds the uplink, capped at 300 ms.
    expect(starts).toEqual([0, 1300, 2600]);
  });

  it('is the default with serverLimits, and off without', async () => {
    const withLimits = await startsOf(
      { rate: '2/1s', strategy: 'sliding-window', serverLimits: serverLimits() },
      [100, 100, 100, 100],
      10_000,
    );
    expect(withLimits).toEqual([0, 0, 1100, 1100]);
    const without = await startsOf({ rate: '2/1s', strategy: 'sliding-window' }, [100, 100, 100, 100], 10_000);
    expect(without).toEqual([0, 0, 1000, 1000]);
  });

  it('a stated transit: no task starts on a leased permit inside schedule() before the widened window allows it', async () => {
    const throttler = createThrottler({ rate: '3/1s', strategy: 'sliding-window', transit: '250ms' });
    const starts: number[] = [];
    const task = () => starts.push(now());
    for (let n = 0; n < 3; n += 1) void throttler.schedule(task);
    expect(starts).toEqual([0, 0, 0]);
    await advance(1000);
    const late = throttler.schedule(task);
    // At 1000 the user's window has room; the server's may still hold the three: it waits until 1250.
    expect(starts).toEqual([0, 0, 0]);
    await advance(250);
    await late;
    expect(starts).toEqual([0, 0, 0, 1250]);
    throttler.stop();
  });

  it('a stated transit with countUntil "done": a settled task holds its slot J past its settling', async () => {
    const throttler = createThrottler({
      rate: '1/1s',
      strategy: 'sliding-window',
      countUntil: 'done',
      transit: 300,
    });
    const starts: number[] = [];
    const all = [0, 1].map(() =>
      throttler.schedule(async () => {
        starts.push(now());
        await sleep(500);
      }),
    );
    await advance(5_000);
    await Promise.all(all);
    // The first settles at 500 and counts from then: 500 + 1000 + 300.
    expect(starts).toEqual([0, 1800]);
    throttler.stop();
  });
});
