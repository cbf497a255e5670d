/**
 * What people coming from p-queue, Bottleneck, p-retry and p-timeout expect of `createThrottler`
 * (issue 34 section 3, issue 33 section 2.6), each the behaviour a ported peer test relied on.
 * The ports themselves, test by test, are in test/adapters/ported/.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  auditThrottler,
  createThrottler,
  type ScheduleOptions,
  type Throttler,
  ThrottlerClearedError,
  ThrottlerOptionError,
  type ThrottlerOptions,
  ThrottlerOverflowError,
} from '../../src/index.js';
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
        const settling = Promise.allSettled(results);
        throttler.clear();
        await advance(100);
        const settled = await settling;
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
    const tasks: Array<() => unknown> = [() => 'sync 1', sleep(4_000), () => 'sync 2', async () => 'async'];
    const results = tasks.map((task) => throttler.schedule(task));
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

describe('Infinity is "no limit"', () => {
  // p-timeout's `handles milliseconds: Infinity`, p-retry's `retries: Infinity`.
  it('timeout: Infinity runs the task with no timer', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    const result = throttler.schedule(sleep(100_000_000), { timeout: Number.POSITIVE_INFINITY });
    expect(vi.getTimerCount()).toBe(1);
    await advance(100_000_000);
    await expect(result).resolves.toBeUndefined();
    await throttler.stop();
  });

  it('retries: Infinity retries until the task succeeds', async () => {
    const throttler = createThrottler({ rate: '100/1s' });
    let attempts = 0;
    const result = throttler.schedule(
      () => {
        attempts += 1;
        if (attempts < 50) throw new Error(`failure ${attempts}`);
        return attempts;
      },
      { retry: { retries: Number.POSITIVE_INFINITY, backoff: () => 10 } },
    );
    await advance(5_000);
    await expect(result).resolves.toBe(50);
    await throttler.stop();
  });

  it('other numbers are still refused, naming the field', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    for (const retries of [-1, 1.5, Number.NaN, Number.NEGATIVE_INFINITY]) {
      await expect(throttler.schedule(() => 1, { retry: { retries } })).rejects.toThrow(/retry\.retries/);
    }
    await expect(throttler.schedule(() => 1, { timeout: -5 })).rejects.toThrow(ThrottlerOptionError);
    await throttler.stop();
  });
});

describe("stop()'s bad option rejects its promise", () => {
  it('stop({ drian: true }) rejects with a ThrottlerOptionError naming the option, and stops nothing', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    // The typo a plain JavaScript caller makes.
    let stopping: Promise<void> | undefined;
    expect(() => {
      stopping = throttler.stop({ drian: true } as never);
    }).not.toThrow();
    await expect(stopping).rejects.toThrow(ThrottlerOptionError);
    await expect(stopping).rejects.toThrow(/drian/);
    await expect(throttler.schedule(() => 'still running')).resolves.toBe('still running');
    await throttler.stop();
  });
});

describe('overflow has its own error class', () => {
  it("'reject', 'drop-oldest' and 'drop-newest' reject the task with a ThrottlerOverflowError", async () => {
    for (const overflow of ['reject', 'drop-oldest', 'drop-newest'] as const) {
      const throttler = createThrottler({ rate: '1/1s', capacity: 1, overflow });
      const settling = Promise.allSettled([1, 2, 3].map((n) => throttler.schedule(() => n)));
      await advance(3_000);
      const settled = await settling;
      const refused = settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason);
      expect(refused.length, overflow).toBe(1);
      expect(refused[0]).toBeInstanceOf(ThrottlerOverflowError);
      expect(refused[0]).toMatchObject({ name: 'ThrottlerOverflowError', overflow });
      await throttler.stop();
    }
  });
});

describe('auditThrottler takes a createThrottler() throttler', () => {
  it('audits it through its actor, as instrumentThrottler takes it', async () => {
    const throttler = createThrottler({ rate: '2/1s', strategy: 'sliding-window' });
    const results = [1, 2, 3, 4].map((n) => throttler.schedule(() => n));
    await advance(2_000);
    await Promise.all(results);
    const report = auditThrottler(throttler);
    expect(report).toEqual(auditThrottler(throttler.actor));
    expect(report.windowsOver).toBe(0);
    expect(report.rates[0]).toMatchObject({ limit: 2, most: 2 });
    await throttler.stop();
  });
});

describe('numbers shown to users are rounded', () => {
  it('acquire() resolves with the ms waited to the microsecond, never float noise', async () => {
    let clock = 0;
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window', now: () => clock });
    await throttler.acquire();
    clock = 0.1;
    const waited = throttler.acquire();
    // Its permit is free from 1000 on; read at 1000.3, the wait is 1000.3 - 0.1 = 1000.1999999999999 in floats.
    clock = 1000.3;
    await advance(1_000);
    await expect(waited).resolves.toBe(1000.2);
    await throttler.stop();
  });
});

describe('taskDefaults: task options for every task, overridable per task', () => {
  // p-queue's queue-level `timeout`.
  it('a default timeout applies to every task; a task of its own replaces it, Infinity turns it off', async () => {
    const throttler = createThrottler({ rate: '10/1s', taskDefaults: { timeout: 100 } });
    const defaulted = throttler.schedule(sleep(200));
    const longer = throttler.schedule(sleep(200), { timeout: 300 });
    const unlimited = throttler.schedule(sleep(1_000), { timeout: Number.POSITIVE_INFINITY });
    const settling = Promise.allSettled([defaulted, longer, unlimited]);
    await advance(1_000);
    const [a, b, c] = await settling;
    expect(a).toMatchObject({ status: 'rejected', reason: { name: 'ThrottlerTimeoutError', timeout: 100 } });
    expect(b).toEqual({ status: 'fulfilled', value: undefined });
    expect(c).toEqual({ status: 'fulfilled', value: undefined });
    await throttler.stop();
  });

  // Bottleneck's limiter-wide retry (a `failed` handler on the limiter).
  it('a default retry applies to every task; retries: 0 turns it off for one', async () => {
    const throttler = createThrottler({ rate: '10/1s', taskDefaults: { retry: { retries: 2, backoff: () => 10 } } });
    const attempts = { retried: 0, once: 0 };
    const retried = throttler.schedule(() => {
      attempts.retried += 1;
      throw new Error('no');
    });
    const once = throttler.schedule(
      () => {
        attempts.once += 1;
        throw new Error('no');
      },
      { retry: { retries: 0 } },
    );
    const settling = Promise.allSettled([retried, once]);
    await advance(1_000);
    await settling;
    expect(attempts).toEqual({ retried: 3, once: 1 });
    await throttler.stop();
  });

  it('priority and maxWait defaults apply too', async () => {
    const throttler = createThrottler({ rate: '1/1s', taskDefaults: { priority: 3, maxWait: '1500ms' } });
    const order: string[] = [];
    const settling = Promise.allSettled(
      ['first', 'low', 'high', 'late'].map((name) =>
        throttler.schedule(() => order.push(name), name === 'high' ? { priority: 9 } : undefined),
      ),
    );
    await advance(3_000);
    const settled = await settling;
    expect(order).toEqual(['first', 'high']);
    expect(settled.slice(1).map((s) => s.status)).toEqual(['rejected', 'fulfilled', 'rejected']);
    await throttler.stop();
  });

  it.each<[unknown, RegExp]>([
    ['30s', /^taskDefaults must be an object/],
    [{ timout: 5 }, /^timout is not an option of taskDefaults.*did you mean timeout\?/],
    [{ timeout: -1 }, /^taskDefaults\.timeout must be/],
    [{ retry: { retries: -1 } }, /^taskDefaults\.retry\.retries must be/],
    [{ priority: 12 }, /^taskDefaults\.priority must be/],
    [{ maxWait: 'soon' }, /^taskDefaults\.maxWait must be/],
    [{ channel: 'a' }, /^channel is not an option of taskDefaults/],
  ])('refuses %j at creation, naming the field', (taskDefaults, message) => {
    expect(() => createThrottler({ rate: '1/1s', taskDefaults: taskDefaults as never })).toThrow(ThrottlerOptionError);
    expect(() => createThrottler({ rate: '1/1s', taskDefaults: taskDefaults as never })).toThrow(message);
  });
});

describe("the library's rejections carry the frames of the schedule() call", () => {
  // Named so that its frame can be found in a stack.
  function scheduledByTheCaller(throttler: Throttler, options: ScheduleOptions, run: () => unknown = sleep(1_000)) {
    return throttler.schedule(run, options).catch((error: unknown) => error as Error);
  }

  it.each<[string, ThrottlerOptions, ScheduleOptions, (throttler: Throttler) => void, string]>([
    ['timeout', { rate: '10/1s' }, { timeout: 10 }, () => {}, 'ThrottlerTimeoutError'],
    ['cleared', { rate: '1/1s' }, { timeout: '1h' }, (throttler) => throttler.clear(), 'ThrottlerClearedError'],
    [
      'stopped',
      { rate: '1/1s' },
      { retry: { retries: 1 } },
      (throttler) => void throttler.stop(),
      'ThrottlerStoppedError',
    ],
    ['expired', { rate: '1/1s' }, { maxWait: 100, timeout: '1h' }, () => {}, 'ThrottlerExpiredError'],
    [
      'overflow',
      { rate: '1/1s', capacity: 1, overflow: 'drop-oldest' },
      { timeout: '1h' },
      () => {},
      'ThrottlerOverflowError',
    ],
  ])('%s', async (_name, throttlerOptions, options, after, name) => {
    const throttler = createThrottler(throttlerOptions);
    // The first starts; the next wait (and the last displaces one with overflow).
    const errors = [0, 1, 2].map(() => scheduledByTheCaller(throttler, options));
    after(throttler);
    await advance(500);
    const error = (await Promise.race(errors)) as Error;
    expect(error.name).toBe(name);
    expect(error.stack).toContain(`${name}: ${error.message}`);
    expect(error.stack).toContain('scheduledByTheCaller');
    await throttler.stop();
  });

  it('a task without a timeout or a retry keeps none (capturing them costs more than such a task)', async () => {
    const throttler = createThrottler({ rate: '1/1s' });
    const error = scheduledByTheCaller(throttler, { priority: 5 });
    const waiting = scheduledByTheCaller(throttler, { priority: 5 });
    throttler.clear();
    expect(await waiting).toBeInstanceOf(ThrottlerClearedError);
    expect(((await waiting) as Error).stack).not.toContain('scheduledByTheCaller');
    await advance(1_000);
    await error;
    await throttler.stop();
  });

  it('each task gets its own copy: one clear() rejects two callers with their own frames, same class and fields', async () => {
    const throttler = createThrottler({ rate: '1/1s' });
    const first = () => throttler.schedule(() => 1, { timeout: '1h' }).catch((error: unknown) => error as Error);
    const secondCaller = () => throttler.schedule(() => 2, { timeout: '1h' }).catch((error: unknown) => error as Error);
    void throttler.schedule(() => 0);
    const [a, b] = [first(), secondCaller()];
    throttler.clear();
    const [errorA, errorB] = [(await a) as Error, (await b) as Error];
    expect(errorA).toBeInstanceOf(ThrottlerClearedError);
    expect(errorB).toBeInstanceOf(ThrottlerClearedError);
    expect(errorA).not.toBe(errorB);
    expect(errorB.stack).toContain('secondCaller');
    expect(errorA.stack).not.toContain('secondCaller');
    await throttler.stop();
  });

  it("a task's own error and a signal's reason pass through unchanged", async () => {
    const throttler = createThrottler({ rate: '1/1s' });
    const thrown = new Error('mine');
    const controller = new AbortController();
    void throttler.schedule(() => 0);
    const aborted = throttler
      .schedule(() => 1, { signal: controller.signal, timeout: '1h' })
      .catch((error: unknown) => error);
    controller.abort();
    expect(await aborted).toBe(controller.signal.reason);
    const failed = throttler
      .schedule(
        () => {
          throw thrown;
        },
        { timeout: '1h' },
      )
      .catch((error: unknown) => error);
    await advance(1_000);
    expect(await failed).toBe(thrown);
    await throttler.stop();
  });
});
