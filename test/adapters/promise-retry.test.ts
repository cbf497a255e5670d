import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, ThrottlerClearedError, ThrottlerStoppedError } from '../../src/index.js';
import { serverLimits } from '../../src/server-limits/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
const failed = (error: unknown) => error;
/** No jitter: every delay is its ceiling's three quarters (d/2 + 0.5 × d/2). */
const half = () => 0.5;

/** A task that fails its first `failures` calls, logging each start, then resolves with `value`. */
function flaky<T>(failures: number, value: T, log: Array<[string, number]>, name = 'task') {
  let calls = 0;
  return () => {
    calls += 1;
    log.push([`${name} ${calls}`, now()]);
    if (calls <= failures) throw new Error(`${name} failed ${calls}`);
    return value;
  };
}

describe('createThrottler: retry', () => {
  it('runs a failed task again after an exponential backoff; the promise settles with the last outcome', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const log: Array<[string, number]> = [];
    const retries: string[] = [];
    throttler.on('retry', (error, id, { attempt, delay }) =>
      retries.push(`${id} attempt ${attempt} in ${delay} ms after ${(error as Error).message}`),
    );
    const task = throttler.schedule(flaky(2, 'ok', log), {
      id: 'job',
      retry: { retries: 3, backoff: { random: half } },
    });
    expect(throttler.size).toBe(1);
    await advance(0);
    // Waiting out its backoff, it counts as waiting.
    expect([throttler.size, throttler.pending]).toEqual([1, 0]);
    await advance(5_000);
    await expect(task).resolves.toBe('ok');
    expect(log).toEqual([
      ['task 1', 0],
      ['task 2', 750],
      ['task 3', 750 + 1_500],
    ]);
    expect(retries).toEqual([
      'job attempt 2 in 750 ms after task failed 1',
      'job attempt 3 in 1500 ms after task failed 2',
    ]);
    expect(throttler.counts.delivered).toBe(3);
    await throttler.stop();
  });

  it('rejects with the last error once its retries are spent, reporting one error', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const log: Array<[string, number]> = [];
    const errors: unknown[] = [];
    throttler.on('error', (error) => errors.push((error as Error).message));
    const task = throttler.schedule(flaky(5, 'ok', log), { retry: { retries: 2, backoff: () => 100 } }).catch(failed);
    await advance(1_000);
    await expect(task).resolves.toMatchObject({ message: 'task failed 3' });
    expect(log.map(([, at]) => at)).toEqual([0, 100, 200]);
    expect(errors).toEqual(['task failed 3']);
    expect([throttler.size, throttler.pending]).toEqual([0, 0]);
    await throttler.stop();
  });

  it('each attempt goes through the throttler and keeps its priority', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const log: Array<[string, number]> = [];
    const urgent = throttler.schedule(flaky(1, 'u', log, 'urgent'), {
      priority: 9,
      retry: { retries: 1, backoff: () => 10 },
    });
    const later = [1, 2].map((index) => throttler.schedule(flaky(0, index, log, `low${index}`), { priority: 1 }));
    await advance(5_000);
    await Promise.all([urgent, ...later]);
    expect(log).toEqual([
      ['urgent 1', 0],
      ['urgent 2', 1_000],
      ['low1 1', 2_000],
      ['low2 1', 3_000],
    ]);
    await throttler.stop();
  });

  it("honours the server's Retry-After that serverLimits read from the failure", async () => {
    const refused = Object.assign(new Error('429'), {
      response: new Response(null, { status: 429, headers: { 'Retry-After': '5' } }),
    });
    const throttler = createThrottler({
      rate: '10/1s',
      strategy: 'sliding-window',
      serverLimits: serverLimits((_value, error) => (error as typeof refused | undefined)?.response),
    });
    const starts: number[] = [];
    const task = throttler.schedule(
      () => {
        starts.push(now());
        if (starts.length === 1) throw refused;
        return 'done';
      },
      { retry: { retries: 1, backoff: () => 100 } },
    );
    await advance(10_000);
    await expect(task).resolves.toBe('done');
    expect(starts).toEqual([0, 5_000]);
    await throttler.stop();
  });

  it('retryOn declines an error; one that throws rejects the task with its own error', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const log: Array<[string, number]> = [];
    const declined = throttler
      .schedule(flaky(1, 'ok', log, 'a'), {
        retry: { retries: 3, retryOn: (error, attempt) => attempt > 1 && !!error },
      })
      .catch(failed);
    const broken = throttler
      .schedule(flaky(1, 'ok', log, 'b'), {
        retry: {
          retries: 3,
          retryOn: () => {
            throw new Error('retryOn broke');
          },
        },
      })
      .catch(failed);
    await advance(1_000);
    await expect(declined).resolves.toMatchObject({ message: 'a failed 1' });
    await expect(broken).resolves.toMatchObject({ message: 'retryOn broke' });
    await throttler.stop();
  });

  it('a retry waiting out its backoff is rejected by clear(), stop() and its own signal', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const log: Array<[string, number]> = [];
    const retry = { retries: 1, backoff: () => 1_000 };
    const controller = new AbortController();
    const cleared = throttler.schedule(flaky(1, 1, log, 'a'), { retry }).catch(failed);
    const aborted = throttler.schedule(flaky(1, 2, log, 'b'), { retry, signal: controller.signal }).catch(failed);
    await advance(100);
    expect(throttler.size).toBe(2);
    controller.abort();
    await expect(aborted).resolves.toMatchObject({ name: 'AbortError' });
    throttler.clear();
    await expect(cleared).resolves.toBeInstanceOf(ThrottlerClearedError);
    const stopped = throttler.schedule(flaky(1, 3, log, 'c'), { retry }).catch(failed);
    await advance(100);
    await throttler.stop();
    await expect(stopped).resolves.toBeInstanceOf(ThrottlerStoppedError);
    await advance(2_000);
    expect(log.map(([name]) => name)).toEqual(['a 1', 'b 1', 'c 1']);
    expect(throttler.size).toBe(0);
  });

  it('the budget keeps an outage from becoming a retry storm (10% of the attempts of the last 10 s)', async () => {
    const throttler = createThrottler({ rate: '100/1s', strategy: 'sliding-window' });
    let attempts = 0;
    const retry = { retries: 3, backoff: { random: half }, budget: 0.1 };
    const tasks = Array.from({ length: 20 }, () =>
      throttler
        .schedule(
          () => {
            attempts += 1;
            throw new Error('down');
          },
          { retry },
        )
        .catch(failed),
    );
    await advance(0);
    // 20 first attempts: 10% of them is 2 retries; the other 18 fail at once.
    expect(throttler.size).toBe(2);
    await advance(60_000);
    await Promise.all(tasks);
    // The 2 retries ran (22 attempts, 2.2 allowed): no third; 10 s later the window holds only the retries.
    expect(attempts).toBe(22);
    await throttler.stop();
  });

  it('refuses a bad retry option, naming the field and the value', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    const cases: Array<[unknown, string]> = [
      [3, 'retry must be an object such as { retries: 3 }, got 3'],
      [{ retries: -1 }, 'retry.retries must be a non-negative integer, or Infinity for no limit, got -1'],
      [{ retries: 1, backoff: 5 }, 'retry.backoff must be { initial?, factor?, max?, random? } or a function, got 5'],
      [{ retries: 1, backoff: { factor: 0.5 } }, 'retry.backoff.factor must be a finite number >= 1, got 0.5'],
      [{ retries: 1, backoff: { initial: 'now' } }, 'retry.backoff.initial must be a duration'],
      [{ retries: 1, retryOn: true }, 'retry.retryOn must be a function (error, attempt) => boolean, got true'],
      [
        { retries: 1, retryOn: async () => true },
        'retry.retryOn must be a synchronous function (error, attempt) => boolean',
      ],
      [{ retries: 1, budget: 2 }, 'retry.budget.ratio must be a number from 0 to 1, got 2'],
      [{ retries: 1, budget: { ratio: 0.1, window: 0 } }, 'retry.budget.window must be a positive'],
      [{ retries: 1, budget: { ratio: 0.1, min: -1 } }, 'retry.budget.min must be an integer >= 0, got -1'],
      // An unknown field is refused, not ignored: a typo, or p-retry's names (minTimeout, maxRetryTime).
      [
        { retries: 1, retyrOn: () => true },
        'retry.retyrOn is not an option of retry (got a function): did you mean retryOn?',
      ],
      [
        { retries: 1, minTimeout: 100 },
        'retry.minTimeout is not an option of retry (got 100); the options are retries',
      ],
      [
        { retries: 1, backoff: { initial: 1, maxx: 2 } },
        'retry.backoff.maxx is not an option of retry.backoff (got 2): did you mean max?',
      ],
    ];
    for (const [retry, message] of cases) {
      await expect(throttler.schedule(() => 1, { retry } as never)).rejects.toThrow(message);
    }
    await throttler.stop();
  });
});
