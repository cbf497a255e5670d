import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createThrottler,
  ThrottlerOptionError,
  ThrottlerStoppedError,
  ThrottlerTimeoutError,
} from '../../src/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** A rejection turned into a value, caught as it happens (no unhandled rejection while time advances). */
const failed = (error: unknown) => error;

/** A task that runs `ms` of virtual time unless its signal aborts first, logging what it saw. */
function abortable(ms: number, log: string[], name: string) {
  return ({ signal }: { signal: AbortSignal }) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => resolve(name), ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        log.push(`${name} aborted at ${now()}: ${(signal.reason as Error).name}`);
        reject(signal.reason);
      });
    });
}

describe('createThrottler: a task receives { signal }', () => {
  it("is aborted when the task's own signal fires while it runs", async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const log: string[] = [];
    const controller = new AbortController();
    const task = throttler.schedule(abortable(1_000, log, 'a'), { signal: controller.signal }).catch(failed);
    await advance(100);
    controller.abort();
    await expect(task).resolves.toMatchObject({ name: 'AbortError' });
    expect(log).toEqual(['a aborted at 100: AbortError']);
    expect(throttler.pending).toBe(0);
    await throttler.stop();
  });

  it('is aborted by stop() with a ThrottlerStoppedError; the promise settles as the task does', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const log: string[] = [];
    const task = throttler.schedule(abortable(1_000, log, 'a')).catch(failed);
    const ignoresSignal = throttler.schedule(() => new Promise((resolve) => setTimeout(() => resolve('b'), 300)));
    await advance(100);
    await throttler.stop();
    await expect(task).resolves.toBeInstanceOf(ThrottlerStoppedError);
    expect(log).toEqual(['a aborted at 100: ThrottlerStoppedError']);
    await advance(200);
    await expect(ignoresSignal).resolves.toBe('b');
  });

  it('a task that never reads its signal costs no AbortController', async () => {
    const controllers = vi.spyOn(globalThis, 'AbortController');
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    await throttler.schedule(() => 1);
    await throttler.schedule(() => 2, { priority: 7 });
    expect(controllers).not.toHaveBeenCalled();
    controllers.mockRestore();
    await throttler.stop();
  });
});

describe('createThrottler: timeout', () => {
  it('rejects a task running longer with a ThrottlerTimeoutError naming it, and aborts its signal', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const log: string[] = [];
    const slow = throttler.schedule(abortable(5_000, log, 'slow'), { id: 'report', timeout: '2s' }).catch(failed);
    const quick = throttler.schedule(abortable(1_000, log, 'quick'), { timeout: 2_000 });
    await advance(2_000);
    await expect(quick).resolves.toBe('quick');
    await expect(slow).resolves.toBeInstanceOf(ThrottlerTimeoutError);
    await expect(slow).resolves.toMatchObject({
      timeout: 2_000,
      id: 'report',
      message: 'The task "report" ran longer than its timeout of 2000 ms',
    });
    expect(log).toEqual(['slow aborted at 2000: ThrottlerTimeoutError']);
    expect(throttler.pending).toBe(0);
    await throttler.stop();
  });

  it('with maxConcurrent, a timed-out task frees its slot at its timeout, though its function goes on', async () => {
    const throttler = createThrottler({ rate: '100/1s', maxConcurrent: 1 });
    const starts: Array<[string, number]> = [];
    const stuck = throttler
      .schedule(
        () => {
          starts.push(['stuck', now()]);
          return new Promise(() => {});
        },
        { timeout: 500 },
      )
      .catch(failed);
    const next = throttler.schedule(() => starts.push(['next', now()]));
    await advance(1_000);
    await expect(stuck).resolves.toBeInstanceOf(ThrottlerTimeoutError);
    await expect(next).resolves.toBe(2);
    expect(starts).toEqual([
      ['stuck', 0],
      ['next', 500],
    ]);
    await throttler.stop();
  });

  it("with countUntil 'done', a timed-out delivery counts in the window from its timeout", async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window', countUntil: 'done' });
    const starts: number[] = [];
    const stuck = throttler.schedule(() => new Promise(() => starts.push(now())), { timeout: '300ms' }).catch(failed);
    void throttler.schedule(() => starts.push(now()));
    await advance(2_000);
    await expect(stuck).resolves.toBeInstanceOf(ThrottlerTimeoutError);
    expect(starts).toEqual([0, 1300]);
    await throttler.stop();
  });

  it('refuses a bad timeout or id, naming the field and the value', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    await expect(throttler.schedule(() => 1, { timeout: 0 })).rejects.toThrow(
      'timeout must be a positive, finite duration in milliseconds, got 0',
    );
    await expect(throttler.schedule(() => 1, { timeout: 'soon' })).rejects.toThrow(
      'timeout must be a duration such as 500ms, 1s, 1m, 1h or 1d, got "soon"',
    );
    await expect(throttler.schedule(() => 1, { id: {} as string })).rejects.toThrow(ThrottlerOptionError);
    await expect(throttler.schedule(() => 1, { id: {} as string })).rejects.toThrow(
      'id must be a string or a number, got {}',
    );
    expect(throttler.size).toBe(0);
    await throttler.stop();
  });

  it("'__proto__' is an id like any other", async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    const ids: unknown[] = [];
    throttler.on('completed', (_value, id) => ids.push(id));
    await throttler.schedule(() => 1, { id: '__proto__' });
    expect(ids).toEqual(['__proto__']);
    await throttler.stop();
  });
});
