/**
 * Replay at scale (issue 37): a synthetic recording of `--arrivals` (default 1,000,000) arrivals, written to a
 * temporary NDJSON file, replayed from the file line by line through one configuration in virtual time.
 * Reports the wall and CPU time of the replay alone (the file is written first, untimed), arrivals per second,
 * and the heap after the replay against the heap before it: the replay streams the file and its memory is
 * bounded by the throttler's queue, not by the recording. Run:
 *   node --expose-gc --import tsx bench/replay-scale.ts [--arrivals 1000000] [--keep] [--dist] [--batch]
 */
import { once } from 'node:events';
import { createWriteStream, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { seeded } from '../examples/support/seeded-random.js';
import type { ReplayConfiguration } from '../src/replay/index.js';

// --dist: the built package (npm run build), as users run it; else the source through tsx.
const entry = process.argv.includes('--dist') ? '../dist/esm/replay/index.js' : '../src/replay/index.js';
const { recordingFile, replay } = (await import(entry)) as typeof import('../src/replay/index.js');

export const SCALE_CONFIGURATION: ReplayConfiguration = {
  rate: '1000/1s',
  strategy: 'sliding-window',
  keys: { rate: '300/1s' },
  capacity: 20_000,
};

/**
 * The recording's lines: about 600 arrivals a second on average (a diurnal swing of +-50% and a burst of
 * 200 at one instant every 10 s) from 50 tenants, one noisy (a fifth of the traffic), each with a maxWait
 * of 2 s; times in whole ms, as a recorder reading `performance.now()` rounded would hold.
 */
export function* scaleRecording(arrivals: number): Generator<string> {
  const next = seeded(37);
  const header = {
    format: 'xstate-throttler-recording',
    version: 1,
    configuration: SCALE_CONFIGURATION,
    clock: 'synthetic',
    startedAt: 0,
  };
  yield JSON.stringify(header);
  let t = 0;
  let made = 0;
  let nextBurst = 10_000;
  while (made < arrivals) {
    if (t >= nextBurst) {
      for (let n = 0; n < 200 && made < arrivals; n++, made++) yield `{"t":${t},"channel":"noisy","maxWait":2000}`;
      nextBurst += 10_000;
      continue;
    }
    const perMs = 0.6 * (1 + 0.5 * Math.sin((2 * Math.PI * t) / 600_000));
    t += Math.max(0, Math.round(-Math.log(1 - next()) / perMs));
    const channel = next() < 0.2 ? 'noisy' : `tenant-${Math.floor(next() * 49)}`;
    yield `{"t":${t},"channel":"${channel}","maxWait":2000}`;
    made++;
  }
}

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

function heapMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 1e6;
}

const arrivals = flag('--arrivals', 1_000_000);
const file = join(tmpdir(), `xstate-throttler-replay-scale-${arrivals}.ndjson`);
const out = createWriteStream(file);
for (const line of scaleRecording(arrivals)) if (!out.write(`${line}\n`)) await once(out, 'drain');
out.end();
await once(out, 'finish');

const before = heapMb();
let peak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().heapUsed / 1e6);
}, 50);
const cpu = process.cpuUsage();
const started = performance.now();
// --batch: the arrivals of one instant as one QUEUE_BATCH (ReplayOptions.sameInstant).
const sameInstant = process.argv.includes('--batch') ? 'batch' : 'one-by-one';
const report = await replay(recordingFile(file), SCALE_CONFIGURATION, { sameInstant });
const seconds = (performance.now() - started) / 1000;
const used = process.cpuUsage(cpu);
clearInterval(sampler);
const after = heapMb();
console.log(
  JSON.stringify(
    {
      arrivals: report.arrivals,
      fileMb: +(statSync(file).size / 1e6).toFixed(1),
      seconds: +seconds.toFixed(2),
      cpuSeconds: +((used.user + used.system) / 1e6).toFixed(2),
      arrivalsPerSecond: Math.round(report.arrivals / seconds),
      heapBeforeMb: +before.toFixed(1),
      heapPeakSampledMb: +peak.toFixed(1),
      heapAfterMb: +after.toFixed(1),
      delivered: report.delivered,
      dropped: report.dropped,
      rejected: report.rejected,
      waits: report.waits,
      windowsOver: report.windowsOver,
    },
    null,
    1,
  ),
);
if (!process.argv.includes('--keep')) rmSync(file);
