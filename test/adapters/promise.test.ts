import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createThrottler,
  restoreThrottler,
  type Throttler,
  ThrottlerOptionError,
  ThrottlerStoppedError,
} from '../../src/index.js';
import { machineContext } from '../support/machine-context.js';
import { now, pendingTimers, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** Moves virtual time on, letting the tasks the throttler starts (in microtasks) run on the way. */
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** Schedules `count` tasks that record when they started; resolves each with its number. */
function scheduleNumbered(throttler: Throttler, count: number) {
  const starts: Array<[number, number]> = [];
  const results = Array.from({ length: count }, (_, index) =>
    throttler.schedule(() => {
      starts.push([index + 1, now()]);
      return index + 1;
    }),
  );
  return { starts, results };
}

/** A task that takes `ms` of virtual time and records when it ran. */
function slowTask(ms: number, log: Array<[string, number]>, name: string) {
  return () =>
    new Promise<string>((resolve) => {
      log.push([`${name} start`, now()]);
      setTimeout(() => {
        log.push([`${name} end`, now()]);
        resolve(name);
      }, ms);
    });
}

describe('createThrottler: schedule', () => {
  it('starts tasks no faster than the rate and resolves each with its result', async () => {
    const throttler = createThrottler({ rate: '2/1s', strategy: 'sliding-window' });
    const { starts, results } = scheduleNumbered(throttler, 5);
    await advance(2_000);
    expect(starts).toEqual([
      [1, 0],
      [2, 0],
      [3, 1000],
      [4, 1000],
      [5, 2000],
    ]);
    await expect(Promise.all(results)).resolves.toEqual([1, 2, 3, 4, 5]);
    throttler.stop();
  });

  it('passes rejections and thrown errors through unchanged', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    const failure = new Error('remote said no');
    const rejected = throttler.schedule(() => Promise.reject(failure));
    const thrown = throttler.schedule(() => {
      throw failure;
    });
    const after = throttler.schedule(() => 'still runs');
    const outcomes = Promise.all([
      expect(rejected).rejects.toBe(failure),
      expect(thrown).rejects.toBe(failure),
      expect(after).resolves.toBe('still runs'),
    ]);
    await advance(0);
    await outcomes;
    throttler.stop();
  });

  it('waits for a task that returns a promise and resolves with its value', async () => {
    const throttler = createThrottler({ rate: '1/1s' });
    const log: Array<[string, number]> = [];
    const result = throttler.schedule(slowTask(300, log, 'a'));
    await advance(300);
    await expect(result).resolves.toBe('a');
    expect(log).toEqual([
      ['a start', 0],
      ['a end', 300],
    ]);
    throttler.stop();
  });

  it('wrap() returns a throttled function that passes its arguments', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const calls: Array<[number, number]> = [];
    const add = throttler.wrap((a: number, b: number) => {
      calls.push([a + b, now()]);
      return a + b;
    });
    const sums = [add(1, 2), add(3, 4), add(5, 6)];
    await advance(2_000);
    await expect(Promise.all(sums)).resolves.toEqual([3, 7, 11]);
    expect(calls).toEqual([
      [3, 0],
      [7, 1000],
      [11, 2000],
    ]);
    throttler.stop();
  });

  it('obeys a channel rate and a cost', async () => {
    const throttler = createThrottler({ rate: '4/1s', strategy: 'sliding-window', channels: { slow: '1/1s' } });
    const starts: Array<[string, number]> = [];
    const record = (name: string) => () => void starts.push([name, now()]);
    throttler.schedule(record('slow 1'), { channel: 'slow' });
    throttler.schedule(record('slow 2'), { channel: 'slow' });
    throttler.schedule(record('heavy'), { cost: 3 });
    await advance(1_000);
    // fifo: 'heavy' waits behind 'slow 2'; both go at 1000, where 1 + 3 fits the overall 4.
    expect(starts).toEqual([
      ['slow 1', 0],
      ['slow 2', 1000],
      ['heavy', 1000],
    ]);
    throttler.stop();
  });

  it('a task may schedule more work on its own throttler', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    let inner: Promise<number> | undefined;
    void throttler.schedule(() => {
      inner = throttler.schedule(() => now());
    });
    await advance(1_000);
    await expect(inner).resolves.toBe(1000);
    throttler.stop();
  });

  it('a task may change its own throttler (setRate, stop); tryAcquire from inside a task throws', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const starts: number[] = [];
    let insideError: unknown;
    const first = throttler.schedule(() => {
      starts.push(now());
      try {
        throttler.tryAcquire();
      } catch (error) {
        insideError = error;
      }
      throttler.setRate('3/1s');
    });
    const rest = [throttler.schedule(() => starts.push(now())), throttler.schedule(() => starts.push(now()))];
    const stopper = throttler.schedule(() => throttler.stop());
    const afterStop = throttler.schedule(() => starts.push(now()));
    const outcomes = Promise.all([
      first,
      ...rest,
      stopper,
      expect(afterStop).rejects.toBeInstanceOf(ThrottlerStoppedError),
    ]);
    await advance(0);
    // The new rate applies as soon as the task that set it has started: three in the first second.
    expect(starts).toEqual([0, 0, 0]);
    await advance(1_000);
    await outcomes;
    expect(starts).toEqual([0, 0, 0]);
    expect(insideError).toBeInstanceOf(Error);
    expect((insideError as Error).message).toContain('tryAcquire() cannot be called while the throttler is delivering');
    expect(pendingTimers()).toBe(0);
  });

  it('setRate names a bad channel', () => {
    const throttler = createThrottler({ rate: '1/1s', channels: { search: '1/1s' } });
    expect(() => throttler.setRate('2/1s', 'serach')).toThrow('channel must be one of "search", got "serach"');
    expect(() => throttler.setRate('0/1s', 'search')).toThrow('channels.search.limit must be a positive integer');
    throttler.stop();
  });

  it('rejects a task whose cost or channel is invalid, naming the value; the others go on', async () => {
    const throttler = createThrottler({ rate: '2/1s', channels: { search: '1/1s' } });
    const badCost = throttler.schedule(() => 1, { cost: 0 });
    const tooCostly = throttler.schedule(() => 1, { cost: 3 });
    const badChannel = throttler.schedule(() => 1, { channel: 'serach' });
    const good = throttler.schedule(() => 'ok');
    const outcomes = Promise.all([
      expect(badCost).rejects.toThrow('cost must be a positive integer, got 0'),
      expect(badCost).rejects.toBeInstanceOf(ThrottlerOptionError),
      expect(tooCostly).rejects.toThrow('cost must be at most 2'),
      expect(badChannel).rejects.toThrow('channel must be one of "search", got "serach"'),
      expect(good).resolves.toBe('ok'),
    ]);
    await advance(0);
    await outcomes;
    await expect(throttler.schedule('not a function' as never)).rejects.toThrow(
      'task must be a function, got "not a function"',
    );
    throttler.stop();
  });

  it('throws at once on invalid options, naming the option and the value', () => {
    expect(() => createThrottler({ rate: '0/1s' })).toThrow('rate.limit must be a positive integer, got "0"');
    expect(() => createThrottler({ rate: '1/1s', strategy: 'fastest' as never })).toThrow(
      'strategy must be one of "timer", "sliding-window", "token-bucket", "warming-up", got "fastest"',
    );
    expect(() => createThrottler({ rate: '1/1s', maxConcurrent: 0 })).toThrow(
      'maxConcurrent must be a positive integer, got 0',
    );
  });
});

