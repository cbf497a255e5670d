/**
 * p-timeout's own tests (sindresorhus/p-timeout test.js at v7.0.0, f9ced5e; the registry's tarball ships
 * no tests), every one ported onto createThrottler's `timeout` option, in virtual time:
 * `pTimeout(promise, { milliseconds })` is `schedule(() => promise, { timeout: milliseconds })`, and
 * p-timeout's `signal` is the task's `signal` option. Each test keeps p-timeout's title; where our
 * behaviour differs by design the test asserts ours (or is skipped) and cites the docs that say so.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, ThrottlerOptionError, ThrottlerTimeoutError } from '../../../src/index.js';
import { restoreRealTime, useVirtualTime } from '../../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const fixture = Symbol('fixture');
const fixtureError = new Error('fixture');
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
type Task = Parameters<ReturnType<typeof createThrottler>['schedule']>[0];
function timed(run: Task, options: object) {
  return createThrottler({ rate: '100/1s' })
    .schedule(run, options as { timeout: number })
    .catch((error: unknown) => error);
}

async function wrapperAwaiting() {
  await createThrottler({ rate: '100/1s' }).schedule(() => delay(1000), { timeout: 100 });
}

describe('p-timeout, ported', () => {
  it('resolves before timeout', async () => {
    const result = timed(() => delay(50).then(() => fixture), { timeout: 200 });
    await advance(200);
    expect(await result).toBe(fixture);
  });

  // A string is a duration here ('200' has no unit and is refused, naming the option): still a TypeError.
  it('throws when milliseconds is not number', async () => {
    const error = await timed(() => delay(50), { timeout: '200' });
    expect(error).toBeInstanceOf(ThrottlerOptionError);
    expect(error).toBeInstanceOf(TypeError);
  });

  it('throws when milliseconds is negative number', async () => {
    expect(await timed(() => delay(50), { timeout: -1 })).toBeInstanceOf(TypeError);
  });

  it('throws when milliseconds is NaN', async () => {
    expect(await timed(() => delay(50), { timeout: Number.NaN })).toBeInstanceOf(TypeError);
  });

  it('handles milliseconds being `Infinity`', async () => {
    const result = timed(() => delay(50).then(() => fixture), { timeout: Number.POSITIVE_INFINITY });
    await advance(50);
    expect(await result).toBe(fixture);
  });

  it('rejects after timeout', async () => {
    const result = timed(() => delay(200), { timeout: 50 });
    await advance(200);
    expect(await result).toBeInstanceOf(ThrottlerTimeoutError);
  });

  // Design difference: a task past its timeout always rejects (docs/coming-from.md, "From p-timeout":
  // `message: false` and `fallback` have no equivalent); the unknown option is refused by name.
  it('resolves after timeout with message:false', async () => {
    const error = await timed(() => delay(200), { timeout: 50, message: false });
    expect(error).toBeInstanceOf(ThrottlerOptionError);
    expect(String(error)).toMatch(/message/);
  });

  it('rejects before timeout if specified promise rejects', async () => {
    const result = timed(() => delay(50).then(() => Promise.reject(fixtureError)), { timeout: 200 });
    await advance(200);
    expect(await result).toBe(fixtureError);
  });

  // Design difference: no `message`/`fallback` (docs/coming-from.md, "From p-timeout"); the error is
  // always a ThrottlerTimeoutError, and a caller maps it: `.catch(e => e instanceof ThrottlerTimeoutError ? ...)`.
  it('fallback argument', async () => {
    const error = await timed(() => delay(200), { timeout: 50, message: 'rainbow' });
    expect(error).toBeInstanceOf(ThrottlerOptionError);
    const fallback = await timed(() => delay(200), { timeout: 50, fallback: () => Promise.reject(fixtureError) });
    expect(fallback).toBeInstanceOf(ThrottlerOptionError);
  });

  // p-timeout's `.cancel()` call is the task's signal here, aborted with the timeout error.
  it('calls `.cancel()` on promise when it exists', async () => {
    let reason: unknown;
    const result = timed(
      ({ signal }) => {
        signal.addEventListener('abort', () => {
          reason = signal.reason;
        });
        return delay(200);
      },
      { timeout: 50 },
    );
    await advance(200);
    expect(await result).toBeInstanceOf(ThrottlerTimeoutError);
    expect(reason).toBe(await result);
  });

  // p-timeout's customTimers is the throttler's `clock` (docs/reference.md, `clock`); a task's timeout is
  // armed on the runtime's timers, which virtual time fakes, so this checks the timer armed for 123 ms.
  it('accepts `customTimers` option', async () => {
    const armed = vi.spyOn(globalThis, 'setTimeout');
    const result = timed(() => delay(50), { timeout: 123 });
    expect(armed.mock.calls.some(([, ms]) => ms === 123)).toBe(true);
    await advance(50);
    expect(await result).toBeUndefined();
  });

  // Design difference: no `.clear()` on the returned promise (docs/coming-from.md, "From p-timeout"):
  // a timeout is fixed when the task is scheduled; `timeout: Infinity` asks for none.
  it.skip('`.clear()` method: no equivalent (docs/coming-from.md, From p-timeout)', () => {});

  it.skip('`.clear()` method can be called multiple times: no equivalent (docs/coming-from.md, From p-timeout)', () => {});

  it.skip('fallback resolves successfully: no `fallback` (docs/coming-from.md, From p-timeout)', () => {});

  // Design difference: an aborted task rejects with the signal's reason unchanged (docs/reference.md,
  // `signal`), which for `abort()` is the runtime's DOMException named AbortError, as p-timeout's; but
  // only while it waits: a task already running is not rejected, only its own `{ signal }` aborted.
  it('rejects when calling `AbortController#abort()`', async () => {
    const controller = new AbortController();
    const throttler = createThrottler({ rate: '1/1s' });
    throttler.schedule(() => delay(3000)); // takes the only slot, so the next one waits
    const result = throttler
      .schedule(() => delay(3000), { timeout: 2000, signal: controller.signal })
      .catch((error: unknown) => error);
    controller.abort();
    const error = (await result) as Error;
    expect(error.name).toBe('AbortError');
    expect(error).toBeInstanceOf(DOMException);
  });

  it('already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = (await timed(() => delay(3000), { timeout: 2000, signal: controller.signal })) as Error;
    expect(error.name).toBe('AbortError');
    expect(error).toBeInstanceOf(DOMException);
  });

  it('aborts even if milliseconds are set to infinity', async () => {
    const controller = new AbortController();
    controller.abort();
    const options = { timeout: Number.POSITIVE_INFINITY, signal: controller.signal };
    const error = (await timed(() => delay(3000), options)) as Error;
    expect(error.name).toBe('AbortError');
    expect(error).toBeInstanceOf(DOMException);
  });

  async function listenerCleanup(run: () => Promise<unknown>) {
    const { signal } = new AbortController();
    const added = vi.spyOn(signal, 'addEventListener');
    const removed = vi.spyOn(signal, 'removeEventListener');
    const result = timed(run, { timeout: 100, signal });
    await advance(100);
    await result;
    // A task that starts inside `schedule` never waits, so never listens: nothing is left behind either way.
    const adds = added.mock.calls.filter(([type]) => type === 'abort').length;
    const removes = removed.mock.calls.filter(([type]) => type === 'abort').length;
    expect(removes).toBe(adds);
  }

  it('removes abort listener after promise settles', async () => {
    await listenerCleanup(() => delay(50));
  });

  it('removes abort listener after promise rejects', async () => {
    await listenerCleanup(() => delay(50).then(() => Promise.reject(new Error('Test error'))));
  });

  // What a task throws passes through unchanged (docs/reference.md, `schedule`), so its own stack is kept.
  it('preserves stack trace when promise rejects', async () => {
    const createRejectingPromise = async () => {
      await delay(1);
      throw new Error('test error for stack trace');
    };
    const wrapperFunction = () =>
      createThrottler({ rate: '100/1s' }).schedule(() => createRejectingPromise(), { timeout: 100 });
    const result = wrapperFunction().catch((error: unknown) => error);
    await advance(1);
    const error = (await result) as Error;
    expect(error.message).toBe('test error for stack trace');
    expect(error.stack).toContain('createRejectingPromise');
    // The library's own errors keep the frames of the `schedule` call, as p-timeout's (docs/reference.md,
    // "Where the task was scheduled").
    const timedOut = wrapperAwaiting().catch((caught: unknown) => caught);
    await advance(100);
    expect(((await timedOut) as Error).stack).toContain('wrapperAwaiting');
  });
});
