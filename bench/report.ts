/**
 * Turns the workloads' results into the markdown that `npm run bench` prints
 * and writes to bench/README.md: the machine, the versions, one table per
 * workload, and the targets of issue 6 with whether each is met.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import type { Contender, RateSpec } from './contenders.js';
import type { OverheadResult } from './w1-overhead.js';
import type { BurstMemoryResult } from './w2-burst-memory.js';
import type { StrictnessOptions, StrictnessResult } from './w3-strictness.js';
import type { ScalingResult } from './w4-scaling.js';

export interface BenchResults {
  config: {
    w1: { size: number; rounds: number };
    w2: { size: number; rounds: number; rate: RateSpec };
    w3: StrictnessOptions;
    w4: { small: number; large: number; rounds: number };
  };
  w1: OverheadResult[];
  w2: BurstMemoryResult[];
  w3: StrictnessResult[];
  w4: ScalingResult[];
  totalSeconds: number;
}

export interface Target {
  workload: string;
  target: string;
  measured: string;
  met: boolean;
}

const require = createRequire(import.meta.url);

/** The installed version of a package (what actually ran, not the range in package.json). */
export function installedVersion(name: string): string {
  try {
    const path = require.resolve(`${name}/package.json`);
    return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
  } catch {
    // Packages whose exports hide package.json: find it next to the entry point.
    const entry = require.resolve(name);
    const root = entry.slice(0, entry.lastIndexOf(`/node_modules/${name}/`) + `/node_modules/${name}/`.length);
    return (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string }).version;
  }
}

export function machineDescription(): string[] {
  const cores = cpus();
  return [
    `- CPU: ${cores[0]?.model.trim() ?? 'unknown'}, ${cores.length} cores`,
    `- Node ${process.version} (${process.platform} ${process.arch}), V8 ${process.versions.v8}`,
    `- ${['xstate', 'rxjs', 'bottleneck', 'p-throttle', 'p-queue', 'limiter'].map((name) => `${name} ${installedVersion(name)}`).join(', ')}; xstate-throttler ${installedOwnVersion()} (this checkout)`,
  ];
}

function installedOwnVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

const integer = (value: number): string =>
  Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : value > 0 ? '∞' : 'n/a';
const fixed = (value: number, digits: number): string =>
  Number.isFinite(value) ? value.toFixed(digits) : value > 0 ? '∞' : 'n/a';
const yes = (met: boolean): string => (met ? '**met**' : '**missed**');

function byId<T extends { contender: Contender }>(results: readonly T[], id: string): T | undefined {
  return results.find((result) => result.contender.id === id);
}

/** The fastest W1 result among peers, optionally only those that queue. */
function fastestPeer(w1: readonly OverheadResult[], queueingOnly: boolean): OverheadResult | undefined {
  return w1
    .filter((result) => result.contender.kind === 'peer' && (!queueingOnly || result.contender.queues))
    .sort((a, b) => b.tasksPerSecond - a.tasksPerSecond)[0];
}

/** ", n% of <its floor>" when the contender has a floor among the results. */
function ofFloor(w1: readonly OverheadResult[], result: OverheadResult): string {
  const floor = result.contender.floor === undefined ? undefined : byId(w1, result.contender.floor);
  if (floor === undefined) return '';
  return `; ${fixed((100 * result.tasksPerSecond) / floor.tasksPerSecond, 0)}% of ${floor.contender.name}`;
}