describe('createThrottler: acquire and tryAcquire', () => {
  it('acquire resolves with the milliseconds waited', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const waits = [throttler.acquire(), throttler.acquire(), throttler.acquire()];
    await advance(2_000);
    await expect(Promise.all(waits)).resolves.toEqual([0, 1000, 2000]);
    throttler.stop();
  });

  it('tryAcquire takes a free permit (0), otherwise takes nothing and says how long to wait', async () => {
    const throttler = createThrottler({ rate: '2/1s', strategy: 'sliding-window' });
    expect(throttler.tryAcquire()).toBe(0);
    await advance(400);
    expect(throttler.tryAcquire()).toBe(0);
    expect(throttler.tryAcquire()).toBe(600);
    expect(throttler.tryAcquire()).toBe(600);
    await advance(600);
    expect(throttler.tryAcquire()).toBe(0);
    expect(throttler.tryAcquire()).toBe(400);
    expect(() => throttler.tryAcquire(0)).toThrow('cost must be a positive integer, got 0');
    expect(throttler.counts.queued).toBe(0);
    throttler.stop();
  });

  it('tryAcquire yields to tasks already waiting', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const { results } = scheduleNumbered(throttler, 2);
    expect(throttler.tryAcquire()).toBe(1000);
    throttler.stop();
    await expect(results[1]).rejects.toBeInstanceOf(ThrottlerStoppedError);
  });
});

