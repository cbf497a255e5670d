/**
 * p-queue's own tests, test/strict.ts (sindresorhus/p-queue at 180ab9e, v9.3.3), every test ported onto
 * createThrottler in virtual time, keeping p-queue's title: `strict: true` is `strategy: 'sliding-window'`
 * (docs/coming-from.md, "From p-queue"; queueOf in p-queue-port.ts). Where our behaviour differs by design
 * the test asserts ours (or is skipped) and cites the docs that say so.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createThrottler, ThrottlerClearedError } from '../../../src/index.js';
import { restoreRealTime, useVirtualTime } from '../../support/virtual-time.js';
import { advance, delay, priority, queueOf, timeSpan, until } from './p-queue-port.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** p-queue's assertSlidingWindow: every `cap` + 1 consecutive starts span at least the interval. */
function expectSlidingWindow(times: number[], interval: number, cap: number) {
  for (let index = cap; index < times.length; index++) {
    expect((times[index] as number) - (times[index - cap] as number)).toBeGreaterThanOrEqual(interval);
  }
}
const strictOf = (interval: number, intervalCap: number, more: object = {}) =>
  queueOf({ interval, intervalCap, strict: true, ...more });
/** Schedules `count` tasks that record when they start (and run `ms`), and returns the times and all promises. */
function stamped(queue: ReturnType<typeof queueOf>, count: number, ms = 0) {
  const times: number[] = [];
  const elapsed = timeSpan();
  const all = Promise.all(
    Array.from({ length: count }, () =>
      queue.schedule(async () => {
        times.push(elapsed());
        if (ms > 0) await delay(ms);
      }),
    ),
  );
  return { times, all };
}

