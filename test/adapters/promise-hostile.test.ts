/**
 * The promise API under hostile use (issue 33): what a task, a handler or a caller does that the
 * throttler must count right, or refuse by name, without leaving anything counted or armed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createThrottler,
  preciseClock,
  type ScheduleOptions,
  type Throttler,
  ThrottlerClearedError,
  ThrottlerOptionError,
  type ThrottlerOptions,
  ThrottlerTimeoutError,
} from '../../src/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** A rejection turned into a value, caught as it happens (no unhandled rejection while time advances). */
const failed = (error: unknown) => error;

describe('createThrottler: a task taken back during a delivery pass spends no slot', () => {
  /**
   * 25 tasks at 5/1s, each with an id; the 9 after `aborter` share one signal, which is aborted (by `how`)
   * as `aborter` starts: inside the batch being taken in (aborter 0) or on a wake-up (aborter 5).
   */
  async function abortedInPass(
    aborter: number,
    how: 'task' | 'active' | 'error',
    options: Omit<ThrottlerOptions, 'rate'> = { strategy: 'sliding-window' },
    paused = aborter === 0,
  ) {
    const throttler = createThrottler({ rate: '5/1s', ...options });
    const controller = new AbortController();
    const started: string[] = [];
    const from = now();
    // With aborter 0, paused while the 25 are scheduled, so that one pass takes them all in at the resume:
    // a task that nothing waits ahead of starts inside schedule() (the one rule), before the others exist.
    if (paused) throttler.pause();
    if (how === 'active') throttler.on('active', (id) => id === aborter && controller.abort());
    if (how === 'error') throttler.on('error', (_error, id) => id === aborter && controller.abort());
    const tasks = Array.from({ length: 25 }, (_, index) =>
      throttler
        .schedule(
          () => {
            started.push(`${index}@${now() - from}`);
            if (index !== aborter) return;
            if (how === 'task') controller.abort();
            if (how === 'error') throw new Error('boom');
          },
          { id: index, ...(index > aborter && index <= aborter + 9 ? { signal: controller.signal } : {}) },
        )
        .catch(failed),
    );
    if (paused) throttler.resume();
    await advance(5_000);
    const outcomes = await Promise.all(tasks);
    const aborted = outcomes.filter((outcome) => (outcome as Error)?.name === 'AbortError').length;
    return { throttler, started, aborted };
  }

  /** 5 a window from the first: the aborted tasks (9 unless said) took no slot. */
  function expectFullWindows(
    { throttler, started, aborted }: Awaited<ReturnType<typeof abortedInPass>>,
    expectedAborted = 9,
  ) {
    expect(aborted).toBe(expectedAborted);
    const delivered = 25 - expectedAborted;
    const windows = [0, 1_000, 2_000, 3_000].map((at) => started.filter((entry) => entry.endsWith(`@${at}`)).length);
    expect(windows).toEqual([5, 5, 5, delivered - 15]);
    expect(throttler.counts).toEqual({ queued: 0, delivered, dropped: expectedAborted, rejected: 0 });
  }

  it('aborted by a task in the batch the throttler is taking in', async () => {
    expectFullWindows(await abortedInPass(0, 'task'));
  });

  it('aborted by a task started on a wake-up', async () => {
    expectFullWindows(await abortedInPass(5, 'task'));
  });

  it("aborted by an on('active') handler", async () => {
    expectFullWindows(await abortedInPass(0, 'active'));
    expectFullWindows(await abortedInPass(5, 'active'));
  });

  it("aborted by an on('error') handler", async () => {
    // A task's failure reaches on('error') a microtask after it threw (it counts as running until then,
    // as p-queue counts it): the pass has started the window's other four by then, so only the five of
    // the next window are aborted, and they spend no slot.
    expectFullWindows(await abortedInPass(0, 'error'), 5);
    expectFullWindows(await abortedInPass(5, 'error'), 5);
  });

  it('with per-channel ordering, a bounded queue (one QUEUE a task), another strategy', async () => {
    expectFullWindows(await abortedInPass(0, 'task', { strategy: 'sliding-window', ordering: 'per-channel' }));
    expectFullWindows(await abortedInPass(5, 'task', { strategy: 'sliding-window', ordering: 'per-channel' }));
    // Task 0 of a bounded queue starts inside its schedule call, before the others exist: only a later pass.
    expectFullWindows(await abortedInPass(5, 'task', { strategy: 'sliding-window', capacity: 100 }));
    expectFullWindows(await abortedInPass(5, 'task', { strategy: 'timer', capacity: 100 }));
  });

  it('cleared by a task: the tasks scheduled after clear() take the slots left', async () => {
    const throttler: Throttler = createThrottler({ rate: '5/1s', strategy: 'sliding-window' });
    throttler.pause(); // One pass takes 'first' and the ten in together, at the resume.
    const started: string[] = [];
    const later: Array<Promise<unknown>> = [];
    const run = (name: string) => () => {
      started.push(`${name}@${now()}`);
    };
    const first = throttler.schedule(
      () => {
        run('first')();
        throttler.clear();
        for (let index = 0; index < 6; index++) later.push(throttler.schedule(run(`later${index}`), { id: index }));
      },
      { id: 'first' },
    );
    const cleared = Array.from({ length: 10 }, (_, index) =>
      throttler.schedule(run(`cleared${index}`), { id: index }).catch(failed),
    );
    throttler.resume();
    await advance(3_000);
    await first;
    await Promise.all(later);
    for (const outcome of await Promise.all(cleared)) expect(outcome).toBeInstanceOf(ThrottlerClearedError);
    expect(started).toEqual(['first@0', 'later0@0', 'later1@0', 'later2@0', 'later3@0', 'later4@1000', 'later5@1000']);
    expect(throttler.counts).toEqual({ queued: 0, delivered: 7, dropped: 10, rejected: 0 });
  });
});