describe('createThrottler: Guava RateLimiter behaviours', () => {
  it('token-bucket at 5/s spaces back-to-back acquires 200 ms apart', async () => {
    const throttler = createThrottler({ rate: '5/1s', strategy: 'token-bucket' });
    const waits = Array.from({ length: 5 }, () => throttler.acquire());
    await advance(1_000);
    await expect(Promise.all(waits)).resolves.toEqual([0, 200, 400, 600, 800]);
    throttler.stop();
  });

  it('token-bucket at 2/s after idling 2 s: stored permits go at once (maxBurst 3: four acquires)', async () => {
    const throttler = createThrottler({ rate: '2/1s', strategy: 'token-bucket', maxBurst: 3 });
    await advance(2_000);
    const waits = Array.from({ length: 5 }, () => throttler.acquire());
    await advance(1_000);
    await expect(Promise.all(waits)).resolves.toEqual([0, 0, 0, 0, 500]);
    throttler.stop();
  });

  it('token-bucket with the default maxBurst (one interval: 2 permits) lets three go at once after idling', async () => {
    const throttler = createThrottler({ rate: '2/1s', strategy: 'token-bucket' });
    await advance(2_000);
    const waits = Array.from({ length: 4 }, () => throttler.acquire());
    await advance(1_000);
    // 2 stored + 1 granted ahead of its permit (pre-consumption); the fourth waits it off.
    await expect(Promise.all(waits)).resolves.toEqual([0, 0, 0, 500]);
    throttler.stop();
  });

  it('token-bucket pre-consumption: acquire(5) at 5/s goes at once, the next acquire waits about 1 s', async () => {
    const throttler = createThrottler({ rate: '5/1s', strategy: 'token-bucket' });
    const big = throttler.acquire(5);
    const next = throttler.acquire();
    await advance(1_000);
    await expect(big).resolves.toBe(0);
    await expect(next).resolves.toBe(1000);
    throttler.stop();
  });

  it('warming-up at 2/s with a 3 s warm-up: waits of about 1.33, 1.0, 0.67 s, then 0.5 s', async () => {
    const throttler = createThrottler({ rate: '2/1s', strategy: 'warming-up', warmup: '3s' });
    const grantedAt: number[] = [];
    for (let n = 0; n < 6; n++) void throttler.acquire().then(() => grantedAt.push(now()));
    await advance(10_000);
    const gaps = grantedAt.slice(1).map((at, index) => at - (grantedAt[index] as number));
    // The one timer is armed in whole ms, rounded up: a grant may come up to a millisecond late, never early.
    const guavaWaits = [4000 / 3, 1000, 2000 / 3, 500, 500];
    for (const [index, gap] of gaps.entries()) {
      expect(gap).toBeGreaterThanOrEqual((guavaWaits[index] as number) - 1);
      expect(gap).toBeLessThanOrEqual((guavaWaits[index] as number) + 2);
    }
    expect(gaps).toHaveLength(5);
    throttler.stop();
  });
});