export function targets(results: BenchResults): Target[] {
  const out: Target[] = [];
  const queueingPeer = fastestPeer(results.w1, true);
  const anyPeer = fastestPeer(results.w1, false);
  for (const id of ['machine-sliding', 'machine-timer', 'machine-batch']) {
    const ours = byId(results.w1, id);
    if (ours === undefined || queueingPeer === undefined) continue;
    const ratio = ours.tasksPerSecond / queueingPeer.tasksPerSecond;
    out.push({
      workload: 'W1',
      target: `${ours.contender.name}: at least 2x the fastest peer that queues (${queueingPeer.contender.name})`,
      measured:
        `${integer(ours.tasksPerSecond)} vs ${integer(queueingPeer.tasksPerSecond)} tasks/s: ${fixed(ratio, 2)}x` +
        ofFloor(results.w1, ours),
      met: ratio >= 2,
    });
  }
  const promise = byId(results.w1, 'promise-sliding');
  if (promise !== undefined && anyPeer !== undefined) {
    const ratio = promise.tasksPerSecond / anyPeer.tasksPerSecond;
    out.push({
      workload: 'W1',
      target: `${promise.contender.name}: at least as fast as the fastest peer (${anyPeer.contender.name})`,
      measured:
        `${integer(promise.tasksPerSecond)} vs ${integer(anyPeer.tasksPerSecond)} tasks/s: ${fixed(ratio, 2)}x` +
        ofFloor(results.w1, promise),
      met: ratio >= 1,
    });
  }
  const promiseFloor = byId(results.w2, 'baseline-promise-queue');
  for (const id of ['machine-sliding', 'machine-batch', 'promise-sliding']) {
    const ours = byId(results.w2, id);
    if (ours === undefined) continue;
    if (id === 'promise-sliding' && promiseFloor !== undefined) {
      // A promise API hands back a promise per task: the task itself, for it, includes that promise.
      const beyond = ours.waitingBytes - promiseFloor.waitingBytes;
      out.push({
        workload: 'W2',
        target: `${ours.contender.name}: under 100 bytes per waiting task beyond the task and the bare promise it gets back (${promiseFloor.contender.name})`,
        measured: `${fixed(ours.waitingBytes, 1)} − ${fixed(promiseFloor.waitingBytes, 1)} = ${fixed(beyond, 1)} bytes`,
        met: ours.complete && promiseFloor.complete && beyond < 100,
      });
    } else {
      out.push({
        workload: 'W2',
        target: `${ours.contender.name}: under 100 bytes per waiting task beyond the task`,
        measured: `${fixed(ours.waitingBytes, 1)} bytes`,
        met: ours.complete && ours.waitingBytes < 100,
      });
    }
    out.push({
      workload: 'W2',
      target: `${ours.contender.name}: ${integer(results.config.w2.size)} tasks enqueued in under 1 s`,
      measured: `${fixed(ours.enqueueSeconds, 2)} s`,
      met: ours.complete && ours.enqueueSeconds < 1,
    });
  }
  // The W3 targets are for the strict strategy; the timer strategy allows up to 2N in a window by design.
  for (const sliding of results.w3.filter(
    (one) => one.contender.kind === 'ours' && one.contender.id !== 'machine-timer',
  )) {
    out.push({
      workload: 'W3',
      target: `${sliding.contender.name}: zero violating windows`,
      measured: `${sliding.violatingWindows} (most in any window: ${sliding.mostInWindow})`,
      met: sliding.started === sliding.tasks && sliding.violatingWindows === 0,
    });
    out.push({
      workload: 'W3',
      target: `${sliding.contender.name}: p99 lateness under 2 ms`,
      measured: `${fixed(sliding.latenessP99Ms, 2)} ms (own-window delay p99: ${fixed(sliding.ownDelayP99Ms, 2)} ms)`,
      met: sliding.started === sliding.tasks && sliding.latenessP99Ms < 2,
    });
  }
  for (const result of results.w4.filter((one) => one.contender.kind === 'ours')) {
    out.push({
      workload: 'W4',
      target: `${result.contender.name}: time(${integer(result.large)}) / time(${integer(result.small)}) at most 4.6`,
      measured: fixed(result.ratio, 2),
      met: result.complete && result.ratio <= 4.6,
    });
  }
  return out;
}

function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map((_, index) => (index === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ];
}

export function w1Table(results: BenchResults): string[] {
  const queueingPeer = fastestPeer(results.w1, true);
  const promises = byId(results.w1, 'baseline-promises');
  return table(
    [
      'contender',
      'tasks',
      'rounds',
      'median s',
      'tasks/s',
      '× fastest queueing peer',
      '× promise baseline',
      '× its floor',
    ],
    results.w1.map((result) => {
      const floor = result.contender.floor === undefined ? undefined : byId(results.w1, result.contender.floor);
      return [
        result.contender.name + (result.complete ? '' : ' (incomplete!)'),
        integer(result.size),
        String(result.runs.length),
        fixed(result.seconds, 3),
        integer(result.tasksPerSecond),
        queueingPeer ? fixed(result.tasksPerSecond / queueingPeer.tasksPerSecond, 2) : 'n/a',
        promises ? fixed(result.tasksPerSecond / promises.tasksPerSecond, 2) : 'n/a',
        floor ? `${fixed(result.tasksPerSecond / floor.tasksPerSecond, 2)} (${floor.contender.name})` : '',
      ];
    }),
  );
}

