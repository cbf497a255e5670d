import Bottleneck from 'bottleneck';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, ThrottlerClearedError, ThrottlerOptionError } from '../../src/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/**
 * The ports docs/reference.md shows ("Coming from p-queue", "Coming from Bottleneck"), line for line as
 * written there, run in virtual time: a p-queue user's add/onIdle/size/pending/clear code and a
 * Bottleneck user's schedule with priority, retries on failure and stop({ dropWaitingJobs: false }).
 */
beforeEach(useVirtualTime);
afterEach(restoreRealTime);

describe('ported code', () => {
  it("p-queue's add / on / onSizeLessThan / size / pending / isPaused / clear / onEmpty / onIdle", async () => {
    const fetched: Array<[string, number]> = [];
    const fetchUser = (id: string, { signal }: { signal: AbortSignal }) =>
      new Promise<string>((resolve, reject) => {
        fetched.push([id, now()]);
        const timer = setTimeout(() => resolve(`user ${id}`), 200);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
    const results: unknown[] = [];
    const warnings: unknown[] = [];
    const log = (result: unknown) => results.push(result);
    const warn = (error: unknown) => warnings.push(error);

    const queue = createThrottler({
      maxConcurrent: 2,
      rate: '10/1s',
    });
    queue.on('completed', (result) => log(result));
    queue.on('error', (error) => warn(error));
    const id = 'ada';
    const user = queue.schedule(({ signal }) => fetchUser(id, { signal }), { priority: 6 });
    const others = ['b', 'c', 'd'].map((other) =>
      queue.schedule(({ signal }) => fetchUser(other, { signal })).catch((error: unknown) => error),
    );
    // As with p-queue: the first two started inside their calls (maxConcurrent), two wait.
    expect([queue.size, queue.pending, queue.isPaused]).toEqual([2, 2, false]);
    await queue.onSizeLessThan(100);
    expect([queue.size, queue.pending]).toEqual([2, 2]);
    queue.clear();
    await queue.onEmpty();
    await vi.advanceTimersByTimeAsync(200);
    await queue.onIdle();
    await expect(user).resolves.toBe('user ada');
    const outcomes = await Promise.all(others);
    expect(outcomes[0]).toBe('user b');
    expect(outcomes.slice(1).every((outcome) => outcome instanceof ThrottlerClearedError)).toBe(true);
    expect(fetched).toEqual([
      ['ada', 0],
      ['b', 0],
    ]);
    expect(results).toEqual(['user ada', 'user b']);
    expect(warnings).toEqual([]);
    await queue.stop();
  });

  it("Bottleneck's schedule with priority, retries on failure, stop({ dropWaitingJobs: false })", async () => {
    const calls: number[] = [];
    const callApi = () => {
      calls.push(now());
      if (calls.length === 1) throw new Error('503');
      return 'answer';
    };

    const limiter = createThrottler({
      maxConcurrent: 2,
      rate: '1/100ms',
    });
    const result = limiter.schedule(() => callApi(), { priority: 6, retry: { retries: 2 } });
    const stopped = limiter.stop({ dropWaitingJobs: false });

    await vi.advanceTimersByTimeAsync(5_000);
    await expect(result).resolves.toBe('answer');
    await stopped;
    // The retry waited its backoff (1 s with equal jitter: 0.5 to 1 s), then started through the throttler.
    expect(calls).toHaveLength(2);
    expect(calls[1]).toBeGreaterThanOrEqual(500);
    expect(calls[1]).toBeLessThanOrEqual(1_000);
  });

  it("Bottleneck's priorities ported as 9 - p (docs/coming-from.md) run in the order Bottleneck runs them; 10 - p is refused for its 0", async () => {
    // Priorities in a shuffled order, two of each, behind a first task that holds the only slot.
    const priorities = [7, 0, 5, 9, 2, 5, 4, 1, 8, 3, 6, 0, 9, 4];
    const run = async (schedule: (task: () => Promise<string>, p: number) => Promise<string>) => {
      const order: string[] = [];
      const holdSlot = () => new Promise<string>((resolve) => setTimeout(() => resolve('first'), 1_000));
      const first = schedule(holdSlot, 5).then((label) => order.push(label));
      await vi.advanceTimersByTimeAsync(10); // started: the others wait for its slot
      const all = [first, ...priorities.map((p, n) => schedule(async () => `${p}:${n}`, p).then((l) => order.push(l)))];
      await vi.advanceTimersByTimeAsync(60_000);
      await Promise.all(all);
      return order;
    };
    const limiter = new Bottleneck({ maxConcurrent: 1, minTime: 100 });
    const bottleneckOrder = await run((task, p) => limiter.schedule({ priority: p }, task));
    await limiter.stop();
    // Strict priorities, as Bottleneck's: no overtaking bound within the test's minute.
    const throttler = createThrottler({ maxConcurrent: 1, rate: '1/100ms', maxPriorityWait: '1d' });
    const portedOrder = await run((task, p) => throttler.schedule(task, { priority: 9 - p }));
    await throttler.stop();
    expect(bottleneckOrder[0]).toBe('first');
    expect(bottleneckOrder.slice(1).map((label) => Number(label.split(':')[0]))).toEqual(
      [...priorities].sort((a, b) => a - b),
    );
    expect(portedOrder).toEqual(bottleneckOrder);
    const other = createThrottler({ rate: '1/100ms' });
    await expect(other.schedule(() => 'bottleneck 0 as 10 - p', { priority: 10 - 0 })).rejects.toThrow(
      ThrottlerOptionError,
    );
    await other.stop();
  });
});
