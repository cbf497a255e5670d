import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, ThrottlerStoppedError } from '../../src/index.js';
import { restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** How each promise settled, in the order they settled. */
function settlements() {
  const order: string[] = [];
  const track = (promise: Promise<unknown>, name: string) =>
    promise.then(
      () => order.push(`${name}:ok`),
      (error: unknown) =>
        order.push(`${name}:${error instanceof ThrottlerStoppedError ? 'stopped' : (error as Error).name}`),
    );
  return { order, track };
}

describe('createThrottler: stop() finds every waiting task without asking the machine for its queue', () => {
  it('tasks that left out of order (per-channel, aborted) are skipped; the rest are rejected in the order given', async () => {
    const throttler = createThrottler({
      rate: '1000/1s',
      strategy: 'sliding-window',
      ordering: 'per-channel',
      channels: { fast: '100/1s', slow: '1/1s' },
    });
    const { order, track } = settlements();
    const controllers: AbortController[] = [];
    const settled: Array<Promise<unknown>> = [];
    for (let index = 0; index < 200; index++) {
      const channel = index % 2 === 0 ? 'fast' : 'slow';
      const controller = new AbortController();
      controllers.push(controller);
      settled.push(
        track(
          throttler.schedule(() => index, { channel, signal: controller.signal }),
          `${channel}${index}`,
        ),
      );
    }
    await advance(0);
    // Every fifth slow task is aborted while it waits, from the middle of the list (slow1 has started).
    for (let index = 1; index < 200; index += 10) controllers[index]?.abort();
    await advance(500);
    throttler.stop();
    await Promise.all(settled);

    const fastStarted = order.filter((entry) => entry.startsWith('fast') && entry.endsWith(':ok'));
    const slowStarted = order.filter((entry) => entry.startsWith('slow') && entry.endsWith(':ok'));
    const aborted = order.filter((entry) => entry.endsWith(':AbortError'));
    const stopped = order.filter((entry) => entry.endsWith(':stopped'));
    expect(fastStarted).toHaveLength(100);
    expect(slowStarted).toEqual(['slow1:ok']);
    expect(aborted).toHaveLength(19);
    // The rest of the slow channel, in the order it was scheduled.
    const expected = [];
    for (let index = 3; index < 200; index += 2) if (index % 10 !== 1) expected.push(`slow${index}:stopped`);
    expect(stopped).toEqual(expected);
    expect(throttler.counts).toEqual({ queued: 0, delivered: 101, dropped: 19 + expected.length, rejected: 0 });
  });

  it('tasks still in the mailbox when a task stops its throttler are rejected after the queued ones, and count as dropped', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window', capacity: 10 });
    const { order, track } = settlements();
    const settled: Array<Promise<unknown>> = [];
    settled.push(
      track(
        throttler.schedule(() => 'first'),
        'first',
      ),
    );
    settled.push(
      track(
        throttler.schedule(() => {
          // Sent while the throttler is busy delivering this task: they wait in its mailbox.
          settled.push(
            track(
              throttler.schedule(() => 'inner 1'),
              'inner1',
            ),
          );
          settled.push(
            track(
              throttler.schedule(() => 'inner 2'),
              'inner2',
            ),
          );
          throttler.stop();
        }),
        'outer',
      ),
    );
    settled.push(
      track(
        throttler.schedule(() => 'queued'),
        'queued',
      ),
    );
    await advance(1_000);
    await Promise.all(settled);
    expect(order).toEqual(['first:ok', 'outer:ok', 'queued:stopped', 'inner1:stopped', 'inner2:stopped']);
    expect(throttler.counts).toEqual({ queued: 0, delivered: 2, dropped: 3, rejected: 0 });
  });

  it('after a long stretch of tasks starting in order, the ones still waiting are all rejected, in order', async () => {
    // Half the tasks start at once: the first one left waiting is then the head of what stop() must find.
    const throttler = createThrottler({ rate: '150/1s', strategy: 'sliding-window' });
    const { order, track } = settlements();
    const settled = Array.from({ length: 300 }, (_, index) =>
      track(
        throttler.schedule(() => index),
        `${index}`,
      ),
    );
    await advance(500);
    throttler.stop();
    await Promise.all(settled);
    expect(order).toEqual(Array.from({ length: 300 }, (_, index) => `${index}:${index < 150 ? 'ok' : 'stopped'}`));
    expect(throttler.counts).toEqual({ queued: 0, delivered: 150, dropped: 150, rejected: 0 });
  });
});

