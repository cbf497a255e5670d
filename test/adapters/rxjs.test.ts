import { from, Observable, range, Subject, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ThrottlerOverflowError } from '../../src/index.js';
import { throttleQueue } from '../../src/rxjs/index.js';
import { pendingTimers, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/** A TestScheduler in run mode: one frame is one millisecond of virtual time. */
function marbles(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('throttleQueue (marble tests)', () => {
  it('sliding-window 3/10ms: three at once, the next three when the first leave the window, then completes', () => {
    const scheduler = marbles();
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('abcdefg|');
      const throttled = source.pipe(throttleQueue({ rate: '3/10ms', strategy: 'sliding-window', scheduler }));
      // a b c at 0 1 2; d e f 10 ms after a b c; g 10 ms after d; completion waits for g.
      expectObservable(throttled).toBe('abc 7ms def 7ms (g|)');
    });
  });

  it('timer 2/10ms: vouchers refill at each tick of the period that started on activation', () => {
    const scheduler = marbles();
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('(abcde)|');
      const throttled = source.pipe(throttleQueue({ rate: '2/10ms', scheduler }));
      expectObservable(throttled).toBe('(ab) 6ms (cd) 6ms (e|)');
    });
  });

  it('passes values unchanged and in order, lossless, with values arriving while others wait', () => {
    const scheduler = marbles();
    scheduler.run(({ cold, expectObservable }) => {
      const values = { a: { id: 1 }, b: { id: 2 }, c: { id: 3 }, d: { id: 4 } };
      const source = cold('a-b-c-d|', values);
      const throttled = source.pipe(throttleQueue({ rate: '1/5ms', strategy: 'sliding-window', scheduler }));
      expectObservable(throttled).toBe('a----b----c----(d|)', values);
    });
  });

  it('completes at once when the source completes with nothing waiting', () => {
    const scheduler = marbles();
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('a--|').pipe(throttleQueue({ rate: '5/1s', scheduler }))).toBe('a--|');
      expectObservable(cold('|').pipe(throttleQueue({ rate: '5/1s', scheduler }))).toBe('|');
    });
  });

  it('a source error passes through at once', () => {
    const scheduler = marbles();
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('abc#', undefined, new Error('upstream failed'));
      const throttled = source.pipe(throttleQueue({ rate: '1/10ms', strategy: 'sliding-window', scheduler }));
      expectObservable(throttled).toBe('a--#', undefined, new Error('upstream failed'));
    });
  });

  it('unsubscribing stops the throttler: nothing more is emitted and its timer is cancelled', () => {
    const scheduler = marbles();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const source = cold('(abcd)|');
      const throttled = source.pipe(throttleQueue({ rate: '1/10ms', strategy: 'sliding-window', scheduler }));
      expectObservable(throttled, '^ 14ms !').toBe('a 9ms b');
      flush();
      // The one wake-up timer was armed for 20 ms; after the unsubscription nothing is left scheduled.
      expect(scheduler.actions).toHaveLength(0);
    });
  });

  it('per-channel rates and costs come from functions of the value', () => {
    const scheduler = marbles();
    scheduler.run(({ cold, expectObservable }) => {
      const values = { s: 'search', u: 'upload', v: 'upload', t: 'search' };
      const source = cold('suvt|', values);
      const throttled = source.pipe(
        throttleQueue<string>({
          rate: '10/10ms',
          strategy: 'sliding-window',
          channels: { search: '2/10ms', upload: '1/10ms' },
          ordering: 'per-channel',
          channel: (value) => value,
          scheduler,
        }),
      );
      // upload is 1 per 10 ms: v waits for u to leave the window, and t passes it (per-channel ordering).
      expectObservable(throttled).toBe('su-t 7ms (v|)', values);
    });
  });

  it('a cost spends that much of the limit', () => {
    const scheduler = marbles();
    scheduler.run(({ cold, expectObservable }) => {
      const values = { a: 3, b: 1, c: 2 };
      const source = cold('abc|', values);
      const throttled = source.pipe(
        throttleQueue<number>({ rate: '4/10ms', strategy: 'sliding-window', cost: (value) => value, scheduler }),
      );
      // a (3) and b (1) fill the window; c (2) waits until a leaves it at 10 ms.
      expectObservable(throttled).toBe('ab 8ms (c|)', values);
    });
  });

  it('a full queue errors the stream with the drop, unless onDropped takes it', () => {
    const scheduler = marbles();
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('abcd|');
      const strict = source.pipe(throttleQueue({ rate: '1/10ms', strategy: 'sliding-window', capacity: 1, scheduler }));
      expectObservable(strict).toBe(
        'a-#',
        undefined,
        new ThrottlerOverflowError('reject', 'Message rejected: the queue is full (overflow: "reject")'),
      );
    });
    const dropped: Array<[string, string]> = [];
    const lenient = marbles();
    lenient.run(({ cold, expectObservable }) => {
      const source = cold('abcd|');
      const throttled = source.pipe(
        throttleQueue<string>({
          rate: '1/10ms',
          strategy: 'sliding-window',
          capacity: 1,
          overflow: 'drop-oldest',
          onDropped: (value, error) => dropped.push([value, error.message]),
          scheduler: lenient,
        }),
      );
      expectObservable(throttled).toBe('a 9ms (d|)');
    });
    expect(dropped.map(([value]) => value)).toEqual(['b', 'c']);
    expect(dropped[0]?.[1]).toContain('drop-oldest');
  });

  it('a value whose channel is unknown errors the stream, naming it', () => {
    const scheduler = marbles();
    scheduler.run(({ cold, expectObservable }) => {
      const throttled = cold('a|').pipe(
        throttleQueue<string>({ rate: '1/10ms', channels: { x: '1/1s' }, channel: () => 'y', scheduler }),
      );
      expectObservable(throttled).toBe(
        '#',
        undefined,
        expect.objectContaining({ message: 'channel must be one of "x", got "y"' }),
      );
    });
  });

  it('take(n) downstream unsubscribes mid-delivery without losing or repeating values', () => {
    const scheduler = marbles();
    scheduler.run(({ cold, expectObservable }) => {
      const throttled = cold('(abcde)|').pipe(
        throttleQueue({ rate: '2/10ms', strategy: 'sliding-window', scheduler }),
        take(3),
      );
      expectObservable(throttled).toBe('(ab) 6ms (c|)');
    });
  });

  it('each subscription has its own throttler', () => {
    const scheduler = marbles();
    scheduler.run(({ cold, expectObservable }) => {
      const throttled = cold('abc|').pipe(throttleQueue({ rate: '1/10ms', strategy: 'sliding-window', scheduler }));
      expectObservable(throttled).toBe('a 9ms b 9ms (c|)');
      expectObservable(throttled).toBe('a 9ms b 9ms (c|)');
    });
  });
});

