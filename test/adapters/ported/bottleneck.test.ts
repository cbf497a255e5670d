/**
 * Bottleneck's own tests (SGrondin/bottleneck at b835283, v2.19.5 as on the registry, whose tarball ships
 * no tests): every test of test/general.js, promises.js, retries.js, priority.js, stop.js, group.js and
 * batcher.js ported onto createThrottler, in virtual time; states.js, DLList.js (internal classes) and
 * cluster.js, ioredis.js, node_redis.js (its Redis datastore) listed by title and skipped with the reason.
 * `new Bottleneck({ maxConcurrent, minTime })` is `createThrottler({ rate: '1/<minTime>ms', strategy:
 * 'sliding-window', maxConcurrent })`; a `failed` handler returning a delay is the `retry` option;
 * Bottleneck's priority p (0 first, 9 last) is ours 9 - p; `highWater` is `capacity`, its strategies the
 * `overflow` policies; `expiration` is `timeout` (docs/coming-from.md, "From Bottleneck"). Each test keeps
 * Bottleneck's title; where our behaviour differs by design it asserts ours (or is skipped) and cites the docs.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createThrottler,
  ThrottlerOptionError,
  type ThrottlerOptions,
  ThrottlerOverflowError,
  ThrottlerStoppedError,
  ThrottlerTimeoutError,
} from '../../../src/index.js';
import { restoreRealTime, useVirtualTime } from '../../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Bottleneck's priority (0 goes first, 9 last, default 5) on our scale (9 goes first). */
const priority = (p: number) => 9 - p;
/** `new Bottleneck({ maxConcurrent, minTime })`: minTime 0 (or none) is a rate that never binds. */
function limiterOf(maxConcurrent?: number, minTime = 0, options: Partial<ThrottlerOptions> = {}) {
  return createThrottler({
    rate: minTime === 0 ? '100000/1s' : `1/${minTime}ms`,
    strategy: 'sliding-window',
    ...(maxConcurrent === undefined ? {} : { maxConcurrent }),
    ...options,
  } as ThrottlerOptions);
}
/** Bottleneck's test context: `slowPromise(ms, value)` records `value` and the time it finished. */
function recorder() {
  const results: Array<[unknown, number]> = [];
  const start = performance.now();
  const slow = async <T>(ms: number, value: T) => {
    if (ms > 0) await delay(ms);
    results.push([value, performance.now() - start]);
    return value;
  };
  const order = () => results.map(([value]) => value);
  const duration = () => Math.max(0, ...results.map(([, at]) => at));
  return { slow, order, duration };
}
const settled = (promise: Promise<unknown>) => promise.catch((error: unknown) => error);
/** Tests of Bottleneck's internals or features listed as having no equivalent, kept by title. */
function skipped(reason: string, titles: string[]) {
  for (const title of titles) it.skip(`${title}: ${reason}`, () => {});
}