describe('p-queue strict.ts, ported', () => {
  it('strict mode enforces sliding window rate limiting', async () => {
    const { times, all } = stamped(strictOf(1000, 2), 6);
    await until(all);
    expectSlidingWindow(times, 1000, 2);
  });

  it('strict mode vs fixed window timing', async () => {
    const fixed = stamped(queueOf({ interval: 500, intervalCap: 2 }), 4);
    await until(fixed.all);
    const strict = stamped(strictOf(500, 2), 4);
    await until(strict.all);
    expect([fixed.times.length, strict.times.length]).toEqual([4, 4]);
    expect(strict.times).toEqual([0, 0, 500, 500]);
  });

  it('strict mode with large intervalCap', async () => {
    const { times, all } = stamped(strictOf(100, 10), 30);
    await until(all);
    expectSlidingWindow(times, 100, 10);
  });

  it('strict mode clear() preserves ticks', async () => {
    const queue = strictOf(100, 2);
    await until(queue.schedule(async () => undefined));
    await until(queue.schedule(async () => undefined));
    queue.clear();
    const { times, all } = stamped(queue, 2);
    await until(all);
    expect(times).toEqual([100, 100]);
  });

  it('strict mode with concurrency limit', async () => {
    const { times, all } = stamped(strictOf(100, 3, { concurrency: 1 }), 6, 10);
    await until(all);
    expect(times).toHaveLength(6);
    expectSlidingWindow(times, 100, 3);
  });

  it('strict mode rate limit events', async () => {
    const queue = strictOf(100, 2);
    const events: string[] = [];
    queue.on('rateLimit', () => events.push('rateLimit'));
    queue.on('rateLimitCleared', () => events.push('rateLimitCleared'));
    await until(Promise.all(Array.from({ length: 4 }, () => queue.schedule(async () => delay(10)))));
    expect(events).toEqual(['rateLimit', 'rateLimitCleared']);
  });

  it('strict mode isRateLimited property', async () => {
    const queue = strictOf(100, 2);
    expect(queue.isRateLimited).toBe(false);
    for (let index = 0; index < 3; index++) queue.schedule(async () => undefined);
    await advance(10);
    expect(queue.isRateLimited).toBe(true);
    await until(queue.onIdle());
    expect(queue.isRateLimited).toBe(false);
  });

  it('strict mode with pause/start', async () => {
    const queue = strictOf(100, 2, { autoStart: false });
    const times: number[] = [];
    for (let index = 0; index < 4; index++) queue.schedule(async () => times.push(performance.now()));
    await advance(50);
    expect(times).toHaveLength(0);
    const startTime = performance.now();
    queue.resume();
    await until(queue.onIdle());
    expect(times.map((at) => at - startTime)).toEqual([0, 0, 100, 100]);
  });

  // A rate of '5/0ms' is refused, as p-queue refuses strict with interval 0 (both a TypeError).
  it('strict mode throws error with interval=0', () => {
    expect(() => createThrottler({ rate: '5/0ms', strategy: 'sliding-window' })).toThrow(TypeError);
  });

  it('strict mode with priority', async () => {
    const queue = strictOf(100, 2);
    const results: number[] = [];
    const all = Promise.all([
      queue.schedule(async () => results.push(1), { priority: priority(0) }),
      queue.schedule(async () => results.push(2), { priority: priority(0) }),
      queue.schedule(async () => results.push(3), { priority: priority(1) }),
      queue.schedule(async () => results.push(4), { priority: priority(0) }),
    ]);
    await until(all);
    expect(results).toEqual([1, 2, 3, 4]);
  });

  it('strict mode with onRateLimit()', async () => {
    const queue = strictOf(100, 2);
    queue.schedule(async () => undefined);
    queue.schedule(async () => undefined);
    let rateLimitCalled = false;
    const rateLimit = queue.onRateLimit().then(() => {
      rateLimitCalled = true;
    });
    queue.schedule(async () => undefined);
    await advance(20);
    expect(rateLimitCalled).toBe(true);
    await until(Promise.all([rateLimit, queue.onIdle()]));
  });

  it('strict mode with carryoverIntervalCount', async () => {
    const { times, all } = stamped(strictOf(100, 2), 4);
    await until(all);
    expectSlidingWindow(times, 100, 2);
  });

  it('strict mode throws error with intervalCap: Infinity', () => {
    expect(() => createThrottler({ rate: 'Infinity/1s', strategy: 'sliding-window' } as never)).toThrow(TypeError);
  });

  it('strict mode with AbortSignal', async () => {
    const queue = strictOf(100, 2);
    const controller = new AbortController();
    const times: number[] = [];
    const stamp = async () => {
      times.push(performance.now());
    };
    queue.schedule(stamp);
    queue.schedule(stamp);
    const abortedPromise = queue.schedule(stamp, { signal: controller.signal });
    queue.schedule(stamp);
    controller.abort();
    await expect(abortedPromise).rejects.toThrow();
    await until(queue.onIdle());
    expect(times).toHaveLength(3);
  });

  it('strict mode frees capacity when task aborts before start', async () => {
    const queue = strictOf(200, 1);
    const controller = new AbortController();
    controller.abort();
    const elapsed = timeSpan();
    await expect(queue.schedule(async () => undefined, { signal: controller.signal })).rejects.toThrow();
    let startedAt = -1;
    await until(
      queue.schedule(async () => {
        startedAt = elapsed();
      }),
    );
    expect(startedAt).toBe(0);
  });

  it('strict mode ignores aborted tasks for sliding window', async () => {
    const queue = strictOf(120, 2);
    for (const controller of [new AbortController(), new AbortController()]) {
      controller.abort();
      await expect(queue.schedule(async () => undefined, { signal: controller.signal })).rejects.toThrow();
    }
    const elapsed = timeSpan();
    const times: number[] = [];
    await until(queue.schedule(async () => times.push(elapsed())));
    await until(queue.schedule(async () => times.push(elapsed())));
    expect(times).toEqual([0, 0]);
  });

  it('strict mode aborted tasks do not trigger rateLimit event', async () => {
    const queue = strictOf(200, 1);
    let rateLimited = false;
    queue.on('rateLimit', () => {
      rateLimited = true;
    });
    const controller = new AbortController();
    controller.abort();
    await expect(queue.schedule(async () => undefined, { signal: controller.signal })).rejects.toThrow();
    await advance(0);
    expect(rateLimited).toBe(false);
    expect(queue.isRateLimited).toBe(false);
  });

  it('strict mode after queue becomes idle', async () => {
    const queue = strictOf(100, 2);
    await until(queue.schedule(async () => undefined));
    await until(queue.schedule(async () => undefined));
    await advance(150);
    const elapsed = timeSpan();
    await until(queue.schedule(async () => undefined));
    await until(queue.schedule(async () => undefined));
    expect(elapsed()).toBe(0);
  });

  it('strict mode frees a slot as soon as the oldest tick ages out, even with spread ticks', async () => {
    const queue = strictOf(100, 2);
    await until(queue.schedule(async () => undefined));
    await advance(60);
    await until(queue.schedule(async () => undefined));
    await advance(60);
    const elapsed = timeSpan();
    await until(queue.schedule(async () => undefined));
    expect(elapsed()).toBe(0);
  });

  it('strict mode prevents boundary bursts', async () => {
    const { times, all } = stamped(strictOf(100, 2), 4);
    await until(all);
    expectSlidingWindow(times, 100, 2);
  });

  it('strict mode with long-running tasks', async () => {
    const { times, all } = stamped(strictOf(100, 2, { concurrency: 2 }), 4, 150);
    await until(all);
    expect(times).toHaveLength(4);
    expectSlidingWindow(times, 100, 2);
  });

  it('strict mode isSaturated property', async () => {
    const queue = strictOf(100, 2);
    expect(queue.isSaturated).toBe(false);
    for (let index = 0; index < 3; index++) queue.schedule(async () => delay(10));
    await advance(5);
    expect(queue.isSaturated).toBe(true);
    await until(queue.onIdle());
    expect(queue.isSaturated).toBe(false);
  });

  it('strict mode multiple complete intervals', async () => {
    const { times, all } = stamped(strictOf(100, 3), 12);
    await until(all);
    for (const start of [0, 100, 200, 300]) {
      expect(times.filter((at) => at >= start && at < start + 100).length).toBeLessThanOrEqual(3);
    }
  });

  it('strict mode precision timing', async () => {
    const { times, all } = stamped(strictOf(200, 2), 6);
    await until(all);
    expect(times).toEqual([0, 0, 200, 200, 400, 400]);
  });

  it('strict mode with concurrency: Infinity', async () => {
    const { times, all } = stamped(strictOf(100, 3, { concurrency: Number.POSITIVE_INFINITY }), 9, 50);
    await until(all);
    expect(times).toHaveLength(9);
    expectSlidingWindow(times, 100, 3);
  });

  it('strict mode with timeout option', async () => {
    const queue = strictOf(100, 2, { timeout: 50 });
    const outcome = (ms: number) =>
      queue
        .schedule(() => delay(ms))
        .then(
          () => 'success',
          () => 'timeout',
        );
    expect(await until(Promise.all([outcome(200), outcome(10)]))).toEqual(['timeout', 'success']);
  });

  it('strict mode rapid sequential adds', async () => {
    const { times, all } = stamped(strictOf(50, 5), 50);
    await until(all);
    expect(times).toHaveLength(50);
    expectSlidingWindow(times, 50, 5);
  });

  // clear() rejects the waiting task (docs/coming-from.md, From p-queue: clear()); the window is kept.
  it('strict mode clear with pending timeout', async () => {
    const queue = strictOf(200, 1);
    await until(queue.schedule(async () => undefined));
    const taskPromise = queue.schedule(async () => 'completed').catch((error: unknown) => error);
    queue.clear();
    expect(queue.size).toBe(0);
    expect(await taskPromise).toBeInstanceOf(ThrottlerClearedError);
    const elapsed = timeSpan();
    await until(queue.schedule(async () => undefined));
    expect(elapsed()).toBeGreaterThanOrEqual(150);
  });

  it('strict mode handles edge case of exactly intervalCap tasks', async () => {
    const { times, all } = stamped(strictOf(100, 3), 3);
    await until(all);
    expect(times).toEqual([0, 0, 0]);
  });

  it('strict mode interleaved add and await', async () => {
    const queue = strictOf(100, 2);
    const elapsed = timeSpan();
    const results: number[] = [];
    for (let index = 0; index < 4; index++) await until(queue.schedule(async () => results.push(elapsed())));
    expect(results).toEqual([0, 0, 100, 100]);
  });

  it('strict mode circular buffer compaction', async () => {
    const queue = strictOf(10, 5);
    await until(Promise.all(Array.from({ length: 300 }, () => queue.schedule(async () => undefined))));
    expect([queue.pending, queue.size]).toEqual([0, 0]);
    const elapsed = timeSpan();
    await until(queue.schedule(async () => undefined));
    expect(elapsed()).toBeLessThan(50);
  });
});
