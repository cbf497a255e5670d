/**
 * p-timeout's own tests (sindresorhus/p-timeout, test.js; the registry's tarball ships no tests), ported
 * onto createThrottler's `timeout` option, in virtual time: `pTimeout(promise, ms)` is
 * `schedule(() => promise, { timeout: ms })`. Each test names the p-timeout test it ports.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, ThrottlerOptionError, ThrottlerTimeoutError } from '../../../src/index.js';
import { restoreRealTime, useVirtualTime } from '../../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const fixture = Symbol('fixture');
const fixtureErr = new Error('fixture');
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
function timed<T>(run: () => Promise<T>, timeout: unknown) {
  return createThrottler({ rate: '100/1s' })
    .schedule(run, { timeout: timeout as number })
    .catch((error: unknown) => error);
}

describe('p-timeout, ported', () => {
  it('resolves before timeout', async () => {
    const result = timed(() => delay(50).then(() => fixture), 200);
    await advance(200);
    expect(await result).toBe(fixture);
  });

  // Design difference: a string is a duration here ('200' alone has no unit and is refused, naming the option).
  it('throws when ms is not number', async () => {
    expect(await timed(() => delay(50), '200')).toBeInstanceOf(ThrottlerOptionError);
  });

  it('throws when ms is negative number', async () => {
    expect(await timed(() => delay(50), -1)).toBeInstanceOf(TypeError);
  });

  it('rejects after timeout', async () => {
    const result = timed(() => delay(200), 50);
    await advance(200);
    expect(await result).toBeInstanceOf(ThrottlerTimeoutError);
  });

  it('rejects before timeout if specified promise rejects', async () => {
    const result = timed(() => delay(50).then(() => Promise.reject(fixtureErr)), 200);
    await advance(200);
    expect(await result).toBe(fixtureErr);
  });

  // p-timeout's `.cancel()` call is the task's signal here, aborted with the timeout error.
  it('calls `.cancel()` on promise when it exists (the signal is aborted)', async () => {
    let reason: unknown;
    const result = createThrottler({ rate: '100/1s' })
      .schedule(
        ({ signal }) => {
          signal.addEventListener('abort', () => {
            reason = signal.reason;
          });
          return delay(200);
        },
        { timeout: 50 },
      )
      .catch((error: unknown) => error);
    await advance(200);
    expect(await result).toBeInstanceOf(ThrottlerTimeoutError);
    expect(reason).toBe(await result);
  });

  it('handles milliseconds: Infinity (no timeout)', async () => {
    const result = timed(() => delay(1_000_000).then(() => fixture), Number.POSITIVE_INFINITY);
    await advance(1_000_000);
    expect(await result).toBe(fixture);
  });
});