describe('createThrottler: stop() rejects every task that has not started; reading counts changes nothing', () => {
  /**
   * Bottleneck's own stop test (test/stop.js, "Should stop and drop the queue"), ported: maxConcurrent 2,
   * one start per 100 ms; at 125 ms task 0 is done, task 1 runs (100 ms long), task 2 is due at 200 and
   * task 3 waits behind it. stop() drops 2 and 3, lets 1 finish, and refuses anything scheduled after.
   */
  it("Bottleneck's 'stop and drop the queue', ported", async () => {
    const throttler = createThrottler({ rate: '1/100ms', strategy: 'sliding-window', maxConcurrent: 2 });
    const { order, track } = settlements();
    const started: number[] = [];
    const job = (n: number, ms: number) => () => {
      started.push(n);
      return new Promise((resolve) => setTimeout(() => resolve(n), ms));
    };
    const settled = [
      track(throttler.schedule(job(0, 0)), '0'),
      track(throttler.schedule(job(1, 100)), '1'),
      track(throttler.schedule(job(2, 0)), '2'),
      track(throttler.schedule(job(3, 0)), '3'),
    ];
    await advance(125);
    expect(started).toEqual([0, 1]);
    expect(throttler.counts).toEqual({ queued: 2, delivered: 2, dropped: 0, rejected: 0 });
    throttler.stop();
    settled.push(track(throttler.schedule(job(4, 0)), '4'));
    await advance(1_000);
    await Promise.all(settled);
    expect(started).toEqual([0, 1]);
    expect(order).toEqual(['0:ok', '2:stopped', '3:stopped', '4:stopped', '1:ok']);
    expect(throttler.counts).toEqual({ queued: 0, delivered: 2, dropped: 2, rejected: 0 });
  });

  it('tasks scheduled in the same synchronous stretch as stop(), not yet handed over, never start', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const { order, track } = settlements();
    const run = vi.fn(() => 'ran');
    // The first is handed over inside its call and held by the pause; the others wait in the batch of this stretch.
    throttler.pause(5);
    const settled = [1, 2, 3].map((n) => track(throttler.schedule(run, { priority: 5 }), `${n}`));
    throttler.stop();
    await advance(1_000);
    await Promise.all(settled);
    expect(run).not.toHaveBeenCalled();
    expect(order).toEqual(['1:stopped', '2:stopped', '3:stopped']);
    expect(throttler.counts).toEqual({ queued: 0, delivered: 0, dropped: 3, rejected: 0 });
  });

  it('reading counts sends nothing: a task of this stretch counts as queued and starts no sooner', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const run = vi.fn(() => 'ran');
    const leased = vi.fn(() => 'leased');
    const first = throttler.schedule(leased); // starts inside the call, on a lease
    throttler.pause(5);
    const ahead = throttler.schedule(run, { priority: 5 }); // handed over inside the call, held by the pause
    const second = throttler.schedule(run, { priority: 5 }); // behind it: in the batch of this stretch
    expect(throttler.counts).toEqual({ queued: 2, delivered: 1, dropped: 0, rejected: 0 });
    expect(run).not.toHaveBeenCalled();
    expect(leased).toHaveBeenCalledTimes(1);
    await advance(5);
    await expect(ahead).resolves.toBe('ran');
    await expect(second).resolves.toBe('ran');
    await expect(first).resolves.toBe('leased');
    expect(throttler.counts).toEqual({ queued: 0, delivered: 3, dropped: 0, rejected: 0 });
  });
});
