/**
 * The report's part for W5 (at the limit, issue 16) and W6 (shared limit, issue 13): their
 * tables, their targets, and the paragraphs that say what they measure. Results from before these
 * workloads existed have neither; then there is nothing to show.
 */

import type { BenchResults, Target } from './bench-results.js';
import { issue16Targets } from './issue16-targets.js';
import { fixed, integer, table, yes } from './markdown.js';
import type { AtTheLimitResult, AtTheLimitRun } from './w5-at-the-limit.js';
import { WAITING_GAP_MS } from './w5-at-the-limit.js';
import type { SharedContender } from './w6-shared-contender.js';

const perSecond = (limit: number, interval: number): number => (limit * 1000) / interval;

/** The contender's name, and why its run has no numbers if it has none. */
function label(contender: { name: string }, run: { error?: string }): string {
  return run.error === undefined
    ? contender.name
    : `${contender.name} (failed: ${run.error.replace(/\|/g, '/').slice(0, 120)})`;
}

const started = (run: AtTheLimitRun): string => `${integer(run.delivered)}/${integer(run.backlog)}`;
const handOver = (run: AtTheLimitRun): string => `${fixed(run.handOverMs, 0)} (${fixed(run.handOverCpuUs / 1000, 0)})`;
const ownDelay = (run: AtTheLimitRun): string => `${fixed(run.ownDelayP50Ms, 2)} / ${fixed(run.ownDelayP99Ms, 2)}`;

export function w5Tables(results: BenchResults): string[] {
  const w5 = results.w5;
  const config = results.config.w5;
  if (w5 === undefined || config === undefined) return [];
  const { drain, steady } = config;
  const drainLimit = perSecond(drain.rate.limit, drain.rate.interval);
  return [
    `### W5 at the limit: ${integer(drain.rate.limit)} per ${drain.rate.interval} ms, ${integer(drain.backlog)} tasks at once`,
    '',
    ...table(
      [
        'contender',
        'started',
        'CPU µs/task',
        'hand-over ms (CPU ms)',
        'drained at /s (% of limit)',
        `most in any ${drain.rate.interval} ms`,
        `windows > ${integer(drain.rate.limit)}`,
        'own-window delay p50 / p99 ms',
      ],
      w5.map(({ contender, drain: run }) => [
        label(contender, run),
        started(run),
        fixed(run.cpuPerTaskUs, 2),
        handOver(run),
        `${integer(run.ratePerSecond)} (${fixed((100 * run.ratePerSecond) / drainLimit, 2)}%)`,
        integer(run.mostInWindow),
        integer(run.violatingWindows),
        ownDelay(run),
      ]),
    ),
    '',
    `### W5 at a typical API limit: ${integer(steady.rate.limit)} per ${steady.rate.interval} ms, ${integer(steady.backlog)} tasks at once, ${fixed((steady.durationMs ?? 0) / 1000, 1)} s`,
    '',
    ...table(
      [
        'contender',
        'started',
        'CPU µs/task after the hand-over',
        'hand-over ms (CPU ms)',
        'CPU while waiting, ms/s',
        `most in any ${steady.rate.interval} ms`,
        `windows > ${integer(steady.rate.limit)}`,
        'own-window delay p50 / p99 ms',
      ],
      w5.map(({ contender, steady: run }) => [
        label(contender, run),
        started(run),
        fixed(run.cpuPerTaskUs, 1),
        handOver(run),
        fixed(run.waitingCpuMsPerSecond, 2),
        integer(run.mostInWindow),
        integer(run.violatingWindows),
        ownDelay(run),
      ]),
    ),
    '',
  ];
}

