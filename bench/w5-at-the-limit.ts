/**
 * W5, at the limit: what a throttler mostly does in production, running at a limit that binds with
 * a backlog, on real timers (issue 16). Two scenarios, each contender in each:
 *
 * - drain: 10,000 per second, 100,000 tasks handed over at once; the run ends when the last one
 *   starts (or is abandoned a grace period after the ideal schedule's end).
 * - steady: 100 per second (a typical API limit), 10,000 tasks handed over at once; the backlog
 *   would take 100 s, so the run is a bounded stretch of the steady state.
 *
 * Measured: CPU time (`process.cpuUsage()`, user + system, every thread of the process) per started
 * task, the rate the backlog drained at against the limit, the most starts in any window and the
 * windows holding more than the limit (stats.ts, windowCounts: the brute force's counts in one
 * pass), the own-window delay (as W3 defines it), and in the steady scenario the CPU spent while
 * waiting between wake-ups.
 *
 * Every run is a child process of its own, one at a time: CPU time is read for the whole process,
 * so nothing else may run in it, and each contender starts with a fresh heap and JIT. Each first
 * runs a few hundred tasks through a limit that never binds, untimed (W3's warmUp), so that the
 * measured run is the steady state rather than the JIT compiling it.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Contender, contender as contenderById, type RateSpec } from './contenders.js';
import { delayBehindOwnWindow, drainRate, percentile, windowCounts } from './stats.js';
import { warmUp } from './w3-strictness.js';

export interface AtTheLimitScenario {
  rate: RateSpec;
  /** Tasks handed over at once, before anything else happens. */
  backlog: number;
  /** Bounded: the run ends this long after the hand-over began, whatever is left. */
  durationMs?: number;
  /** Unbounded: a run still going this long after the ideal schedule's end is abandoned. */
  graceMs?: number;
}

export interface AtTheLimitOptions {
  drain: AtTheLimitScenario;
  steady: AtTheLimitScenario;
  /** Tasks each contender runs through a limit that never binds before the measured run. */
  warmUpTasks: number;
  /** Runs at once (default 1: these are timings, and CPU is read per process). */
  parallel?: number;
  /** Runs in this process rather than a child each: for the test, where only the form of the numbers counts. */
  inProcess?: boolean;
}

export const AT_THE_LIMIT_DEFAULTS: AtTheLimitOptions = {
  drain: { rate: { limit: 10_000, interval: 1000 }, backlog: 100_000, graceMs: 5_000 },
  // 10.5 s: the first window's 100 and ten refills, ending halfway between two so that one a few ms late is not cut off.
  steady: { rate: { limit: 100, interval: 1000 }, backlog: 10_000, durationMs: 10_500 },
  warmUpTasks: 1_000,
};

export type ScenarioName = 'drain' | 'steady';

/** One contender in one scenario. NaN where a number does not apply or could not be had. */
export interface AtTheLimitRun {
  backlog: number;
  /** Tasks that started before the run ended. */
  delivered: number;
  /** Wall time from the first hand-over call until one macrotask turn after the last, ms. */
  handOverMs: number;
  /** CPU time of that hand-over, µs. */
  handOverCpuUs: number;
  /** From the hand-over until the last start (drain) or the end of the bounded run (steady), ms. */
  spanMs: number;
  /**
   * CPU per started task, µs. drain: the whole run, hand-over included, over every start. steady:
   * after the hand-over, over the starts after it (the backlog is not drained, so its hand-over
   * would be spread over a tenth of it).
   */
  cpuPerTaskUs: number;
  /** stats.ts drainRate, per second. */
  ratePerSecond: number;
  mostInWindow: number;
  violatingWindows: number;
  ownDelayP50Ms: number;
  ownDelayP99Ms: number;
  /**
   * steady only: CPU used in the gaps between starts of at least WAITING_GAP_MS (and from the last
   * start to the end), per second of such gaps, in ms: what waiting for the window costs, the timer
   * wake-ups that lead to the next start included. NaN for drain.
   */
  waitingCpuMsPerSecond: number;
  /** Why the run produced no numbers (a crashed or hung child). */
  error?: string;
}

