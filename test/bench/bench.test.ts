/**
 * The benchmark at a tiny size, for every contender: the harness runs, its
 * results are well-formed, and our sliding window keeps its promise on real
 * timers. It never writes bench/README.md, and it asserts nothing about real
 * elapsed milliseconds (the machine running the tests may be busy).
 */
import { describe, expect, it } from 'vitest';
import type { BenchResults } from '../../bench/bench-results.js';
import { contender, contendersFor, LIMITING } from '../../bench/contenders.js';
import { resultTables, targets } from '../../bench/report.js';
import { type BenchConfig, mergeResults } from '../../bench/run.js';
import {
  delayBehindOwnWindow,
  drainRate,
  idealStrictSchedule,
  lateness,
  median,
  mostInAnyWindow,
  percentile,
  violatingWindows,
  windowCounts,
  worstShortfall,
} from '../../bench/stats.js';
import { overhead } from '../../bench/w1-overhead.js';
import { burstMemory } from '../../bench/w2-burst-memory.js';
import { strictness } from '../../bench/w3-strictness.js';
import { scaling } from '../../bench/w4-scaling.js';
import { type AtTheLimitOptions, atTheLimit, atTheLimitChild, waitingCpu } from '../../bench/w5-at-the-limit.js';

const TINY: BenchConfig = {
  w1: { size: 2_000, rounds: 1 },
  // Small: Bottleneck's stop waits behind every pending submission, 2.5 ms each.
  w2: { size: 500, rounds: 1, rate: { limit: 10, interval: 1000 } },
  // 60 tasks in six bursts of 10, every 100 ms, against 5 per 100 ms: about 1.2 s in all. A run ends
  // when its last task starts; the grace (the bench's is two intervals) is for a busy machine's late timers.
  w3: {
    rate: { limit: 5, interval: 100 },
    bursts: [10, 10, 10, 10, 10, 10],
    burstEvery: 100,
    warmUpTasks: 100,
    graceMs: 5_000,
  },
  w4: { small: 500, large: 2_000, rounds: 1 },
};

/**
 * W5 in this process, every run at once: 300 tasks at 100 per 100 ms, and 50 at 5 per 100 ms for 350 ms.
 * The drain ends when its last task starts; the grace is for a busy machine (16 runs on two cores).
 */
const TINY_W5: AtTheLimitOptions = {
  drain: { rate: { limit: 100, interval: 100 }, backlog: 300, graceMs: 10_000 },
  steady: { rate: { limit: 5, interval: 100 }, backlog: 50, durationMs: 350 },
  warmUpTasks: 50,
  inProcess: true,
  parallel: 16,
};

