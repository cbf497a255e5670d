import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, ThrottlerClearedError } from '../../src/index.js';
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
});
