import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler } from '../../src/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/**
 * While nothing waits and the rate allows it now, `schedule(fn)` starts `fn`
 * inside the call, on a permit the machine leased for the synchronous stretch
 * (engine/clearance/lease.ts, adapters/task-lease.ts). Everything else is as before:
 * past the limit, or behind a waiting task, a task queues.
 */
describe('createThrottler: a task starts inside schedule() when nothing waits and the rate allows it', () => {
  it('the first `limit` tasks of a burst start inside their calls; the rest queue, in order', async () => {
    const throttler = createThrottler({ rate: '3/1s', strategy: 'sliding-window' });
    const starts: Array<[number, number]> = [];
    const returnedBefore: number[] = [];
    const results = [1, 2, 3, 4, 5].map((n) => {
      const promise = throttler.schedule(() => {
        starts.push([n, now()]);
        return n;
      });
      returnedBefore.push(starts.length);
      return promise;
    });
    expect(returnedBefore).toEqual([1, 2, 3, 3, 3]);
    // Counts are exact at once: the lease ends before the throttler is asked.
    expect(throttler.counts).toEqual({ queued: 2, delivered: 3, dropped: 0, rejected: 0 });
    await advance(1000);
    expect(starts).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 1000],
      [5, 1000],
    ]);
    expect(await Promise.all(results)).toEqual([1, 2, 3, 4, 5]);
    throttler.stop();
  });

  it('a leased task settles as fn does: its value, its promise, its throw', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const failure = new Error('boom');
    const value = throttler.schedule(() => 7);
    const later = throttler.schedule(() => Promise.resolve('later'));
    const thrown = throttler.schedule(() => {
      throw failure;
    });
    const rejected = throttler.schedule(() => Promise.reject(failure));
    expect(throttler.counts.delivered).toBe(4);
    await expect(value).resolves.toBe(7);
    await expect(later).resolves.toBe('later');
    await expect(thrown).rejects.toBe(failure);
    await expect(rejected).rejects.toBe(failure);
    throttler.stop();
  });

  it('a task with options starts inside its call too; one that waits keeps every later task of the stretch behind it', async () => {
    const throttler = createThrottler({ rate: '2/1s', strategy: 'sliding-window' });
    const order: string[] = [];
    const controller = new AbortController();
    throttler.schedule(() => order.push('a'));
    throttler.schedule(() => order.push('b'), { signal: controller.signal });
    throttler.schedule(() => order.push('c'), { signal: controller.signal });
    throttler.schedule(() => order.push('d'));
    expect([order, throttler.size, throttler.pending]).toEqual([['a', 'b'], 2, 2]);
    await advance(1_000);
    expect(order).toEqual(['a', 'b', 'c', 'd']);
    throttler.stop();
  });

  it('a task scheduled from inside a leased task starts after it, never inside it', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const log: string[] = [];
    throttler.schedule(() => {
      log.push('outer start');
      throttler.schedule(() => log.push('inner'));
      log.push('outer end');
    });
    expect(log).toEqual(['outer start', 'outer end']);
    await advance(0);
    expect(log).toEqual(['outer start', 'outer end', 'inner']);
    throttler.stop();
  });

  it('pause() from a leased task holds back the tasks scheduled after it', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const starts: Array<[string, number]> = [];
    throttler.schedule(() => {
      starts.push(['first', now()]);
      throttler.pause(500);
    });
    throttler.schedule(() => starts.push(['second', now()]));
    await advance(499);
    expect(starts).toEqual([['first', 0]]);
    await advance(1);
    expect(starts).toEqual([
      ['first', 0],
      ['second', 500],
    ]);
    throttler.stop();
  });

  it('a burst larger than one lease renews it: every task starts at once, each exactly once', async () => {
    const throttler = createThrottler({ rate: '9000/1s', strategy: 'sliding-window' });
    let started = 0;
    const results = Array.from({ length: 9000 }, () => throttler.schedule(() => ++started));
    expect(started).toBe(9000);
    expect(throttler.counts).toEqual({ queued: 0, delivered: 9000, dropped: 0, rejected: 0 });
    const more = throttler.schedule(() => ++started);
    expect(started).toBe(9000);
    await advance(0);
    expect(throttler.counts.queued).toBe(1);
    await advance(1000);
    expect(await more).toBe(9001);
    expect((await Promise.all(results)).at(-1)).toBe(9000);
    throttler.stop();
  });

  it('no lease where the machine grants none: tasks still start inside the call, as delivered', async () => {
    for (const options of [
      { strategy: 'token-bucket' as const },
      { strategy: 'sliding-window' as const, countUntil: 'done' as const },
    ]) {
      const throttler = createThrottler({ rate: '10/1s', ...options });
      let started = 0;
      const result = throttler.schedule(() => ++started);
      expect([options, started]).toEqual([options, 1]);
      expect(await result).toBe(1);
      throttler.stop();
    }
    // A listener to `delivered` hears every task with its message: the machine leases nothing then.
    const heard = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const delivered: unknown[] = [];
    heard.actor.on('delivered', (event) => delivered.push(event.message.type));
    let started = 0;
    heard.schedule(() => ++started);
    expect([started, delivered]).toEqual([1, ['task']]);
    heard.stop();
  });

  it('stop() right after a leased burst counts what started as delivered', () => {
    const throttler = createThrottler({ rate: '2/1s', strategy: 'sliding-window' });
    const results = [1, 2, 3].map((n) => throttler.schedule(() => n));
    throttler.stop();
    for (const result of results) result.catch(() => {});
    expect(throttler.counts).toEqual({ queued: 0, delivered: 2, dropped: 1, rejected: 0 });
  });
});