describe('General', () => {
  skipped('measures the package with the leakage module and real GC, not a behaviour', [
    'Should not leak memory on instantiation',
    'Should not leak memory running jobs',
  ]);

  // Bottleneck v1's positional arguments: here every option is named, and a non-object is refused.
  it('Should prompt to upgrade', () => {
    expect(() => (createThrottler as (...args: unknown[]) => unknown)(1, 250)).toThrow(TypeError);
  });

  // updateSettings({ minTime }) is setRate (docs/coming-from.md, From Bottleneck).
  it('Should allow null capacity', () => {
    const limiter = limiterOf(undefined, 0);
    expect(() => limiter.setRate('1/10ms')).not.toThrow();
  });

  it('Should keep scope', async () => {
    const limiter = limiterOf(1);
    class Job {
      value = 5;
      action(x: number) {
        return this.value + x;
      }
    }
    const job = new Job();
    expect(await limiter.schedule(() => job.action.bind(job)(1))).toBe(6);
    expect(await limiter.wrap(job.action.bind(job))(2)).toBe(7);
  });

  skipped('no submit(): promises only (docs/coming-from.md, From Bottleneck)', [
    'Should pass multiple arguments back even on errors when using submit()',
  ]);
  skipped('no Bottleneck.Events export (docs/coming-from.md, From Bottleneck)', ['Should expose the Events library']);

  describe('Counts and statuses', () => {
    // check() is tryAcquire, which takes the permit (docs/coming-from.md, From Bottleneck), and queued(p)
    // has no per-priority form: the order and the timing are ported, queued() is `size`.
    it('Should check() and return the queued count with and without a priority value', async () => {
      const limiter = limiterOf(1, 100);
      const { slow, order, duration } = recorder();
      limiter.schedule(() => slow(50, 1), { id: 1 });
      expect(limiter.size).toBe(0); // It's already running
      limiter.schedule(() => slow(50, 2), { id: 2 });
      limiter.schedule(() => slow(50, 3), { id: 3 });
      limiter.schedule(() => slow(50, 4), { id: 4 });
      limiter.schedule(() => slow(0, 5), { id: 5, priority: priority(1) });
      expect(limiter.size).toBe(4);
      await advance(1_000);
      expect(limiter.size).toBe(0);
      expect(order()).toEqual([1, 5, 2, 3, 4]);
      expect(duration()).toBe(450);
    });

    // Design difference: a weight (cost) counts against the rate, and maxConcurrent counts tasks
    // (docs/coming-from.md, From Bottleneck: weight); weight 0 has no equivalent. running() is `pending`.
    it('Should return the running and done counts', async () => {
      const limiter = limiterOf(5);
      const { slow, order } = recorder();
      limiter.schedule(() => slow(100, 1), { cost: 1 });
      limiter.schedule(() => slow(200, 2), { cost: 3 });
      limiter.schedule(() => slow(100, 3), { cost: 1 });
      await advance(0);
      expect(limiter.pending).toBe(3);
      await advance(125);
      expect(limiter.pending).toBe(1);
      await advance(100);
      expect(limiter.pending).toBe(0);
      expect(order()).toEqual([1, 3, 2]);
    });

    // Design difference: an id labels a task's events and errors and need not be unique (docs/reference.md,
    // `id`); Bottleneck refuses a duplicate with trackDoneStatus.
    it('Should refuse duplicate Job IDs', async () => {
      const limiter = limiterOf(2, 100);
      expect(await limiter.schedule(() => 1, { id: 'a' })).toBe(1);
      const second = limiter.schedule(() => 3, { id: 'a' });
      await advance(100);
      expect(await second).toBe(3);
    });

    skipped('jobStatus(), jobs() and the lifecycle events have no equivalent (docs/coming-from.md, From Bottleneck)', [
      'Should return job statuses',
      'Should return job statuses, including DONE',
      'Should return jobs for a status',
      'Should trigger events on status changes',
    ]);
  });

  describe('Events', () => {
    skipped("no 'ready' event and on() returns nothing to chain (docs/coming-from.md, From Bottleneck)", [
      'Should return itself',
    ]);

    it('Should fire events on empty queue', async () => {
      const limiter = limiterOf(1, 100);
      let [empty, idle] = [0, 0];
      limiter.on('empty', () => empty++);
      limiter.on('idle', () => idle++);
      const { slow, order, duration } = recorder();
      const first = limiter.schedule(() => slow(50, 1), { id: 1 });
      await advance(50);
      await first;
      expect([empty, idle]).toEqual([1, 1]);
      const both = Promise.all([2, 3].map((n) => limiter.schedule(() => slow(50, n), { id: n })));
      await advance(300);
      await both;
      limiter.schedule(() => slow(50, 4), { id: 4 }); // submit(): resolved as it is queued
      expect(order()).toEqual([1, 2, 3]);
      expect(duration()).toBe(250);
      expect([empty, idle]).toEqual([3, 2]);
    });

    // No once(): a handler that removes itself (docs/reference.md, `off`).
    it('Should fire events once', async () => {
      const limiter = limiterOf(1, 100);
      let [emptyOnce, idleOnce, idleAll] = [0, 0, 0];
      const onceEmpty = () => {
        emptyOnce++;
        limiter.off('empty', onceEmpty);
      };
      const onceIdle = () => {
        idleOnce++;
        limiter.off('idle', onceIdle);
      };
      limiter.on('empty', onceEmpty);
      limiter.on('idle', onceIdle);
      limiter.on('idle', () => idleAll++);
      const { slow, order, duration } = recorder();
      limiter.schedule(() => slow(50, 1));
      const second = limiter.schedule(() => slow(0, 2));
      await advance(100);
      await second;
      expect([emptyOnce, idleOnce, idleAll]).toEqual([1, 1, 1]);
      const third = limiter.schedule(() => slow(0, 3));
      await advance(100);
      await third;
      expect(order()).toEqual([1, 2, 3]);
      expect(duration()).toBe(200);
      expect([emptyOnce, idleOnce, idleAll]).toEqual([1, 1, 2]);
    });

    // Design difference: a handler's error goes to onHandlerError, not to an 'error' event, which is a
    // failed task's (docs/reference.md, `on`).
    it('Should support faulty event listeners', async () => {
      const heard: unknown[] = [];
      const limiter = limiterOf(1, 100, { onHandlerError: (error) => heard.push(error) });
      limiter.on('empty', () => {
        throw new Error('Oh noes!');
      });
      expect(await limiter.schedule(() => 1)).toBe(1);
      await advance(0);
      expect(heard).toEqual([new Error('Oh noes!')]);
    });

    it('Should wait for async event listeners', async () => {
      const heard: unknown[] = [];
      const limiter = limiterOf(1, 100, { onHandlerError: (error) => heard.push(error) });
      limiter.on('empty', async () => {
        await delay(100);
        throw new Error('It broke!');
      });
      expect(await limiter.schedule(() => 1)).toBe(1);
      await advance(100);
      expect(heard).toEqual([new Error('It broke!')]);
    });
  });

  describe('High water limit', () => {
    // Design difference: `capacity` is a positive integer (docs/reference.md, `capacity`); "queue nothing"
    // is tryAcquire() (docs/coming-from.md, From Bottleneck: highWater).
    it('Should support highWater set to 0', () => {
      expect(() => limiterOf(1, 0, { capacity: 0 })).toThrow(/capacity must be a positive integer, got 0/);
    });

    // Design difference: a dropped task's promise rejects (ThrottlerOverflowError) where Bottleneck with
    // rejectOnDrop: false leaves it pending (docs/coming-from.md, From Bottleneck: LEAK).

    it('Should support highWater set to 1', async () => {
      const limiter = limiterOf(1, 0, { capacity: 1, overflow: 'drop-oldest' });
      const { slow, order, duration } = recorder();
      const outcomes = [1, 2, 3, 4].map((n) => settled(limiter.schedule(() => slow(50, n))));
      await advance(200);
      await Promise.all(outcomes);
      expect([order(), duration()]).toEqual([[1, 4], 100]);
    });
  });

  describe('Weight', () => {
    // A cost above the smallest limit is refused (docs/reference.md, `cost`); the limit is the rate here.
    it('Should not add jobs with a weight above the maxConcurrent', async () => {
      const limiter = createThrottler({ rate: '2/1s' });
      expect(await limiter.schedule(() => 1, { cost: 1 })).toBe(1);
      expect(await settled(limiter.schedule(() => 3, { cost: 3 }))).toBeInstanceOf(ThrottlerOptionError);
    });

    skipped(
      'weight counts against maxConcurrent there, cost against the rate here; weight 0 has no equivalent (docs/coming-from.md, From Bottleneck)',
      ['Should support custom job weights'],
    );
    skipped('reservoir, depleted and incrementReservoir() have no equivalent (docs/coming-from.md, From Bottleneck)', [
      'Should overflow at the correct rate',
    ]);
  });

  describe('Expiration', () => {
    it('Should cancel jobs', async () => {
      const limiter = limiterOf(2);
      const start = performance.now();
      const { slow } = recorder();
      const slowest = limiter.schedule(() => slow(150, 1), { id: 'very-slow-no-expiration' });
      const expiring = settled(limiter.schedule(() => slow(75, 2), { id: 'slow-with-expiration', timeout: 50 }));
      await advance(50);
      expect(await expiring).toBeInstanceOf(ThrottlerTimeoutError);
      expect(performance.now() - start).toBe(50);
      expect(limiter.pending).toBe(1);
      await advance(100);
      expect(await slowest).toBe(1);
      expect(limiter.pending).toBe(0);
    });
  });

  describe('Pubsub', () => {
    skipped('publish() and the message event have no equivalent (docs/coming-from.md, From Bottleneck)', [
      'Should pass strings',
      'Should pass objects',
    ]);
  });

  describe('Reservoir Refresh', () => {
    skipped(
      'a reservoir that starts above its refresh amount has no equivalent: a rate starts full (docs/coming-from.md, From Bottleneck)',
      ['Should auto-refresh the reservoir'],
    );

    // reservoir 2, refreshed to 2 every 150 ms, is rate '2/150ms' with the timer strategy.
    it('Should allow staggered X by Y type usage', async () => {
      const limiter = createThrottler({ rate: '2/150ms' });
      const { slow, order, duration } = recorder();
      const all = Promise.all([1, 2, 3, 4].map((n) => limiter.schedule(() => slow(0, n))));
      await advance(300);
      await all;
      expect([order(), duration()]).toEqual([[1, 2, 3, 4], 150]);
    });

    skipped('spawns a Node process to watch it exit; not portable into virtual time', [
      'Should keep process alive until queue is empty',
    ]);
  });

  describe('Reservoir Increase', () => {
    skipped(
      'a reservoir that starts full has no equivalent: a token bucket starts empty (docs/coming-from.md, From Bottleneck: reservoirIncrease)',
      ['Should auto-increase the reservoir', 'Should auto-increase the reservoir up to a maximum'],
    );

    // reservoir 2, increased by 2 every 150 ms, is a token bucket of 2 per 150 ms. Design difference: the
    // bucket starts empty and stores permits only while idle (docs/coming-from.md, From Bottleneck:
    // reservoirIncrease), so the four start 75 ms apart, the last at 225 ms, where Bottleneck's at 150.
    it('Should allow staggered X by Y type usage', async () => {
      const limiter = createThrottler({ rate: '2/150ms', strategy: 'token-bucket', maxBurst: 2 });
      const { slow, order, duration } = recorder();
      const all = Promise.all([1, 2, 3, 4].map((n) => limiter.schedule(() => slow(0, n))));
      await advance(300);
      await all;
      expect([order(), duration()]).toEqual([[1, 2, 3, 4], 225]);
    });

    skipped('spawns a Node process to watch it exit; not portable into virtual time', [
      'Should keep process alive until queue is empty',
    ]);
  });
});

