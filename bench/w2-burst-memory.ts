/**
 * W2, burst memory: `size` tasks handed over at once to a 10 per second limit,
 * so all but a handful wait. Measured: the time to hand them all over (until
 * the limiter's own deferred bookkeeping has run: one macrotask turn), and the
 * heap each waiting task costs beyond the task object itself. Then the limiter
 * is stopped and the process must exit by itself.
 *
 * Each run is a child process of its own: a fresh heap (nothing left over from
 * other contenders, or from W1), and a limiter that cannot be stopped (limiter
 * has no stop, and parks every call on a timer) cannot keep the bench alive.
 *
 * Heap accounting, with global.gc() before each reading: the tasks (and an
 * array for the promises they will get back) are built first and held in plain
 * arrays, then the heap is read (`beforeBytes`); after the hand-over it is read
 * again (`afterBytes`). The tasks are alive in both readings, so the difference
 * is what the limiter holds per waiting task: its entry, promise, closures,
 * timers. The promise an API returns is counted: the API made it.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Contender, contender as contenderById, type RateSpec } from './contenders.js';
import { median } from './stats.js';

export const BURST_RATE: RateSpec = { limit: 10, interval: 1000 };

/** What one child process reports. */
export interface BurstMemoryRun {
  size: number;
  /** Handing every task over, until one macrotask turn later. */
  enqueueSeconds: number;
  /** Heap per task for the task object itself held in a plain array (with its array slots). */
  taskBytes: number;
  /** Heap per waiting task beyond the task itself. */
  waitingBytes: number;
  /** Tasks that ran before the limiter was stopped (the limit lets a few through). */
  started: number;
  /** No more started than the rate allows over the time the tasks were held (2 x limit per interval, for fixed windows). */
  startedWithinLimit: boolean;
  /** stop() (or clear()) returned, including one macrotask turn after it; Infinity: not within 5 s, or no stop. */
  stopSeconds: number;
  /** False for a library without any stop or clear. */
  stoppable: boolean;
}

export interface BurstMemoryOutcome extends BurstMemoryRun {
  /** The child exited by itself after stopping (no timer or handle left behind). */
  exitedCleanly: boolean;
}

export interface BurstMemoryResult {
  contender: Contender;
  runs: BurstMemoryOutcome[];
  enqueueSeconds: number;
  taskBytes: number;
  waitingBytes: number;
  stopSeconds: number;
  exitedCleanly: boolean;
  /** Every run reported, and no more tasks ran than the limit allows in the time it took. */
  complete: boolean;
}

export interface BurstMemoryOptions {
  size: number;
  rounds: number;
  rate?: RateSpec;
  /** How long a child may take to exit by itself once it has stopped the limiter. */
  exitGraceMs?: number;
  /** How many children run at once (the test runs its tiny ones side by side). */
  parallel?: number;
}

const collectGarbage = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('W2 needs node --expose-gc');
  gc();
  gc();
};

const heapUsed = (): number => {
  collectGarbage();
  return process.memoryUsage().heapUsed;
};

/** A stop that has not finished by then is reported as never finishing. */
const STOP_TIMEOUT_MS = 5_000;

/** A child that has not reported by then is killed (the bench must finish). */
const CHILD_TIMEOUT_MS = 180_000;

