import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { restoreThrottler, type StrategyName, throttlerMachine } from '../../src/index.js';
import { runs } from '../support/property-runs.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/**
 * Whatever QUEUE accepts, a restore of the library's own snapshot accepts: any message waiting when
 * the snapshot is taken (any channel or key, cost, priority, deadline or maxWait QUEUE took, huge
 * ones included) round-trips through JSON and `restoreThrottler`, and the restored throttler's own
 * snapshot holds the same queue. The oracle is the original queue itself.
 */

/** The part of a persisted snapshot compared. */
interface Saved {
  context: { dispatcher: { state: { queue: unknown[] } } };
}

const STRATEGIES: StrategyName[] = ['sliding-window', 'timer', 'token-bucket', 'warming-up'];
/** Times QUEUE accepts, far ones first: a far deadline is no deadline in practice, and still one. */
const WAITS = [
  Number.MAX_VALUE,
  1e300,
  Number.MAX_SAFE_INTEGER,
  8.64e15,
  2 ** 31,
  0.5,
  0,
  Number.POSITIVE_INFINITY,
] as const;

const waitArbitrary = fc.oneof(fc.constantFrom(...WAITS), fc.double({ min: 0, max: 1e6, noNaN: true }));

const messageArbitrary = fc.record(
  {
    channel: fc.constantFrom('a', '__proto__', 'k', 'hasOwnProperty', 'constructor'),
    cost: fc.integer({ min: 1, max: 3 }),
    priority: fc.integer({ min: 0, max: 9 }),
    deadline: waitArbitrary,
    maxWait: waitArbitrary,
    id: fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant('__proto__')),
    gap: fc.integer({ min: 0, max: 400 }),
  },
  { requiredKeys: ['gap'] },
);

describe('a snapshot of anything QUEUE accepted is accepted by restoreThrottler', () => {
  it('round-trips every waiting message, with huge deadlines and maxWaits', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...STRATEGIES),
        fc.boolean(),
        fc.array(messageArbitrary, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 2_000 }),
        (strategy, wallClockAhead, messages, restartGap) => {
          // A wall clock far from the throttler's, as a real process's Date.now() is from performance.now().
          if (wallClockAhead) vi.setSystemTime(1.7e12);
          const actor = createActor(throttlerMachine, {
            input: {
              strategy,
              rate: '1/1s',
              channels: { a: '5/1s', ['__proto__']: '5/1s' },
              keys: { rate: '3/1s' },
              maxPriorityWait: '5s',
              warmup: strategy === 'warming-up' ? 1_000 : undefined,
            },
          }).start();
          for (const [n, { gap, deadline, maxWait, ...fields }] of messages.entries()) {
            advance(gap);
            // One or the other: QUEUE refuses both.
            const when = deadline !== undefined ? { deadline } : maxWait !== undefined ? { maxWait } : {};
            actor.send({ type: 'QUEUE', message: { type: 'call', n }, ...fields, ...when });
          }
          const saved: Saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
          const waiting = actor.getSnapshot().context.counts.queued;
          expect(saved.context.dispatcher.state.queue).toHaveLength(waiting);
          actor.stop();
          advance(restartGap);
          const restored = restoreThrottler(saved);
          const again: Saved = JSON.parse(JSON.stringify(restored.getPersistedSnapshot()));
          expect(restored.getSnapshot().context.counts.queued).toBe(waiting);
          expect(again.context.dispatcher.state.queue).toEqual(saved.context.dispatcher.state.queue);
          restored.stop();
          restoreRealTime();
          useVirtualTime();
        },
      ),
      { numRuns: runs(150) },
    );
  });
});
