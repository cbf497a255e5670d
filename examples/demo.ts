/**
 * The main demo (`npm start`): real timers; the printed times show the rate.
 *
 * Through a 3-per-second throttler: job 1 at 0 ms, jobs 2-6 at 990 ms, jobs
 * 7-9 at 2500 ms. First with the default voucher timer (Akka's), then with the
 * strict sliding window. The timer refills its 3 vouchers at each tick of its
 * own clock, so 5 jobs land within one second around the tick; the sliding
 * window never lets a 4th into any second. Both runs are drawn, one above the other on the same
 * time scale, into an SVG timeline in the OS temp folder (`npm run timeline` redraws the README's
 * copy in virtual time).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, fromCallback } from 'xstate';
import { type StrategyName, throttlerMachine } from '../src/index.js';
import { busiestWindows, recordTimeline, renderTimelines, type TimelineInput } from '../src/timeline/index.js';

interface Job {
  type: 'job';
  n: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(strategy: StrategyName): Promise<TimelineInput> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const line = (text: string) => console.log(`  ${String(Math.round(elapsed())).padStart(5)} ms  ${text}`);
  const printer = createActor(
    fromCallback<Job>(({ receive }) => {
      receive((job) => line(`job ${job.n}`));
    }),
  ).start();
  const throttler = createActor(throttlerMachine, { input: { rate: '3/1s', strategy, target: printer } });
  // Delivery times on the throttler's own clock (what the rate promise is about), and its state changes.
  const recording = recordTimeline(throttler);
  throttler.start();

  console.log(`\nstrategy "${strategy}", rate 3/1s`);
  const queue = (from: number, to: number) => {
    for (let n = from; n <= to; n++) throttler.send({ type: 'QUEUE', message: { type: 'job', n } });
  };
  queue(1, 1);
  await sleep(990);
  queue(2, 6);
  await sleep(1510);
  queue(7, 9);
  while (throttler.getSnapshot().value !== 'idle') await sleep(20);
  recording.stop();
  throttler.stop();
  printer.stop();

  const timeline = { events: recording.events, rate: '3/1s', title: `strategy "${strategy}", rate 3/1s (real timers)` };
  const [busiest] = busiestWindows(timeline);
  console.log(`  most jobs in any 1000 ms window: ${busiest?.count}`);
  return timeline;
}

const strategies: StrategyName[] = process.argv.includes('--quick') ? ['sliding-window'] : ['timer', 'sliding-window'];
const timelines: TimelineInput[] = [];
for (const strategy of strategies) timelines.push(await run(strategy));
console.log('\nThe timer (Akka) allows up to 2 x 3 in a window around its tick; the sliding window never more than 3.');
const file = join(tmpdir(), 'xstate-throttler-timeline.svg');
writeFileSync(file, renderTimelines(timelines));
console.log(`Timeline of both runs (open it in a browser): ${file}`);