export function w6Tables(results: BenchResults): string[] {
  const w6 = results.w6;
  const config = results.config.w6;
  if (w6 === undefined || config === undefined) return [];
  const { binding, free, processes } = config;
  const bottleneck = w6.find((result) => result.contender.id === 'bottleneck-cluster');
  return [
    `### W6 shared limit: ${processes} processes share ${integer(binding.rate.limit)} per ${binding.rate.interval} ms, ${integer(binding.backlogPerProcess)} tasks each at one moment (${config.server})`,
    '',
    ...table(
      [
        'contender',
        'started',
        'span s',
        `most in any ${binding.rate.interval} ms`,
        `windows > ${integer(binding.rate.limit)}`,
        'worst too soon, ms',
        'on Redis time: most / windows',
        'lateness p50 / p99 ms',
        'round trips/task',
        'commands/task',
      ],
      w6.map(({ contender, binding: run }) => [
        label(contender, run),
        `${integer(run.started)}/${integer(run.tasks)}`,
        fixed(run.spanMs / 1000, 2),
        integer(run.mostInWindow),
        integer(run.violatingWindows),
        fixed(run.shortfallMs, 2),
        Number.isFinite(run.redisMostInWindow)
          ? `${integer(run.redisMostInWindow)} / ${integer(run.redisViolatingWindows)}`
          : 'not exposed',
        `${fixed(run.latenessP50Ms, 1)} / ${fixed(run.latenessP99Ms, 1)}`,
        fixed(run.roundTripsPerTask, 3),
        fixed(run.commandsPerTask, 3),
      ]),
    ),
    '',
    `### W6 throughput: ${processes} processes, a limit that never binds (${integer(free.rate.limit)} per ${free.rate.interval} ms), ${integer(free.backlogPerProcess)} tasks each at one moment, at most ${fixed(free.durationMs / 1000, 0)} s`,
    '',
    ...table(
      ['contender', 'started', 'span s', 'tasks/s', '× Bottleneck clustering', 'round trips/task', 'commands/task'],
      w6.map(({ contender, free: run }) => [
        label(contender, run),
        `${integer(run.started)}/${integer(run.tasks)}`,
        fixed(run.spanMs / 1000, 2),
        integer(run.tasksPerSecond),
        bottleneck ? fixed(run.tasksPerSecond / bottleneck.free.tasksPerSecond, 1) : 'n/a',
        fixed(run.roundTripsPerTask, 4),
        fixed(run.commandsPerTask, 4),
      ]),
    ),
    '',
  ];
}

function w5Targets(results: BenchResults): Target[] {
  const w5 = results.w5;
  const config = results.config.w5;
  if (w5 === undefined || config === undefined) return [];
  const out: Target[] = [];
  const peers = w5.filter((result) => result.contender.kind === 'peer');
  const lowestPeer = (scenario: 'drain' | 'steady'): AtTheLimitResult | undefined =>
    peers
      .filter((result) => Number.isFinite(result[scenario].cpuPerTaskUs))
      .sort((a, b) => a[scenario].cpuPerTaskUs - b[scenario].cpuPerTaskUs)[0];
  const limit = perSecond(config.drain.rate.limit, config.drain.rate.interval);
  for (const ours of w5.filter((result) => result.contender.kind === 'ours')) {
    const { name } = ours.contender;
    for (const scenario of ['drain', 'steady'] as const) {
      const peer = lowestPeer(scenario);
      if (peer === undefined) continue;
      const rate = config[scenario].rate;
      out.push({
        workload: 'W5',
        target: `${name}: the lowest CPU per task of all contenders at ${integer(rate.limit)}/${rate.interval} ms (lowest peer: ${peer.contender.name})`,
        measured: `${fixed(ours[scenario].cpuPerTaskUs, 2)} vs ${fixed(peer[scenario].cpuPerTaskUs, 2)} µs`,
        met: ours[scenario].cpuPerTaskUs < peer[scenario].cpuPerTaskUs,
      });
    }
    const drained = ours.drain.ratePerSecond;
    out.push({
      workload: 'W5',
      target: `${name}: the backlog drained within 0.5% of the limit (${integer(limit)}/s)`,
      measured: `${integer(drained)}/s (${fixed((100 * (drained - limit)) / limit, 2)}%)`,
      met: ours.drain.delivered === ours.drain.backlog && Math.abs(drained - limit) <= 0.005 * limit,
    });
    out.push({
      workload: 'W5',
      target: `${name}: zero violating windows`,
      measured: `${integer(ours.drain.violatingWindows)} and ${integer(ours.steady.violatingWindows)}`,
      met: ours.drain.violatingWindows === 0 && ours.steady.violatingWindows === 0,
    });
  }
  return out;
}

