/**
 * W1 with a recorder (issue 37): the promise API without and with `recordThrottler` on the same run, round-
 * robin over the rounds (bench/w1-overhead.ts: 200,000 trivial tasks through a limit that never binds, end
 * to end). The recording's lines go to a sink that keeps only their count and length (writing to a file is
 * the sink's cost, not the recorder's). Timed in CPU time as well as on the wall clock: the machine is
 * shared, and tasks per CPU second is what recording costs whatever the neighbours do.
 *
 * With `--file`, the lines go to a file instead (`createWriteStream` on a temporary file, awaited as the run
 * stops): what a recording to disk costs, the stream's writes included.
 *
 *   node --expose-gc --import tsx bench/w1-recording.ts [--size 200000] [--rounds 7] [--file]
 */
import { once } from 'node:events';
import { createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createThrottler } from '../src/index.js';
import { recordThrottler } from '../src/replay/index.js';
import type { Contender, Instance, RateSpec } from './contenders.js';
import { median } from './stats.js';
import { overheadRun } from './w1-overhead.js';

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

let written = 0;
let bytes = 0;
const toFile = process.argv.includes('--file');
const file = join(tmpdir(), `xstate-throttler-w1-recording-${process.pid}.ndjson`);
let fileBytes = 0;

function promiseContender(recorded: boolean): Contender {
  return {
    id: recorded ? 'promise-recorded' : 'promise-plain',
    name: recorded ? 'createThrottler + recordThrottler' : 'createThrottler',
    kind: 'ours',
    queues: true,
    configuration: () => '',
    why: '',
    open(rate: RateSpec, onStart: (index: number) => void): Instance {
      const configuration = { rate: `${rate.limit}/${rate.interval}ms`, strategy: 'sliding-window' } as const;
      const throttler = createThrottler(configuration);
      const to = (line: string) => {
        written++;
        bytes += line.length;
      };
      const out: WriteStream | undefined = recorded && toFile ? createWriteStream(file) : undefined;
      const recording = recorded ? recordThrottler(throttler, { to: out ?? to, configuration }) : undefined;
      const schedule = recording?.schedule ?? throttler.schedule;
      return {
        task: (index) => () => onStart(index),
        submit(tasks, promises) {
          for (let index = 0; index < tasks.length; index++) promises[index] = schedule(tasks[index] as () => void);
        },
        async stop() {
          recording?.close();
          throttler.stop();
          if (out === undefined) return;
          out.end();
          await once(out, 'finish');
          fileBytes = out.bytesWritten;
        },
        stoppable: true,
      };
    },
  };
}

const size = flag('--size', 200_000);
const rounds = flag('--rounds', 7);
const contenders = [promiseContender(false), promiseContender(true)];
const runs = new Map(contenders.map((contender) => [contender, [] as { seconds: number; cpuSeconds: number }[]]));
// One untimed run each first, so neither is billed for the JIT.
for (const contender of contenders) await overheadRun(contender, 20_000);
written = 0;
for (let round = 0; round < rounds; round++) {
  for (const contender of round % 2 === 0 ? contenders : [...contenders].reverse()) {
    const run = await overheadRun(contender, size);
    if (run.started !== size || run.duplicates !== 0)
      throw new Error(`${contender.name}: ${run.started} of ${size} ran`);
    runs.get(contender)?.push(run);
  }
}
const [plain, recorded] = contenders.map((contender) => {
  const own = runs.get(contender) ?? [];
  return { seconds: median(own.map((run) => run.seconds)), cpuSeconds: median(own.map((run) => run.cpuSeconds)) };
}) as [{ seconds: number; cpuSeconds: number }, { seconds: number; cpuSeconds: number }];
const share = (a: number, b: number) => `${((a / b - 1) * 100).toFixed(1)}%`;
if (toFile) rmSync(file, { force: true });
console.log(
  JSON.stringify(
    {
      size,
      rounds,
      ...(toFile
        ? { sink: 'file', lastFileBytes: fileBytes }
        : { sink: 'function', linesWritten: written, meanLineBytes: Math.round(bytes / Math.max(1, written)) }),
      plainCpuNsPerTask: Math.round((plain.cpuSeconds / size) * 1e9),
      recordedCpuNsPerTask: Math.round((recorded.cpuSeconds / size) * 1e9),
      plain: {
        tasksPerSecond: Math.round(size / plain.seconds),
        tasksPerCpuSecond: Math.round(size / plain.cpuSeconds),
      },
      recorded: {
        tasksPerSecond: Math.round(size / recorded.seconds),
        tasksPerCpuSecond: Math.round(size / recorded.cpuSeconds),
      },
      recordingCostsWall: share(recorded.seconds, plain.seconds),
      recordingCostsCpu: share(recorded.cpuSeconds, plain.cpuSeconds),
    },
    null,
    1,
  ),
);