describe('Promises', () => {
  it('Should support promises', async () => {
    const limiter = limiterOf(1, 100);
    const { slow, order, duration } = recorder();
    const results = Promise.all([1, 2, 3].map((n) => limiter.schedule(() => slow(0, n))));
    await advance(1_000);
    expect(await results).toEqual([1, 2, 3]);
    expect([order(), duration()]).toEqual([[1, 2, 3], 200]);
  });

  it('Should pass error on failure', async () => {
    const limiter = limiterOf(1, 100);
    const failure = new Error('failed');
    await expect(limiter.schedule(() => Promise.reject(failure))).rejects.toBe(failure);
  });

  it('Should allow non-Promise returns', async () => {
    expect(await limiterOf().schedule(() => 'This is a string')).toBe('This is a string');
  });

  it('Should get rejected when rejectOnDrop is true', async () => {
    const limiter = limiterOf(1, 0, { capacity: 1, overflow: 'reject' });
    let dropped = 0;
    limiter.on('rejected', () => dropped++);
    const { slow, order, duration } = recorder();
    const first = limiter.schedule(() => slow(50, 1), { id: 1 });
    const second = limiter.schedule(() => slow(50, 2), { id: 2 });
    const third = settled(limiter.schedule(() => slow(50, 3), { id: 3 }));
    expect(await third).toBeInstanceOf(ThrottlerOverflowError);
    await advance(100);
    expect([await first, await second]).toEqual([1, 2]);
    expect([order(), duration(), dropped]).toEqual([[1, 2], 100, 1]);
  });

  it('Should automatically wrap an exception in a rejected promise - schedule()', async () => {
    const limiter = limiterOf(1, 100);
    await expect(
      limiter.schedule(() => {
        throw new Error('I will reject');
      }),
    ).rejects.toThrow('I will reject');
  });

  describe('Wrap', () => {
    it('Should wrap', async () => {
      const limiter = limiterOf(1, 100);
      const { slow, order, duration } = recorder();
      for (const n of [1, 2, 3]) limiter.schedule(() => slow(0, n));
      const wrapped = limiter.wrap((n: number) => slow(0, n));
      const last = wrapped(4);
      await advance(1_000);
      expect(await last).toBe(4);
      expect([order(), duration()]).toEqual([[1, 2, 3, 4], 300]);
    });

    it('Should automatically wrap a returned value in a resolved promise', async () => {
      expect(await limiterOf(1, 100).wrap(() => 7)()).toBe(7);
    });

    it('Should automatically wrap an exception in a rejected promise', async () => {
      const fn = limiterOf(1, 100).wrap(() => {
        throw new Error('I will reject');
      });
      await expect(fn()).rejects.toThrow('I will reject');
    });

    it('Should inherit the original target for wrapped methods', async () => {
      const limiter = limiterOf(1, 100);
      const object: { fn: () => Promise<unknown> } = {
        fn: limiter.wrap(function (this: unknown) {
          return this;
        }),
      };
      expect(await object.fn()).toBe(object);
    });

    it('Should inherit the original target on prototype methods', async () => {
      const limiter = limiterOf(1, 100);
      class Animal {
        constructor(readonly name: string) {}
        getName(): unknown {
          return this.name;
        }
      }
      Animal.prototype.getName = limiter.wrap(Animal.prototype.getName);
      expect(await new Animal('Dumbo').getName()).toBe('Dumbo');
    });

    it('Should pass errors back', async () => {
      const limiter = limiterOf(1, 100);
      const { slow, order, duration } = recorder();
      const wrapped = limiter.wrap(async (error: Error | null, n: number) => {
        await slow(0, n);
        if (error) throw error;
        return n;
      });
      wrapped(null, 1);
      wrapped(null, 2);
      const failed = settled(wrapped(new Error('BLEW UP!!!'), 3));
      await advance(1_000);
      expect(await failed).toHaveProperty('message', 'BLEW UP!!!');
      expect([order(), duration()]).toEqual([[1, 2, 3], 200]);
    });

    // withOptions(options, ...args) is wrap(fn, options) (docs/coming-from.md, From Bottleneck).
    it('Should allow passing options', async () => {
      const limiter = limiterOf(1, 50);
      const { slow, order, duration } = recorder();
      const task = async (error: Error | null, n: number) => {
        await slow(0, n);
        if (error) throw error;
        return n;
      };
      const wrapped = limiter.wrap(task, { priority: priority(5) });
      const urgent = limiter.wrap(task, { priority: priority(1) });
      for (const n of [1, 2, 3, 4]) wrapped(null, n);
      urgent(null, 5);
      const failed = settled(urgent(new Error('BLEW UP!!!'), 6));
      await advance(1_000);
      expect(await failed).toHaveProperty('message', 'BLEW UP!!!');
      // The first starts inside `schedule`; then priority 1 (ours 8) ahead of the rest, as in Bottleneck.
      expect([order(), duration()]).toEqual([[1, 5, 6, 2, 3, 4], 250]);
    });
  });
});

