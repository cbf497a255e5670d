/**
 * W3, strictness and precision on real timers: `limit` per `interval` ms,
 * tasks arriving in bursts larger than the limit (100 every second against
 * 50 per second), so every limiter spends most of the run holding tasks back.
 * Each task's start is read with performance.now() in the task itself.
 *
 * Judged by brute force over the start times: the most starts in any window of
 * one interval, how many windows (one beginning at each start) hold more than
 * the limit, and each task's lateness against the ideal strict schedule, the
 * earliest start a strict sliding window allows given the real arrival times
 * (stats.ts, idealStrictSchedule). A negative lateness is a start earlier than
 * a strict window allows.
 *
 * Each contender first runs a few thousand tasks untimed (warmUp), so that the
 * first burst is not billed for the JIT compiling its path. Then
 * all contenders run in one period, side by side, each shifted by a fraction
 * of the interval so that their timers do not fire in the same instant (a
 * task started late because another library's callbacks were running would
 * bill that library's work to this one).
 */
import type { Contender, RateSpec } from './contenders.js';
import {
  delayBehindOwnWindow,
  idealStrictSchedule,
  lateness,
  median,
  mostInAnyWindow,
  percentile,
  violatingWindows,
} from './stats.js';

export interface StrictnessOptions {
  rate: RateSpec;
  /** Tasks per burst, one burst every `burstEvery` ms. */
  bursts: readonly number[];
  burstEvery: number;
  /** Shift between contenders' start times, in ms. Default: the interval divided among them. */
  stagger?: number;
  /** Extra time beyond the ideal schedule's end before a contender is abandoned. */
  graceMs?: number;
  /**
   * Tasks each contender first runs through a limit that never binds, untimed, so that W3 measures
   * timers rather than the JIT compiling the first burst's path (default 2,000; 0: none).
   */
  warmUpTasks?: number;
}

/** 600 tasks in six bursts of 100, one a second, against 50 per second (the queue drains after about 11 s). */
export const STRICTNESS_DEFAULTS: StrictnessOptions = {
  rate: { limit: 50, interval: 1000 },
  bursts: [100, 100, 100, 100, 100, 100],
  burstEvery: 1000,
};

export interface StrictnessResult {
  contender: Contender;
  tasks: number;
  /** Tasks that started before the contender was abandoned (must be all). */
  started: number;
  mostInWindow: number;
  violatingWindows: number;
  latenessMedianMs: number;
  latenessP99Ms: number;
  /** The earliest start relative to the ideal (negative: sooner than a strict window allows). */
  latenessMinMs: number;
  /**
   * Each start against the earliest its own previous starts allowed (stats.ts,
   * delayBehindOwnWindow): the delay each wake-up adds by itself, not carried forward.
   */
  ownDelayMedianMs: number;
  ownDelayP99Ms: number;
  /** From the first arrival to the last start. */
  spanMs: number;
}

interface Track {
  contender: Contender;
  arrivals: number[];
  starts: number[];
  started: number;
  done: Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `tasks` tasks through the contender at a limit that never binds, and waits for all to start (W3, W5). */
export async function warmUp(contender: Contender, tasks: number): Promise<void> {
  if (tasks <= 0) return;
  let started = 0;
  let allStarted: () => void = () => {};
  const everyStart = new Promise<void>((resolve) => {
    allStarted = resolve;
  });
  const instance = contender.open({ limit: 1_000_000_000, interval: 1000 }, () => {
    started += 1;
    if (started === tasks) allStarted();
  });
  const promises: unknown[] = new Array(tasks).fill(undefined);
  instance.submit(
    Array.from({ length: tasks }, (_, index) => instance.task(index)),
    promises,
  );
  // A contender too slow to start them all within 10 s (Bottleneck: 2.5 ms a task) is warm enough by then.
  await Promise.race([everyStart, sleep(10_000)]);
  for (const promise of promises) (promise as Promise<unknown> | undefined)?.catch(() => {});
  if (instance.stoppable) await instance.stop();
}

/** Runs every contender through the same bursts in one period and judges their start times. */
export async function strictness(
  contenders: readonly Contender[],
  options: StrictnessOptions = STRICTNESS_DEFAULTS,
): Promise<StrictnessResult[]> {
  const { rate, bursts, burstEvery } = options;
  const total = bursts.reduce((sum, size) => sum + size, 0);
  const stagger = options.stagger ?? rate.interval / Math.max(1, contenders.length);
  // The ideal schedule if every burst arrived on time: how long a contender should need at most.
  const plannedArrivals = bursts.flatMap((size, burst) => Array.from({ length: size }, () => burst * burstEvery));
  const idealEnd = idealStrictSchedule(plannedArrivals, rate.interval, rate.limit).at(-1) ?? 0;
  const graceMs = options.graceMs ?? 2 * rate.interval;

  for (const contender of contenders) await warmUp(contender, options.warmUpTasks ?? 2_000);

  const tracks = contenders.map(async (contender, position): Promise<Track> => {
    await sleep(position * stagger);
    const arrivals: number[] = new Array(total).fill(Number.NaN);
    const starts: number[] = new Array(total).fill(Number.NaN);
    let started = 0;
    let finish: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const instance = contender.open(rate, (index) => {
      starts[index] = performance.now();
      started += 1;
      if (started === total) finish();
    });
    const promises: unknown[] = [];
    let first = 0;
    const origin = performance.now();
    for (const [burst, size] of bursts.entries()) {
      const due = origin + burst * burstEvery;
      if (due > performance.now()) await sleep(due - performance.now());
      const tasks = Array.from({ length: size }, (_, offset) => instance.task(first + offset));
      const handed: unknown[] = new Array(size).fill(undefined);
      const arrival = performance.now();
      for (let offset = 0; offset < size; offset++) arrivals[first + offset] = arrival;
      instance.submit(tasks, handed);
      promises.push(...handed);
      first += size;
    }
    const deadline = origin + idealEnd + graceMs - performance.now();
    await Promise.race([done, sleep(Math.max(0, deadline))]);
    for (const promise of promises) (promise as Promise<unknown> | undefined)?.catch(() => {});
    if (instance.stoppable) await instance.stop();
    return { contender, arrivals, starts, started, done };
  });

  return (await Promise.all(tracks)).map(({ contender, arrivals, starts, started }) => {
    const ran = starts.filter((start) => !Number.isNaN(start));
    const ideal = idealStrictSchedule(arrivals, rate.interval, rate.limit);
    const late = lateness(starts, ideal).filter((value) => !Number.isNaN(value));
    const own = delayBehindOwnWindow(starts, arrivals, rate.interval, rate.limit).filter(
      (value) => !Number.isNaN(value),
    );
    return {
      contender,
      tasks: total,
      started,
      mostInWindow: mostInAnyWindow(ran, rate.interval),
      violatingWindows: violatingWindows(ran, rate.interval, rate.limit),
      latenessMedianMs: median(late),
      latenessP99Ms: percentile(late, 99),
      latenessMinMs: Math.min(...late),
      ownDelayMedianMs: median(own),
      ownDelayP99Ms: percentile(own, 99),
      spanMs: Math.max(...ran) - Math.min(...arrivals),
    };
  });
}
