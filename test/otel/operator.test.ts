import { concat, from, NEVER, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { instrumentThrottler, THROTTLER_METRICS as M } from '../../src/otel/index.js';
import { throttleQueue } from '../../src/rxjs/index.js';
import { inMemoryMetrics, pointValue } from './sdk.js';

/**
 * The RxJS operator instrumented through its `onThrottler` option: each subscription's throttler
 * counted by the real OpenTelemetry SDK, on an RxJS virtual-time scheduler, and the instrumentation
 * stopped when the subscription ends.
 */
describe('xstate-throttler/otel on the RxJS operator', () => {
  it("counts a subscription's values through onThrottler, and stops with the subscription", async () => {
    const metrics = inMemoryMetrics();
    const scheduler = new VirtualTimeScheduler();
    const stopped: string[] = [];
    const seen: number[] = [];
    // A source that stays open, so that the metrics are read while the subscription lives.
    const subscription = concat(from([1, 2, 3, 4, 5]), NEVER)
      .pipe(
        throttleQueue<number>({
          rate: '2/1s',
          strategy: 'sliding-window',
          scheduler,
          onThrottler: (actor) => {
            const instrumentation = instrumentThrottler(actor, { meter: metrics.meter, name: 'stream' });
            return () => {
              instrumentation.stop();
              stopped.push('stream');
            };
          },
        }),
      )
      .subscribe((value) => seen.push(value));
    scheduler.flush();
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    const read = await metrics.read();
    const messages = read.get(M.messages.name);
    expect(pointValue(messages, { 'throttler.result': 'delivered', 'throttler.name': 'stream' })).toBe(5);
    expect(pointValue(read.get(M.queuedMessages.name), { 'throttler.name': 'stream' })).toBe(0);
    expect(stopped).toEqual([]);
    // The subscription ends: the instrumentation with it.
    subscription.unsubscribe();
    expect(stopped).toEqual(['stream']);
    await metrics.shutdown();
  });

  it('refuses an onThrottler that is not a function, naming it; one that throws errors the stream', () => {
    expect(() => throttleQueue({ rate: '1/1s', onThrottler: 'yes' as never })).toThrow(
      /onThrottler must be a function, got "yes"/,
    );
    const errors: unknown[] = [];
    from([1])
      .pipe(
        throttleQueue<number>({
          rate: '1/1s',
          onThrottler: () => {
            throw new Error('hook failed');
          },
        }),
      )
      .subscribe({ error: (error) => errors.push(error) });
    expect(errors).toEqual([new Error('hook failed')]);
  });
});