describe('Retries', () => {
  // Bottleneck's `failed` handler returning 50 is `retry: { retries, backoff: () => 50 }`; the retry
  // ordering these tests see may change with the retry-keeps-its-place work (branch i34-retry-place).
  async function retriedTwice(backoff: () => number) {
    const limiter = limiterOf();
    let [retryEvents, times, succeededAt] = [0, 0, 0];
    limiter.on('retry', () => retryEvents++);
    const start = performance.now();
    const job = () => {
      times++;
      if (times <= 2) return Promise.reject(new Error('boom'));
      succeededAt = performance.now();
      return Promise.resolve('Success!');
    };
    const result = limiter.schedule(job, { retry: { retries: 2, backoff } });
    await advance(1_000);
    expect(await result).toBe('Success!');
    expect([retryEvents, times, limiter.pending]).toEqual([2, 3, 0]);
    // Bottleneck's `elapsed > 90 && < 130`: two waits of 50 ms.
    expect(succeededAt - start).toBe(100);
  }

  it('Should retry when requested by the user (sync)', async () => {
    await retriedTwice(() => 50);
  });

  // Design difference: a backoff is a number or a function returning one, never a promise (docs/reference.md,
  // `retry`: backoff); Bottleneck's async handler resolving to 50 is the same function, synchronous.
  it('Should retry when requested by the user (async)', async () => {
    await retriedTwice(() => 50);
  });

  // Design difference: the handler's own error rejects the task (docs/reference.md, `retry`: "A retryOn or
  // backoff that throws rejects the task with its error"); Bottleneck rejects with 'boom' and emits 'error'
  // with 'Nope'.
  async function declinedByThrowing() {
    const limiter = limiterOf();
    let [retryEvents, errorEvents] = [0, 0];
    limiter.on('retry', () => retryEvents++);
    limiter.on('error', () => errorEvents++);
    const nope = new Error('Nope');
    const retryOn = () => {
      throw nope;
    };
    const result = settled(
      limiter.schedule(() => Promise.reject(new Error('boom')), { retry: { retries: 3, retryOn } }),
    );
    await advance(100);
    expect(await result).toBe(nope);
    expect([retryEvents, errorEvents, limiter.pending]).toEqual([0, 1, 0]);
  }

  it('Should not retry when user returns an error (sync)', declinedByThrowing);

  it('Should not retry when user returns an error (async)', declinedByThrowing);

  async function declined() {
    const limiter = limiterOf();
    let [retryEvents, attempts] = [0, 0];
    limiter.on('retry', () => retryEvents++);
    const job = () => {
      attempts++;
      return Promise.reject(new Error('boom'));
    };
    const result = settled(limiter.schedule(job, { retry: { retries: 3, retryOn: () => false } }));
    await advance(100);
    expect(await result).toHaveProperty('message', 'boom');
    expect([retryEvents, attempts, limiter.pending]).toEqual([0, 1, 0]);
  }

  // Returning null from `failed` is retryOn returning false.
  it('Should not retry when user returns null (sync)', declined);

  it('Should not retry when user returns null (async)', declined);
});

