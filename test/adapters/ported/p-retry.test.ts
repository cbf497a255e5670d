/**
 * p-retry's own tests (sindresorhus/p-retry, test.js; the registry's tarball ships no tests), ported test
 * by test onto createThrottler's `retry` option, in virtual time. `pRetry(fn, { retries })` is
 * `schedule(fn, { retry: { retries } })`; p-retry's onFailedAttempt is the `retry` event and `retryOn`.
 * Each test names the p-retry test it ports; where our behaviour differs by design, the test asserts
 * ours and cites the docs.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler } from '../../../src/index.js';
import { restoreRealTime, useVirtualTime } from '../../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const fixture = Symbol('fixture');
const fixtureError = new Error('fixture');
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
const throttler = () => createThrottler({ rate: '1000/1s' });
/** Runs `fn` with retries; the attempt number is counted by the test, as our task receives `{ signal }`. */
function retrying<T>(fn: (attempt: number) => Promise<T>, retry: object = {}) {
  let attempt = 0;
  return throttler().schedule(() => fn(++attempt), {
    retry: { retries: 10, backoff: () => 0, ...retry } as never,
  });
}

describe('p-retry, ported', () => {
  it('retries', async () => {
    let i = 0;
    const result = retrying(async (attemptNumber) => {
      await delay(40);
      i++;
      return attemptNumber === 3 ? fixture : Promise.reject(fixtureError);
    });
    await advance(1_000);
    expect(await result).toBe(fixture);
    expect(i).toBe(3);
  });

  // p-retry's AbortError is retryOn returning false here (docs/reference.md, `retry`: retryOn).
  it('aborts', async () => {
    let i = 0;
    const abort = new Error('abort');
    const result = retrying(
      async (attemptNumber) => {
        await delay(40);
        i++;
        return Promise.reject(attemptNumber === 3 ? abort : fixtureError);
      },
      { retryOn: (error: unknown) => error !== abort },
    ).catch((error: unknown) => error);
    await advance(1_000);
    expect(await result).toBe(abort);
    expect(i).toBe(3);
  });

  // Design difference: p-retry never retries a TypeError; here every error is retried unless retryOn says
  // otherwise (docs/reference.md, `retry`: "Default: every error"), so the TypeError rule is a retryOn.
  it('no retry on TypeError', async () => {
    let i = 0;
    const typeErrorFixture = new TypeError('type-error-fixture');
    const result = retrying(
      async (attemptNumber) => {
        await delay(40);
        i++;
        return attemptNumber === 3 ? fixture : Promise.reject(typeErrorFixture);
      },
      { retryOn: (error: unknown) => !(error instanceof TypeError) },
    ).catch((error: unknown) => error);
    await advance(1_000);
    expect(await result).toBe(typeErrorFixture);
    expect(i).toBe(1);
  });

  it('onFailedAttempt is called expected number of times (the retry event)', async () => {
    const limiter = throttler();
    const heard: Array<[unknown, number]> = [];
    limiter.on('retry', (error, _id, { attempt }) => heard.push([error, attempt]));
    let i = 0;
    const result = limiter.schedule(
      async () => {
        await delay(40);
        i++;
        return i === 3 ? fixture : Promise.reject(fixtureError);
      },
      { retry: { retries: 5, backoff: () => 0 } },
    );
    await advance(1_000);
    expect(await result).toBe(fixture);
    expect(i).toBe(3);
    // Our event names the attempt to come (2 = first retry); p-retry's attemptNumber names the one that failed.
    expect(heard).toEqual([
      [fixtureError, 2],
      [fixtureError, 3],
    ]);
  });

  it('onFailedAttempt is called before last rejection (retryOn sees every failure)', async () => {
    const seen: number[] = [];
    let i = 0;
    const result = retrying(
      async () => {
        await delay(40);
        i++;
        return Promise.reject(fixtureError);
      },
      {
        retries: 3,
        retryOn: (error: unknown, attempt: number) => {
          expect(error).toBe(fixtureError);
          seen.push(attempt);
          return true;
        },
      },
    ).catch((error: unknown) => error);
    await advance(1_000);
    expect(await result).toBe(fixtureError);
    expect(i).toBe(4);
    // The last failure is not asked about: no retries are left.
    expect(seen).toEqual([1, 2, 3]);
  });

  it('onFailedAttempt can return a promise to add a delay (backoff here)', async () => {
    let called = false;
    const start = performance.now();
    let finishedAt = 0;
    const result = retrying(
      async () => {
        if (called) {
          finishedAt = performance.now();
          return fixture;
        }
        called = true;
        return Promise.reject(fixtureError);
      },
      { backoff: () => 1000 },
    );
    await advance(2_000);
    expect(await result).toBe(fixture);
    expect(finishedAt).toBeGreaterThanOrEqual(start + 1000);
  });

  it('onFailedAttempt can throw, causing all retries to be aborted (retryOn throwing)', async () => {
    const error = new Error('thrown from retryOn');
    const result = retrying(() => Promise.reject(fixtureError), {
      retryOn: () => {
        throw error;
      },
    }).catch((thrown: unknown) => thrown);
    await advance(1_000);
    expect(await result).toBe(error);
  });

  // Design difference: what a task throws passes through unchanged, an Error or not (docs/reference.md,
  // `schedule`: "the promise resolves or rejects exactly as the task does"); p-retry wraps a non-error.
  it('throws useful error message when non-error is thrown', async () => {
    const result = retrying(() => Promise.reject('foo'), { retries: 1 }).catch((thrown: unknown) => thrown);
    await advance(1_000);
    expect(await result).toBe('foo');
  });

  it('retries: Infinity (p-retry accepts it as no limit)', async () => {
    let i = 0;
    const result = retrying(async () => (++i === 100 ? fixture : Promise.reject(fixtureError)), {
      retries: Number.POSITIVE_INFINITY,
    });
    await advance(5_000);
    expect(await result).toBe(fixture);
    expect(i).toBe(100);
  });
});
