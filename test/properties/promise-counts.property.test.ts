import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler } from '../../src/index.js';
import { runs } from '../support/property-runs.js';
import { restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/**
 * `size` and `pending` are counters moved step by step (never a scan); here they are checked against
 * a brute-force oracle that follows every task from the outside: `pending` is the tasks whose function
 * is running (called, its promise not settled), `size` the tasks whose promise is not settled and
 * whose function is not running (waiting to start, or waiting out a retry's backoff). Random stretches
 * of tasks (quick, slow, failing with retries, with signals, with options or not, leased or queued),
 * aborts, clear() and time passing; `idle` is heard exactly when the oracle goes idle, and onIdle()
 * never resolves while anything waits or runs.
 */
const taskArbitrary = fc.record({
  ms: fc.integer({ min: 0, max: 300 }),
  failures: fc.integer({ min: 0, max: 2 }),
  retries: fc.integer({ min: 0, max: 2 }),
  withSignal: fc.boolean(),
  withOptions: fc.boolean(),
});

const stepArbitrary = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('tasks' as const), tasks: fc.array(taskArbitrary, { maxLength: 5 }) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 400 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('abort' as const), index: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const) }) },
);

interface Followed {
  running: boolean;
  settled: boolean;
}

describe('createThrottler: size and pending against an oracle that follows every task', () => {
  it('agree after every step, and idle is heard exactly when nothing waits or runs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('2/100ms', '5/1s', '1/50ms'),
        fc.boolean(),
        fc.array(stepArbitrary, { minLength: 1, maxLength: 12 }),
        async (rate, bounded, steps) => {
          vi.setSystemTime(0);
          const throttler = createThrottler({
            rate,
            strategy: 'sliding-window',
            ...(bounded ? { maxConcurrent: 2 } : {}),
          });
          const followed: Followed[] = [];
          const controllers: AbortController[] = [];
          let idleHeard = 0;
          const ranAtIdle: boolean[] = [];
          throttler.on('idle', () => {
            idleHeard += 1;
            ranAtIdle.push(followed.some((task) => task.running) || throttler.size > 0 || throttler.pending > 0);
          });
          const oracle = () => ({
            size: followed.filter((task) => !task.settled && !task.running).length,
            pending: followed.filter((task) => task.running).length,
          });
          for (const step of steps) {
            if (step.kind === 'tasks') {
              for (const { ms, failures, retries, withSignal, withOptions } of step.tasks) {
                const task: Followed = { running: false, settled: false };
                followed.push(task);
                const controller = new AbortController();
                controllers.push(controller);
                let calls = 0;
                const run = () => {
                  calls += 1;
                  task.running = true;
                  const fails = calls <= failures;
                  return new Promise((resolve, reject) =>
                    setTimeout(() => {
                      task.running = false;
                      if (fails) reject(new Error('failed'));
                      else resolve(calls);
                    }, ms),
                  );
                };
                const options = {
                  ...(withSignal ? { signal: controller.signal } : {}),
                  ...(retries > 0 ? { retry: { retries, backoff: () => 50 } } : {}),
                };
                const promise =
                  withOptions || withSignal || retries > 0 ? throttler.schedule(run, options) : throttler.schedule(run);
                promise.then(
                  () => {
                    task.settled = true;
                  },
                  () => {
                    task.settled = true;
                  },
                );
              }
            } else if (step.kind === 'advance') {
              await vi.advanceTimersByTimeAsync(step.ms);
            } else if (step.kind === 'abort') {
              controllers[step.index % Math.max(1, controllers.length)]?.abort();
            } else {
              throttler.clear();
            }
            // Promise reactions run before the counters are compared (the oracle hears settling through them).
            await vi.advanceTimersByTimeAsync(0);
            expect({ size: throttler.size, pending: throttler.pending }).toEqual(oracle());
          }
          await vi.advanceTimersByTimeAsync(60_000);
          expect(oracle()).toEqual({ size: 0, pending: 0 });
          expect({ size: throttler.size, pending: throttler.pending }).toEqual({ size: 0, pending: 0 });
          if (followed.length > 0) expect(idleHeard).toBeGreaterThan(0);
          expect(ranAtIdle.filter(Boolean)).toEqual([]);
          await throttler.stop();
        },
      ),
      { numRuns: runs(120) },
    );
  });
});
