/**
 * What README's "Testing your code with virtual time" says of the promise API (issue 22): a task that
 * calls setRate or pause on its own throttler holds the rest of the pass until the throttler has handled
 * that call, which goes on in a microtask. Vitest's synchronous `advanceTimersByTime` runs no microtask,
 * so the later tasks do not start during it; `await advanceTimersByTimeAsync` runs them on the way.
 */
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
      const starts = fiveTasksFirstCalls(throttler, () => control(throttler));
      // The burst reaches the throttler in a microtask: let it, as any await in a test would.
      await Promise.resolve();
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
