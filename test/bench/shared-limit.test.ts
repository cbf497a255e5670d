/**
 * W6 at a tiny size, on the real Redis (it fails, never skips, when Redis does not answer): a
 * fleet of two processes per contender and phase runs, reports well-formed numbers, leaves no key
 * behind, and our store keeps its strict window on Redis time. Nothing here asserts real elapsed
 * milliseconds or the host-clock window counts: those are what the bench measures.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchResults } from '../../bench/bench-results.js';
import { laterTargetsTable, w6Tables } from '../../bench/report-w5-w6.js';
import { SHARED_CONTENDERS } from '../../bench/w6-contenders.js';
import { type SharedLimitOptions, sharedLimit } from '../../bench/w6-shared-limit.js';
import { connectRedis } from '../support/redis.js';

/**
 * 10 per second (rate-limiter-flexible counts whole seconds), 10 tasks each; 300 each on a limit that
 * never binds. A phase ends when every task started (2 s, binding); its duration bounds a busy machine's.
 */
const TINY_W6: SharedLimitOptions = {
  processes: 2,
  binding: { rate: { limit: 10, interval: 1000 }, backlogPerProcess: 10, durationMs: 20_000 },
  free: { rate: { limit: 1_000_000, interval: 1000 }, backlogPerProcess: 300, durationMs: 20_000 },
  // Every fleet at once: six of them, two processes each.
  parallel: 6,
};

let redis: Redis;

beforeAll(async () => {
  redis = await connectRedis();
});
afterAll(() => {
  redis?.disconnect();
});

async function keysOfThisRun(): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `*bench-w6-*-${process.pid}-*`, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}

describe('the shared-limit benchmark (W6) at a tiny size', () => {
  it('runs every contender in a fleet of processes, counts round trips, and cleans up', async () => {
    const w6 = await sharedLimit(SHARED_CONTENDERS, TINY_W6);
    expect(w6.map((result) => result.contender.id)).toEqual(SHARED_CONTENDERS.map((one) => one.id));
    for (const { contender, binding, free } of w6) {
      for (const run of [binding, free]) {
        expect(run.error, contender.id).toBeUndefined();
        expect(run.started, contender.id).toBeGreaterThan(0);
        expect(run.roundTrips, contender.id).toBeGreaterThan(0);
        expect(Number.isFinite(run.tasksPerSecond), contender.id).toBe(true);
      }
      expect(Number.isFinite(binding.violatingWindows), contender.id).toBe(true);
      expect(Number.isFinite(binding.latenessP99Ms), contender.id).toBe(true);
    }
    for (const ours of w6.filter((result) => result.contender.kind === 'ours')) {
      // What a loaded host did to ours (issue 33: 2 of 600 started, late grants moved and given back for ever).
      console.info(
        `W6 ${ours.contender.id}: binding ${ours.binding.started}/${ours.binding.tasks}, free ${ours.free.started}/${ours.free.tasks} started, ${ours.free.roundTripsPerTask.toFixed(3)} round trips a task`,
      );
      expect(ours.binding.started, ours.contender.id).toBe(ours.binding.tasks);
      expect(ours.free.started, ours.contender.id).toBe(ours.free.tasks);
      // A backlog is asked for in batches: a few round trips for each process's 300 (at most 0.1 a task on a
      // quiet machine; one a task without batches). A grant not sent within its grace is given back and asked
      // for again, which a busy machine makes happen: 0.12 beside a second npm test, hence the margin.
      expect(ours.free.roundTripsPerTask, ours.contender.id).toBeLessThanOrEqual(0.25);
    }
    // The store's promise, on the clock it is made on (the raw limiter reports its grants' Redis times).
    const raw = w6.find((result) => result.contender.id === 'ours-raw');
    expect(raw?.binding.redisViolatingWindows).toBe(0);
    expect(raw?.binding.redisMostInWindow).toBe(TINY_W6.binding.rate.limit);
    expect(await keysOfThisRun()).toEqual([]);

    // Only W6's part of the report: the other workloads' configuration is not needed for it.
    const results = { config: { w6: { ...TINY_W6, server: 'test' } }, w6 } as unknown as BenchResults;
    expect(w6Tables(results).join('\n')).toContain('### W6 shared limit');
    expect(laterTargetsTable(results).join('\n')).toContain('issue 13 (W6)');
    // Twelve processes on two cores: a guard against a hang, not a measure (a loaded CI machine took over 60 s).
  }, 240_000);
});
