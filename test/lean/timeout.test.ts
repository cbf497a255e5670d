import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createThrottler, ThrottlerTimeoutError } from '../../src/index.js';
import { createThrottler as createLeanThrottler, timeout } from '../../src/lean/index.js';
import { slidingWindow } from '../../src/strategies/index.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const MISSING =
  "features must be a list holding timeout for a task's timeout option: import { timeout } from " +
  '"xstate-throttler/lean" and pass features: [timeout] (the main entry, "xstate-throttler", loads every ' +
  'feature), got an array of 0';

/** A task that never ends, with a timeout of 50 ms: how it ends, and when, in virtual time. */
async function hungTask(create: typeof createThrottler, extra: object) {
  const throttler = create({ rate: '10/1s', strategy: slidingWindow, ...extra });
  const outcome = throttler.schedule(() => new Promise(() => {}), { timeout: 50 }).catch((error: unknown) => error);
  advance(49);
  await Promise.resolve();
  const settledEarly = await Promise.race([outcome, Promise.resolve('waiting')]);
  advance(1);
  const error = await outcome;
  throttler.stop();
  return { settledEarly, error };
}

/**
 * A task's `timeout` (adapters/task-timeout.ts) loads on xstate-throttler/lean only with the `timeout` feature;
 * without it a timeout is refused with what to import, in `schedule` and in `taskDefaults` alike (Infinity,
 * "no timeout", needs none). The main entry loads it by itself.
 */
describe('the timeout feature', () => {
  it('lean: with it, a hung task is rejected at its timeout, as the main entry rejects it', async () => {
    const lean = await hungTask(createLeanThrottler, { features: [timeout] });
    expect(lean.settledEarly).toBe('waiting');
    expect(lean.error).toBeInstanceOf(ThrottlerTimeoutError);
    expect((lean.error as ThrottlerTimeoutError).timeout).toBe(50);
    const main = await hungTask(createThrottler, {});
    expect([main.settledEarly, (main.error as ThrottlerTimeoutError).timeout]).toEqual(['waiting', 50]);
  });

  it('lean: without it, a task with a timeout is rejected and taskDefaults refused, naming the option and what to import', async () => {
    const throttler = createLeanThrottler({ rate: '10/1s', strategy: slidingWindow });
    await expect(throttler.schedule(() => 'done', { timeout: 50 })).rejects.toThrow(MISSING);
    // No timeout at all needs nothing.
    await expect(throttler.schedule(() => 'done', { timeout: Number.POSITIVE_INFINITY })).resolves.toBe('done');
    throttler.stop();
    expect(() =>
      createLeanThrottler({ rate: '10/1s', strategy: slidingWindow, taskDefaults: { timeout: '1s' } }),
    ).toThrow(MISSING);
  });
});