function w6Targets(results: BenchResults): Target[] {
  const w6 = results.w6;
  if (w6 === undefined) return [];
  const out: Target[] = [];
  const bottleneck = w6.find((result) => result.contender.id === 'bottleneck-cluster');
  for (const ours of w6.filter((result) => result.contender.kind === 'ours')) {
    const { name } = ours.contender;
    const peers = w6
      .filter((result) => result.contender.kind === 'peer')
      .map((result) => `${result.contender.name} ${integer(result.binding.violatingWindows)}`)
      .join(', ');
    out.push({
      workload: 'W6',
      target: `${name}: zero violating windows on the common clock`,
      measured: `${integer(ours.binding.violatingWindows)} (on Redis time ${integer(ours.binding.redisViolatingWindows)}; ${peers})`,
      met: ours.binding.started === ours.binding.tasks && ours.binding.violatingWindows === 0,
    });
    out.push({
      workload: 'W6',
      target: `${name}: at most 0.1 round trips per task for a backlog handed over at once`,
      measured: `${fixed(ours.binding.roundTripsPerTask, 3)} binding, ${fixed(ours.free.roundTripsPerTask, 4)} not binding`,
      met: ours.binding.roundTripsPerTask <= 0.1 && ours.free.roundTripsPerTask <= 0.1,
    });
    if (bottleneck !== undefined) {
      const ratio = ours.free.tasksPerSecond / bottleneck.free.tasksPerSecond;
      out.push({
        workload: 'W6',
        target: `${name}: throughput on a limit that never binds at least 5x Bottleneck's clustering`,
        measured: `${integer(ours.free.tasksPerSecond)} vs ${integer(bottleneck.free.tasksPerSecond)} tasks/s: ${fixed(ratio, 1)}x`,
        met: ours.free.started === ours.free.tasks && ratio >= 5,
      });
    }
  }
  return out;
}

/** The targets of issues 16 and 13, in a table of their own below those of issue 6. */
export function laterTargetsTable(results: BenchResults): string[] {
  const targets = [...issue16Targets(results), ...w5Targets(results), ...w6Targets(results)];
  if (targets.length === 0) return [];
  return [
    '### Targets of issue 16 (W1-W3, W5) and issue 13 (W6)',
    '',
    ...table(
      ['workload', 'target', 'measured', 'status'],
      targets.map((target) => [target.workload, target.target, target.measured, yes(target.met)]),
    ),
    '',
  ];
}