describe('bench/stats', () => {
  it('takes medians and nearest-rank percentiles', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(percentile([5, 1, 4, 2, 3], 99)).toBe(5);
    expect(percentile([5, 1, 4, 2, 3], 40)).toBe(2);
  });

  it('counts windows [t, t + T) by brute force', () => {
    const starts = [0, 10, 20, 1000, 1005];
    // [10, 1010) holds 10, 20, 1000 and 1005.
    expect(mostInAnyWindow(starts, 1000)).toBe(4);
    expect(violatingWindows(starts, 1000, 2)).toBe(3);
    expect(violatingWindows(starts, 1000, 3)).toBe(1);
    expect(violatingWindows(starts, 1000, 4)).toBe(0);
    // At 2: 20 came 980 ms too soon after 0. At 3: 1005 came 5 ms too soon after 10. At 4: never too soon.
    expect(worstShortfall(starts, 1000, 2)).toBe(980);
    expect(worstShortfall(starts, 1000, 3)).toBe(5);
    expect(worstShortfall(starts, 1000, 4)).toBe(0);
  });

  it('builds the ideal strict schedule from arrival times', () => {
    // 2 per 100 ms: pairs leave 100 ms apart; a late arrival waits for nothing.
    expect(idealStrictSchedule([0, 0, 0, 0, 0, 500], 100, 2)).toEqual([0, 0, 100, 100, 200, 500]);
    expect(lateness([1, 2, 101], [0, 0, 100])).toEqual([1, 2, 1]);
    // Task 2 may start 100 ms after task 0 really did (1), not after its ideal start (0).
    expect(delayBehindOwnWindow([1, 2, 103], [0, 0, 0], 100, 2)).toEqual([1, 1, 2]);
  });

  it('counts windows in one pass exactly as the brute force does, ties and all', () => {
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let trial = 0; trial < 200; trial++) {
      // Whole numbers in a small range, so that equal times and times exactly a window apart are common.
      const times = Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * 30));
      const window = 1 + Math.floor(next() * 10);
      const limit = Math.floor(next() * 6);
      expect(windowCounts(times, window, limit)).toEqual({
        most: mostInAnyWindow(times, window),
        violating: violatingWindows(times, window, limit),
      });
    }
  });

  it('gives an ideal strict drain exactly the limit (however long its tasks take to start), and CPU while waiting only for long gaps', () => {
    const arrivals = new Array<number>(1000).fill(0);
    // 100 per 1000 ms: bursts of 100 at 0, 1000, ..., 9000 ms.
    expect(drainRate(idealStrictSchedule(arrivals, 1000, 100), 100)).toBeCloseTo(100, 9);
    // A bucket's drip after its first 100: one every 10 ms.
    const drip = [...new Array<number>(100).fill(0), ...Array.from({ length: 900 }, (_, k) => 10 * (k + 1))];
    expect(drainRate(drip, 100)).toBeCloseTo(100, 9);
    // A strict window whose tasks take 0.5 ms each to start: every window repeats the first one's spread.
    const spread = idealStrictSchedule(arrivals, 1000, 100).map((start, index) => start + 0.5 * (index % 100));
    expect(windowCounts(spread, 1000, 100).violating).toBe(0);
    expect(drainRate(spread, 100)).toBeCloseTo(100, 9);
    // One window's wake-up 10 ms late, carried into every later window: the drain shows it.
    const late = idealStrictSchedule(arrivals, 1000, 100).map((start) => (start >= 5000 ? start + 10 : start));
    expect(drainRate(late, 100)).toBeCloseTo(900 / 9.01, 9);
    // Gaps of 1 ms are one wake-up; the 100 ms gap cost 50 µs: 0.5 ms per s.
    expect(waitingCpu([0, 1, 2, 102], [0, 10, 20, 70])).toBeCloseTo(0.5, 9);
  });
});

describe('bench/run', () => {
  it('merges a partial run into the last results, keeping every workload it did not run', () => {
    const previous: BenchResults = { config: TINY, w1: [], w2: [], w3: [], w4: [], totalSeconds: 200 };
    const merged = mergeResults({ config: { w5: TINY_W5 }, w5: [], seconds: { w5: 30 }, totalSeconds: 31 }, previous);
    expect(merged.config).toEqual({ ...TINY, w5: TINY_W5 });
    expect(merged.w5).toEqual([]);
    expect(merged.w1).toBe(previous.w1);
    // The last full run's duration stays; the partial one is said apart.
    expect(merged.totalSeconds).toBe(200);
    expect(merged.separately).toEqual({ w5: 30 });
    expect(() => mergeResults({ config: {}, w5: [], seconds: {}, totalSeconds: 1 }, undefined)).toThrow(/full bench/);
  });
});

