/**
 * `npm run bench` (node --expose-gc --import tsx bench/run.ts): runs W1-W7 on
 * every contender, prints the tables and writes bench/README.md.
 *
 *   npm run bench                    the full run (about ten minutes); writes bench/README.md
 *                                    and bench/results/latest.json
 *   npm run bench -- --only w5,w6    only those workloads; their results replace theirs in
 *                                    results/latest.json, the others' are kept as they were
 *   npm run bench -- --no-write      print only
 *   npm run bench -- --rewrite       README.md again from results/latest.json (after editing analysis.md)
 *
 * W6 needs Redis (REDIS_URL, or 127.0.0.1:6379). W7 runs its own mock providers (examples/llm/), in a child
 * process; its quick mode (LLM_QUOTA_QUICK, 1 s windows and 40 requests) is what test/bench runs.
 *
 * The sizes live in DEFAULT_CONFIG; the test (test/bench) runs the same
 * functions at a tiny size and never writes the README.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchResults } from './bench-results.js';
import { CONTENDERS, type Contender, contender, contendersFor, LIMITING } from './contenders.js';
import { readme } from './readme.js';
import { resultTables } from './report.js';
import { overhead } from './w1-overhead.js';
import { BURST_RATE, burstMemory } from './w2-burst-memory.js';
import { STRICTNESS_DEFAULTS, strictness } from './w3-strictness.js';
import { scaling } from './w4-scaling.js';
import { AT_THE_LIMIT_DEFAULTS, type AtTheLimitOptions, atTheLimit } from './w5-at-the-limit.js';
import { SHARED_CONTENDERS, sharedContender } from './w6-contenders.js';
import type { SharedContender } from './w6-shared-contender.js';
import { SHARED_LIMIT_DEFAULTS, type SharedLimitOptions, sharedLimit, sharedLimitServer } from './w6-shared-limit.js';
import { LLM_QUOTA_DEFAULTS, llmQuota } from './w7-llm-quota.js';

export type BenchConfig = BenchResults['config'];

/** What a run takes: every workload's sizes (BenchResults' config has W6's Redis server besides). */
export interface RunConfig extends Omit<BenchConfig, 'w5' | 'w6' | 'w7'> {
  w5: AtTheLimitOptions;
  w6: SharedLimitOptions;
  w7: NonNullable<BenchConfig['w7']>;
}

export const DEFAULT_CONFIG: RunConfig = {
  w1: { size: 200_000, rounds: 5 },
  w2: { size: 1_000_000, rounds: 3, rate: BURST_RATE },
  w3: STRICTNESS_DEFAULTS,
  w4: { small: 100_000, large: 400_000, rounds: 3 },
  w5: AT_THE_LIMIT_DEFAULTS,
  w6: SHARED_LIMIT_DEFAULTS,
  w7: LLM_QUOTA_DEFAULTS,
};

export const WORKLOADS = ['w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7'] as const;
export type WorkloadName = (typeof WORKLOADS)[number];

export interface RunOptions {
  config?: RunConfig;
  contenders?: readonly Contender[];
  sharedContenders?: readonly SharedContender[];
  /** Only these workloads (default: all). */
  only?: readonly WorkloadName[];
  /** Progress lines (to stderr in the CLI). */
  log?: (line: string) => void;
  /**
   * Children W2 runs at once (default 1). W2's times are mostly garbage collection, whose helper threads
   * want the other core: two children at once made each other 1.5-5x slower, unevenly (which pair ran
   * together decided it), and the ratios the targets ask for moved with it.
   */
  parallel?: number;
}

/** What one run produced: the workloads it ran, their configuration, and how long each took (s). */
export type RunResults = Partial<Pick<BenchResults, WorkloadName>> & {
  config: Partial<BenchConfig>;
  seconds: Partial<Record<WorkloadName, number>>;
  totalSeconds: number;
};

export async function runBench(options: RunOptions = {}): Promise<RunResults> {
  const config = options.config ?? DEFAULT_CONFIG;
  const contenders = options.contenders ?? CONTENDERS;
  const limiting = contenders.filter((contender) => LIMITING.includes(contender));
  const only = new Set(options.only ?? WORKLOADS);
  const log = options.log ?? (() => {});
  const begin = performance.now();
  const since = (): string => `${((performance.now() - begin) / 1000).toFixed(0)} s`;
  const results: RunResults = { config: {}, seconds: {}, totalSeconds: 0 };
  const step = async <W extends WorkloadName>(
    workload: W,
    title: string,
    run: () => Promise<NonNullable<RunResults[W]>>,
  ): Promise<void> => {
    if (!only.has(workload)) return;
    log(`${workload.toUpperCase()} ${title} (${since()})`);
    const started = performance.now();
    results[workload] = await run();
    results.seconds[workload] = (performance.now() - started) / 1000;
  };

  // W3 first: it waits on real timers and wants a quiet process, before W1's garbage.
  await step('w3', 'strictness', () => strictness(contendersFor('w3', limiting), config.w3));
  await step('w1', 'overhead', () => overhead(contendersFor('w1', contenders), config.w1));
  await step('w4', 'scaling', () => scaling(contendersFor('w4', contenders), config.w4));
  await step('w2', 'burst memory', () =>
    burstMemory(contendersFor('w2', contenders), { ...config.w2, parallel: options.parallel }),
  );
  // W5 and W6 run in child processes of their own: the garbage above does not reach them.
  await step('w5', 'at the limit', () => atTheLimit(contendersFor('w5', limiting), config.w5));
  await step('w6', 'shared limit', () => sharedLimit(options.sharedContenders ?? SHARED_CONTENDERS, config.w6));
  // W7 on real timers and HTTP, its providers in a child process: nothing else runs by then.
  await step('w7', 'language-model quota', () => llmQuota(config.w7, log));
  for (const workload of only) {
    if (workload === 'w6') results.config.w6 = { ...config.w6, server: await sharedLimitServer() };
    else (results.config as Record<string, unknown>)[workload] = config[workload];
  }
  log(`done (${since()})`);
  results.totalSeconds = (performance.now() - begin) / 1000;
  return results;
}