export interface AtTheLimitResult {
  contender: Contender;
  drain: AtTheLimitRun;
  steady: AtTheLimitRun;
}

/** Starts closer together than this belong to one wake-up; a longer gap is time spent waiting. */
export const WAITING_GAP_MS = 5;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const cpuMicros = (): number => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

/** One contender in one scenario, in this process. */
export async function atTheLimitRun(
  contender: Contender,
  scenario: AtTheLimitScenario,
  warmUpTasks: number,
): Promise<AtTheLimitRun> {
  await warmUp(contender, warmUpTasks);
  const { rate, backlog } = scenario;
  const bounded = scenario.durationMs !== undefined;
  // Per task (by index) for the own-window delay, and in order of starting for the windows and the gaps.
  const starts = new Float64Array(backlog).fill(Number.NaN);
  const times = new Float64Array(backlog);
  const cpuAt = bounded ? new Float64Array(backlog) : undefined;
  let delivered = 0;
  let finish: () => void = () => {};
  const allDelivered = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const instance = contender.open(rate, (index) => {
    const now = performance.now();
    starts[index] = now;
    times[delivered] = now;
    if (cpuAt !== undefined) cpuAt[delivered] = cpuMicros();
    delivered += 1;
    if (delivered === backlog) finish();
  });
  const tasks = Array.from({ length: backlog }, (_, index) => instance.task(index));
  const promises: unknown[] = new Array(backlog).fill(undefined);
  (globalThis as { gc?: () => void }).gc?.();

  const cpuBegin = cpuMicros();
  const begin = performance.now();
  instance.submit(tasks, promises);
  await macrotask();
  const handedOver = performance.now();
  const cpuHandedOver = cpuMicros();
  const deliveredInHandOver = delivered;
  const idealEnd = Math.floor((backlog - 1) / rate.limit) * rate.interval;
  const endAt = begin + (scenario.durationMs ?? idealEnd + (scenario.graceMs ?? 5_000));
  await Promise.race([allDelivered.then(macrotask), sleep(endAt - performance.now())]);
  const end = performance.now();
  const cpuEnd = cpuMicros();
  const finished = delivered;

  for (const promise of promises) (promise as Promise<unknown> | undefined)?.catch(() => {});
  // A stop that waits behind every pending submission (Bottleneck) is not waited for long: it is not measured.
  if (instance.stoppable) await Promise.race([Promise.resolve(instance.stop()).catch(() => {}), sleep(2_000)]);

  const ran = Array.from(times.subarray(0, finished));
  const windows = windowCounts(ran, rate.interval, rate.limit);
  const arrivals = new Array<number>(backlog).fill(begin);
  const own = delayBehindOwnWindow(Array.from(starts), arrivals, rate.interval, rate.limit).filter(
    (value) => !Number.isNaN(value),
  );
  const afterHandOver = finished - deliveredInHandOver;
  return {
    backlog,
    delivered: finished,
    handOverMs: handedOver - begin,
    handOverCpuUs: cpuHandedOver - cpuBegin,
    spanMs: (bounded ? end : (ran.at(-1) ?? end)) - begin,
    cpuPerTaskUs: bounded ? (cpuEnd - cpuHandedOver) / afterHandOver : (cpuEnd - cpuBegin) / finished,
    ratePerSecond: drainRate(ran, rate.limit),
    mostInWindow: windows.most,
    violatingWindows: windows.violating,
    ownDelayP50Ms: percentile(own, 50),
    ownDelayP99Ms: percentile(own, 99),
    waitingCpuMsPerSecond:
      cpuAt === undefined
        ? Number.NaN
        : waitingCpu(
            [handedOver, ...ran.slice(deliveredInHandOver), end],
            [cpuHandedOver, ...Array.from(cpuAt.subarray(deliveredInHandOver, finished)), cpuEnd],
          ),
  };
}