describe('createThrottler: abort, stop, overflow', () => {
  it('an AbortSignal takes a waiting task out and rejects it with an AbortError; the rest keep their order', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const controller = new AbortController();
    const starts: Array<[string, number]> = [];
    const first = throttler.schedule(() => starts.push(['first', now()]));
    const second = throttler.schedule(() => starts.push(['second', now()]), { signal: controller.signal });
    const third = throttler.schedule(() => starts.push(['third', now()]));
    await advance(500);
    controller.abort();
    await expect(second).rejects.toMatchObject({ name: 'AbortError' });
    await advance(1_500);
    await Promise.all([first, third]);
    expect(starts).toEqual([
      ['first', 0],
      ['third', 1000],
    ]);
    expect(throttler.counts).toMatchObject({ queued: 0, delivered: 2, dropped: 1 });
    throttler.stop();
  });

  it('an already aborted signal rejects at once with its reason; aborting a started task changes nothing', async () => {
    const throttler = createThrottler({ rate: '1/1s' });
    const reason = new Error('user navigated away');
    await expect(throttler.schedule(() => 1, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    const controller = new AbortController();
    const started = throttler.schedule(() => 'done', { signal: controller.signal });
    await advance(0);
    controller.abort();
    await expect(started).resolves.toBe('done');
    throttler.stop();
  });

  it('stop() rejects every waiting task with ThrottlerStoppedError, leaves no timer, and refuses new tasks', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const { results } = scheduleNumbered(throttler, 3);
    const outcomes = Promise.all([
      expect(results[0]).resolves.toBe(1),
      expect(results[1]).rejects.toBeInstanceOf(ThrottlerStoppedError),
      expect(results[2]).rejects.toThrow('The throttler was stopped before the task could start'),
    ]);
    await advance(0);
    throttler.stop();
    await outcomes;
    expect(pendingTimers()).toBe(0);
    await expect(throttler.schedule(() => 1)).rejects.toBeInstanceOf(ThrottlerStoppedError);
    expect(() => throttler.tryAcquire()).toThrow(ThrottlerStoppedError);
  });

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

  it.each(['sliding-window', 'timer'] as const)(
    'stop() from inside a task rejects the rest of its burst, queued while the stop waited (%s)',
    async (strategy) => {
      const throttler = createThrottler({ rate: '10/1s', strategy });
      const { out, track } = settlements();
      track(
        throttler.schedule(() => 'a'),
        'a',
      );
      // A second burst while active (the timer strategy's voucher period runs after the first task).
      await advance(5);
      track(
        throttler.schedule(() => {
          throttler.stop();
          return 'b';
        }),
        'b',
      );
      track(
        throttler.schedule(() => 'c'),
        'c',
      );
      track(
        throttler.schedule(() => 'd'),
        'd',
      );
      await advance(10);
      expect(out.sort()).toEqual(['a:ok:a', 'b:ok:b', 'c:err:ThrottlerStoppedError', 'd:err:ThrottlerStoppedError']);
      expect(pendingTimers()).toBe(0);
    },
  );

  it('stop() from inside a task rejects what the task scheduled just before (a bounded queue sends at once)', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window', capacity: 10 });
    const { out, track } = settlements();
    track(
      throttler.schedule(() => {
        // Sent while the throttler is busy delivering this task: it waits in the actor's mailbox.
        track(
          throttler.schedule(() => 'inner'),
          'inner',
        );
        throttler.stop();
        return 'outer';
      }),
      'outer',
    );
    track(
      throttler.schedule(() => 'next'),
      'next',
    );
    await advance(10);
    expect(out.sort()).toEqual(['inner:err:ThrottlerStoppedError', 'next:err:ThrottlerStoppedError', 'outer:ok:outer']);
  });

  it('a task aborted before its burst reaches the throttler never runs, and is rejected with the reason', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const controller = new AbortController();
    const { out, track } = settlements();
    let ran = false;
    // A task waits ahead (handed over inside its call, held by the pause): the next ones join the batch of this stretch.
    throttler.pause(5);
    track(
      throttler.schedule(() => 'ahead'),
      'ahead',
    );
    track(
      throttler.schedule(
        () => {
          ran = true;
        },
        { signal: controller.signal },
      ),
      'aborted',
    );
    track(
      throttler.schedule(() => 'other'),
      'other',
    );
    controller.abort();
    await advance(10);
    expect(ran).toBe(false);
    expect(out.sort()).toEqual(['aborted:err:AbortError', 'ahead:ok:ahead', 'other:ok:other']);
    throttler.stop();
  });

  it('a task is an event with a readable type, also where inspectors serialise it', async () => {
    const events: unknown[] = [];
    const throttler = createThrottler({
      rate: '10/1s',
      inspect: (event) => {
        if (event.type === '@xstate.event' && (event.event as { type?: unknown }).type !== 'QUEUE_BATCH')
          events.push(JSON.parse(JSON.stringify(event.event)));
      },
    });
    await throttler.schedule(() => 1);
    expect(events).toContainEqual(expect.objectContaining({ type: 'task' }));
    throttler.stop();
  });

  it('a persisted snapshot with waiting tasks serialises, tasks with a signal too (their CANCEL key is the task)', async () => {
    const throttler = createThrottler({ rate: '1/1h', strategy: 'sliding-window' });
    const waiting = [
      throttler.schedule(() => 'runs'),
      throttler.schedule(() => 'waits'),
      throttler.schedule(() => 'waits with a signal', { signal: new AbortController().signal }),
    ];
    for (const promise of waiting) promise.catch(() => {});
    await expect(waiting[0]).resolves.toBe('runs');
    const saved = JSON.parse(JSON.stringify(throttler.actor.getPersistedSnapshot()));
    expect(saved.context.dispatcher.state.queue).toEqual([
      expect.objectContaining({ message: { type: 'task' } }),
      expect.objectContaining({ message: { type: 'task' }, id: { type: 'task' } }),
    ]);
    throttler.stop();
  });

  it("restoring a live snapshot object (not its JSON) leaves the original throttler's tasks alone", async () => {
    const throttler = createThrottler({ rate: '1/20ms', strategy: 'sliding-window' });
    const controller = new AbortController();
    const { out, track } = settlements();
    track(
      throttler.schedule(() => 'a'),
      'a',
    );
    track(
      throttler.schedule(() => 'b', { signal: controller.signal }),
      'b',
    );
    await advance(2);
    const copy = restoreThrottler(throttler.actor.getPersistedSnapshot());
    // The copy holds task b too; cancelling it there must not touch b's place in the original.
    copy.send({ type: 'CANCEL', id: machineContext(copy).dispatcher.waiting()[0]?.id });
    copy.stop();
    await advance(30);
    expect(out.sort()).toEqual(['a:ok:a', 'b:ok:b']);
    expect(throttler.actor.getSnapshot().value).toBe('idle');
    throttler.stop();
  });

  it('a full queue with overflow "reject" rejects the new task', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window', capacity: 1 });
    const { results } = scheduleNumbered(throttler, 3);
    await expect(results[2]).rejects.toThrow('the queue is full');
    await advance(1_000);
    await expect(Promise.all(results.slice(0, 2))).resolves.toEqual([1, 2]);
    throttler.stop();
  });

  it('overflow "drop-oldest" rejects the oldest waiting task to make room', async () => {
    const throttler = createThrottler({
      rate: '1/1s',
      strategy: 'sliding-window',
      capacity: 1,
      overflow: 'drop-oldest',
    });
    const { results, starts } = scheduleNumbered(throttler, 3);
    await expect(results[1]).rejects.toThrow('overflow: "drop-oldest"');
    await advance(1_000);
    expect(starts).toEqual([
      [1, 0],
      [3, 1000],
    ]);
    throttler.stop();
  });
});

