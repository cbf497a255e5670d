import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { ThrottlerExpiredError, ThrottlerOptionError } from '../../src/index.js';
import { throttleQueue } from '../../src/rxjs/index.js';

/** The operator's per-value priority and maxWait (issue 14), in marble time: one frame is 1 ms. */
function marbles(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('throttleQueue: priority and maxWait per value', () => {
  it('emits the higher priority first among values waiting together, equal priorities in order', () => {
    const scheduler = marbles();
    const priorities: Record<string, number> = { a: 5, b: 1, c: 5, d: 9, e: 9 };
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('(abcde)|');
      const throttled = source.pipe(
        throttleQueue({ rate: '1/10ms', strategy: 'sliding-window', scheduler, priority: (v) => priorities[v] }),
      );
      // a goes at once; then d e (9), c (5), b (1), one each 10 ms.
      expectObservable(throttled).toBe('a 9ms d 9ms e 9ms c 9ms (b|)');
    });
  });

  it('hands a value past its maxWait to onDropped with a ThrottlerExpiredError, and the stream goes on', () => {
    const scheduler = marbles();
    const dropped: Array<{ value: string; error: unknown; at: number }> = [];
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('(abc)|');
      const throttled = source.pipe(
        throttleQueue({
          rate: '1/10ms',
          strategy: 'sliding-window',
          scheduler,
          // A duration string reads as its milliseconds.
          maxWait: (v) => (v === 'b' ? '5ms' : undefined),
          onDropped: (value, error) => dropped.push({ value, error, at: scheduler.now() }),
        }),
      );
      expectObservable(throttled).toBe('a 9ms (c|)');
    });
    expect(dropped.map(({ value, at }) => [value, at])).toEqual([['b', 5]]);
    expect(dropped[0]?.error).toBeInstanceOf(ThrottlerExpiredError);
  });

  it.each([
    ['an expired value', { maxWait: (v: string) => (v === 'b' ? 5 : undefined) }, 'a 5ms #'],
    ['a value dropped for overflow', { capacity: 1, overflow: 'drop-oldest' as const }, 'a-#'],
  ])(
    'an onDropped that throws on %s errors the stream with what it threw; nothing is thrown uncaught',
    (_name, extra, expected) => {
      const scheduler = marbles();
      const failure = new Error('onDropped failed');
      scheduler.run(({ cold, expectObservable }) => {
        const throttled = cold('abc|').pipe(
          throttleQueue<string>({
            rate: '1/10ms',
            strategy: 'sliding-window',
            scheduler,
            onDropped: () => {
              throw failure;
            },
            ...extra,
          }),
        );
        expectObservable(throttled).toBe(expected, undefined, failure);
      });
    },
  );

  it('requires onDropped with maxWait, and a function for priority and maxWait', () => {
    expect(() => throttleQueue({ rate: '1/1s', maxWait: () => 5 })).toThrow(ThrottlerOptionError);
    expect(() => throttleQueue({ rate: '1/1s', maxWait: () => 5 })).toThrow(
      /^onDropped must be a function when maxWait/,
    );
    expect(() => throttleQueue({ rate: '1/1s', priority: 5 as never })).toThrow(/^priority must be a function/);
    expect(() => throttleQueue({ rate: '1/1s', maxWait: 5 as never, onDropped: () => {} })).toThrow(
      /^maxWait must be a function/,
    );
  });

  it('errors the stream on an invalid priority for a value, naming it', () => {
    const scheduler = marbles();
    scheduler.run(({ cold, expectObservable }) => {
      const throttled = cold('a|').pipe(throttleQueue({ rate: '1/10ms', scheduler, priority: () => 12 }));
      expectObservable(throttled).toBe(
        '#',
        undefined,
        new ThrottlerOptionError('priority', 'an integer from 0 (goes last) to 9 (goes first), default 5', 12),
      );
    });
  });
});