describe('the benchmark at a tiny size', () => {
  it('W1 and W4: every contender runs every task exactly once', async () => {
    const w1Contenders = contendersFor('w1');
    const w1 = await overhead(w1Contenders, { ...TINY.w1, timeoutMs: 20_000 });
    expect(w1.map((result) => result.contender.id)).toEqual(w1Contenders.map((contender) => contender.id));
    for (const result of w1) {
      expect(result.complete, result.contender.id).toBe(true);
      expect(result.tasksPerSecond, result.contender.id).toBeGreaterThan(0);
      expect(Number.isFinite(result.seconds), result.contender.id).toBe(true);
    }
    // Bottleneck runs a fraction of the count: its per-task cost is milliseconds.
    const fast = contendersFor('w4').filter((contender) => contender.scale === undefined);
    const w4 = await scaling(fast, TINY.w4);
    for (const result of w4) {
      expect(result.complete, result.contender.id).toBe(true);
      expect(result.ratio, result.contender.id).toBeGreaterThan(0);
    }
  }, 30_000);

  it('W2: every limiting contender reports its memory and (but for limiter) stops cleanly', async () => {
    const w2Contenders = contendersFor('w2');
    const w2 = await burstMemory(w2Contenders, { ...TINY.w2, parallel: w2Contenders.length, exitGraceMs: 1_500 });
    expect(w2.map((result) => result.contender.id)).toContain('baseline-promise-queue');
    for (const result of w2) {
      const { id } = result.contender;
      expect(result.complete, id).toBe(true);
      expect(Number.isFinite(result.waitingBytes), id).toBe(true);
      // At this size heap readings are mostly noise: only their form is checked.
      expect(Number.isFinite(result.taskBytes), id).toBe(true);
      expect(result.runs[0]?.started, id).toBeLessThanOrEqual(TINY.w2.rate.limit * 3);
      // Every library with a stop lets its process exit once stopped; limiter has none.
      if (id !== 'limiter' && id !== 'bottleneck') expect(result.exitedCleanly, id).toBe(true);
    }
    const ours = w2.filter((result) => result.contender.kind === 'ours');
    for (const result of ours) expect(result.exitedCleanly, result.contender.id).toBe(true);
  }, 120_000); // processes of every contender at once: minutes on a busy 2-core machine, seconds on a quiet one

  it('W3: every limiting contender starts every task; our sliding window never exceeds the limit', async () => {
    const w3 = await strictness(contendersFor('w3', LIMITING), TINY.w3);
    for (const result of w3) {
      // Bottleneck refreshes its reservoir on a 250 ms heartbeat, so at 5 per 100 ms it falls behind.
      if (result.contender.id === 'bottleneck') expect(result.started).toBeGreaterThan(0);
      else expect(result.started, result.contender.id).toBe(result.tasks);
      expect(Number.isFinite(result.latenessMedianMs), result.contender.id).toBe(true);
    }
    // Each of our paths hands a granted message to its receiver synchronously (the target actor, the task,
    // the subscriber) and logs the delivery after it, so the receivers' start times keep the strict window.
    for (const id of [
      'machine-sliding',
      'machine-batch',
      'machine-exact',
      'promise-sliding',
      'promise-exact',
      'rxjs-sliding',
    ]) {
      const sliding = w3.find((one) => one.contender.id === id);
      expect(sliding?.violatingWindows, id).toBe(0);
      expect(sliding?.mostInWindow, id).toBeLessThanOrEqual(TINY.w3.rate.limit);
      // Generous: a strict window may start a task late (a busy machine), never early.
      expect(sliding?.latenessMinMs, id).toBeGreaterThanOrEqual(0);
    }

    const results: BenchResults = { config: TINY, w1: [], w2: [], w3, w4: [], totalSeconds: 0 };
    const markdown = resultTables(results);
    expect(markdown).toContain('| contender |');
    expect(targets(results).some((target) => target.workload === 'W3')).toBe(true);
  }, 30_000);

  it('W5: every contender reports its CPU per task at the limit; our paths drain strictly', async () => {
    const w5Contenders = contendersFor('w5', LIMITING);
    const w5 = await atTheLimit(w5Contenders, TINY_W5);
    expect(w5.map((result) => result.contender.id)).toEqual(w5Contenders.map((one) => one.id));
    for (const { contender: one, drain, steady } of w5) {
      expect(drain.error, one.id).toBeUndefined();
      expect(drain.delivered, one.id).toBeGreaterThan(0);
      expect(steady.delivered, one.id).toBeGreaterThan(0);
      if (one.kind !== 'ours') continue;
      expect(drain.delivered, one.id).toBe(TINY_W5.drain.backlog);
      expect(drain.violatingWindows, one.id).toBe(0);
      expect(steady.violatingWindows, one.id).toBe(0);
      expect(drain.cpuPerTaskUs, one.id).toBeGreaterThan(0);
      expect(Number.isFinite(steady.waitingCpuMsPerSecond), one.id).toBe(true);
      expect(Number.isFinite(drain.ratePerSecond), one.id).toBe(true);
    }
    // The way the bench runs it: a child process of its own, which reports and exits.
    const child = await atTheLimitChild(contender('machine-batch'), TINY_W5.drain, 50);
    expect(child.error).toBeUndefined();
    expect(child.delivered).toBe(TINY_W5.drain.backlog);
    expect(child.violatingWindows).toBe(0);

    const results: BenchResults = {
      config: { ...TINY, w5: TINY_W5 },
      w1: [],
      w2: [],
      w3: [],
      w4: [],
      w5,
      totalSeconds: 0,
    };
    expect(resultTables(results)).toContain('### W5 at the limit');
  }, 30_000);
});
