/**
 * W6, shared limit (issue 13): a fleet of processes (child_process.fork, 4 by default) shares one
 * limit through the real Redis. Two phases, each a fresh fleet under a fresh name:
 *
 * - binding: 200 per second, every process handing a backlog of 500 over at one common moment
 *   (2,000 in all: ten windows' worth, about 9 s for a strict window);
 * - free: a limit that never binds (1,000,000 per second), 10,000 per process, for throughput.
 *
 * Judged on the fleet's common clock (w6-protocol.ts), merging every process's start times: the
 * most starts in any window and the windows holding more than the limit (brute force, as W3),
 * lateness of the k-th start of the fleet against the k-th of the ideal strict schedule for the
 * real hand-over times, tasks started per second, and Redis round trips per started task (counted
 * in each process's client, redis-round-trips.ts). For ours, the grants' Redis times are judged
 * the same way: the store promises strictness on Redis time, and the table shows both clocks.
 * Every key a phase made contains its name and is deleted afterwards.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import type { RateSpec } from './contenders.js';
import { deleteKeysContaining, REDIS_URL, redisVersion } from './redis-round-trips.js';
import { idealStrictSchedule, mostInAnyWindow, percentile, violatingWindows, worstShortfall } from './stats.js';
import { commonNow, type WorkerGo, type WorkerOpen, type WorkerReport } from './w6-protocol.js';
import type { SharedContender } from './w6-shared-contender.js';

export interface SharedPhase {
  rate: RateSpec;
  backlogPerProcess: number;
  /** The phase ends this long after the common start, every task started or not. */
  durationMs: number;
}

export interface SharedLimitOptions {
  processes: number;
  binding: SharedPhase;
  free: SharedPhase;
  /** Fleets at once (default 1: these are timings; the test runs its tiny ones side by side). */
  parallel?: number;
}

export const SHARED_LIMIT_DEFAULTS: SharedLimitOptions = {
  processes: 4,
  // A strict window starts the last 200 about 9 s in; 6 s more before the phase is cut short.
  binding: { rate: { limit: 200, interval: 1000 }, backlogPerProcess: 500, durationMs: 15_000 },
  free: { rate: { limit: 1_000_000, interval: 1000 }, backlogPerProcess: 10_000, durationMs: 10_000 },
};

export type SharedPhaseName = 'binding' | 'free';

/** One phase of one contender. NaN where a number does not apply (windows and lateness in the free phase). */
export interface SharedPhaseRun {
  tasks: number;
  started: number;
  /** From the common start to the last start, ms. */
  spanMs: number;
  /** started / span. */
  tasksPerSecond: number;
  mostInWindow: number;
  violatingWindows: number;
  /** stats.ts worstShortfall: how much too soon the worst window's extra start came, ms. */
  shortfallMs: number;
  latenessP50Ms: number;
  latenessP99Ms: number;
  /** Ours: the same two counts on the grants' Redis times. NaN for the peers. */
  redisMostInWindow: number;
  redisViolatingWindows: number;
  roundTrips: number;
  roundTripsPerTask: number;
  commandsPerTask: number;
  /** Redis calls the contender saw fail. */
  errors: number;
  /** Why the phase produced no numbers (a process that crashed or never reported). */
  error?: string;
}

export interface SharedLimitResult {
  contender: SharedContender;
  binding: SharedPhaseRun;
  free: SharedPhaseRun;
}

const WORKER = fileURLToPath(new URL('./w6-worker.ts', import.meta.url));

/** The next message of `type` from a process; rejects if it exits first or takes longer than `timeoutMs`. */
function nextMessage<T>(worker: ChildProcess, type: string, timeoutMs: number, stderr: () => string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no '${type}' within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message: { type?: string }) => {
      if (message?.type === type) finish(undefined, message as T);
    };
    const onExit = (code: number | null) =>
      finish(new Error(`exited (${code}) before '${type}': ${stderr().slice(-800)}`));
    function finish(error?: Error, message?: T): void {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      if (error) reject(error);
      else resolve(message as T);
    }
    worker.on('message', onMessage);
    worker.on('exit', onExit);
  });
}

