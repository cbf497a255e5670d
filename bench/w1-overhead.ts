/**
 * W1, overhead: `size` trivial tasks through a limit that never binds
 * (1e9 per second), end to end: from handing the first task over until every
 * task has run and every promise the API gave back has settled. What is left
 * is the cost of the limiter itself, next to two bare baselines.
 */
import type { Contender, RateSpec } from './contenders.js';
import { median } from './stats.js';

/** A limit no run of this size can reach: the limiter's bookkeeping runs, its waiting never does. */
export const NON_BINDING: RateSpec = { limit: 1_000_000_000, interval: 1000 };

export interface OverheadRun {
  seconds: number;
  /** CPU time (user + system) over the same span: steadier than `seconds` on a busy machine. */
  cpuSeconds: number;
  /** Tasks that ran; must equal the size. */
  started: number;
  /** Tasks that ran more than once; must be 0. */
  duplicates: number;
}

export interface OverheadResult {
  contender: Contender;
  size: number;
  runs: OverheadRun[];
  /** Median over the rounds. */
  seconds: number;
  tasksPerSecond: number;
  /** Every round ran every task exactly once. */
  complete: boolean;
}

export interface OverheadOptions {
  size: number;
  rounds: number;
  /** A run that takes longer than this is abandoned (a hung contender must not hang the bench). */
  timeoutMs?: number;
}

function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** One run of one contender. */
export async function overheadRun(contender: Contender, size: number, timeoutMs = 120_000): Promise<OverheadRun> {
  const seen = new Uint8Array(size);
  let started = 0;
  let duplicates = 0;
  let allStarted: () => void = () => {};
  const everyStart = new Promise<void>((resolve) => {
    allStarted = resolve;
  });
  const instance = contender.open(NON_BINDING, (index) => {
    if (seen[index] === 1) duplicates += 1;
    seen[index] = 1;
    started += 1;
    if (started === size) allStarted();
  });
  const tasks = Array.from({ length: size }, (_, index) => instance.task(index));
  const promises: unknown[] = new Array(size).fill(undefined);
  collectGarbage();

  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const cpuBefore = process.cpuUsage();
  const begin = performance.now();
  instance.submit(tasks, promises);
  const finished = (async () => {
    await everyStart;
    if (promises[0] !== undefined) await Promise.all(promises);
    return 'done' as const;
  })();
  const outcome = await Promise.race([finished, timeout]);
  const seconds = (performance.now() - begin) / 1000;
  const cpuUsed = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpuUsed.user + cpuUsed.system) / 1e6;
  clearTimeout(timer);
  // Only an abandoned run has promises left to reject when it stops.
  if (outcome === 'timeout') for (const promise of promises) (promise as Promise<unknown> | undefined)?.catch(() => {});
  await instance.stop();
  if (outcome === 'timeout') return { seconds: Number.POSITIVE_INFINITY, cpuSeconds, started, duplicates };
  return { seconds, cpuSeconds, started, duplicates };
}

/** The task count and rounds a contender runs (a scaled contender runs a fraction, once). */
export function planFor(contender: Contender, size: number, rounds: number): { size: number; rounds: number } {
  if (contender.scale === undefined) return { size, rounds };
  return { size: Math.max(1, Math.round(size * contender.scale.fraction)), rounds: 1 };
}

/** Every contender, `rounds` times, round-robin so that drift on the machine spreads over all of them. */
export async function overhead(contenders: readonly Contender[], options: OverheadOptions): Promise<OverheadResult[]> {
  const runs = new Map<Contender, OverheadRun[]>(contenders.map((contender) => [contender, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const contender of contenders) {
      const plan = planFor(contender, options.size, options.rounds);
      if (round >= plan.rounds) continue;
      runs.get(contender)?.push(await overheadRun(contender, plan.size, options.timeoutMs));
    }
  }
  return contenders.map((contender) => {
    const own = runs.get(contender) ?? [];
    const { size } = planFor(contender, options.size, options.rounds);
    const seconds = median(own.map((run) => run.seconds));
    return {
      contender,
      size,
      runs: own,
      seconds,
      tasksPerSecond: size / seconds,
      complete: own.length > 0 && own.every((run) => run.started === size && run.duplicates === 0),
    };
  });
}
