import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createThrottler,
  ThrottlerClearedError,
  ThrottlerExpiredError,
  ThrottlerOptionError,
  ThrottlerStoppedError,
} from '../../src/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** A task that takes `ms` of virtual time, then resolves with `value`. */
const sleeper =
  <T>(ms: number, value: T) =>
  () =>
    new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('createThrottler: size, pending, isPaused (counters, read without side effect)', () => {
  it('size counts tasks waiting, pending counts tasks started and not settled', async () => {
    const throttler = createThrottler({ rate: '2/1s', strategy: 'sliding-window' });
    const results = [1, 2, 3, 4, 5].map((value) => throttler.schedule(sleeper(1_500, value)));
    // Two started inside their schedule calls (leased); the other three wait in this stretch's batch.
    expect([throttler.size, throttler.pending]).toEqual([3, 2]);
    await advance(0);
    expect([throttler.size, throttler.pending]).toEqual([3, 2]);
    await advance(1_000);
    expect([throttler.size, throttler.pending]).toEqual([1, 4]);
    await advance(500);
    expect([throttler.size, throttler.pending]).toEqual([1, 2]);
    await advance(1_500);
    expect([throttler.size, throttler.pending]).toEqual([0, 1]);
    await advance(1_500);
    expect([throttler.size, throttler.pending]).toEqual([0, 0]);
    await expect(Promise.all(results)).resolves.toEqual([1, 2, 3, 4, 5]);
    await throttler.stop();
  });

  it('tasks started inside schedule (the leased path) count as pending until they settle', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const result = throttler.schedule(sleeper(100, 'done'));
    expect([throttler.size, throttler.pending]).toEqual([0, 1]);
    await advance(100);
    await expect(result).resolves.toBe('done');
    expect(throttler.pending).toBe(0);
    await throttler.stop();
  });

  it('isPaused is true while a pause is in force, false after it ends, resume() or stop()', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    expect(throttler.isPaused).toBe(false);
    throttler.pause('2s');
    expect(throttler.isPaused).toBe(true);
    await advance(1_999);
    expect(throttler.isPaused).toBe(true);
    await advance(1);
    expect(throttler.isPaused).toBe(false);
    throttler.pause();
    expect(throttler.isPaused).toBe(true);
    throttler.resume();
    expect(throttler.isPaused).toBe(false);
    throttler.pause();
    await throttler.stop();
    expect(throttler.isPaused).toBe(false);
  });
});

describe('createThrottler: onIdle, onEmpty, onSizeLessThan', () => {
  it('onEmpty resolves once nothing waits, onIdle once nothing runs either, both at once when so', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    await expect(throttler.onIdle()).resolves.toBeUndefined();
    await expect(throttler.onEmpty()).resolves.toBeUndefined();
    const seen: string[] = [];
    for (const value of [1, 2, 3]) void throttler.schedule(sleeper(500, value));
    void throttler.onEmpty().then(() => seen.push(`empty at ${now()}`));
    void throttler.onIdle().then(() => seen.push(`idle at ${now()}`));
    await advance(5_000);
    expect(seen).toEqual(['empty at 2000', 'idle at 2500']);
    await throttler.stop();
  });

  it('onSizeLessThan(n) resolves as the n-th last waiting task leaves; several limits at once', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    for (let index = 0; index < 6; index++) void throttler.schedule(() => index);
    const seen: string[] = [];
    for (const limit of [5, 3, 3, 1])
      void throttler.onSizeLessThan(limit).then(() => seen.push(`<${limit} at ${now()}`));
    await advance(0);
    // The first started at 0: 5 wait.
    expect(seen).toEqual([]);
    await advance(5_000);
    expect(seen).toEqual(['<5 at 1000', '<3 at 3000', '<3 at 3000', '<1 at 5000']);
    await expect(throttler.onSizeLessThan(1)).resolves.toBeUndefined();
    await throttler.stop();
  });

  it('onSizeLessThan refuses a limit that is no positive integer, naming it', () => {
    const throttler = createThrottler({ rate: '1/1s' });
    for (const bad of [0, -1, 1.5, Number.NaN, '3', undefined]) {
      expect(() => throttler.onSizeLessThan(bad as number)).toThrow(ThrottlerOptionError);
    }
    expect(() => throttler.onSizeLessThan(0)).toThrow('onSizeLessThan(limit) must be a positive integer, got 0');
    void throttler.stop();
  });
});

describe('createThrottler: clear()', () => {
  it('rejects every waiting task with a ThrottlerClearedError; the running one goes on; the throttler too', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const running = throttler.schedule(sleeper(1_500, 'first'));
    const waiting = [2, 3, 4].map((value) => throttler.schedule(() => value));
    await advance(0);
    expect([throttler.size, throttler.pending]).toEqual([3, 1]);
    throttler.clear();
    expect([throttler.size, throttler.pending]).toEqual([0, 1]);
    for (const task of waiting) await expect(task).rejects.toBeInstanceOf(ThrottlerClearedError);
    await advance(1_500);
    await expect(running).resolves.toBe('first');
    // The cleared tasks spent no slot: the next one starts as soon as the window allows (1 s after the first).
    const started: number[] = [];
    await expect(throttler.schedule(() => started.push(now()))).resolves.toBe(1);
    expect(started).toEqual([1500]);
    expect(throttler.counts).toEqual({ queued: 0, delivered: 2, dropped: 3, rejected: 0 });
    await throttler.stop();
  });

  it('reaches the tasks of this synchronous stretch (never sent) and those queued, in one call', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const queued = [1, 2].map((value) => throttler.schedule(() => value));
    await advance(0);
    const unsent = [3, 4].map((value) => throttler.schedule(() => value));
    throttler.clear();
    await expect(queued[0]).resolves.toBe(1);
    for (const task of [queued[1], ...unsent]) await expect(task).rejects.toBeInstanceOf(ThrottlerClearedError);
    expect(throttler.size).toBe(0);
    await advance(5_000);
    expect(throttler.counts.delivered).toBe(1);
    await throttler.stop();
  });

  it('does nothing after stop()', async () => {
    const throttler = createThrottler({ rate: '1/1s' });
    await throttler.stop();
    expect(() => throttler.clear()).not.toThrow();
  });
});

