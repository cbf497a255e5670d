/**
 * Turns the workloads' results into the markdown that `npm run bench` prints
 * (and bench/readme.ts wraps into bench/README.md): one table per workload,
 * and the targets of issue 6 with whether each is met; W5's and W6's come
 * from report-w5-w6.ts.
 */
import type { BenchResults, Target } from './bench-results.js';
import type { Contender } from './contenders.js';
import { fixed, integer, table, yes } from './markdown.js';
import { laterTargetsTable, w5Tables, w6Tables } from './report-w5-w6.js';
import { w7Tables } from './report-w7.js';
import type { OverheadResult } from './w1-overhead.js';

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
    ...laterTargetsTable(results),
    ...w5Tables(results),
    ...w6Tables(results),
    ...w7Tables(results),
  ].join('\n');
}