describe('Priority', () => {
  it('Should do basic ordering', async () => {
    const limiter = limiterOf(1, 100);
    const { slow, order, duration } = recorder();
    const defaults = { priority: priority(5) }; // Bottleneck's default, ported (docs/coming-from.md)
    limiter.schedule(() => slow(50, 1), defaults);
    limiter.schedule(() => slow(0, 2), defaults);
    limiter.schedule(() => slow(0, 5), { priority: priority(1) });
    limiter.schedule(() => slow(0, 3), defaults);
    limiter.schedule(() => slow(0, 4), defaults);
    await advance(1_000);
    expect([order(), duration()]).toEqual([[1, 5, 2, 3, 4], 400]);
  });

  /** Bottleneck's priority test: 1 runs, 2-4 wait (default priority 5), then 5 (p2), 6 (p1) and 7 (p9). */
  function overflowed(options: Partial<ThrottlerOptions>) {
    const limiter = limiterOf(1, 100, options);
    const { slow, order, duration } = recorder();
    const add = (n: number, p = 5) =>
      settled(limiter.schedule(() => slow(n === 1 ? 50 : 0, n), { priority: priority(p) }));
    let dropped = 0;
    limiter.on('dropped', () => dropped++);
    limiter.on('rejected', () => dropped++);
    const outcomes = [add(1), add(2), add(3), add(4), add(2 + 3, 2), add(6, 1), add(7, 9)];
    return { limiter, add, outcomes, order, duration, dropped: () => dropped };
  }

  // Design difference: dropped tasks reject with ThrottlerOverflowError (Bottleneck's rejectOnDrop: false
  // leaves them pending), and a newcomer below every waiting task is refused (docs/coming-from.md, LEAK).
  it('Should support LEAK', async () => {
    const run = overflowed({ capacity: 3, overflow: 'drop-oldest' });
    const last = run.add(8); // c.last(): one more of the default priority
    await advance(1_000);
    const outcomes = await Promise.all([...run.outcomes, last]);
    expect(outcomes.filter((outcome) => outcome instanceof ThrottlerOverflowError)).toHaveLength(4);
    expect(run.order()).toEqual([1, 6, 5, 8]);
    expect(run.dropped()).toBe(4);
  });

  it('Should support OVERFLOW', async () => {
    const run = overflowed({ capacity: 2, overflow: 'reject' });
    // Bottleneck lifts highWater here (updateSettings); capacity is fixed at creation (docs/coming-from.md,
    // From Bottleneck: updateSettings), so the last task comes once the queue has room (2 started at 100 ms).
    await advance(100);
    const last = run.add(8);
    await advance(1_000);
    const outcomes = await Promise.all([...run.outcomes, last]);
    expect(outcomes.filter((outcome) => outcome instanceof ThrottlerOverflowError)).toHaveLength(4);
    expect([run.order(), run.duration()]).toEqual([[1, 2, 3, 8], 300]);
  });

  skipped('OVERFLOW_PRIORITY and BLOCK have no equivalent (docs/coming-from.md, From Bottleneck)', [
    'Should support OVERFLOW_PRIORITY',
    'Should support BLOCK',
  ]);

  it('Should have the right priority', async () => {
    const limiter = limiterOf(1, 100);
    const { slow, order, duration } = recorder();
    limiter.schedule(() => slow(50, 1), { priority: priority(6) });
    limiter.schedule(() => slow(0, 2), { priority: priority(5) });
    limiter.schedule(() => slow(0, 3), { priority: priority(4) });
    limiter.schedule(() => slow(0, 4), { priority: priority(3) });
    await advance(1_000);
    expect([order(), duration()]).toEqual([[1, 4, 3, 2], 300]);
  });
});

