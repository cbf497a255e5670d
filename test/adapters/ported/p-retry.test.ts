/**
 * p-retry's own tests (sindresorhus/p-retry test.js at v7.0.0, e11ca9c; the registry's tarball ships no
 * tests), every one ported onto createThrottler's `retry` option, in virtual time. `pRetry(fn, { retries })`
 * is `schedule(fn, { retry: { retries } })`; `minTimeout`/`factor`/`maxTimeout`/`randomize` are
 * `backoff: { initial, factor, max, random }`; `shouldRetry` (and `AbortError`) is `retryOn`;
 * `onFailedAttempt` is the `retry` event (docs/coming-from.md, "From p-retry"). Each test keeps p-retry's
 * title; where our behaviour differs by design the test asserts ours (or is skipped) and cites the docs.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, ThrottlerOptionError } from '../../../src/index.js';
import { restoreRealTime, useVirtualTime } from '../../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const fixture = Symbol('fixture');
const fixtureError = new Error('fixture');
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
const throttler = () => createThrottler({ rate: '1000/1s' });
/** Runs `fn` with retries (p-retry's default 10, no backoff unless given); the attempt number is counted here. */
function retrying<T>(fn: (attempt: number) => T | Promise<T>, retry: object = {}, limiter = throttler()) {
  let attempt = 0;
  return limiter.schedule(() => fn(++attempt), { retry: { retries: 10, backoff: () => 0, ...retry } as never });
}
const settled = (promise: Promise<unknown>) => promise.catch((error: unknown) => error);
/** The backoff delays a retried task waited, as the `retry` event reports them (p-retry's tests mock setTimeout). */
async function delaysOf(backoff: object, retries: number) {
  const limiter = throttler();
  const delays: number[] = [];
  limiter.on('retry', (_error, _id, { delay: ms }) => delays.push(ms));
  const result = settled(retrying(() => Promise.reject(new Error('test')), { retries, backoff }, limiter));
  await advance(10_000);
  return { error: await result, delays };
}
const noJitter = () => 1; // docs/reference.md, `retry`: "`() => 1` removes the jitter"

