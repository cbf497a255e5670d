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
