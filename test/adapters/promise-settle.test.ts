import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { auditThrottler, createThrottler, ThrottlerOptionError } from '../../src/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** A model call that takes `ms` and used `tokens`. */
function call(tokens: number, ms: number, starts: number[]) {
  return () => {
    starts.push(now());
    return new Promise<{ usage: { total_tokens: number } }>((resolve) =>
      setTimeout(() => resolve({ usage: { total_tokens: tokens } }), ms),
    );
  };
}

describe('createThrottler: schedule(fn, { cost, settle })', () => {
  it('the actual cost replaces the estimate as the task resolves: the saving is used at once', async () => {
    const throttler = createThrottler({ rate: '1000/1m', strategy: 'sliding-window' });
    const starts: number[] = [];
    const settle = (result: { usage: { total_tokens: number } }) => result.usage.total_tokens;
    const first = throttler.schedule(call(200, 100, starts), { cost: 800, settle });
    const second = throttler.schedule(call(600, 100, starts), { cost: 800, settle });
    await advance(0);
    expect(starts).toEqual([0]);
    await advance(100);
    // 200 used of 1000: the second's estimate of 800 fits at once.
    expect(starts).toEqual([0, 100]);
    await expect(first).resolves.toEqual({ usage: { total_tokens: 200 } });
    await advance(100);
    await expect(second).resolves.toEqual({ usage: { total_tokens: 600 } });
    expect(auditThrottler(throttler.actor).windowsOver).toBe(0);
  });

  it('a task that fails keeps its estimate; only the successful attempt of a retried one is settled', async () => {
    const throttler = createThrottler({ rate: '20/1s', strategy: 'sliding-window' });
    const settle = vi.fn(() => 1);
    let calls = 0;
    const flaky = () => {
      calls += 1;
      if (calls === 1) throw new Error('once');
      return 'ok';
    };
    const retried = throttler.schedule(flaky, { cost: 4, settle, retry: { retries: 1, backoff: () => 10 } });
    const failing = throttler
      .schedule(
        () => {
          throw new Error('no');
        },
        { cost: 4, settle },
      )
      .catch((error: Error) => error.message);
    await advance(20);
    await expect(retried).resolves.toBe('ok');
    expect(await failing).toBe('no');
    expect(settle).toHaveBeenCalledTimes(1);
    // 4 (failed) + 4 (failed attempt) + 1 (the retry, settled): 11 more fit now; unsettled, the retry's 4 would not.
    const starts: number[] = [];
    const later = throttler.schedule(() => starts.push(now()), { cost: 11 });
    await advance(0);
    await later;
    expect(starts).toEqual([20]);
  });

  it('a settle that throws or returns no cost is reported to onHandlerError; the estimate stays; the task resolves', async () => {
    const reported: Array<[string, string]> = [];
    const throttler = createThrottler({
      rate: '10/1s',
      strategy: 'sliding-window',
      onHandlerError: (error, event) => reported.push([event, (error as Error).message]),
    });
    const thrown = throttler.schedule(() => 'a', {
      cost: 5,
      settle: () => {
        throw new Error('bad settle');
      },
    });
    const nan = throttler.schedule(() => 'b', { cost: 5, settle: () => Number.NaN });
    await advance(0);
    await expect(thrown).resolves.toBe('a');
    await expect(nan).resolves.toBe('b');
    expect(reported).toEqual([
      ['settle', 'bad settle'],
      ['settle', 'settle() must be the actual cost of a delivered message, an integer >= 0, got NaN'],
    ]);
    const starts: number[] = [];
    const later = throttler.schedule(() => starts.push(now()));
    await advance(999);
    expect(starts).toEqual([]);
    await advance(1);
    await later;
  });

  it('refuses a settle that is not a function, or with countUntil done, at the call', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    await expect(throttler.schedule(() => 1, { settle: 5 as never })).rejects.toThrow(
      new ThrottlerOptionError('settle', 'a function (result) => actual cost', 5),
    );
    const done = createThrottler({ rate: '10/1s', strategy: 'sliding-window', countUntil: 'done' });
    await expect(done.schedule(() => 1, { settle: () => 1 })).rejects.toThrow(
      /settle must be left out with countUntil/,
    );
  });
});