describe('p-retry, ported', () => {
  it('retries', async () => {
    let index = 0;
    const result = retrying(async (attemptNumber) => {
      await delay(40);
      index++;
      return attemptNumber === 3 ? fixture : Promise.reject(fixtureError);
    });
    await advance(1_000);
    expect(await result).toBe(fixture);
    expect(index).toBe(3);
  });

  // p-retry's AbortError is retryOn returning false here (docs/coming-from.md, From p-retry).
  it('retries forever when specified', async () => {
    let attempts = 0;
    const stop = new Error('stop');
    const result = settled(
      retrying(
        async () => {
          attempts++;
          throw attempts === 15 ? stop : new Error('test');
        },
        { retries: Number.POSITIVE_INFINITY, retryOn: (error: unknown) => error !== stop },
      ),
    );
    await advance(1_000);
    expect(await result).toBe(stop);
    expect(attempts).toBe(15);
  });

  // Design difference: what a task throws passes through unchanged, an Error or not (docs/reference.md,
  // `schedule`: "the promise resolves or rejects exactly as the task does"); p-retry wraps a non-error.
  it('throws useful error message when non-error is thrown', async () => {
    const result = settled(
      retrying(
        () => {
          throw 'foo';
        },
        { retries: 1 },
      ),
    );
    await advance(1_000);
    expect(await result).toBe('foo');
  });

  // Design difference: p-retry never retries a TypeError; here every error is retried unless retryOn says
  // otherwise (docs/reference.md, `retry`: "Default: every error"), so the TypeError rule is a retryOn.
  it('no retry on TypeError', async () => {
    let index = 0;
    const typeErrorFixture = new TypeError('type-error-fixture');
    const result = settled(
      retrying(
        async (attemptNumber) => {
          await delay(40);
          index++;
          return attemptNumber === 3 ? fixture : Promise.reject(typeErrorFixture);
        },
        { retryOn: (error: unknown) => !(error instanceof TypeError) },
      ),
    );
    await advance(1_000);
    expect(await result).toBe(typeErrorFixture);
    expect(index).toBe(1);
  });

  // Design difference (as above): retryOn is asked about a TypeError as about any error.
  it('shouldRetry is not called for non-network TypeError', async () => {
    let asked = 0;
    const typeErrorFixture = new TypeError('type-error-fixture');
    const retryOn = () => {
      asked++;
      return false;
    };
    const result = settled(retrying(() => Promise.reject(typeErrorFixture), { retryOn }));
    await advance(1_000);
    expect(await result).toBe(typeErrorFixture);
    expect(asked).toBe(1);
  });

  it('retry on TypeError - failed to fetch', async () => {
    let index = 0;
    const typeErrorFixture = new TypeError('Failed to fetch');
    const result = retrying(async (attemptNumber) => {
      await delay(40);
      index++;
      return attemptNumber === 3 ? fixture : Promise.reject(typeErrorFixture);
    });
    await advance(1_000);
    expect(await result).toBe(fixture);
    expect(index).toBe(3);
  });

  // Design difference: no maxRetryTime; the closest is `deadline` (docs/coming-from.md, From p-retry),
  // which bounds when an attempt may start and rejects a later one with a ThrottlerExpiredError.
  it('errors are preserved when maxRetryTime exceeded', async () => {
    const originalError = new Error('original error');
    const result = settled(
      createThrottler({ rate: '1000/1s' }).schedule(
        async () => {
          await delay(150);
          throw originalError;
        },
        { deadline: 100, retry: { retries: 10, backoff: () => 0 } },
      ),
    );
    await advance(1_000);
    expect((await result) as Error).toHaveProperty('name', 'ThrottlerExpiredError');
  });

  it.skip('AbortError - string: no AbortError class, retryOn returns false (docs/coming-from.md, From p-retry)', () => {});

  it.skip('AbortError - error: no AbortError class, retryOn returns false (docs/coming-from.md, From p-retry)', () => {});

  it('aborts', async () => {
    let index = 0;
    const abort = new Error('abort');
    const result = settled(
      retrying(
        async (attemptNumber) => {
          await delay(40);
          index++;
          return Promise.reject(attemptNumber === 3 ? abort : fixtureError);
        },
        { retryOn: (error: unknown) => error !== abort },
      ),
    );
    await advance(1_000);
    expect(await result).toBe(abort);
    expect(index).toBe(3);
  });

  it('operation stops immediately on AbortError', async () => {
    let attempts = 0;
    const stop = new Error('stop');
    const result = settled(
      retrying(
        async () => {
          attempts++;
          throw attempts === 2 ? stop : new Error('test');
        },
        { retries: 10, retryOn: (error: unknown) => error !== stop },
      ),
    );
    await advance(1_000);
    expect(await result).toBe(stop);
    expect(attempts).toBe(2);
  });

  // AbortError and shouldRetry are one function here (retryOn), so it is asked once and declines.
  it('shouldRetry is not called for AbortError', async () => {
    let asked = 0;
    const stop = new Error('stop');
    const retryOn = () => {
      asked++;
      return false;
    };
    const result = settled(retrying(() => Promise.reject(stop), { retryOn }));
    await advance(1_000);
    expect(await result).toBe(stop);
    expect(asked).toBe(1);
  });

  // Design difference: a signal aborted while an attempt runs does not reject it (docs/reference.md,
  // `signal`: "a task that has started is not touched"); the attempt's outcome stands, and no retry follows.
  it('preserves the abort reason', async () => {
    let index = 0;
    const controller = new AbortController();
    const result = settled(
      createThrottler({ rate: '1000/1s' }).schedule(
        async () => {
          await delay(40);
          index++;
          if (index === 3) {
            controller.abort(fixtureError);
            throw new Error('after abort');
          }
          throw fixtureError;
        },
        { signal: controller.signal, retry: { retries: 10, backoff: () => 0 } },
      ),
    );
    await advance(1_000);
    expect(await result).toHaveProperty('message', 'after abort');
    expect(index).toBe(3);
  });

  it('shouldRetry controls retry behavior', async () => {
    let index = 0;
    const shouldRetryError = new Error('should-retry');
    const customError = new Error('custom-error');
    const result = settled(
      retrying(
        async () => {
          await delay(40);
          index++;
          throw index < 3 ? shouldRetryError : customError;
        },
        { retries: 10, retryOn: (error: Error) => error.message === shouldRetryError.message },
      ),
    );
    await advance(1_000);
    expect(await result).toBe(customError);
    expect(index).toBe(3);
  });

  // Design difference: the `retry` event reports a retry already decided, so it follows retryOn, and a
  // declined failure is heard by `error` (docs/coming-from.md, From p-retry: onFailedAttempt).
  it('onFailedAttempt then shouldRetry order', async () => {
    const order: string[] = [];
    const limiter = throttler();
    limiter.on('retry', () => order.push('retry'));
    limiter.on('error', () => order.push('error'));
    const retryOn = () => {
      order.push('retryOn');
      return false;
    };
    const result = settled(retrying(() => Promise.reject(new Error('order')), { retryOn }, limiter));
    await advance(1_000);
    expect(await result).toHaveProperty('message', 'order');
    expect(order).toEqual(['retryOn', 'error']);
  });

  // Design difference: retryOn answers synchronously (docs/coming-from.md, From p-retry: shouldRetry), so an
  // async one is refused by name; p-retry awaits an async shouldRetry. No maxRetryTime (as above).
  it('handles async shouldRetry with maxRetryTime', async () => {
    let attempts = 0;
    const error = await settled(
      retrying(
        () => {
          attempts++;
          throw new Error('test');
        },
        { retries: 10, retryOn: async () => true },
      ),
    );
    expect(String(error)).toMatch(/retry\.retryOn must be a synchronous function/);
    expect(attempts).toBe(0);
  });

  // A plain function returning a promise slips past that check: its answer is refused as the task fails, so the
  // task is not retried on a promise whatever it resolves to, and rejects with an error naming retry.retryOn.
  it('not a p-retry test: a retryOn returning a promise rejects the task, naming retry.retryOn', async () => {
    let attempts = 0;
    const result = settled(
      retrying(
        () => {
          attempts++;
          throw new Error('test');
        },
        { retries: 10, retryOn: () => Promise.resolve(false) },
      ),
    );
    await advance(1_000);
    const outcome = await result;
    expect(attempts).toBe(1);
    expect(String(outcome)).toMatch(/retry\.retryOn must be a function returning true or false at once, got/);
  });

  it('onFailedAttempt provides correct error details', async () => {
    const retries = 5;
    let index = 0;
    const heard: Array<[unknown, number]> = [];
    const limiter = throttler();
    limiter.on('retry', (error, _id, { attempt }) => heard.push([error, attempt]));
    const result = retrying(
      async (attemptNumber) => {
        await delay(40);
        index++;
        return attemptNumber === 3 ? fixture : Promise.reject(fixtureError);
      },
      { retries },
      limiter,
    );
    await advance(1_000);
    expect(await result).toBe(fixture);
    expect(index).toBe(3);
    // Our event names the attempt to come (2: the first retry); p-retry's names the one that failed, and
    // its retriesLeft is `retries - (attempt - 2)` here.
    expect(heard).toEqual([
      [fixtureError, 2],
      [fixtureError, 3],
    ]);
  });

  it('onFailedAttempt is called even when shouldRetry returns false', async () => {
    let attempts = 0;
    let failures = 0;
    const error = new Error('fail');
    const limiter = throttler();
    limiter.on('error', () => failures++);
    const result = settled(
      retrying(
        () => {
          attempts++;
          throw error;
        },
        { retries: 5, retryOn: () => false },
        limiter,
      ),
    );
    await advance(1_000);
    expect(await result).toBe(error);
    expect([attempts, failures]).toEqual([1, 1]);
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
    expect(finishedAt).toBeGreaterThan(start + 999);
  });

  it('onFailedAttempt can throw to abort retries (retryOn throwing)', async () => {
    const error = new Error('thrown from onFailedAttempt');
    const result = settled(
      retrying(() => Promise.reject(fixtureError), {
        retryOn: () => {
          throw error;
        },
      }),
    );
    await advance(1_000);
    expect(await result).toBe(error);
  });

  it.skip('retry context object is immutable: no context object, retryOn gets (error, attempt) (docs/coming-from.md, From p-retry)', () => {});

  it('onFailedAttempt can be undefined', async () => {
    const error = new Error('thrown from onFailedAttempt');
    const result = settled(
      retrying(
        () => {
          throw error;
        },
        { retries: 1 },
      ),
    );
    await advance(1_000);
    expect(await result).toBe(error);
  });

  it('shouldRetry can be undefined', async () => {
    const error = new Error('thrown from onFailedAttempt');
    const result = settled(
      retrying(
        () => {
          throw error;
        },
        { retries: 1, retryOn: undefined },
      ),
    );
    await advance(1_000);
    expect(await result).toBe(error);
  });

  it('factor affects exponential backoff', async () => {
    const { delays } = await delaysOf({ initial: 100, factor: 2, random: noJitter }, 3);
    expect(delays).toEqual([100, 200, 400]);
  });

  // Design difference: a factor below 1 is refused by name, never used (docs/reference.md, ScheduleOptions:
  // "retry.backoff.factor must be a finite number >= 1, got 0.5").
  it('timeouts are incremental with factor', async () => {
    const { error } = await delaysOf({ initial: 100, factor: 0.5, random: noJitter }, 3);
    expect(error).toBeInstanceOf(ThrottlerOptionError);
    expect(String(error)).toMatch(/retry\.backoff\.factor/);
  });

  it('minTimeout is respected even with small factor (factor < 1 refused)', async () => {
    const { error } = await delaysOf({ initial: 100, factor: 0.1, random: noJitter }, 2);
    expect(error).toBeInstanceOf(ThrottlerOptionError);
  });

  it('maxTimeout caps retry delays', async () => {
    const { delays } = await delaysOf({ initial: 100, factor: 3, max: 150, random: noJitter }, 3);
    expect(delays).toEqual([100, 150, 150]);
  });

  it('maxTimeout lower than minTimeout caps delay', async () => {
    const { delays } = await delaysOf({ initial: 200, factor: 1, max: 50, random: noJitter }, 1);
    expect(delays).toEqual([50]);
  });

  // Design difference: jitter is "equal jitter", d/2 + random() × d/2 (docs/reference.md, `retry`:
  // `backoff`), where p-retry's randomize multiplies by 1 + random(): the same draws give other delays.
  it('randomize affects retry delays', async () => {
    const sequence = [0, 1, 0.5];
    let calls = 0;
    const random = () => sequence[calls++] ?? 0;
    const { delays } = await delaysOf({ initial: 100, factor: 1, random }, 3);
    expect(delays).toEqual([50, 100, 75]);
  });

  // Design difference (as for 'errors are preserved when maxRetryTime exceeded'): `deadline` bounds the
  // attempts' starts, and one that may not start by then is rejected with a ThrottlerExpiredError.
  it('maxRetryTime limits total retry duration', async () => {
    const start = performance.now();
    const result = settled(
      createThrottler({ rate: '1000/1s' }).schedule(
        async () => {
          await delay(400);
          throw new Error('test');
        },
        { deadline: 1000, retry: { retries: 10, backoff: () => 100 } },
      ),
    );
    let settledAt = 0;
    void result.then(() => {
      settledAt = performance.now();
    });
    await advance(5_000);
    expect(await result).toHaveProperty('name', 'ThrottlerExpiredError');
    expect(settledAt - start).toBeLessThan(2000);
  });

  // Design difference: no maxRetryTime, and a backoff is not a hook that may run long (as above).
  it.skip('onFailedAttempt time counts toward maxRetryTime: no maxRetryTime (docs/coming-from.md, From p-retry)', () => {});

  it('signal abort during delay cancels promptly', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(fixtureError), 50);
    const result = settled(
      createThrottler({ rate: '1000/1s' }).schedule(() => Promise.reject(new Error('retry')), {
        signal: controller.signal,
        retry: { retries: 5, backoff: { initial: 500, factor: 2 } },
      }),
    );
    await advance(60);
    expect(await result).toBe(fixtureError);
  });

  it('aborts immediately if signal is already aborted with reason', async () => {
    let called = 0;
    const controller = new AbortController();
    controller.abort(fixtureError);
    const result = settled(
      createThrottler({ rate: '1000/1s' }).schedule(
        () => {
          called++;
          throw new Error('should not run');
        },
        { signal: controller.signal, retry: { retries: 10 } },
      ),
    );
    expect(await result).toBe(fixtureError);
    expect(called).toBe(0);
  });

  // Refused by a TypeError as in p-retry; the message names the field and the value (house rule).
  it('throws on negative retry count', async () => {
    const error = await settled(retrying(async () => {}, { retries: -1 }));
    expect(error).toBeInstanceOf(TypeError);
    expect(String(error)).toMatch(/retry\.retries .*got -1/);
  });

  it('throws on non-number retries', async () => {
    const error = await settled(retrying(async () => {}, { retries: '3' }));
    expect(error).toBeInstanceOf(TypeError);
    expect(String(error)).toMatch(/retry\.retries .*got "3"/);
  });

  it('throws on NaN retries', async () => {
    const error = await settled(retrying(async () => {}, { retries: Number.NaN }));
    expect(error).toBeInstanceOf(TypeError);
    expect(String(error)).toMatch(/retry\.retries .*got NaN/);
  });

  it('handles zero retries', async () => {
    let attempts = 0;
    const result = settled(
      retrying(
        async () => {
          attempts++;
          throw new Error('test');
        },
        { retries: 0 },
      ),
    );
    await advance(1_000);
    expect(await result).toHaveProperty('message', 'test');
    expect(attempts).toBe(1);
  });

  // onFailedAttempt of the last failure is the `error` event here.
  it('onFailedAttempt still called when retries is zero', async () => {
    let failures = 0;
    const limiter = throttler();
    limiter.on('error', () => failures++);
    const result = settled(retrying(() => Promise.reject(new Error('fail')), { retries: 0 }, limiter));
    await advance(1_000);
    await result;
    expect(failures).toBe(1);
  });

  it('invalid numeric options throw', async () => {
    for (const backoff of [{ factor: -1 }, { initial: -1 }, { max: -1 }]) {
      const error = await settled(retrying(() => Promise.reject(fixtureError), { retries: 1, backoff }));
      expect(error).toBeInstanceOf(ThrottlerOptionError);
    }
    // maxRetryTime is no option here: refused by name (see 'unsupported `forever` option throws').
    const error = await settled(retrying(() => Promise.reject(fixtureError), { retries: 1, maxRetryTime: -1 }));
    expect(error).toBeInstanceOf(ThrottlerOptionError);
  });

  // Design difference: factor 0 is refused, never treated as 1 (docs/reference.md, ScheduleOptions).
  it('factor <= 0 is treated as 1 (stable delays)', async () => {
    const { error } = await delaysOf({ initial: 100, factor: 0, random: noJitter }, 1);
    expect(error).toBeInstanceOf(ThrottlerOptionError);
  });

  // p-retry refuses `forever` ("no longer supported"); here every unknown retry field is refused by name.
  it('unsupported `forever` option throws', async () => {
    const error = await settled(retrying(async () => {}, { retries: 1, forever: true }));
    expect(error).toBeInstanceOf(ThrottlerOptionError);
    expect(String(error)).toMatch(/forever/);
  });

  it.skip('handles zero maxRetryTime: no maxRetryTime (docs/coming-from.md, From p-retry)', () => {});

  // Design difference: factor 0 is refused (as above), so there is no fallback delay to observe.
  it('handles invalid factor values', async () => {
    const { error, delays } = await delaysOf({ initial: 100, factor: 0, random: noJitter }, 2);
    expect(error).toBeInstanceOf(ThrottlerOptionError);
    expect(delays).toEqual([]);
  });

  it('handles synchronous input function', async () => {
    let attempts = 0;
    const result = settled(
      retrying(
        () => {
          attempts++;
          throw new Error('test');
        },
        { retries: 2 },
      ),
    );
    await advance(1_000);
    await result;
    expect(attempts).toBe(3);
  });

  it('aborts retries if input function returns null', async () => {
    let attempts = 0;
    const result = retrying(
      () => {
        attempts++;
        return null;
      },
      { retries: 2 },
    );
    await advance(1_000);
    expect(await result).toBeNull();
    expect(attempts).toBe(1);
  });

  // Design difference: a non-error passes through unchanged (as in 'throws useful error message ...').
  it('handles non-Error rejection values', async () => {
    const result = settled(retrying(() => Promise.reject('string rejection'), { retries: 1 }));
    await advance(1_000);
    expect(await result).toBe('string rejection');
  });

  it.skip('unref option prevents timeout from keeping process alive: no `unref` option (docs/coming-from.md, From p-retry)', () => {});

  it.skip('unref option handles missing unref gracefully: no `unref` option (docs/coming-from.md, From p-retry)', () => {});

  // Design difference: what the task threw passes through unchanged, with its own frames (docs/reference.md,
  // "Where the task was scheduled"); p-retry's await chain adds its caller's (foo2, foo1, main).
  it('preserves user stack trace through async retries', async () => {
    async function foo2() {
      return throttler().schedule(
        async function failing() {
          throw new Error('foo2 failed');
        },
        { retry: { retries: 1, backoff: () => 0 } },
      );
    }
    const result = settled(foo2());
    await advance(1_000);
    const error = (await result) as Error;
    expect(error.message).toBe('foo2 failed');
    expect(error.stack).toMatch(/failing/);
  });

  // makeRetriable is `wrap(fn, { retry })` (docs/reference.md, `wrap`: "`this` is passed on").
  it('makeRetriable wraps and retries the function', async () => {
    let callCount = 0;
    const add = async (a: number, b: number) => {
      callCount++;
      if (callCount < 3) throw new Error('fail');
      return a + b;
    };
    const retried = throttler().wrap(add, { retry: { retries: 5, backoff: () => 0 } });
    const result = retried(2, 3);
    await advance(1_000);
    expect(await result).toBe(5);
    expect(callCount).toBe(3);
  });

  it('makeRetriable passes arguments and options', async () => {
    let lastArguments: unknown[] = [];
    const fail = (...args: unknown[]) => {
      lastArguments = args;
      throw new Error('fail');
    };
    const result = settled(throttler().wrap(fail, { retry: { retries: 1, backoff: () => 0 } })('foo', 42));
    await advance(1_000);
    expect(await result).toHaveProperty('message', 'fail');
    expect(lastArguments).toEqual(['foo', 42]);
  });

  it('makeRetriable preserves `this` context', async () => {
    const object = {
      value: 2,
      calls: 0,
      async add(n: number) {
        this.calls++;
        if (this.calls < 2) throw new Error('fail');
        return this.value + n;
      },
    };
    object.add = throttler().wrap(object.add, { retry: { retries: 5, backoff: () => 0 } });
    const result = object.add(3);
    await advance(1_000);
    expect(await result).toBe(5);
    expect(object.calls).toBe(2);
  });

  it('throws error from shouldRetry', async () => {
    const thrown = new Error('shouldRetry failure');
    const retryOn = () => {
      throw thrown;
    };
    const result = settled(retrying(() => Promise.reject(new Error('operation failed')), { retryOn }));
    await advance(1_000);
    expect(await result).toBe(thrown);
  });

  // No retriesLeft here (the retry event gives the attempt to come); retries: Infinity is accepted, and a
  // throwing retryOn ends it.
  it('retriesLeft is Infinity when retries is Infinity', async () => {
    const stop = new Error('stop');
    const retryOn = () => {
      throw stop;
    };
    const result = settled(
      retrying(() => Promise.reject(new Error('fail')), { retries: Number.POSITIVE_INFINITY, retryOn }),
    );
    await advance(1_000);
    expect(await result).toBe(stop);
  });
});
