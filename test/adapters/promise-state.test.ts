/**
 * The promise API's state readers taken from p-queue (docs/reference.md): onPendingZero, runningTasks,
 * isSaturated, isRateLimited and its waits and events, at the edges p-queue's own tests (ported in
 * test/adapters/ported/) do not reach: retries, leases, deadlines, a throwing handler, stop().
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler } from '../../src/index.js';
import { restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('createThrottler: onPendingZero', () => {
  it('resolves when a failed attempt goes back to wait for its retry, nothing running', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    let calls = 0;
    const task = throttler.schedule(
      async () => {
        calls += 1;
        await sleep(10);
        if (calls === 1) throw new Error('first attempt');
        return 'ok';
      },
      { retry: { retries: 1, backoff: { initial: 500 } } },
    );
    await advance(0);
    expect(throttler.pending).toBe(1);
    let zero = false;
    void throttler.onPendingZero().then(() => {
      zero = true;
    });
    await advance(20);
    expect([zero, throttler.pending, throttler.size]).toEqual([true, 0, 1]);
    await advance(1_000);
    await expect(task).resolves.toBe('ok');
    await throttler.stop();
  });
});

describe('createThrottler: runningTasks', () => {
  it("shows a retry's attempt, a channel and a task started on a lease, each a fresh snapshot", async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window', channels: { api: '5/1s' } });
    const leased = throttler.schedule(() => sleep(100));
    expect(throttler.runningTasks).toEqual([
      {
        id: undefined,
        startTime: 0,
        priority: 5,
        channel: undefined,
        attempt: 1,
        timeout: undefined,
        timeoutRemaining: undefined,
      },
    ]);
    let calls = 0;
    const retried = throttler.schedule(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('once');
        await sleep(100);
      },
      { id: 'r', channel: 'api', priority: 7, timeout: 1_000, retry: { retries: 1, backoff: { initial: 10 } } },
    );
    await advance(50);
    const [, second] = throttler.runningTasks;
    expect(second).toMatchObject({ id: 'r', channel: 'api', priority: 7, attempt: 2, timeout: 1_000 });
    expect(second?.timeoutRemaining).toBe(1_000 - (50 - (second?.startTime ?? 0)));
    await advance(200);
    await Promise.all([leased, retried]);
    expect(throttler.runningTasks).toEqual([]);
    await throttler.stop();
  });
});

describe('createThrottler: tasks that settle inside the call that started them', () => {
  it("count as running until the next microtask and report 'completed' and 'error' in order, to a listener added after them", async () => {
    const throttler = createThrottler({ rate: '100/1s', strategy: 'sliding-window' });
    const outcomes: unknown[] = [
      undefined,
      undefined,
      7,
      undefined,
      new Error('sync'),
      undefined,
      undefined,
      undefined,
      'x',
      undefined,
    ];
    const promises = outcomes.map((outcome) =>
      throttler.schedule(() => {
        if (outcome instanceof Error) throw outcome;
        return outcome;
      }),
    );
    const heard: unknown[] = [];
    throttler.on('completed', (value) => heard.push(value));
    throttler.on('error', (error) => heard.push(`error: ${(error as Error).message}`));
    let pendingZero = false;
    void throttler.onPendingZero().then(() => {
      pendingZero = true;
    });
    expect([throttler.pending, throttler.size, pendingZero]).toEqual([10, 0, false]);
    const settled = await Promise.allSettled(promises);
    expect(settled.map((one) => one.status)).toEqual(
      outcomes.map((o) => (o instanceof Error ? 'rejected' : 'fulfilled')),
    );
    expect(heard).toEqual(outcomes.map((o) => (o instanceof Error ? `error: ${o.message}` : o)));
    expect([throttler.pending, pendingZero]).toEqual([0, true]);
    await throttler.stop();
  });

  it('without a listener, a run of them frees every count at once and the throttler is idle after the last', async () => {
    const throttler = createThrottler({ rate: '1000/1s', strategy: 'sliding-window' });
    let idle = 0;
    throttler.on('idle', () => {
      idle += 1;
    });
    const promises = Array.from({ length: 300 }, () => throttler.schedule(() => undefined));
    expect(throttler.pending).toBe(300);
    await Promise.all(promises);
    expect([throttler.pending, idle]).toEqual([0, 1]);
    await throttler.stop();
  });
});

describe('createThrottler: runningTasks start times', () => {
  it('are the clock at the start: read inside the task, after its function returned, and once read, for later starts', async () => {
    let clock = 1_000;
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window', now: () => clock });
    let seenInside: number[] = [];
    const first = throttler.schedule(async () => {
      seenInside = throttler.runningTasks.map((task) => task.startTime);
      clock += 5; // its synchronous part took 5 ms
      await sleep(100);
    });
    expect(seenInside).toEqual([1_000]);
    expect(throttler.runningTasks.map((task) => task.startTime)).toEqual([1_000]);
    clock = 1_020;
    const second = throttler.schedule(async () => {
      clock += 5;
      await sleep(100);
    });
    expect(throttler.runningTasks.map((task) => task.startTime)).toEqual([1_000, 1_020]);
    await advance(200);
    await Promise.all([first, second]);
    await throttler.stop();
  });

  it('of a task started before any read are read as its function returns', async () => {
    let clock = 0;
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window', now: () => clock });
    const task = throttler.schedule(async () => {
      await sleep(100);
    });
    clock = 30;
    expect(throttler.runningTasks.map((one) => one.startTime)).toEqual([0]);
    await advance(200);
    await task;
    await throttler.stop();
  });
});

describe('createThrottler: runningTasks order', () => {
  it('lists the running attempts oldest first as attempts finish out of order', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const lengths = [300, 100, 200, 400];
    const promises = lengths.map((ms, index) => throttler.schedule(() => sleep(ms), { id: `t${index}` }));
    await advance(0);
    expect(throttler.runningTasks.map((task) => task.id)).toEqual(['t0', 't1', 't2', 't3']);
    await advance(150);
    expect(throttler.runningTasks.map((task) => task.id)).toEqual(['t0', 't2', 't3']);
    await advance(100);
    expect(throttler.runningTasks.map((task) => task.id)).toEqual(['t0', 't3']);
    await advance(100);
    expect(throttler.runningTasks.map((task) => task.id)).toEqual(['t3']);
    await advance(100);
    expect(throttler.runningTasks).toEqual([]);
    await Promise.all(promises);
    await throttler.stop();
  });
});

describe('createThrottler: isRateLimited, isSaturated, onRateLimit, rateLimit events', () => {
  it('is not rate-limited while every slot is taken and the wake-up is for a deadline', async () => {
    const throttler = createThrottler({ rate: '100/1s', maxConcurrent: 1 });
    void throttler.schedule(() => sleep(1_000));
    void throttler.schedule(() => sleep(10), { maxWait: 5_000 });
    await advance(10);
    expect(throttler.actor.getSnapshot().context.wakeAt).toBeLessThan(Number.POSITIVE_INFINITY);
    expect([throttler.isRateLimited, throttler.isSaturated]).toEqual([false, true]);
    await advance(2_000);
    expect([throttler.isRateLimited, throttler.isSaturated]).toEqual([false, false]);
    await throttler.stop();
  });

  it("hands a throwing handler's error to onHandlerError, naming the event, and tells the next change", async () => {
    const onHandlerError = vi.fn();
    const throttler = createThrottler({ rate: '1/1s', onHandlerError });
    const boom = new Error('handler');
    throttler.on('rateLimit', () => {
      throw boom;
    });
    const cleared = vi.fn();
    throttler.on('rateLimitCleared', cleared);
    void throttler.schedule(() => undefined);
    void throttler.schedule(() => undefined);
    await advance(10);
    expect(onHandlerError).toHaveBeenCalledWith(boom, 'rateLimit');
    await advance(1_000);
    expect(cleared).toHaveBeenCalledTimes(1);
    await throttler.stop();
  });

  it('tells a listener added while limited only the change to come, and nothing once stopped', async () => {
    const throttler = createThrottler({ rate: '1/1s' });
    for (let index = 0; index < 3; index++) void throttler.schedule(() => undefined).catch(() => {});
    await advance(10);
    expect(throttler.isRateLimited).toBe(true);
    const events: string[] = [];
    throttler.on('rateLimit', () => events.push('rateLimit'));
    throttler.on('rateLimitCleared', () => events.push('rateLimitCleared'));
    await expect(throttler.onRateLimit()).resolves.toBeUndefined();
    await advance(1_000);
    expect(events).toEqual([]);
    await throttler.stop();
    expect([throttler.isRateLimited, throttler.isSaturated]).toEqual([false, false]);
    await expect(throttler.onRateLimitCleared()).resolves.toBeUndefined();
  });

  it('refuses an unknown event name for the rate-limit events as for the others', () => {
    const throttler = createThrottler({ rate: '1/1s' });
    expect(() => throttler.on('ratelimit' as 'rateLimit', () => {})).toThrow(/event must be one of/);
    void throttler.stop();
  });
});