describe('createThrottler: on / off', () => {
  it("reports 'active', 'completed', 'error', 'empty' and 'idle' with the task's id", async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const log: string[] = [];
    throttler.on('active', (id) => log.push(`active ${id} at ${now()}`));
    throttler.on('completed', (value, id) => log.push(`completed ${id}: ${value}`));
    throttler.on('error', (error, id) => log.push(`error ${id}: ${(error as Error).message}`));
    throttler.on('empty', () => log.push('empty'));
    throttler.on('idle', () => log.push('idle'));
    void throttler.schedule(() => 'a', { id: 'first' });
    void throttler
      .schedule(
        () => {
          throw new Error('no');
        },
        { id: 2 },
      )
      .catch(() => {});
    await advance(2_000);
    // The first starts inside its call, before the second is scheduled (nothing waits then); it counts as
    // running until the microtask after, when the second waits already: never idle in between.
    expect(log).toEqual([
      'empty',
      'active first at 0',
      'completed first: a',
      'empty',
      'active 2 at 1000',
      'error 2: no',
      'idle',
    ]);
    await throttler.stop();
  });

  it("reports 'dropped' (expired, aborted, cleared, stopped) and 'rejected' (overflow), each with its error", async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window', capacity: 3 });
    const log: string[] = [];
    throttler.on('dropped', (error, id) => log.push(`dropped ${id}: ${error.name}`));
    throttler.on('rejected', (error, id) => log.push(`rejected ${id}: ${error.name}`));
    const quiet = (promise: Promise<unknown>) => promise.catch(() => {});
    const controller = new AbortController();
    quiet(throttler.schedule(() => 0, { id: 'runs' }));
    quiet(throttler.schedule(() => 1, { id: 'expires', maxWait: '500ms' }));
    quiet(throttler.schedule(() => 2, { id: 'aborted', signal: controller.signal }));
    quiet(throttler.schedule(() => 3, { id: 'cleared' }));
    quiet(throttler.schedule(() => 4, { id: 'overflows' }));
    controller.abort();
    await advance(600);
    throttler.clear();
    quiet(throttler.schedule(() => 5, { id: 'stopped' }));
    await advance(0);
    await throttler.stop();
    expect(log).toEqual([
      'rejected overflows: ThrottlerOverflowError',
      'dropped aborted: AbortError',
      'dropped expires: ThrottlerExpiredError',
      'dropped cleared: ThrottlerClearedError',
      'dropped stopped: ThrottlerStoppedError',
    ]);
    expect(ThrottlerExpiredError.name).toBe('ThrottlerExpiredError');
    expect(ThrottlerStoppedError.name).toBe('ThrottlerStoppedError');
  });

  it('off() stops a handler; a handler that throws breaks nothing and goes to onHandlerError', async () => {
    const failures: Array<[string, string]> = [];
    const throttler = createThrottler({
      rate: '10/1s',
      strategy: 'sliding-window',
      onHandlerError: (error, event) => failures.push([event, (error as Error).message]),
    });
    const seen: unknown[] = [];
    const broken = () => {
      throw new Error('handler broke');
    };
    const record = (value: unknown) => seen.push(value);
    throttler.on('completed', broken);
    throttler.on('completed', record);
    await expect(throttler.schedule(() => 'one')).resolves.toBe('one');
    expect(seen).toEqual(['one']);
    expect(failures).toEqual([['completed', 'handler broke']]);
    throttler.off('completed', broken);
    throttler.off('completed', record);
    await expect(throttler.schedule(() => 'two')).resolves.toBe('two');
    expect(seen).toEqual(['one']);
    await throttler.stop();
  });

  it('by default a failing handler is shown with console.warn, never thrown: the process goes on', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const broken = new Error('handler broke');
    throttler.on('idle', () => {
      throw broken;
    });
    await expect(throttler.schedule(() => 1)).resolves.toBe(1);
    await advance(1_000);
    expect(warn).toHaveBeenCalledWith("xstate-throttler: a 'idle' handler threw (the throttler goes on):", broken);
    warn.mockRestore();
    expect(() => createThrottler({ rate: '1/1s', onHandlerError: 'log' as never })).toThrow(
      'onHandlerError must be a function (error, event) => void, got "log"',
    );
    await throttler.stop();
  });

  it('refuses an unknown event or a handler that is no function, naming it', () => {
    const throttler = createThrottler({ rate: '10/1s' });
    expect(() => throttler.on('done' as 'idle', () => {})).toThrow(
      'event must be one of "active", "idle", "empty", "completed", "error", "dropped", "rejected", "retry", "retryStarted", "rateLimit", "rateLimitCleared", got "done"',
    );
    expect(() => throttler.on('idle', 'log' as unknown as () => void)).toThrow('handler must be a function, got "log"');
    void throttler.stop();
  });
});
