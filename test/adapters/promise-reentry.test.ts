import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, type Throttler, ThrottlerStoppedError } from '../../src/index.js';
import { now, pendingTimers, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** Moves virtual time on, letting the tasks the throttler starts (in microtasks) run on the way. */
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** Records how each promise settled: `name:ok:value` or `name:err:ErrorName`. */
function settlements() {
  const out: string[] = [];
  const track = (promise: Promise<unknown>, name: string) =>
    promise.then(
      (value) => out.push(`${name}:ok:${String(value)}`),
      (error: unknown) => out.push(`${name}:err:${(error as Error).name}`),
    );
  return { out, track };
}

/** Five tasks due at once; the first calls `control` on its own throttler. Returns when each started. */
function fiveTasksFirstCalls(throttler: Throttler, control: () => void): number[] {
  const starts: number[] = [];
  for (let n = 0; n < 5; n++) {
    void throttler
      .schedule(() => {
        starts.push(now());
        if (n === 0) control();
      })
      .catch(() => {});
  }
  return starts;
}

describe('createThrottler: control calls from inside a task apply to the rest of the same pass', () => {
  it('pause(1000) in the first of five due tasks holds the other four until 1000', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const starts = fiveTasksFirstCalls(throttler, () => throttler.pause(1_000));
    await advance(999);
    expect(starts).toEqual([0]);
    await advance(1);
    expect(starts).toEqual([0, 1000, 1000, 1000, 1000]);
    throttler.stop();
  });

  it('pause(1000) holds the rest of the pass while the throttler is active too (tasks queued behind a window)', async () => {
    const throttler = createThrottler({ rate: '5/1s', strategy: 'sliding-window' });
    const starts: number[] = [];
    for (let n = 0; n < 10; n++) {
      void throttler.schedule(() => {
        starts.push(now());
        if (n === 5) throttler.pause(2_000);
      });
    }
    await advance(1_000);
    // Tasks 0-4 at 0; at 1000 task 5 starts and pauses: 6-9 wait for the pause.
    expect(starts).toEqual([0, 0, 0, 0, 0, 1000]);
    await advance(2_000);
    expect(starts).toEqual([0, 0, 0, 0, 0, 1000, 3000, 3000, 3000, 3000]);
    throttler.stop();
  });

  it('a lowered setRate in the first of five due tasks holds back what the new strict window forbids', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const starts = fiveTasksFirstCalls(throttler, () => throttler.setRate('2/1s'));
    await advance(0);
    expect(starts).toEqual([0, 0]);
    await advance(1_000);
    expect(starts).toEqual([0, 0, 1000, 1000]);
    await advance(1_000);
    expect(starts).toEqual([0, 0, 1000, 1000, 2000]);
    throttler.stop();
  });

  it('stop() in the first of five due tasks rejects the other four; none of them starts', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const { out, track } = settlements();
    for (let n = 0; n < 5; n++) {
      track(
        throttler.schedule(() => {
          if (n === 0) throttler.stop();
          return n;
        }),
        `t${n}`,
      );
    }
    await advance(10);
    expect(out.sort()).toEqual([
      't0:ok:0',
      't1:err:ThrottlerStoppedError',
      't2:err:ThrottlerStoppedError',
      't3:err:ThrottlerStoppedError',
      't4:err:ThrottlerStoppedError',
    ]);
    expect(pendingTimers()).toBe(0);
  });

  it('a control call that changes nothing delays nothing beyond the same moment', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const starts = fiveTasksFirstCalls(throttler, () => throttler.setRate('10/1s'));
    await advance(0);
    expect(starts).toEqual([0, 0, 0, 0, 0]);
    throttler.stop();
  });
});

describe('createThrottler: tryAcquire from inside a task takes nothing', () => {
  it.each([
    // Two slots: both start at once.
    ['maxConcurrent: 2', { rate: '100/1s', maxConcurrent: 2 }, [0, 0]],
    // The first task counts at 0 (it settled then): one more at 0, the next as it leaves the window.
    ["countUntil 'done'", { rate: '2/100ms', strategy: 'sliding-window', countUntil: 'done' }, [0, 100]],
  ] as const)('with %s the slot is not lost for the life of the throttler', async (_name, options, expected) => {
    const throttler = createThrottler(options);
    let insideError: unknown;
    await throttler.schedule(() => {
      try {
        throttler.tryAcquire();
      } catch (error) {
        insideError = error;
      }
    });
    expect((insideError as Error).message).toContain('tryAcquire() cannot be called while the throttler is delivering');
    expect(throttler.actor.getSnapshot().context.inFlight).toBe(0);
    // Nothing is held for nobody: two tasks that take a while start as the options allow.
    const starts: number[] = [];
    const pair = [1, 2].map(() =>
      throttler.schedule(() => {
        starts.push(now());
        return new Promise((resolve) => setTimeout(resolve, 50));
      }),
    );
    await advance(1_000);
    await Promise.all(pair);
    expect(starts).toEqual(expected);
    throttler.stop();
  });

  it('from an actor.on listener, the permit is not taken either', async () => {
    const throttler = createThrottler({ rate: '100/1s', maxConcurrent: 2 });
    let insideError: unknown;
    const stopListening = throttler.actor.on('delivered', () => {
      try {
        throttler.tryAcquire();
      } catch (error) {
        insideError = error;
      }
    });
    await throttler.schedule(() => 'first');
    stopListening.unsubscribe();
    expect(insideError).toBeInstanceOf(Error);
    await expect(throttler.schedule(() => 'second')).resolves.toBe('second');
    expect(throttler.actor.getSnapshot().context.inFlight).toBe(0);
    throttler.stop();
  });
});