export function w2Table(results: BenchResults): string[] {
  return table(
    ['contender', 'enqueue s', 'bytes/waiting task', 'task itself (bytes)', 'started', 'stop s', 'exits by itself'],
    results.w2.map((result) => [
      result.contender.name + (result.complete ? '' : ' (incomplete!)'),
      fixed(result.enqueueSeconds, 3),
      fixed(result.waitingBytes, 1),
      fixed(result.taskBytes, 1),
      result.runs.map((run) => run.started).join(', '),
      result.runs.every((run) => !run.stoppable) ? 'no stop' : fixed(result.stopSeconds, 3),
      result.exitedCleanly ? 'yes' : 'no (killed)',
    ]),
  );
}

export function w3Table(results: BenchResults): string[] {
  const { limit } = results.config.w3.rate;
  return table(
    [
      'contender',
      'started',
      `most in any ${results.config.w3.rate.interval} ms`,
      `windows > ${limit}`,
      'lateness median ms',
      'lateness p99 ms',
      'earliest vs ideal ms',
      'own-window delay median / p99 ms',
    ],
    results.w3.map((result) => [
      result.contender.name,
      `${result.started}/${result.tasks}`,
      String(result.mostInWindow),
      String(result.violatingWindows),
      fixed(result.latenessMedianMs, 2),
      fixed(result.latenessP99Ms, 2),
      fixed(result.latenessMinMs, 2),
      `${fixed(result.ownDelayMedianMs, 2)} / ${fixed(result.ownDelayP99Ms, 2)}`,
    ]),
  );
}

export function w4Table(results: BenchResults): string[] {
  return table(
    ['contender', 'small', 'large', 'small s', 'large s', 'ratio (ideal 4.0)'],
    results.w4.map((result) => [
      result.contender.name + (result.complete ? '' : ' (incomplete!)'),
      integer(result.small),
      integer(result.large),
      fixed(result.smallSeconds, 3),
      fixed(result.largeSeconds, 3),
      fixed(result.ratio, 2),
    ]),
  );
}

export function targetsTable(results: BenchResults): string[] {
  return table(
    ['workload', 'target (issue 6)', 'measured', 'status'],
    targets(results).map((target) => [target.workload, target.target, target.measured, yes(target.met)]),
  );
}

/** The tables alone: what `npm run bench` prints. */
export function resultTables(results: BenchResults): string {
  const { w1, w2, w3, w4 } = results.config;
  return [
    '### Targets',
    '',
    ...targetsTable(results),
    '',
    `### W1 overhead: ${integer(w1.size)} trivial tasks at 1e9/s (median of ${w1.rounds} rounds)`,
    '',
    ...w1Table(results),
    '',
    `### W2 burst memory: ${integer(w2.size)} tasks at once into ${w2.rate.limit}/${w2.rate.interval} ms (median of ${w2.rounds})`,
    '',
    ...w2Table(results),
    '',
    `### W3 strictness and precision: ${w3.rate.limit}/${w3.rate.interval} ms, bursts of ${w3.bursts.join(', ')} every ${w3.burstEvery} ms`,
    '',
    ...w3Table(results),
    '',
    `### W4 scaling: W1 at ${integer(w4.small)} and ${integer(w4.large)} tasks (median of ${w4.rounds} rounds)`,
    '',
    ...w4Table(results),
    '',
  ].join('\n');
}

function configurations(contenders: readonly Contender[], rate: RateSpec): string[] {
  return contenders.flatMap((contender) => [
    `- **${contender.name}**: \`${contender.configuration(rate)}\`. ${contender.why}` +
      (contender.scale ? ` *Runs a reduced count:* ${contender.scale.reason}` : ''),
  ]);
}

/**
 * bench/README.md: the generated tables between a fixed explanation of the
 * workloads and configurations, and the hand-written analysis (bench/analysis.md,
 * profile evidence for any missed target), which is kept verbatim.
 */
