/**
 * What people coming from p-queue, Bottleneck, p-retry and p-timeout expect of `createThrottler`
 * (issue 34 section 3, issue 33 section 2.6), each the behaviour a ported peer test relied on.
 * The ports themselves, test by test, are in test/adapters/ported/.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, ThrottlerClearedError } from '../../src/index.js';
import { restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
const strategies = ['sliding-window', 'timer', 'token-bucket', 'warming-up'] as const;
const bursting = ['sliding-window', 'timer'] as const;
const sleep = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('where a task starts: one rule on every path', () => {
  const paths = [
    ['no options', undefined, {}],
    ['a timeout', { timeout: 1_000 }, {}],
    ['a priority', { priority: 7 }, {}],
    ['a capacity', undefined, { capacity: 100 }],
  ] as const;
  // Strategies that allow a burst at once (a token bucket starts empty: one now, the next after its interval).
  for (const strategy of bursting) {
    it.each(paths)(
      `${strategy}, %s: 8 calls with maxConcurrent 2 read size 6, pending 2; clear() rejects the 6`,
      async (_name, options, extra) => {
        const throttler = createThrottler({ rate: '100/1s', strategy, maxConcurrent: 2, ...extra });
        const started: number[] = [];
        const results = Array.from({ length: 8 }, (_, n) =>
          throttler.schedule(() => {
            started.push(n);
            return sleep(100)();
          }, options),
        );
        expect([throttler.size, throttler.pending, started]).toEqual([6, 2, [0, 1]]);
        throttler.clear();
        await advance(100);
        const settled = await Promise.allSettled(results);
        expect(
          settled.slice(2).every((s) => s.status === 'rejected' && s.reason instanceof ThrottlerClearedError),
        ).toBe(true);
        expect(started).toEqual([0, 1]);
        await throttler.stop();
      },
    );
  }

  for (const strategy of strategies) {
    // p-throttle's `queueSize`: with a limit of 2, five calls leave three waiting.
    it(`${strategy}: a task the limit allows starts inside schedule(); past the limit it waits`, async () => {
      const throttler = createThrottler({
        rate: '2/1s',
        strategy,
        ...(strategy === 'warming-up' ? { warmup: '1s' } : {}),
      });
      let started = 0;
      const results = Array.from({ length: 5 }, () => throttler.schedule(() => ++started));
      const now = strategy === 'sliding-window' || strategy === 'timer' ? 2 : 1;
      expect([started, throttler.size, throttler.pending]).toEqual([now, 5 - now, now]);
      await advance(5_000);
      expect(await Promise.all(results)).toEqual([1, 2, 3, 4, 5]);
      await throttler.stop();
    });
  }
});

describe('pending counts the tasks running, no more (issue 33, 2.6)', () => {
  // p-queue's `.add() - concurrency: 5`: read inside a task, pending never exceeds the concurrency.
  it('read inside a task with maxConcurrent 5, it is at most 5', async () => {
    const throttler = createThrottler({ rate: '1000/1s', maxConcurrent: 5 });
    const seen: number[] = [];
    const results = Array.from({ length: 20 }, (_, n) =>
      throttler.schedule(async () => {
        seen.push(throttler.pending);
        await sleep(10 + (n % 3) * 7)();
      }),
    );
    await advance(1_000);
    await Promise.all(results);
    expect(Math.max(...seen)).toBe(5);
    await throttler.stop();
  });

  // p-queue's `.addAll() sync/async mixed tasks`: a synchronous function is counted until the next microtask, on every path.
  it.each([
    ['the leased path', { rate: '10/1s', strategy: 'sliding-window' }],
    ['the queued path', { rate: '10/1s', strategy: 'timer' }],
    ['maxConcurrent', { rate: '10/1s', maxConcurrent: 10 }],
  ] as const)('%s: sync and async tasks alike count as running right after schedule()', async (_name, options) => {
    const throttler = createThrottler(options);
    const results = [() => 'sync 1', sleep(4_000), () => 'sync 2', async () => 'async'].map((task) =>
      throttler.schedule(task),
    );
    expect([throttler.size, throttler.pending]).toEqual([0, 4]);
    await Promise.resolve();
    await Promise.resolve();
    expect(throttler.pending).toBe(1);
    await advance(4_000);
    expect(await Promise.all(results)).toEqual(['sync 1', undefined, 'sync 2', 'async']);
    expect(throttler.pending).toBe(0);
    await throttler.stop();
  });
});
