import { describe, expect, it } from 'vitest';
import { createActor, type EventObject } from 'xstate';
import { throttlerMachine } from '../../src/index.js';
import { cpuMsOf } from '../support/cpu-time.js';

/**
 * The queue grows in linear time (a ring buffer, no copy per event). In the slow tier: 300,000 messages
 * take seconds of CPU, too long for the edit loop (test/support/tiers.ts).
 */
describe('the queue', () => {
  // Linear growth is what a ring buffer shows; a million waiting messages are the soak test's (slow tier).
  it('enqueues in linear time: twice the messages, about twice the time (a ring buffer, no copy per event)', () => {
    const timings: number[] = [];
    // In CPU time (cpu-time.ts), which fake timers leave alone.
    for (const size of [100_000, 200_000]) {
      const fresh = createActor(throttlerMachine, { input: { rate: '1/1d' } }).start();
      timings.push(
        cpuMsOf(() => {
          for (let n = 0; n < size; n++) fresh.send({ type: 'QUEUE', message: { type: 'm' } as EventObject });
        }),
      );
      expect(fresh.getSnapshot().context.counts.queued).toBe(size);
      fresh.stop();
    }
    // Twice the messages may take about twice the time; quadratic growth would be 4x. Generous bound.
    expect((timings[1] as number) / (timings[0] as number)).toBeLessThan(3.5);
  });
});