describe('createThrottler: after stop()', () => {
  it('pause, resume and setRate throw ThrottlerStoppedError, as tryAcquire does', async () => {
    const throttler = createThrottler({ rate: '1/1s' });
    throttler.stop();
    expect(() => throttler.pause(10)).toThrow(ThrottlerStoppedError);
    expect(() => throttler.resume()).toThrow(ThrottlerStoppedError);
    expect(() => throttler.setRate('2/1s')).toThrow(ThrottlerStoppedError);
    expect(() => throttler.tryAcquire()).toThrow(ThrottlerStoppedError);
    expect(() => throttler.stop()).not.toThrow();
  });

  it('counts say what happened: nothing queued, the tasks stop() rejected counted as dropped', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const results = [1, 2, 3, 4].map((n) => throttler.schedule(() => n));
    await advance(0);
    expect(throttler.counts).toEqual({ queued: 3, delivered: 1, dropped: 0, rejected: 0 });
    throttler.stop();
    await Promise.allSettled(results);
    expect(throttler.counts).toEqual({ queued: 0, delivered: 1, dropped: 3, rejected: 0 });
  });

  it('counts after a stop() from inside a task include the tasks rejected once the pass ended', async () => {
    // Held by a pause, then resumed: the three go out in one delivery pass (each would start inside its schedule call).
    const throttler = createThrottler({ rate: '10/1s', strategy: 'token-bucket' });
    throttler.pause();
    const results = [0, 1, 2].map((n) =>
      throttler.schedule(() => {
        if (n === 0) throttler.stop();
      }),
    );
    throttler.resume();
    await Promise.allSettled(results);
    expect(throttler.counts).toEqual({ queued: 0, delivered: 1, dropped: 2, rejected: 0 });
  });
});

describe('createThrottler: wrap', () => {
  it('passes `this` through to the wrapped function', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    const client = {
      name: 'api',
      call: throttler.wrap(function (this: { name: string }, path: string) {
        return `${this.name}${path}`;
      }),
    };
    const result = client.call('/users');
    await advance(0);
    await expect(result).resolves.toBe('api/users');
    throttler.stop();
  });
});

describe('createThrottler: a signal shared by tasks of one synchronous stretch', () => {
  it('abort() rejects all of them; none starts, though the rate would allow them', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const controller = new AbortController();
    const { out, track } = settlements();
    const startedAborted: boolean[] = [];
    // The first is handed over inside its call (held by the pause), the others wait in the batch of this stretch.
    throttler.pause(5);
    for (const name of ['t1', 't2', 't3']) {
      track(
        throttler.schedule(
          () => {
            startedAborted.push(controller.signal.aborted);
            return name;
          },
          { signal: controller.signal },
        ),
        name,
      );
    }
    controller.abort();
    await advance(10);
    expect(startedAborted).toEqual([]);
    expect(out.sort()).toEqual(['t1:err:AbortError', 't2:err:AbortError', 't3:err:AbortError']);
    throttler.stop();
  });

  it('a second signal aborted right after the first still stops its task: the first abort starts nothing', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const first = new AbortController();
    const second = new AbortController();
    const { out, track } = settlements();
    throttler.pause(5);
    track(
      throttler.schedule(() => 'a', { signal: first.signal }),
      'a',
    );
    track(
      throttler.schedule(() => 'b', { signal: second.signal }),
      'b',
    );
    track(
      throttler.schedule(() => 'c', { signal: first.signal }),
      'c',
    );
    track(
      throttler.schedule(() => 'd'),
      'd',
    );
    first.abort();
    second.abort();
    await advance(10);
    expect(out.sort()).toEqual(['a:err:AbortError', 'b:err:AbortError', 'c:err:AbortError', 'd:ok:d']);
    throttler.stop();
  });

  it('a task whose signal fired is never started, even when the throttler hands it over before its abort handler ran', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const controller = new AbortController();
    const { out, track } = settlements();
    // A listener registered before the throttler's runs first, and makes the throttler deliver (the task waits for the pause).
    throttler.pause();
    controller.signal.addEventListener('abort', () => throttler.resume());
    let ran = false;
    track(
      throttler.schedule(
        () => {
          ran = true;
        },
        { signal: controller.signal },
      ),
      'aborted',
    );
    controller.abort();
    await advance(10);
    expect(ran).toBe(false);
    expect(out).toEqual(['aborted:err:AbortError']);
    throttler.stop();
  });

  it('a leased task that calls stop() starts inside its schedule call: later calls are refused, not queued', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const results = [0, 1, 2].map((n) =>
      throttler.schedule(() => {
        if (n === 0) throttler.stop();
        return n;
      }),
    );
    const settled = await Promise.allSettled(results);
    expect(settled[0]).toEqual({ status: 'fulfilled', value: 0 });
    expect(settled.slice(1).map((s) => s.status === 'rejected' && s.reason instanceof ThrottlerStoppedError)).toEqual([
      true,
      true,
    ]);
    expect(throttler.counts).toEqual({ queued: 0, delivered: 1, dropped: 0, rejected: 0 });
  });
});