/**
 * The results to report: a full run's own; a partial run's merged into the last results, its
 * workloads (and their configuration) replacing theirs and every other kept as it was.
 */
export function mergeResults(run: RunResults, previous: BenchResults | undefined): BenchResults {
  const ran = WORKLOADS.filter((workload) => run[workload] !== undefined);
  if (WORKLOADS.every((workload) => ran.includes(workload))) {
    return { ...(run as BenchResults), config: run.config as BenchConfig };
  }
  if (previous === undefined) {
    throw new Error('Nothing to merge a partial run into (no bench/results/latest.json): run the full bench first.');
  }
  const merged: BenchResults = { ...previous, config: { ...previous.config, ...run.config } };
  const separately: Record<string, number> = { ...previous.separately };
  for (const workload of ran) {
    (merged as unknown as Record<string, unknown>)[workload] = run[workload];
    separately[workload] = run.seconds[workload] ?? 0;
  }
  merged.separately = separately;
  return merged;
}

const README = new URL('./README.md', import.meta.url);
const ANALYSIS = new URL('./analysis.md', import.meta.url);
const RESULTS = new URL('./results/latest.json', import.meta.url);

/** Results as JSON: contenders by id, Infinity spelled out (JSON has none; NaN becomes null). */
function saveResults(results: BenchResults): void {
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  const json = JSON.stringify(
    results,
    (key, value) =>
      key === 'contender' ? (value as { id: string }).id : value === Number.POSITIVE_INFINITY ? 'Infinity' : value,
    2,
  );
  writeFileSync(RESULTS, json);
}

/** A contender of any workload by id (W6's share no id with the others). */
function anyContender(id: string): Contender | SharedContender {
  return SHARED_CONTENDERS.some((candidate) => candidate.id === id) ? sharedContender(id) : contender(id);
}

function loadResults(): BenchResults | undefined {
  if (!existsSync(RESULTS)) return undefined;
  // JSON has no NaN: saved numbers that did not apply come back as null, and are NaN again.
  return JSON.parse(readFileSync(RESULTS, 'utf8'), (key, value) =>
    key === 'contender'
      ? anyContender(value as string)
      : value === 'Infinity'
        ? Number.POSITIVE_INFINITY
        : value === null
          ? Number.NaN
          : value,
  ) as BenchResults;
}

function writeReadme(results: BenchResults): void {
  const analysis = existsSync(ANALYSIS) ? readFileSync(ANALYSIS, 'utf8') : '(no analysis yet)';
  writeFileSync(README, readme(results, CONTENDERS, SHARED_CONTENDERS, analysis));
  console.error('wrote bench/README.md');
}

/** `--only w5,w6` or `--only=w5,w6`: the workloads named, checked. */
function onlyFlag(argv: readonly string[]): WorkloadName[] | undefined {
  const at = argv.findIndex((arg) => arg === '--only' || arg.startsWith('--only='));
  if (at === -1) return undefined;
  const arg = argv[at] as string;
  const list = (arg === '--only' ? (argv[at + 1] ?? '') : arg.slice('--only='.length)).split(',').filter(Boolean);
  const unknown = list.filter((name) => !(WORKLOADS as readonly string[]).includes(name));
  if (list.length === 0 || unknown.length > 0) {
    throw new Error(`--only takes workloads among ${WORKLOADS.join(', ')}, comma-separated; got "${list.join(',')}"`);
  }
  return list as WorkloadName[];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--rewrite')) {
    // The README again from the last run's results (after editing bench/analysis.md), without running.
    const results = loadResults();
    if (results === undefined) throw new Error('No bench/results/latest.json to rewrite the README from.');
    writeReadme(results);
  } else {
    if ((globalThis as { gc?: unknown }).gc === undefined) {
      console.error('Run with node --expose-gc (npm run bench does).');
      process.exit(1);
    }
    const only = onlyFlag(process.argv);
    const run = await runBench({ log: (line) => console.error(line), ...(only ? { only } : {}) });
    const results = mergeResults(run, loadResults());
    console.log(resultTables(results));
    if (!process.argv.includes('--no-write')) {
      saveResults(results);
      writeReadme(results);
    }
  }
}
