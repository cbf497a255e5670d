/**
 * W1 with OpenTelemetry: the promise API and the machine, each without and with `instrumentThrottler`
 * (the real @opentelemetry/sdk-metrics, an in-memory exporter collected every 100 ms, so collections
 * fall inside every run), side by side in one run, round-robin over the rounds (bench/w1-overhead.ts).
 * A third pair queues every message before it goes (no target until all are queued), the worst case
 * for the instrumentation: each message is heard twice (`queued`, `dequeued`) and timed (the histogram).
 *
 *   node --expose-gc --import tsx bench/w1-otel.ts [--size 200000] [--rounds 5]
 *
 * The machine this runs on is shared, so each run is timed in CPU time (process.cpuUsage, user + system,
 * from the hand-over until every task ran and every promise settled) as well as on the wall clock: tasks
 * per CPU second is what instrumentation costs, whatever the neighbours do. Prints a markdown table
 * (instrumented as a share of plain, both ways) and writes bench/results/w1-otel.json.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { type AnyActorRef, createActor, fromCallback } from 'xstate';
import { createThrottler, throttlerMachine } from '../src/index.js';
import { instrumentThrottler } from '../src/otel/index.js';
import type { Contender, Instance, RateSpec } from './contenders.js';
import { integer, table } from './markdown.js';
import { median } from './stats.js';
import { overheadRun } from './w1-overhead.js';

type Path = 'promise' | 'machine' | 'queued first';
type IndexedMessage = { type: 'task'; index: number };

/** A meter on the real SDK, collected into memory every 100 ms; `shutdown` ends it. */
function sdkMeter() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 100 });
  const provider = new MeterProvider({ readers: [reader] });
  return { meter: provider.getMeter('bench'), shutdown: () => provider.shutdown() };
}

function startingTarget(onStart: (index: number) => void): AnyActorRef {
  return createActor(
    fromCallback<IndexedMessage>(({ receive }) => {
      receive((event) => onStart(event.index));
    }),
  ).start();
}

/** The throttler of one run, instrumented or not; `end` stops the instrumentation and the SDK. */
function instrumented(throttlerOrActor: unknown, on: boolean): () => Promise<void> {
  if (!on) return async () => {};
  const sdk = sdkMeter();
  const handle = instrumentThrottler(throttlerOrActor, { meter: sdk.meter, name: 'bench' });
  return async () => {
    handle.stop();
    await sdk.shutdown();
  };
}

function open(path: Path, on: boolean, rate: RateSpec, onStart: (index: number) => void): Instance {
  const rateText = `${rate.limit}/${rate.interval}ms`;
  if (path === 'promise') {
    const throttler = createThrottler({ rate: rateText, strategy: 'sliding-window' });
    const end = instrumented(throttler, on);
    return {
      task: (index) => () => onStart(index),
      submit(tasks, promises) {
        for (let index = 0; index < tasks.length; index++)
          promises[index] = throttler.schedule(tasks[index] as () => unknown);
      },
      async stop() {
        throttler.stop();
        await end();
      },
      stoppable: true,
    };
  }
  const target = startingTarget(onStart);
  const first = path === 'machine' ? target : undefined;
  const actor = createActor(throttlerMachine, {
    input: { rate: rateText, strategy: 'sliding-window', target: first },
  }).start();
  const end = instrumented(actor, on);
  return {
    task: (index) => ({ type: 'task', index }),
    submit(tasks) {
      for (let index = 0; index < tasks.length; index++)
        actor.send({ type: 'QUEUE', message: tasks[index] as IndexedMessage });
      if (first === undefined) actor.send({ type: 'SET_TARGET', target });
    },
    async stop() {
      actor.stop();
      target.stop();
      await end();
    },
    stoppable: true,
  };
}

const PATHS: Record<Path, string> = {
  promise: 'createThrottler (sliding-window).schedule(fn)',
  machine: 'machine (sliding-window), one QUEUE per task',
  'queued first': 'machine (sliding-window), every QUEUE queued, then SET_TARGET',
};

function contender(path: Path, on: boolean): Contender {
  return {
    id: `${path}-${on ? 'otel' : 'plain'}`,
    name: `${PATHS[path]}${on ? ' + instrumentThrottler' : ''}`,
    kind: 'ours',
    queues: true,
    configuration: () => PATHS[path],
    why: 'W1 with and without OpenTelemetry metrics.',
    open: (rate, onStart) => open(path, on, rate, onStart),
  };
}

interface Timed {
  wall: number;
  cpu: number;
  complete: boolean;
}

/** One run: W1's own (bench/w1-overhead.ts), on the wall clock and in CPU time. */
async function timedRun(contender: Contender, size: number): Promise<Timed> {
  const run = await overheadRun(contender, size);
  return { wall: run.seconds, cpu: run.cpuSeconds, complete: run.started === size && run.duplicates === 0 };
}

export interface PathResult {
  path: Path;
  plain: Timed[];
  otel: Timed[];
}

/** Every contender `rounds` times, round-robin, so that drift on the machine spreads over all of them. */
export async function runOtelBench(
  size: number,
  rounds: number,
  paths: readonly Path[] = PATH_NAMES,
): Promise<PathResult[]> {
  const results = paths.map((path) => ({ path, plain: [] as Timed[], otel: [] as Timed[] }));
  for (let round = 0; round < rounds; round++) {
    for (const result of results) {
      // Alternating which goes first, so that neither always runs on the heap the other left.
      const order = round % 2 === 0 ? [false, true] : [true, false];
      for (const on of order) (on ? result.otel : result.plain).push(await timedRun(contender(result.path, on), size));
    }
  }
  return results;
}

/** Tasks per second, median over the rounds, on the wall clock or per CPU second. */
function speed(size: number, runs: readonly Timed[], clock: 'wall' | 'cpu'): number {
  return size / median(runs.map((run) => run[clock]));
}

const PATH_NAMES = ['promise', 'machine', 'queued first'] as const;

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

if (process.argv[1]?.endsWith('w1-otel.ts')) {
  const size = flag('--size', 200_000);
  const rounds = flag('--rounds', 5);
  const results = await runOtelBench(size, rounds);
  const rows = results.map(({ path, plain, otel }) => {
    const cpuShare = speed(size, otel, 'cpu') / speed(size, plain, 'cpu');
    const wallShare = speed(size, otel, 'wall') / speed(size, plain, 'wall');
    return [
      PATHS[path],
      integer(speed(size, plain, 'cpu')),
      integer(speed(size, otel, 'cpu')),
      `${(cpuShare * 100).toFixed(1)}%`,
      `${(wallShare * 100).toFixed(1)}%`,
      cpuShare >= 0.9 ? '**met**' : '**missed**',
      [...plain, ...otel].every((run) => run.complete) ? 'yes' : 'NO',
    ];
  });
  const lines = [
    `W1 + OpenTelemetry: ${integer(size)} tasks at 1e9/s, median of ${rounds} rounds (round-robin), Node ${process.version}`,
    '',
    ...table(
      [
        'path',
        'plain tasks per CPU s',
        'instrumented tasks per CPU s',
        'instrumented / plain (CPU)',
        'instrumented / plain (wall)',
        'target ≥ 90%',
        'complete',
      ],
      rows,
    ),
  ];
  console.log(lines.join('\n'));
  const file = join(import.meta.dirname, 'results', 'w1-otel.json');
  writeFileSync(file, `${JSON.stringify({ size, rounds, node: process.version, results }, null, 2)}\n`);
  process.exit(0);
}
