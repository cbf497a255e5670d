import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottler } from '../../src/index.js';
import { runs } from '../support/property-runs.js';
import { now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/**
 * Retries that keep their place (retry.place 'keep', the default), through the promise API in virtual time,
 * against brute force: every attempt, first or retry, counts against the limit (no sliding window of the
 * rate holds more starts than the limit), and of two attempts that waited in line together (both queued
 * before either started), the one whose task arrived first starts first: retries keep their original
 * order among themselves and go before the tasks that arrived after theirs.
 */

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

interface Plan {
  /** When it is scheduled (ms). */
  at: number;
  /** How many of its attempts fail before one succeeds. */
  failures: number;
  /** Its backoff before every retry (ms). */
  backoff: number;
}

interface Attempt {
  /** The task's place in line: its arrival order. */
  task: number;
  queuedAt: number;
  startedAt: number;
}

const planArbitrary = fc.record({
  at: fc.integer({ min: 0, max: 1_500 }),
  failures: fc.integer({ min: 0, max: 3 }),
  backoff: fc.integer({ min: 0, max: 400 }),
});

async function run(limit: number, interval: number, plans: readonly Plan[], bounded: boolean): Promise<Attempt[]> {
  // Bounded: tasks go in one QUEUE each (never refused here), else one QUEUE_BATCH a stretch.
  const capacity = bounded ? { capacity: 1_000 } : {};
  const throttler = createThrottler({ rate: { limit, interval }, strategy: 'sliding-window', ...capacity });
  // Scheduled in arrival order: by time, then as listed.
  const order = plans
    .map((plan, index) => ({ plan, index }))
    .sort((a, b) => a.plan.at - b.plan.at || a.index - b.index);
  const attempts: Attempt[] = [];
  const done: Array<Promise<unknown>> = [];
  for (const [task, { plan }] of order.entries()) {
    let calls = 0;
    let queuedAt = Number.NaN;
    const job = () => {
      calls += 1;
      const startedAt = now();
      attempts.push({ task, queuedAt, startedAt });
      // A failed attempt's retry is queued once its backoff is over.
      queuedAt = startedAt + plan.backoff;
      if (calls <= plan.failures) throw new Error(`fails ${calls}`);
    };
    setTimeout(() => {
      // Virtual time runs on from one run to the next: times are read, never assumed.
      queuedAt = now();
      done.push(throttler.schedule(job, { retry: { retries: plan.failures, backoff: () => plan.backoff } }));
    }, plan.at);
  }
  await vi.advanceTimersByTimeAsync(1_600 + plans.length * 4 * interval + 2_000);
  await Promise.all(done);
  expect(done.length).toBe(plans.length);
  expect(attempts.length).toBe(plans.reduce((sum, plan) => sum + plan.failures + 1, 0));
  await throttler.stop();
  return attempts;
}

describe('retries keep their place', () => {
  it('never break the limit, and keep their original order among the tasks that waited with them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 50, max: 300 }),
        fc.array(planArbitrary, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        async (limit, interval, plans, bounded) => {
          const attempts = await run(limit, interval, plans, bounded);
          const starts = attempts.map((attempt) => attempt.startedAt).sort((a, b) => a - b);
          // Every window [t, t + interval) beginning at a start holds at most `limit` starts.
          for (const [index, from] of starts.entries()) {
            const inWindow = starts.slice(index).filter((time) => time < from + interval).length;
            expect(inWindow, `starts ${starts.join(', ')}`).toBeLessThanOrEqual(limit);
          }
          for (const a of attempts) {
            for (const b of attempts) {
              if (a.task >= b.task) continue;
              // Both waited in line together, for some time before either started.
              const together = Math.max(a.queuedAt, b.queuedAt) < Math.min(a.startedAt, b.startedAt);
              if (together) expect(a.startedAt, JSON.stringify({ a, b, attempts })).toBeLessThanOrEqual(b.startedAt);
            }
          }
        },
      ),
      {
        numRuns: runs(60),
        // Two tasks that went straight through in the same ms, both failing: their retries kept one place
        // (the same ms, no order between them) and went in the order they came back, not the tasks' own.
        examples: [
          [
            3,
            50,
            [
              { at: 7, failures: 1, backoff: 1 },
              { at: 7, failures: 1, backoff: 0 },
              { at: 0, failures: 0, backoff: 0 },
              { at: 7, failures: 0, backoff: 0 },
            ],
            false,
          ],
        ],
      },
    );
  });
});