describe('createThrottler: timeouts and backoffs of 2^31 ms or more are armed in chunks', () => {
  const THIRTY_DAYS = 30 * 24 * 3_600_000;
  /** 5 ms of virtual time, synchronously: a timer spinning on event-loop turns throws the fake timers' loop limit. */
  const spinGuard = () => vi.advanceTimersByTime(5);

  it("a task's timeout of '30d' does not fire early; it fires after 30 days", async () => {
    for (const timerPrecision of ['ms', 'exact'] as const) {
      const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window', timerPrecision });
      const quick = throttler.schedule(() => new Promise((resolve) => setTimeout(() => resolve('done'), 300)), {
        timeout: '30d',
      });
      await advance(0);
      spinGuard();
      await advance(295);
      await expect(quick).resolves.toBe('done');
      const hung = throttler.schedule(() => new Promise(() => {}), { timeout: '30d' }).catch(failed);
      const from = now();
      // A timer spinning on event-loop turns would exceed the fake timers' loop limit here.
      await advance(THIRTY_DAYS - 1);
      expect(throttler.pending).toBe(1);
      await advance(1);
      expect(await hung).toBeInstanceOf(ThrottlerTimeoutError);
      expect(now() - from).toBe(THIRTY_DAYS);
      await throttler.stop();
    }
  });

  it('preciseClock waits on its native timer for a delay past 2^31 ms, never on event-loop turns', () => {
    const turn = setImmediate;
    let turns = 0;
    vi.spyOn(globalThis, 'setImmediate').mockImplementation(((callback: () => void) => {
      turns += 1;
      if (turns > 100) throw new Error('preciseClock is spinning on event-loop turns');
      return turn(callback);
    }) as typeof setImmediate);
    const clock = preciseClock();
    const fired: number[] = [];
    const from = now();
    clock.setTimeout(() => fired.push(now() - from), THIRTY_DAYS);
    vi.advanceTimersByTime(60_000);
    // Spinning on setImmediate would leave one turn pending all along.
    expect(vi.getTimerCount()).toBe(1);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(THIRTY_DAYS);
    expect(fired).toEqual([THIRTY_DAYS]);
    expect(turns).toBeLessThan(100);
  });

  it("a retry's backoff of '30d' waits 30 days", async () => {
    for (const timerPrecision of ['ms', 'exact'] as const) {
      const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window', timerPrecision });
      const attempts: number[] = [];
      const from = now();
      const task = throttler.schedule(
        () => {
          attempts.push(now() - from);
          if (attempts.length === 1) throw new Error('first');
          return 'second';
        },
        { retry: { retries: 1, backoff: () => '30d' } },
      );
      await advance(0);
      spinGuard();
      await advance(60_000);
      expect(attempts).toEqual([0]);
      await advance(THIRTY_DAYS);
      await expect(task).resolves.toBe('second');
      expect(attempts).toEqual([0, THIRTY_DAYS]);
      await throttler.stop();
    }
  });
});

describe('createThrottler: a bad signal or options that throw are refused, and nothing stays counted', () => {
  /** `schedule` returned a promise (it did not throw) that rejects; nothing waits afterwards. */
  async function expectRefused(throttler: Throttler, call: () => Promise<unknown>) {
    let returned: Promise<unknown> | undefined;
    expect(() => {
      returned = call();
    }).not.toThrow();
    const error = await (returned as Promise<unknown>).catch(failed);
    expect(throttler.size).toBe(0);
    expect(throttler.pending).toBe(0);
    await throttler.onIdle();
    return error;
  }

  it('a signal that is not an AbortSignal rejects with a ThrottlerOptionError naming signal and the value', async () => {
    const throttler = createThrottler({ rate: '5/1s', strategy: 'sliding-window' });
    const rejected: unknown[] = [];
    throttler.on('rejected', (error) => rejected.push(error));
    for (const signal of [{ aborted: false }, 'abort', { aborted: true, reason: 'no' }, 42, null]) {
      const error = await expectRefused(throttler, () =>
        throttler.schedule(() => 'ran', { signal: signal as unknown as AbortSignal }),
      );
      expect(error).toBeInstanceOf(ThrottlerOptionError);
      expect(error).toMatchObject({ option: 'signal', value: signal });
      expect((error as Error).message).toMatch(/^signal must be an AbortSignal, got /);
    }
    expect(rejected).toHaveLength(5);
    await throttler.stop({ drain: true });
  });

  it('an option getter or a Proxy that throws rejects the call (schedule and acquire), never throws', async () => {
    const throttler = createThrottler({ rate: '5/1s', strategy: 'sliding-window' });
    const boom = new Error('boom');
    const throwing = (name: string) =>
      Object.defineProperty({}, name, {
        enumerable: true,
        get() {
          throw boom;
        },
      }) as ScheduleOptions;
    const hostile = [
      ...['signal', 'channel', 'cost', 'priority', 'maxWait', 'deadline', 'id', 'timeout', 'retry'].map(throwing),
      new Proxy(
        {},
        {
          get: () => {
            throw boom;
          },
        },
      ),
      new Proxy(
        {},
        {
          ownKeys: () => {
            throw boom;
          },
        },
      ),
    ];
    for (const options of hostile) {
      expect(await expectRefused(throttler, () => throttler.schedule(() => 'ran', options))).toBe(boom);
      // A Proxy whose only trap is `get` lists no fields: copied for acquire, nothing of it is read.
      if (options === hostile[9]) continue;
      expect(await expectRefused(throttler, () => throttler.acquire(1, options))).toBe(boom);
    }
    expect(throttler.counts).toEqual({ queued: 0, delivered: 0, dropped: 0, rejected: 0 });
    await expect(throttler.schedule(() => 'still works', { id: 1 })).resolves.toBe('still works');
    await throttler.stop({ drain: true });
  });
});