export function readme(results: BenchResults, contenders: readonly Contender[], analysis: string): string {
  const { w1, w2, w3, w4 } = results.config;
  return [
    '# Benchmarks: xstate-throttler against the libraries users would pick instead',
    '',
    '<!-- Generated by `npm run bench` (bench/run.ts); the analysis section comes from bench/analysis.md. -->',
    '',
    `Run with \`npm run bench\` (\`node --expose-gc --import tsx bench/run.ts\`). Last run took ${fixed(results.totalSeconds, 0)} s on:`,
    '',
    ...machineDescription(),
    '',
    '## Workloads',
    '',
    `- **W1 overhead.** ${integer(w1.size)} trivial tasks (each increments a counter) through a limit that never binds, 1e9 per second, end to end: from handing the first task over until every task has run and every promise the API returned has settled. Tasks per second, median of ${w1.rounds} rounds taken round-robin over the contenders. The two baselines limit nothing and show how close to the floor each library is.`,
    `- **W2 burst memory.** ${integer(w2.size)} tasks handed over at once to ${w2.rate.limit} per ${w2.rate.interval} ms. Time to hand them all over (plus one macrotask turn, so deferred bookkeeping counts), and heap per waiting task beyond the task itself: with \`global.gc()\` before each reading, the heap with the tasks built and held in a plain array is subtracted from the heap once they are handed over (the tasks are alive in both; the promise an API returns counts, it made it). Then stop (\`actor.stop()\`, \`throttler.stop()\`, \`unsubscribe()\`, Bottleneck \`stop({ dropWaitingJobs: true })\` + \`disconnect()\`, p-throttle's abort signal, p-queue \`clear()\`; limiter has none). Each run is a child process, so every contender starts on a fresh heap and the process must exit by itself once stopped: "exits by itself" says whether it did within 3 s; a stop that has not finished within 5 s shows as ∞. Two children run at a time (one per core).`,
    `- **W3 strictness and precision, real timers.** ${w3.rate.limit} per ${w3.rate.interval} ms; ${w3.bursts.reduce((sum, size) => sum + size, 0)} tasks in bursts of ${w3.bursts.join(', ')} every ${w3.burstEvery} ms, so the queue builds up and drains for about ${fixed((w3.bursts.reduce((sum, size) => sum + size, 0) / w3.rate.limit) * (w3.rate.interval / 1000), 0)} s. Every task records its start with \`performance.now()\`. Brute force over the starts: the most in any window of ${w3.rate.interval} ms, the number of windows (one beginning at each start) holding more than ${w3.rate.limit}, and lateness against the ideal strict schedule: the earliest start a strict sliding window allows given the real arrival times (\`idealStrictSchedule\` in bench/stats.ts: task i starts no earlier than it arrived, than task i-1 started, and than ${w3.rate.interval} ms after task i-${w3.rate.limit} started). Negative lateness means a start earlier than any strict window allows. For a strict limiter every late wake-up is carried into all later windows (task i+${w3.rate.limit} may not start before task i did + ${w3.rate.interval} ms), so lateness against the ideal adds up over the ${fixed(Math.ceil(w3.bursts.reduce((sum, size) => sum + size, 0) / w3.rate.limit), 0)} windows of the run; the *own-window delay* (\`delayBehindOwnWindow\`) measures each start against the earliest the contender's own earlier starts allowed, i.e. the delay each decision adds by itself. Each contender first runs ${integer(w3.warmUpTasks ?? 2_000)} tasks through a limit that never binds, untimed, so that the first burst is not billed for the JIT; then all contenders run in the same period, each shifted by a fraction of the interval so that their timers do not fire in the same instant.`,
    `- **W4 scaling.** W1 at ${integer(w4.small)} and ${integer(w4.large)} tasks, median of ${w4.rounds} rounds each; the ratio of the times is 4.0 when the work per task does not grow with the count.`,
    '',
    '## Contenders and why each configuration is the closest',
    '',
    'Rates below are for W1 (1e9 per 1000 ms); W2 and W3 use the same code with their own rate.',
    '',
    ...configurations(contenders, { limit: 1_000_000_000, interval: 1000 }),
    '',
    '"Queues" in the targets means the library holds waiting tasks in a queue of its own: ours, Bottleneck and p-queue. p-throttle and limiter park every waiting call on its own `setTimeout` instead.',
    '',
    '## Results',
    '',
    resultTables(results),
    '## Analysis',
    '',
    analysis.trim(),
    '',
  ].join('\n');
}
