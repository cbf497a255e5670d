/**
 * What docs/virtual-time.md says of the promise API (issue 22): a task that
 * calls setRate or pause on its own throttler holds the rest of the pass until the throttler has handled
 * that call, which goes on in a microtask. Vitest's synchronous `advanceTimersByTime` runs no microtask,
 * so the later tasks do not start during it; `await advanceTimersByTimeAsync` runs them on the way.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler, type Throttler } from '../../src/index.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** Five tasks; the first calls `control` on its own throttler. Returns when each started. */
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

const controls: Array<[string, (throttler: Throttler) => void]> = [
  ['setRate', (throttler) => throttler.setRate('2/1s')],
  ['pause', (throttler) => throttler.pause(500)],
];

describe('a task that calls its throttler, in virtual time', () => {
  it.each(controls)(
    '%s: during the synchronous advance no later task starts; they start late',
    async (_name, control) => {
      const throttler = createThrottler({ rate: '2/1s', strategy: 'token-bucket' });
      // Held, then resumed: the five are due in one pass (else the first would start inside its call, alone).
      throttler.pause();
      const starts = fiveTasksFirstCalls(throttler, () => control(throttler));
      throttler.resume();
      vi.advanceTimersByTime(5_000);
      expect(starts).toEqual([0]);
      // At the next await they go, 5 s late: the synchronous advance moved time on without them.
      await vi.advanceTimersByTimeAsync(2_000);
      expect(starts.length).toBeGreaterThan(1);
      expect(starts[1]).toBeGreaterThanOrEqual(5_000);
      throttler.stop();
    },
  );

  it.each(['token-bucket', 'sliding-window'] as const)(
    '%s: await advanceTimersByTimeAsync starts every task at its time, after setRate or pause',
    async (strategy) => {
      const expected = {
        'token-bucket': { setRate: [0, 500, 1_000, 1_500, 2_000], pause: [0, 500, 1_000, 1_500, 2_000] },
        'sliding-window': { setRate: [0, 0, 1_000, 1_000, 2_000], pause: [0, 500, 1_000, 1_500, 2_000] },
      }[strategy];
      for (const [name, control] of controls) {
        useVirtualTime();
        const throttler = createThrottler({ rate: '2/1s', strategy });
        const starts = fiveTasksFirstCalls(throttler, () => control(throttler));
        await vi.advanceTimersByTimeAsync(5_000);
        expect(starts, name).toEqual(expected[name as 'setRate' | 'pause']);
        throttler.stop();
      }
    },
  );
});

/**
 * The stall found with the default (timer) strategy: a task calls setRate, the rest of its pass is held
 * for the SET_RATE, and the new period's vouchers let the next task go at the same instant. The held pass
 * went on only on the machine's zero-delay wake-up, a `setImmediate`; fake timers that fake `setTimeout`
 * but not `setImmediate` never ran it, and showed no timer pending: one task started, the other four
 * never did in virtual time. Reopening the gate is now the event the pass goes on at.
 */
describe('a held pass goes on when the gate reopens, not on a setImmediate', () => {
  const strategies = ['timer', 'sliding-window', 'token-bucket', 'warming-up'] as const;
  it.each(strategies)('%s: with setImmediate left real, every task starts at its time', async (strategy) => {
    restoreRealTime();
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const throttler = createThrottler({
      rate: '2/1s',
      strategy,
      ...(strategy === 'warming-up' ? { warmup: 1_000 } : {}),
    });
    const starts: number[] = [];
    const tasks = Array.from({ length: 5 }, (_, n) =>
      // With options, so that the sliding window's leased fast path does not run the first task inline.
      throttler.schedule(
        () => {
          starts.push(now());
          if (n === 0) throttler.setRate('2/1s');
        },
        { channel: undefined },
      ),
    );
    await vi.advanceTimersByTimeAsync(10_000);
    expect(starts).toHaveLength(5);
    expect(starts.every((at) => at < 5_000)).toBe(true);
    await Promise.all(tasks);
    // Idle means idle: nothing left armed, on fake timers or real ones.
    expect(throttler.actor.getSnapshot().value).toBe('idle');
    expect(throttler.actor.getSnapshot().context.wakeAt).toBe(Number.POSITIVE_INFINITY);
    throttler.stop();
  });
});

type FakedTimers = NonNullable<Parameters<typeof vi.useFakeTimers>[0]>['toFake'];

/** The `toFake` list docs/virtual-time.md tells users to pass (every list it shows, each the same). */
function docsToFake(): string[] {
  const page = readFileSync(new URL('../../docs/virtual-time.md', import.meta.url), 'utf8');
  const lists = [...page.matchAll(/toFake: \[([^\]]*)\]/g)].map((match) => match[1] as string);
  if (lists.length === 0) throw new Error('docs/virtual-time.md shows no toFake list');
  const names = lists.map((list) => [...list.matchAll(/'([^']+)'/g)].map((match) => match[1] as string));
  for (const other of names) expect(other).toEqual(names[0]);
  return names[0] as string[];
}

describe("docs/virtual-time.md's fake timers drive what createThrottler waits on a turn of the loop for", () => {
  it.each(['ms', 'exact'] as const)(
    'timerPrecision %s: a backlog in slices of maxDeliveriesPerTurn goes at its time',
    async (timerPrecision) => {
      restoreRealTime();
      vi.useFakeTimers({ now: 0, toFake: docsToFake() as FakedTimers });
      const throttler = createThrottler({
        rate: '100/1s',
        strategy: 'sliding-window',
        maxDeliveriesPerTurn: 2,
        timerPrecision,
      });
      // Released by the throttler itself when the pause ends, so in slices of 2, each after a zero-delay wake-up.
      throttler.pause(100);
      const starts: number[] = [];
      const tasks = Array.from({ length: 10 }, () => throttler.schedule(() => starts.push(now()), {}));
      await vi.advanceTimersByTimeAsync(1_000);
      // Five slices, at 100 ms: fake timers run a zero-delay timer set while they fire one 1 ms later.
      expect(starts).toHaveLength(10);
      expect(starts.every((at) => at >= 100 && at <= 105)).toBe(true);
      await Promise.all(tasks);
      throttler.stop();
    },
  );
});