/** CPU (µs) in the gaps of at least WAITING_GAP_MS between consecutive moments, per ms of such gaps (= ms per s). */
export function waitingCpu(moments: readonly number[], cpu: readonly number[]): number {
  let spent = 0;
  let waited = 0;
  for (let index = 1; index < moments.length; index++) {
    const gap = (moments[index] as number) - (moments[index - 1] as number);
    if (gap < WAITING_GAP_MS) continue;
    spent += (cpu[index] as number) - (cpu[index - 1] as number);
    waited += gap;
  }
  return waited > 0 ? spent / waited : Number.NaN;
}

function failedRun(backlog: number, error: string): AtTheLimitRun {
  const none = Number.NaN;
  return {
    backlog,
    delivered: 0,
    handOverMs: none,
    handOverCpuUs: none,
    spanMs: none,
    cpuPerTaskUs: none,
    ratePerSecond: none,
    mostInWindow: none,
    violatingWindows: none,
    ownDelayP50Ms: none,
    ownDelayP99Ms: none,
    waitingCpuMsPerSecond: none,
    error,
  };
}

const THIS_FILE = fileURLToPath(import.meta.url);

/** One run in a child process of its own; a child that crashes or hangs gives a failed run, not a failed bench. */
export function atTheLimitChild(
  contender: Contender,
  scenario: AtTheLimitScenario,
  warmUpTasks: number,
): Promise<AtTheLimitRun> {
  const limitMs = (scenario.durationMs ?? 0) + (scenario.graceMs ?? 0) + 120_000;
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', THIS_FILE, contender.id, JSON.stringify(scenario), String(warmUpTasks)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    const hung = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', (error) => resolve(failedRun(scenario.backlog, String(error))));
    child.on('exit', (code, signal) => {
      clearTimeout(hung);
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line === undefined) {
        resolve(failedRun(scenario.backlog, `exited (${code ?? signal}) without a report: ${stderr.slice(-500)}`));
        return;
      }
      // JSON has no NaN: the child's nulls are numbers that do not apply.
      resolve(JSON.parse(line, (_key, value) => (value === null ? Number.NaN : value)) as AtTheLimitRun);
    });
  });
}

/** Every contender in both scenarios, one run at a time unless told otherwise. */
export async function atTheLimit(
  contenders: readonly Contender[],
  options: AtTheLimitOptions,
): Promise<AtTheLimitResult[]> {
  const jobs: Array<{ contender: Contender; scenario: ScenarioName }> = [];
  for (const scenario of ['drain', 'steady'] as const)
    for (const contender of contenders) jobs.push({ contender, scenario });
  const runs = new Map<string, AtTheLimitRun>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const { contender, scenario } = jobs[next++] as (typeof jobs)[number];
      const run = options.inProcess
        ? await atTheLimitRun(contender, options[scenario], options.warmUpTasks)
        : await atTheLimitChild(contender, options[scenario], options.warmUpTasks);
      runs.set(`${scenario} ${contender.id}`, run);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.parallel ?? 1) }, worker));
  return contenders.map((contender) => ({
    contender,
    drain: runs.get(`drain ${contender.id}`) as AtTheLimitRun,
    steady: runs.get(`steady ${contender.id}`) as AtTheLimitRun,
  }));
}

// The child: `node --expose-gc --import tsx bench/w5-at-the-limit.ts <contender> <scenario JSON> <warm-up tasks>`.
if (process.argv[1] === THIS_FILE) {
  const [id, scenario, warmUpTasks] = process.argv.slice(2) as [string, string, string];
  const run = await atTheLimitRun(contenderById(id), JSON.parse(scenario), Number(warmUpTasks));
  process.stdout.write(`${JSON.stringify(run)}\n`, () => process.exit(0));
}