/** The workloads' paragraphs for the README. */
export function w5w6Workloads(results: BenchResults): string[] {
  const { w5, w6 } = results.config;
  const lines: string[] = [];
  if (w5 !== undefined) {
    const { drain, steady } = w5;
    lines.push(
      `- **W5 at the limit, real timers** (issue 16). ${integer(drain.rate.limit)} per ${drain.rate.interval} ms with ${integer(drain.backlog)} tasks handed over at once, until the last starts (abandoned ${fixed((drain.graceMs ?? 0) / 1000, 0)} s after the ideal schedule's end); and ${integer(steady.rate.limit)} per ${steady.rate.interval} ms with ${integer(steady.backlog)} tasks at once, for ${fixed((steady.durationMs ?? 0) / 1000, 1)} s (the backlog would take ${fixed(steady.backlog / perSecond(steady.rate.limit, steady.rate.interval), 0)} s; ${fixed((steady.durationMs ?? 0) / steady.rate.interval, 1)} intervals: the first window's ${integer(steady.rate.limit)} and ${integer(Math.floor((steady.durationMs ?? 0) / steady.rate.interval))} refills, ending between two so that a refill a few ms late is not cut off). Contenders: our machine with one \`QUEUE\` per task and with \`QUEUE_BATCH\`, \`createThrottler\`, \`throttleQueue\` (all sliding-window) and the four peers, configured as for W1-W3. Each run is a child process of its own, one at a time, after ${integer(w5.warmUpTasks)} untimed tasks through a limit that never binds. *CPU per task* is \`process.cpuUsage()\` (user + system, all threads of the process): over the whole run, hand-over included, per started task at ${integer(drain.rate.limit)}; after the hand-over, per task started after it, at ${integer(steady.rate.limit)} (the hand-over is shown on its own). *Drained at* is (starts − limit) / (last start − the limit-th start): every contender here may let its first window's worth go at once, and after that a backlog drains at the limit at best, so an ideal strict window scores exactly the limit, however long its first window's tasks take to start (a strict window repeats that spread in every window; measured from the first start, it cost a limiter with no lateness at 5 µs a task 0.55%); what is missing is lateness carried forward (stats.ts \`drainRate\`). Windows and own-window delay are as in W3 (window counts in one pass over the sorted starts, \`windowCounts\`, checked against the brute force in test/bench). *CPU while waiting* is the CPU spent in the gaps of ${WAITING_GAP_MS} ms or more between starts (and from the last start to the end), per second of such gaps: what waiting for the window costs, including the wake-up that ends it. Every start reads \`performance.now()\` (and, at ${integer(steady.rate.limit)}, \`process.cpuUsage()\`), the same for every contender.`,
    );
  }
  if (w6 !== undefined) {
    const { binding, free, processes } = w6;
    lines.push(
      `- **W6 shared limit, real Redis** (issue 13). ${processes} processes (\`child_process.fork\`) share one limit. Binding: ${integer(binding.rate.limit)} per ${binding.rate.interval} ms, every process handing ${integer(binding.backlogPerProcess)} tasks over at one common moment (${integer(processes * binding.backlogPerProcess)} in all; a strict window starts the last about ${fixed(Math.floor((processes * binding.backlogPerProcess - 1) / binding.rate.limit) * (binding.rate.interval / 1000), 0)} s in; cut off after ${fixed(binding.durationMs / 1000, 0)} s). Not binding: ${integer(free.rate.limit)} per ${free.rate.interval} ms, ${integer(free.backlogPerProcess)} tasks per process, at most ${fixed(free.durationMs / 1000, 0)} s. Each phase is a fresh fleet under a fresh name whose keys are deleted afterwards. Times are on one common clock, this host's \`performance.timeOrigin + performance.now()\`, read in each process when a task starts: all processes run on this host, where that reading agrees between processes to within about 10 µs, while Redis \`TIME\` would cost a round trip per task and say when a command ran, not when the task started. Windows by brute force over the fleet's merged starts, as W3; lateness is the k-th start of the fleet against the k-th start of the ideal strict schedule for the real hand-over times. For ours the grants' Redis times (read from the reservations) are judged too: the store promises strictness on Redis time, and a grant is sent at reply arrival + waitMs on the process's timer, so the common clock adds each reply's and each timer's jitter. *Round trips* are counted in each process's ioredis client from the hand-over on (a command, or a whole pipeline or MULTI, that waits for its reply; heartbeats included), not with \`INFO commandstats\`, which would count other clients of the shared server.`,
    );
  }
  return lines;
}

/** The W6 contenders' configurations, as the README lists W1-W5's. */
export function w6Configurations(contenders: readonly SharedContender[], results: BenchResults): string[] {
  const config = results.config.w6;
  if (config === undefined) return [];
  return [
    '',
    `W6's contenders, at its binding rate (${config.binding.rate.limit} per ${config.binding.rate.interval} ms; the throughput phase changes only the numbers):`,
    '',
    ...contenders.map(
      (contender) => `- **${contender.name}**: \`${contender.configuration(config.binding.rate)}\`. ${contender.why}`,
    ),
  ];
}
