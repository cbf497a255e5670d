/**
 * The promise API under load, on real timers with generous bounds: many tasks
 * on one AbortSignal, and what aborted tasks keep in memory.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { createThrottler } from '../../src/index.js';

const repo = join(import.meta.dirname, '..', '..');

describe('createThrottler: one AbortSignal shared by many tasks', () => {
  it('takes one listener on the signal, whatever the number of tasks, and lets go of it when they are gone', async () => {
    const throttler = createThrottler({ rate: '1/1h', strategy: 'sliding-window' });
    const controller = new AbortController();
    const added = vi.spyOn(controller.signal, 'addEventListener');
    const removed = vi.spyOn(controller.signal, 'removeEventListener');
    const results = Array.from({ length: 1_000 }, (_, n) =>
      throttler.schedule(() => n, { signal: controller.signal }).catch((error: Error) => error.name),
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    // One for the 999 waiting, and one for the first, which started inside its schedule() (the one start
    // rule) and listens as a running task: two, not one a task.
    expect(added).toHaveBeenCalledTimes(2);
    throttler.stop();
    const outcomes = await Promise.all(results);
    expect(outcomes[0]).toBe(0);
    expect(outcomes.slice(1).every((outcome) => outcome === 'ThrottlerStoppedError')).toBe(true);
    // The finished task and the last waiting one took their listeners with them: the signal no longer holds the throttler.
    expect(removed).toHaveBeenCalledTimes(2);
  });

  it('schedules 100k tasks on one signal in linear time (it took about 35 s when each task had a listener)', async () => {
    const throttler = createThrottler({ rate: '1/1h', strategy: 'sliding-window' });
    const controller = new AbortController();
    const startedAt = performance.now();
    for (let n = 0; n < 100_000; n++) throttler.schedule(() => n, { signal: controller.signal }).catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 0));
    const elapsed = performance.now() - startedAt;
    expect(throttler.counts).toMatchObject({ queued: 99_999, delivered: 1 });
    // About 1.5 s on a busy 2-core machine; the bound only catches a quadratic cost.
    expect(elapsed).toBeLessThan(15_000);
    throttler.stop();
  });
});

describe('createThrottler: an aborted task lets go of what it holds at once', () => {
  it.each(['own', 'shared'])(
    'with %s signals, 10k aborted tasks keep about 200 bytes each, not their closures (2 KB each before)',
    async (signals) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', 'test/support/aborted-task-heap.ts', '10000', signals],
        { cwd: repo },
      );
      const { bytesPerTask, counts } = JSON.parse(stdout) as { bytesPerTask: number; counts: unknown };
      expect(counts).toEqual({ queued: 1, delivered: 1, dropped: 10_000, rejected: 0 });
      // The tombstone in the queue (the bare task object) stays until the head passes it.
      expect(bytesPerTask).toBeLessThan(600);
    },
    120_000,
  );
});