describe('createThrottler: concurrency, completion-based counting, pause', () => {
  it('maxConcurrent: a task starts only when one in flight settles', async () => {
    const throttler = createThrottler({ rate: '100/1s', maxConcurrent: 2 });
    const log: Array<[string, number]> = [];
    const done = ['a', 'b', 'c'].map((name, index) => throttler.schedule(slowTask(100 * (index + 1), log, name)));
    await advance(1_000);
    await Promise.all(done);
    expect(log).toEqual([
      ['a start', 0],
      ['b start', 0],
      ['a end', 100],
      ['c start', 100],
      ['b end', 200],
      ['c end', 400],
    ]);
    throttler.stop();
  });

  it('a task that throws still frees its maxConcurrent slot', async () => {
    const throttler = createThrottler({ rate: '100/1s', maxConcurrent: 1 });
    const failing = throttler.schedule(() => {
      throw new Error('boom');
    });
    const next = throttler.schedule(() => 'next');
    const outcomes = Promise.all([expect(failing).rejects.toThrow('boom'), expect(next).resolves.toBe('next')]);
    await advance(0);
    await outcomes;
    throttler.stop();
  });

  it("countUntil 'done': a task occupies its slot until it settles, then counts from there", async () => {
    const throttler = createThrottler({ rate: '2/1s', strategy: 'sliding-window', countUntil: 'done' });
    const log: Array<[string, number]> = [];
    const done = ['a', 'b', 'c'].map((name) => throttler.schedule(slowTask(500, log, name)));
    await advance(3_000);
    await Promise.all(done);
    // a and b end at 500 and count as delivered then: c may start at 1500, not at 1000.
    expect(log.filter(([event]) => event.endsWith('start'))).toEqual([
      ['a start', 0],
      ['b start', 0],
      ['c start', 1500],
    ]);
    throttler.stop();
  });

  it('pause(ms) starts nothing meanwhile; resume() ends it early', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    throttler.pause(3_000);
    const { starts } = scheduleNumbered(throttler, 2);
    await advance(2_999);
    expect(starts).toEqual([]);
    await advance(1);
    expect(starts).toEqual([
      [1, 3000],
      [2, 3000],
    ]);
    throttler.pause();
    const later = scheduleNumbered(throttler, 1);
    await advance(10_000);
    expect(later.starts).toEqual([]);
    throttler.resume();
    await advance(0);
    expect(later.starts).toEqual([[1, 13_000]]);
    expect(() => throttler.pause(-1)).toThrow(
      "pause(duration) must be a duration >= 0 in ms, or a string such as '5s', got -1",
    );
    throttler.stop();
  });

  it('setRate applies a new rate, and throws on a bad one without changing anything', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    expect(() => throttler.setRate('0/1s')).toThrow('rate.limit must be a positive integer, got "0"');
    throttler.setRate('3/1s');
    const { starts } = scheduleNumbered(throttler, 4);
    await advance(1_000);
    expect(starts.map(([, at]) => at)).toEqual([0, 0, 0, 1000]);
    throttler.stop();
  });
});