describe('Stop', () => {
  it('Should stop and drop the queue', async () => {
    const limiter = limiterOf(2, 100);
    const outcomes = Promise.allSettled([1, 2, 3, 4].map((n) => limiter.schedule(() => delay(50).then(() => n))));
    await advance(0);
    const stopped = limiter.stop({ dropWaitingJobs: true });
    await advance(1_000);
    await stopped;
    const results = await outcomes;
    expect(results[0]).toEqual({ status: 'fulfilled', value: 1 });
    expect(results.slice(1).every((s) => s.status === 'rejected' && s.reason instanceof ThrottlerStoppedError)).toBe(
      true,
    );
    await expect(limiter.schedule(() => 5)).rejects.toBeInstanceOf(ThrottlerStoppedError);
  });

  it('Should stop and let the queue finish', async () => {
    const limiter = limiterOf(1, 100);
    const outcomes = Promise.all([1, 2, 3].map((n) => limiter.schedule(() => n)));
    const stopped = limiter.stop({ dropWaitingJobs: false });
    await expect(limiter.schedule(() => 4)).rejects.toBeInstanceOf(ThrottlerStoppedError);
    await advance(1_000);
    await stopped;
    expect(await outcomes).toEqual([1, 2, 3]);
  });

  // Design difference: stop() is idempotent, a second call resolves (docs/reference.md, `stop`: "Bottleneck
  // rejects a second stop(); code ported from it that catches that rejection simply never sees it").
  async function stoppedTwice(options?: { dropWaitingJobs: boolean }) {
    const limiter = limiterOf(1, 100);
    const outcomes = Promise.allSettled([
      limiter.schedule(() => 1, { id: '1' }),
      limiter.schedule(() => 2, { id: '2' }),
      limiter.schedule(() => delay(100).then(() => 3), { id: '3' }),
    ]);
    const first = limiter.stop(options);
    await advance(1_000);
    await first;
    await expect(limiter.stop(options)).resolves.toBeUndefined();
    return (await outcomes).map((outcome) => outcome.status);
  }

  it('Should still resolve when rejectOnDrop is false', async () => {
    expect(await stoppedTwice()).toEqual(['fulfilled', 'rejected', 'rejected']);
  });

  it('Should not allow calling stop() twice when dropWaitingJobs=true', async () => {
    expect(await stoppedTwice({ dropWaitingJobs: true })).toEqual(['fulfilled', 'rejected', 'rejected']);
  });

  it('Should not allow calling stop() twice when dropWaitingJobs=false', async () => {
    expect(await stoppedTwice({ dropWaitingJobs: false })).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
  });
});