/** One fleet through one phase. */
async function runFleet(
  redis: Redis,
  contender: SharedContender,
  phaseName: SharedPhaseName,
  phase: SharedPhase,
  processes: number,
): Promise<SharedPhaseRun> {
  const name = `bench-w6-${phaseName}-${contender.id}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const workers = Array.from({ length: processes }, () => {
    const worker = fork(WORKER, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    worker.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    return { worker, stderr: () => stderr, exited: new Promise((resolve) => worker.once('exit', resolve)) };
  });
  try {
    const open: WorkerOpen = {
      type: 'open',
      contender: contender.id,
      name,
      rate: phase.rate,
      backlog: phase.backlogPerProcess,
    };
    const ready = workers.map(({ worker, stderr }) => nextMessage(worker, 'ready', 60_000, stderr));
    for (const { worker } of workers) worker.send(open);
    await Promise.all(ready);
    // Far enough ahead that every process has the message before the moment comes.
    const startAt = commonNow() + 300;
    const go: WorkerGo = { type: 'go', startAt, endAt: startAt + phase.durationMs };
    const done = workers.map(({ worker, stderr }) =>
      nextMessage<WorkerReport>(worker, 'done', phase.durationMs + 60_000, stderr),
    );
    for (const { worker } of workers) worker.send(go);
    return judge(await Promise.all(done), phaseName, phase, startAt);
  } catch (error) {
    return failedPhase(phase.backlogPerProcess * processes, String(error instanceof Error ? error.message : error));
  } finally {
    for (const { worker } of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
    await Promise.all(workers.map(({ exited }) => exited));
    await deleteKeysContaining(redis, name);
  }
}

function judge(
  reports: WorkerReport[],
  phaseName: SharedPhaseName,
  phase: SharedPhase,
  startAt: number,
): SharedPhaseRun {
  const { limit, interval } = phase.rate;
  const tasks = reports.length * phase.backlogPerProcess;
  const starts = reports.flatMap((report) => report.starts).sort((a, b) => a - b);
  const grants = reports.flatMap((report) => report.grants);
  const roundTrips = reports.reduce((sum, report) => sum + report.roundTrips, 0);
  const commands = reports.reduce((sum, report) => sum + report.commands, 0);
  const spanMs = (starts.at(-1) ?? Number.NaN) - startAt;
  const binding = phaseName === 'binding';
  let latenessP50Ms = Number.NaN;
  let latenessP99Ms = Number.NaN;
  if (binding) {
    // The k-th start of the fleet against the k-th of the ideal strict schedule for the real hand-over times.
    const arrivals = reports
      .flatMap((report) => new Array<number>(phase.backlogPerProcess).fill(report.arrival))
      .sort((a, b) => a - b);
    const ideal = idealStrictSchedule(arrivals, interval, limit);
    const late = starts.map((start, k) => start - (ideal[k] as number));
    latenessP50Ms = percentile(late, 50);
    latenessP99Ms = percentile(late, 99);
  }
  const judged = binding && grants.length > 0;
  return {
    tasks,
    started: starts.length,
    spanMs,
    tasksPerSecond: (starts.length / spanMs) * 1000,
    mostInWindow: binding ? mostInAnyWindow(starts, interval) : Number.NaN,
    violatingWindows: binding ? violatingWindows(starts, interval, limit) : Number.NaN,
    shortfallMs: binding ? worstShortfall(starts, interval, limit) : Number.NaN,
    latenessP50Ms,
    latenessP99Ms,
    redisMostInWindow: judged ? mostInAnyWindow(grants, interval) : Number.NaN,
    redisViolatingWindows: judged ? violatingWindows(grants, interval, limit) : Number.NaN,
    roundTrips,
    roundTripsPerTask: roundTrips / starts.length,
    commandsPerTask: commands / starts.length,
    errors: reports.reduce((sum, report) => sum + report.errors, 0),
  };
}

function failedPhase(tasks: number, error: string): SharedPhaseRun {
  const none = Number.NaN;
  return {
    tasks,
    started: 0,
    spanMs: none,
    tasksPerSecond: none,
    mostInWindow: none,
    violatingWindows: none,
    shortfallMs: none,
    latenessP50Ms: none,
    latenessP99Ms: none,
    redisMostInWindow: none,
    redisViolatingWindows: none,
    roundTrips: none,
    roundTripsPerTask: none,
    commandsPerTask: none,
    errors: none,
    error,
  };
}

/** One contender through one phase, on a connection of its own (bench/w6-start-spans.ts). */
export async function sharedPhase(
  contender: SharedContender,
  phaseName: SharedPhaseName,
  phase: SharedPhase,
  processes: number,
): Promise<SharedPhaseRun> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    await redis.ping();
    return await runFleet(redis, contender, phaseName, phase, processes);
  } finally {
    redis.disconnect();
  }
}

/** Every contender through both phases, one fleet at a time unless told otherwise. */
export async function sharedLimit(
  contenders: readonly SharedContender[],
  options: SharedLimitOptions,
): Promise<SharedLimitResult[]> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    await redis.ping();
    const jobs: Array<{ contender: SharedContender; phase: SharedPhaseName }> = [];
    for (const phase of ['binding', 'free'] as const)
      for (const contender of contenders) jobs.push({ contender, phase });
    const runs = new Map<string, SharedPhaseRun>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < jobs.length) {
        const { contender, phase } = jobs[next++] as (typeof jobs)[number];
        runs.set(
          `${phase} ${contender.id}`,
          await runFleet(redis, contender, phase, options[phase], options.processes),
        );
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, options.parallel ?? 1) }, worker));
    return contenders.map((contender) => ({
      contender,
      binding: runs.get(`binding ${contender.id}`) as SharedPhaseRun,
      free: runs.get(`free ${contender.id}`) as SharedPhaseRun,
    }));
  } finally {
    redis.disconnect();
  }
}

/** The Redis server W6 runs against, for the report. */
export async function sharedLimitServer(): Promise<string> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    return `Redis ${await redisVersion(redis)} at ${REDIS_URL.replace(/\/\/[^@]*@/, '//')}`;
  } finally {
    redis.disconnect();
  }
}