describe('createThrottler: events sent to throttler.actor directly', () => {
  it('a raw QUEUE or QUEUE_BATCH whose message is no task is rejected, named; the task runner lives on', async () => {
    const throttler = createThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    const rejected: string[] = [];
    throttler.actor.on('rejected', (event) => rejected.push(`${event.reason}: ${event.error.message}`));
    // Idle (the straight-through path), then in a batch, then active behind a waiting task (the quiet path).
    throttler.actor.send({ type: 'QUEUE', message: { type: 'raw' } });
    throttler.actor.send({ type: 'QUEUE_BATCH', messages: [{ message: { type: 'raw' } }] });
    const { starts, results } = scheduleNumbered(throttler, 3);
    await advance(0);
    throttler.actor.send({ type: 'QUEUE', message: { type: 'raw' } });
    await advance(2_000);
    await expect(Promise.all(results)).resolves.toEqual([1, 2, 3]);
    expect(starts).toEqual([
      [1, 0],
      [2, 1_000],
      [3, 2_000],
    ]);
    const refusal =
      'invalid: message must be a task of this throttler (send work with throttler.schedule(), not a QUEUE to throttler.actor), got {"type":"raw"}';
    expect(rejected).toEqual([refusal, refusal, refusal]);
    expect(throttler.counts).toEqual({ queued: 0, delivered: 3, dropped: 0, rejected: 3 });
    expect(throttler.actor.getSnapshot().status).toBe('active');
  });
});