describe('Group', () => {
  // A Group is one throttler with `keys` and `channel: key` (docs/coming-from.md, From Bottleneck); a key's
  // own maxConcurrent has no equivalent, and here never binds (each job is shorter than minTime).
  const groupOf = () =>
    createThrottler({
      rate: '100000/1s',
      strategy: 'sliding-window',
      keys: { rate: '1/100ms', idleAfter: '5m' },
      ordering: 'per-channel',
    });

  it('Should create limiters', async () => {
    const group = groupOf();
    const results: unknown[] = [];
    const job = (...result: number[]) => {
      results.push(result);
      return delay(50);
    };
    group.schedule(() => job(1, 2), { channel: 'A' });
    group.schedule(() => job(3), { channel: 'A' });
    group.schedule(() => job(4), { channel: 'A' });
    setTimeout(() => group.schedule(() => job(5), { channel: 'B' }), 20);
    setTimeout(() => {
      group.schedule(() => job(6), { channel: 'C' });
      group.schedule(() => job(7), { channel: 'C' });
    }, 40);
    await advance(1_000);
    expect(results).toEqual([[1, 2], [5], [6], [3], [7], [4]]);
  });

  skipped(
    'a Group has no limiter objects, ids or created event: keys live inside one throttler (docs/coming-from.md, From Bottleneck)',
    [
      'Should set up the limiter IDs (default)',
      'Should set up the limiter IDs (custom)',
      "Should pass new limiter to 'created' event",
    ],
  );

  it('Should pass error on failure', async () => {
    const group = groupOf();
    const results: unknown[] = [];
    const job = (...result: number[]) => {
      results.push(result);
      return delay(50);
    };
    group.schedule(() => job(1, 2), { channel: 'A' });
    group.schedule(() => job(3), { channel: 'A' });
    group.schedule(() => job(4), { channel: 'A' });
    group
      .schedule(() => Promise.reject(new Error('SOMETHING BLEW UP!!')), { channel: 'B' })
      .catch((error: Error) => results.push(['CAUGHT', error.message]));
    setTimeout(() => {
      group.schedule(() => job(6), { channel: 'C' });
      group.schedule(() => job(7), { channel: 'C' });
    }, 40);
    await advance(1_000);
    expect(results).toEqual([[1, 2], ['CAUGHT', 'SOMETHING BLEW UP!!'], [6], [3], [7], [4]]);
  });

  skipped(
    'a Group has no updateSettings(), keys(), limiters() or deleteKey(); keys.idleAfter is set at creation (docs/coming-from.md, From Bottleneck)',
    [
      'Should update its timeout',
      'Should update its limiter options',
      'Should support keys(), limiters(), deleteKey()',
      'Should call autocleanup',
    ],
  );
});

