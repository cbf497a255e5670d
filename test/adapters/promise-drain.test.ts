import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, ThrottlerExpiredError, ThrottlerStoppedError } from '../../src/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
const failed = (error: unknown) => error;

describe('createThrottler: stop({ drain: true })', () => {
  it('refuses new tasks, runs every waiting one at the rate, then stops once nothing runs', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const starts: number[] = [];
    const tasks = [1, 2, 3].map((value) =>
      throttler.schedule(
        () =>
          new Promise((resolve) => {
            starts.push(now());
            setTimeout(() => resolve(value), 500);
          }),
      ),
    );
    let stoppedAt: number | undefined;
    const stopping = throttler.stop({ drain: true }).then(() => {
      stoppedAt = now();
    });
    await expect(throttler.schedule(() => 4)).rejects.toBeInstanceOf(ThrottlerStoppedError);
    await advance(5_000);
    await stopping;
    await expect(Promise.all(tasks)).resolves.toEqual([1, 2, 3]);
    expect(starts).toEqual([0, 1_000, 2_000]);
    expect(stoppedAt).toBe(2_500);
    // Stopped now: the other methods throw as after stop().
    expect(() => throttler.pause()).toThrow(ThrottlerStoppedError);
    await expect(throttler.stop({ drain: true })).resolves.toBeUndefined();
  });

  it("is Bottleneck's stop({ dropWaitingJobs: false }); a plain stop() meanwhile stops at once", async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const tasks = [1, 2, 3].map((value) => throttler.schedule(() => value).catch(failed));
    const draining = throttler.stop({ dropWaitingJobs: false });
    await advance(1_000);
    await throttler.stop();
    await draining;
    const outcomes = await Promise.all(tasks);
    expect(outcomes.slice(0, 2)).toEqual([1, 2]);
    expect(outcomes[2]).toBeInstanceOf(ThrottlerStoppedError);
  });

  it('stop() and stop({ dropWaitingJobs: true }) keep their meaning: what waits is rejected', async () => {
    for (const options of [undefined, { dropWaitingJobs: true }, { drain: false }]) {
      const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
      const tasks = [1, 2].map((value) => throttler.schedule(() => value).catch(failed));
      await throttler.stop(options);
      const outcomes = await Promise.all(tasks);
      expect(outcomes[0]).toBe(1);
      expect(outcomes[1]).toBeInstanceOf(ThrottlerStoppedError);
    }
  });

  it('refuses options it does not know, naming the field and the value', async () => {
    const throttler = createThrottler({ rate: '1/1s' });
    await expect(throttler.stop({ drain: 'yes' } as never)).rejects.toThrow(
      'stop(options).drain must be true or false, got "yes"',
    );
    await expect(throttler.stop({ drain: true, dropWaitingJobs: true })).rejects.toThrow(
      'stop(options).dropWaitingJobs must be left out, or the opposite of drain (true), got true',
    );
    await expect(throttler.stop({ drian: true } as never)).rejects.toThrow(
      'drian is not an option of stop(options) (got true): did you mean drain?',
    );
    await expect(throttler.stop(true as never)).rejects.toThrow(
      'stop(options) must be { drain?: boolean } or { dropWaitingJobs?: boolean }, got true',
    );
    await throttler.stop();
  });
});

describe('createThrottler: durations as strings', () => {
  it("pause('5s') and maxWait: '2s'", async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    throttler.pause('5s');
    const starts: number[] = [];
    const late = throttler.schedule(() => starts.push(now()), { maxWait: '2s' }).catch(failed);
    const patient = throttler.schedule(() => starts.push(now()), { maxWait: '1m' });
    await advance(6_000);
    await expect(late).resolves.toBeInstanceOf(ThrottlerExpiredError);
    await expect(patient).resolves.toBe(1);
    expect(starts).toEqual([5_000]);
    expect(() => throttler.pause('soon')).toThrow(
      'pause(duration) must be a duration such as 500ms, 1s, 1m, 1h or 1d, got "soon"',
    );
    await expect(throttler.schedule(() => 1, { maxWait: 'later' })).rejects.toThrow(
      'maxWait must be a duration such as 500ms, 1s, 1m, 1h or 1d, got "later"',
    );
    await throttler.stop();
  });
});