describe('throttleQueue: options', () => {
  it('throws at once on invalid options, naming the option and the value', () => {
    expect(() => throttleQueue({ rate: '1.5/1s' })).toThrow('rate.limit must be a positive integer, got "1.5"');
    expect(() => throttleQueue({ rate: '1/1s', channel: 'search' as never })).toThrow(
      'channel must be a function, got "search"',
    );
    expect(() => throttleQueue({ rate: '1/1s', scheduler: 5 as never })).toThrow(
      'scheduler must be an RxJS scheduler, got 5',
    );
  });
});

describe('throttleQueue without a scheduler (setTimeout and performance.now)', () => {
  afterEach(restoreRealTime);

  it('runs on fake timers and leaves no timer after unsubscribing', async () => {
    useVirtualTime();
    const received: Array<[number, number]> = [];
    const subject = new Subject<number>();
    const subscription = subject
      .pipe(throttleQueue({ rate: '2/1s', strategy: 'sliding-window' }))
      .subscribe((value) => received.push([value, performance.now()]));
    for (let n = 1; n <= 5; n++) subject.next(n);
    // The five values reach the throttler together in a microtask: the async advance runs it first.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(received).toEqual([
      [1, 0],
      [2, 0],
      [3, 1000],
      [4, 1000],
    ]);
    expect(pendingTimers()).toBe(1);
    subscription.unsubscribe();
    expect(pendingTimers()).toBe(0);
  });

  it('real-timer smoke test: 6 values at 3/100ms take at least one interval, all arrive in order', async () => {
    const started = performance.now();
    const values = await new Promise<number[]>((resolve, reject) => {
      const seen: number[] = [];
      from([1, 2, 3, 4, 5, 6])
        .pipe(throttleQueue({ rate: '3/100ms', strategy: 'sliding-window' }))
        .subscribe({ next: (value) => seen.push(value), error: reject, complete: () => resolve(seen) });
    });
    const elapsed = performance.now() - started;
    expect(values).toEqual([1, 2, 3, 4, 5, 6]);
    // Generous bounds: never early (values 4-6 wait one full interval); late only by a loaded machine.
    expect(elapsed).toBeGreaterThanOrEqual(100);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('works on an Observable that emits synchronously while subscribing', () => {
    useVirtualTime();
    const received: number[] = [];
    new Observable<number>((subscriber) => {
      subscriber.next(1);
      subscriber.next(2);
      subscriber.complete();
    })
      .pipe(throttleQueue({ rate: '1/1s', strategy: 'sliding-window' }))
      .subscribe((value) => received.push(value));
    expect(received).toEqual([1]);
    vi.advanceTimersByTime(1_000);
    expect(received).toEqual([1, 2]);
    expect(pendingTimers()).toBe(0);
  });

  it('a synchronous burst goes to the throttler in one event: its values before an error, in order', async () => {
    useVirtualTime();
    const events: string[] = [];
    new Observable<number>((subscriber) => {
      for (let n = 1; n <= 5; n++) subscriber.next(n);
      subscriber.error(new Error('upstream failed'));
    })
      .pipe(throttleQueue({ rate: '2/1s', strategy: 'sliding-window' }))
      .subscribe({
        next: (value) => events.push(`next ${value}`),
        error: (error: Error) => events.push(error.message),
      });
    // The error sends the pending burst first: what the rate allows now comes before it.
    expect(events).toEqual(['next 1', 'next 2', 'upstream failed']);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(events).toEqual(['next 1', 'next 2', 'upstream failed']);
    expect(pendingTimers()).toBe(0);
  });

  it('unsubscribing before the burst was sent emits nothing and leaves nothing behind', async () => {
    useVirtualTime();
    const received: number[] = [];
    const subject = new Subject<number>();
    const subscription = subject
      .pipe(throttleQueue({ rate: '2/1s', strategy: 'sliding-window' }))
      .subscribe((value) => received.push(value));
    subject.next(1);
    subject.next(2);
    subscription.unsubscribe();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(received).toEqual([]);
    expect(pendingTimers()).toBe(0);
  });

  it('a synchronous stretch of values reaches the throttler as one QUEUE_BATCH; with capacity, one QUEUE each', async () => {
    useVirtualTime();
    const eventsFor = async (capacity: number | undefined) => {
      const types: string[] = [];
      const received: number[] = [];
      range(1, 5)
        .pipe(
          throttleQueue({
            rate: '10/1s',
            strategy: 'sliding-window',
            ...(capacity === undefined ? {} : { capacity }),
            inspect: (event) => {
              if (event.type === '@xstate.event') types.push((event.event as { type: string }).type);
            },
          }),
        )
        .subscribe((value) => received.push(value));
      await vi.advanceTimersByTimeAsync(0);
      expect(received).toEqual([1, 2, 3, 4, 5]);
      return types.filter((type) => type.startsWith('QUEUE'));
    };
    expect(await eventsFor(undefined)).toEqual(['QUEUE_BATCH']);
    expect(await eventsFor(10)).toEqual(['QUEUE', 'QUEUE', 'QUEUE', 'QUEUE', 'QUEUE']);
  });

  it('real-timer smoke test: 200k synchronous values all come out, in order, and subscribing returns promptly', async () => {
    const count = 200_000;
    let next = 0;
    let blockedMs = 0;
    await new Promise<void>((resolve, reject) => {
      const startedAt = performance.now();
      range(0, count)
        .pipe(throttleQueue({ rate: '1000000000/1s', strategy: 'sliding-window' }))
        .subscribe({
          next: (value) => {
            if (value !== next) reject(new Error(`got ${value}, expected ${next}`));
            next += 1;
          },
          error: reject,
          complete: resolve,
        });
      blockedMs = performance.now() - startedAt;
    });
    expect(next).toBe(count);
    // Well under a second even on a busy machine: the values are taken in as one batch, and the
    // deliveries go in slices of maxDeliveriesPerTurn after it.
    expect(blockedMs).toBeLessThan(6_000);
  });
});
