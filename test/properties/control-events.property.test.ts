import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, type Throttler } from '../../src/index.js';
import { STRATEGIES } from '../../src/policies/index.js';
import { machineContext } from '../support/machine-context.js';
import { runs } from '../support/property-runs.js';
import { now, restoreRealTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

/**
 * Control events interleaved with work, for every strategy, in virtual time: tasks arrive in
 * stretches at random moments; `setRate`, `pause` (for a while, or until `resume`) and `resume` are
 * called between stretches and from inside tasks (the delivery gate's path, where the timer strategy
 * stalled). After every step the throttler is either idle with no timer pending, or active with a
 * wake-up armed that virtual time runs, or paused until RESUME (the one documented wait here): a
 * throttler that waits on nothing is a silent stall. At the end, after a `resume`, every task starts,
 * exactly once, in order, and the throttler goes idle with nothing pending.
 *
 * `setImmediate` stays real, as in fake timers that fake only `setTimeout`: no progress here may hang
 * on the zero-delay wake-up (only a slice of `maxDeliveriesPerTurn` does, far above these bursts).
 */
const FAKED = ['setTimeout', 'clearTimeout', 'Date', 'performance'] as const;

const RATES = ['2/1s', '1/250ms', '3/1s'] as const;
const SAME_RATES = [RATES[0], [RATES[0], '100/1m']] as const;

const controlArbitrary = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('setRate' as const), rate: fc.constantFrom(...RATES) }),
  fc.record({
    kind: fc.constant('pause' as const),
    ms: fc.option(fc.integer({ min: 0, max: 600 }), { nil: undefined }),
  }),
  fc.constant({ kind: 'resume' as const }),
);
type Control = typeof controlArbitrary extends fc.Arbitrary<infer T> ? T : never;

const scenarioArbitrary = fc.record({
  strategy: fc.constantFrom(...STRATEGIES),
  /** Every setRate sets the rate the throttler was created with (with or without another): its promise is checked too. */
  sameRate: fc.boolean(),
  steps: fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: 1_200 }),
      between: controlArbitrary,
      tasks: fc.array(controlArbitrary, { minLength: 0, maxLength: 4 }),
    }),
    { minLength: 1, maxLength: 6 },
  ),
});

function apply(throttler: Throttler, control: Control, sameRate: boolean): void {
  // With sameRate, 2/1s again, alone or beside a loose rate (the number of rates changes too).
  if (control.kind === 'setRate')
    throttler.setRate(sameRate ? SAME_RATES[control.rate === RATES[0] ? 0 : 1] : control.rate);
  else if (control.kind === 'pause') throttler.pause(control.ms);
  else if (control.kind === 'resume') throttler.resume();
}

/** Idle with nothing pending, active with a wake-up virtual time will run, or paused until RESUME. */
function expectProgressOrDocumentedWait(throttler: Throttler, step: string): void {
  const { value, context } = throttler.actor.getSnapshot();
  if (value === 'idle') {
    expect(vi.getTimerCount(), `${step}: idle means idle`).toBe(0);
    return;
  }
  if (machineContext(throttler.actor).dispatcher.clearance.pausedUntil === Number.POSITIVE_INFINITY) return;
  expect(context.wakeAt, `${step}: active, a wake-up is armed`).toBeLessThan(Number.POSITIVE_INFINITY);
  expect(vi.getTimerCount(), `${step}: active, and the wake-up is a timer virtual time runs`).toBeGreaterThan(0);
}

/** The most starts in any window [t, t + interval). */
function busiestWindow(starts: readonly number[], interval: number): number {
  let most = 0;
  for (const from of starts) most = Math.max(most, starts.filter((at) => at >= from && at < from + interval).length);
  return most;
}

describe('SET_RATE, PAUSE and RESUME among the tasks, every strategy (virtual time)', () => {
  it('never waits on nothing; everything starts once, in order, after a final resume', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async ({ strategy, sameRate, steps }) => {
        vi.useFakeTimers({ now: 0, toFake: [...FAKED] });
        const throttler = createThrottler({
          rate: RATES[0],
          strategy,
          ...(strategy === 'warming-up' ? { warmup: 1_000 } : {}),
        });
        const started: Array<{ n: number; at: number }> = [];
        const tasks: Promise<void>[] = [];
        let count = 0;
        for (const [index, step] of steps.entries()) {
          await vi.advanceTimersByTimeAsync(step.gap);
          expectProgressOrDocumentedWait(throttler, `before step ${index}`);
          apply(throttler, step.between, sameRate);
          for (const inside of step.tasks) {
            const n = count++;
            tasks.push(
              throttler.schedule(() => {
                started.push({ n, at: now() });
                apply(throttler, inside, sameRate);
              }),
            );
          }
          await vi.advanceTimersByTimeAsync(0);
          expectProgressOrDocumentedWait(throttler, `after step ${index}`);
        }
        // A pause until RESUME is the one wait that needs an event; a task may start one, so resume until all went.
        for (let round = 0; round <= count && started.length < count; round++) {
          throttler.resume();
          await vi.advanceTimersByTimeAsync(20_000);
          expectProgressOrDocumentedWait(throttler, `final round ${round}`);
        }
        await Promise.all(tasks);
        expect(started.map(({ n }) => n)).toEqual(Array.from({ length: count }, (_, n) => n));
        expect(throttler.actor.getSnapshot().value).toBe('idle');
        expect(vi.getTimerCount()).toBe(0);
        if (sameRate) {
          // The strategy's promise for 2/1s, re-set any number of times: the voucher timer's 2 x limit in a
          // window of one interval (its weak guarantee), the sliding window's limit.
          const most = busiestWindow(
            started.map(({ at }) => at),
            1_000,
          );
          if (strategy === 'timer') expect(most).toBeLessThanOrEqual(4);
          if (strategy === 'sliding-window') expect(most).toBeLessThanOrEqual(2);
        }
        throttler.stop();
        restoreRealTime();
      }),
      { numRuns: runs(150) },
    );
  });
});
