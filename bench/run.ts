/**
 * `npm run bench` (node --expose-gc --import tsx bench/run.ts): runs W1-W4 on
 * every contender, prints the tables and writes bench/README.md.
 *
 *   npm run bench                 the full run (about three minutes); writes bench/README.md
 *                                 and bench/results/latest.json
 *   npm run bench -- --no-write   print only
 *   npm run bench -- --rewrite    README.md again from results/latest.json (after editing analysis.md)
 *
 * The sizes live in DEFAULT_CONFIG; the test (test/bench) runs the same
 * functions at a tiny size and never writes the README.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONTENDERS, type Contender, contender, contendersFor, LIMITING } from './contenders.js';
import { type BenchResults, readme, resultTables } from './report.js';
import { overhead } from './w1-overhead.js';
import { BURST_RATE, burstMemory } from './w2-burst-memory.js';
import { STRICTNESS_DEFAULTS, strictness } from './w3-strictness.js';
import { scaling } from './w4-scaling.js';

export type BenchConfig = BenchResults['config'];

export const DEFAULT_CONFIG: BenchConfig = {
  w1: { size: 200_000, rounds: 5 },
  w2: { size: 1_000_000, rounds: 1, rate: BURST_RATE },
  w3: STRICTNESS_DEFAULTS,
  w4: { small: 100_000, large: 400_000, rounds: 3 },
};

export interface RunOptions {
  config?: BenchConfig;
  contenders?: readonly Contender[];
  /** Progress lines (to stderr in the CLI). */
  log?: (line: string) => void;
  /** Children W2 runs at once (default 2, one per core here: W2 is a third of the run otherwise). */
  parallel?: number;
}

export async function runBench(options: RunOptions = {}): Promise<BenchResults> {
  const config = options.config ?? DEFAULT_CONFIG;
  const contenders = options.contenders ?? CONTENDERS;
  const limiting = contenders.filter((contender) => LIMITING.includes(contender));
  const log = options.log ?? (() => {});
  const begin = performance.now();
  const since = (): string => `${((performance.now() - begin) / 1000).toFixed(0)} s`;

  log(`W3 strictness (${since()})`);
  // W3 first: it waits on real timers and wants a quiet process, before W1's garbage.
  const w3 = await strictness(contendersFor('w3', limiting), config.w3);
  log(`W1 overhead (${since()})`);
  const w1 = await overhead(contendersFor('w1', contenders), config.w1);
  log(`W4 scaling (${since()})`);
  const w4 = await scaling(contendersFor('w4', contenders), config.w4);
  log(`W2 burst memory (${since()})`);
  const w2 = await burstMemory(contendersFor('w2', contenders), { ...config.w2, parallel: options.parallel ?? 2 });
  log(`done (${since()})`);
  return { config, w1, w2, w3, w4, totalSeconds: (performance.now() - begin) / 1000 };
}

const README = new URL('./README.md', import.meta.url);
const ANALYSIS = new URL('./analysis.md', import.meta.url);
const RESULTS = new URL('./results/latest.json', import.meta.url);

/** Results as JSON: contenders by id, Infinity spelled out (JSON has none). */
function saveResults(results: BenchResults): void {
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  const json = JSON.stringify(
    results,
    (key, value) =>
      key === 'contender' ? (value as Contender).id : value === Number.POSITIVE_INFINITY ? 'Infinity' : value,
    2,
  );
  writeFileSync(RESULTS, json);
}

function loadResults(): BenchResults {
  return JSON.parse(readFileSync(RESULTS, 'utf8'), (key, value) =>
    key === 'contender' ? contender(value as string) : value === 'Infinity' ? Number.POSITIVE_INFINITY : value,
  ) as BenchResults;
}

function writeReadme(results: BenchResults): void {
  const analysis = existsSync(ANALYSIS) ? readFileSync(ANALYSIS, 'utf8') : '(no analysis yet)';
  writeFileSync(README, readme(results, CONTENDERS, analysis));
  console.error('wrote bench/README.md');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--rewrite')) {
    // The README again from the last run's results (after editing bench/analysis.md), without running.
    writeReadme(loadResults());
  } else {
    if ((globalThis as { gc?: unknown }).gc === undefined) {
      console.error('Run with node --expose-gc (npm run bench does).');
      process.exit(1);
    }
    const results = await runBench({ log: (line) => console.error(line) });
    console.log(resultTables(results));
    if (!process.argv.includes('--no-write')) {
      saveResults(results);
      writeReadme(results);
    }
  }
}