const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** One run in this process. Leaves the limiter stopped (or, for an unstoppable one, running). */
export async function burstMemoryRun(contender: Contender, size: number, rate = BURST_RATE): Promise<BurstMemoryRun> {
  let started = 0;
  const instance = contender.open(rate, () => {
    started += 1;
  });
  const baseline = heapUsed();
  const tasks = Array.from({ length: size }, (_, index) => instance.task(index));
  const promises: unknown[] = new Array(size).fill(undefined);
  const beforeBytes = heapUsed();

  const begin = performance.now();
  instance.submit(tasks, promises);
  await macrotask();
  const enqueueSeconds = (performance.now() - begin) / 1000;
  const afterBytes = heapUsed();

  // Stopping rejects what waits; nobody is waiting on these promises.
  for (const promise of promises) (promise as Promise<unknown> | undefined)?.catch(() => {});
  const stopBegin = performance.now();
  let stopped = instance.stoppable;
  if (instance.stoppable) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const gaveUp = new Promise<'gave up'>((resolve) => {
      timer = setTimeout(() => resolve('gave up'), STOP_TIMEOUT_MS);
    });
    stopped = (await Promise.race([Promise.resolve(instance.stop()).then(macrotask), gaveUp])) !== 'gave up';
    clearTimeout(timer);
  }
  const stopSeconds = stopped ? (performance.now() - stopBegin) / 1000 : Number.POSITIVE_INFINITY;
  const heldIntervals = Math.ceil((performance.now() - begin) / rate.interval);
  return {
    size,
    enqueueSeconds,
    taskBytes: (beforeBytes - baseline) / size,
    waitingBytes: (afterBytes - beforeBytes) / size,
    started,
    startedWithinLimit: started <= rate.limit * (2 + heldIntervals),
    stopSeconds,
    stoppable: instance.stoppable,
  };
}

const THIS_FILE = fileURLToPath(import.meta.url);

/** Runs one contender in a child process and waits (a while) for it to exit by itself. */
function burstMemoryChild(contender: Contender, size: number, rate: RateSpec, exitGraceMs: number) {
  return new Promise<BurstMemoryOutcome>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--expose-gc',
        '--import',
        'tsx',
        THIS_FILE,
        contender.id,
        String(size),
        String(rate.limit),
        String(rate.interval),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    let report: BurstMemoryRun | undefined;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    let killedByUs = false;
    const hung = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('{'));
      if (report === undefined && line !== undefined && stdout.includes('\n', stdout.indexOf(line))) {
        report = JSON.parse(line) as BurstMemoryRun;
        report.stopSeconds ??= Number.POSITIVE_INFINITY;
        graceTimer = setTimeout(() => {
          killedByUs = true;
          child.kill('SIGKILL');
        }, exitGraceMs);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(graceTimer);
      clearTimeout(hung);
      if (report === undefined) {
        reject(new Error(`W2 child for ${contender.id} exited (${code ?? signal}) without a report:\n${stderr}`));
        return;
      }
      resolve({ ...report, exitedCleanly: !killedByUs && code === 0 });
    });
  });
}

export async function burstMemory(
  contenders: readonly Contender[],
  options: BurstMemoryOptions,
): Promise<BurstMemoryResult[]> {
  const rate = options.rate ?? BURST_RATE;
  const jobs: Array<{ contender: Contender; round: number }> = [];
  for (let round = 0; round < options.rounds; round++)
    for (const contender of contenders) jobs.push({ contender, round });
  const outcomes = new Map<Contender, BurstMemoryOutcome[]>(contenders.map((contender) => [contender, []]));
  const parallel = Math.max(1, options.parallel ?? 1);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const job = jobs[next++] as { contender: Contender };
      const outcome = await burstMemoryChild(job.contender, options.size, rate, options.exitGraceMs ?? 3000);
      outcomes.get(job.contender)?.push(outcome);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return contenders.map((contender) => {
    const runs = outcomes.get(contender) ?? [];
    return {
      contender,
      runs,
      enqueueSeconds: median(runs.map((run) => run.enqueueSeconds)),
      taskBytes: median(runs.map((run) => run.taskBytes)),
      waitingBytes: median(runs.map((run) => run.waitingBytes)),
      stopSeconds: median(runs.map((run) => run.stopSeconds)),
      exitedCleanly: runs.every((run) => run.exitedCleanly),
      complete:
        runs.length === options.rounds &&
        runs.every((run) => run.size === options.size && run.startedWithinLimit && Number.isFinite(run.waitingBytes)),
    };
  });
}

// The child: `node --expose-gc --import tsx bench/w2-burst-memory.ts <contender> <size> <limit> <interval>`.
if (process.argv[1] === THIS_FILE) {
  const [id, size, limit, interval] = process.argv.slice(2);
  const run = await burstMemoryRun(contenderById(id as string), Number(size), {
    limit: Number(limit),
    interval: Number(interval),
  });
  // JSON has no Infinity: a stop that never finished reads back as null.
  process.stdout.write(`${JSON.stringify(run)}\n`);
}
