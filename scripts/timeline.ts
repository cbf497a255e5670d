/**
 * `npm run timeline`: regenerates docs/timeline.svg, the picture the README shows. The demo's load
 * (`npm start`) through a 3-per-second throttler, with the `timer` and then the `sliding-window`
 * strategy, in virtual time so the picture is the same on every run. With `--check` it writes
 * nothing and fails if the committed picture is not what the renderer draws now.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createActor, fromCallback, SimulatedClock } from 'xstate';
import { type StrategyName, throttlerMachine } from '../src/index.js';
import { recordTimeline, renderTimelines, type TimelineInput } from '../src/timeline/index.js';

/** When each job is queued, in ms: the demo's schedule. */
const SCHEDULE: ReadonlyArray<[at: number, jobs: number[]]> = [
  [0, [1]],
  [990, [2, 3, 4, 5, 6]],
  [2500, [7, 8, 9]],
];

function run(strategy: StrategyName): TimelineInput {
  const clock = new SimulatedClock();
  const target = createActor(fromCallback(() => {})).start();
  const throttler = createActor(throttlerMachine, {
    input: { rate: '3/1s', strategy, target, now: () => clock.now() },
    clock,
  }).start();
  const recording = recordTimeline(throttler, { rate: '3/1s', title: `strategy "${strategy}", rate 3/1s` });
  for (const [at, jobs] of SCHEDULE) {
    // One millisecond at a time, so that a timer that re-arms itself fires again (see DESIGN.md).
    while (clock.now() < at) clock.increment(1);
    for (const n of jobs) throttler.send({ type: 'QUEUE', message: { type: 'job', n } });
  }
  while (throttler.getSnapshot().value !== 'idle') clock.increment(1);
  recording.stop();
  throttler.stop();
  return { events: recording.events, rate: '3/1s', title: `strategy "${strategy}", rate 3/1s` };
}

const file = join(import.meta.dirname, '..', 'docs', 'timeline.svg');
const svg = renderTimelines([run('timer'), run('sliding-window')]);
if (process.argv.includes('--check')) {
  if (readFileSync(file, 'utf8') !== svg) {
    console.error(`${file} is out of date: run npm run timeline`);
    process.exit(1);
  }
  console.log(`${file} is up to date`);
} else {
  writeFileSync(file, svg);
  console.log(`timeline written to ${file}`);
}