describe('createThrottler: clear() and retries', () => {
  it('a task running at clear() that fails afterwards is not retried; one scheduled after clear() is', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const attempts: string[] = [];
    const failing = (name: string, ms: number) => () =>
      new Promise((_, reject) =>
        setTimeout(() => {
          attempts.push(name);
          reject(new Error(name));
        }, ms),
      );
    const retry = { retries: 2, backoff: () => 100 };
    const before = throttler.schedule(failing('before', 50), { retry }).catch(failed);
    await advance(10);
    throttler.clear();
    const after = throttler.schedule(failing('after', 50), { retry }).catch(failed);
    await advance(1_000);
    expect(await before).toMatchObject({ message: 'before' });
    expect(await after).toMatchObject({ message: 'after' });
    expect(attempts).toEqual(['before', 'after', 'after', 'after']);
    expect(throttler.size).toBe(0);
    await throttler.stop();
  });
});

describe('createThrottler: an async on() handler that rejects', () => {
  it('reaches onHandlerError with its event, and the throttler goes on', async () => {
    const reported: Array<[unknown, string]> = [];
    const throttler = createThrottler({
      rate: '10/1s',
      strategy: 'sliding-window',
      onHandlerError: (error, event) => reported.push([error, event]),
    });
    const completedError = new Error('completed handler');
    const activeError = new Error('active handler');
    throttler.on('completed', async () => {
      throw completedError;
    });
    // Not an async function: one that returns a rejected promise.
    throttler.on('active', () => Promise.reject(activeError) as unknown as undefined);
    await expect(throttler.schedule(() => 'one', { id: 1 })).resolves.toBe('one');
    await expect(throttler.schedule(() => 'two')).resolves.toBe('two');
    await advance(0);
    expect(reported).toEqual([
      [activeError, 'active'],
      [completedError, 'completed'],
      [activeError, 'active'],
      [completedError, 'completed'],
    ]);
    await throttler.stop();
  });
});

describe('createThrottler: stop() called again', () => {
  it('resolves, changing nothing: the tasks are rejected once, the counts stay, a drain asked later resolves', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const dropped: unknown[] = [];
    throttler.on('dropped', (error) => dropped.push(error));
    const tasks = [1, 2, 3].map((n) => throttler.schedule(() => n, { id: n }).catch(failed));
    await advance(0);
    const first = throttler.stop();
    const second = throttler.stop();
    await expect(first).resolves.toBeUndefined();
    await expect(second).resolves.toBeUndefined();
    await expect(throttler.stop({ drain: true })).resolves.toBeUndefined();
    const outcomes = await Promise.all(tasks);
    expect(outcomes[0]).toBe(1);
    expect(outcomes.slice(1).map((error) => (error as Error).name)).toEqual([
      'ThrottlerStoppedError',
      'ThrottlerStoppedError',
    ]);
    expect(dropped).toHaveLength(2);
    expect(throttler.counts).toEqual({ queued: 0, delivered: 1, dropped: 2, rejected: 0 });
  });

  it('a drain under way, then stop(): both resolve once stopped', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const tasks = [1, 2, 3].map((n) => throttler.schedule(() => n, { id: n }).catch(failed));
    const drain = throttler.stop({ drain: true });
    const again = throttler.stop({ drain: true });
    await advance(1_500);
    const plain = throttler.stop();
    await expect(plain).resolves.toBeUndefined();
    await expect(drain).resolves.toBeUndefined();
    await expect(again).resolves.toBeUndefined();
    const outcomes = await Promise.all(tasks);
    expect(outcomes.slice(0, 2)).toEqual([1, 2]);
    expect((outcomes[2] as Error).name).toBe('ThrottlerStoppedError');
  });
});