describe('Batcher', () => {
  skipped('Bottleneck.Batcher has no equivalent (docs/coming-from.md, From Bottleneck)', [
    'Should batch by time and size',
    'Should batch by time',
    'Should batch by size',
    'Should stagger flushes',
    'Should force then stagger flushes',
  ]);
});

describe('States', () => {
  skipped("tests Bottleneck's internal States class (job status bookkeeping), not the limiter", [
    'Should be created and be empty',
    'Should start new series',
    'Should increment',
    'Should remove',
    'Should return current status',
    'Should return job ids for a status',
  ]);
});

describe('DLList', () => {
  skipped("tests Bottleneck's internal doubly linked list, not the limiter", [
    'Should be created and be empty',
    'Should be possible to append once',
    'Should be possible to append multiple times',
    'Should be possible to shift an empty list',
    'Should be possible to append then shift once',
    'Should be possible to append then shift multiple times',
    'Should pass a full test',
    'Should return the first value without shifting',
  ]);
});

describe('Cluster-only, ioredis-only, node_redis-only', () => {
  const reason =
    "tests Bottleneck's Redis datastore (its clients, Lua scripts, heartbeats, Group key expiry); the Redis store " +
    'here has its own tests on a real Redis (docs/redis.md)';
  skipped(reason, [
    'Should return a promise for ready()',
    'Should return clients',
    'Should return a promise when disconnecting',
    "Should allow passing a limiter's connection to a new limiter",
    "Should allow passing a limiter's connection to a new Group",
    "Should allow passing a Group's connection to a new limiter",
    "Should allow passing a Group's connection to a new Group",
    'Should not have a key TTL by default for standalone limiters',
    'Should allow timeout setting for standalone limiters',
    'Should compute reservoir increased based on number of missed intervals',
    'Should migrate from 2.8.0',
    "Should keep track of each client's queue length",
    'Should publish capacity increases',
    'Should publish capacity changes on reservoir changes',
    'Should remove track job data and remove lost jobs',
    'Should clear unresponsive clients',
    'Should not clear unresponsive clients with unexpired running jobs',
    'Should clear unresponsive clients after last jobs are expired',
    'Should use shared settings',
    'Should clear previous settings',
    'Should safely handle connection failures',
    'Should chain local and distributed limiters (total concurrency)',
    'Should chain local and distributed limiters (partial concurrency)',
    'Should use the limiter ID to build Redis keys',
    'Should not fail when Redis data is missing',
    'Should drop all jobs in the Cluster when entering blocked mode',
    'Should pass messages to all limiters in Cluster',
    'Should pass messages to correct limiter after Group re-instantiations',
    'Should have a default key TTL when using Groups',
    'Should support Groups and expire Redis keys',
    'Should not recreate a key when running heartbeat',
    'Should delete Redis key when manually deleting a group key',
    'Should delete Redis keys from a group even when the local limiter is not present',
    'Should returns all Group keys in the cluster',
    'Should queue up the least busy limiter',
    'Should pass the remaining capacity to other limiters',
    'Should take the capacity and blacklist if the priority limiter is not responding',
    'Should accept ioredis lib override',
    'Should connect in Redis Cluster mode',
    'Should connect in Redis Cluster mode with premade client',
    'Should accept existing connections',
    'Should accept existing redis clients',
    'Should trigger error events on the shared connection',
    'Should accept node_redis lib override',
    'Should accept existing connections (node_redis)',
    'Should accept existing redis clients (node_redis)',
    'Should trigger error events on the shared connection (node_redis)',
  ]);
});
