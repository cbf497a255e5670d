/**
 * Issue 22, item 3: does a fleet lose a window as it starts? Four processes, each handing 40 tasks
 * to `createThrottler({ store })` at one common moment, share 20 per 500 ms (grace 20 ms: the script
 * spaces windows by 520 ms), so the 160th task's window starts at best 7 x 520 = 3,640 ms after the
 * hand-over. Each run is a fresh fleet under a fresh name (bench/w6-shared-limit.ts); it prints the
 * span, how far over that ideal, and the windows over the limit on the hosts' clock (the grants'
 * Redis times are checked by test/redis/throttler-fleet.test.ts).
 *
 *   npx tsx bench/w6-start-spans.ts [runs = 10] [processes = 4] [tasks per process = 40]
 *
 * W6_RESERVE_AHEAD_MS=375 in the environment sets every process's maxReserveAheadMs (default: the interval).
 */
import { OURS_THROTTLER } from './w6-ours.js';
import { type SharedPhase, sharedPhase } from './w6-shared-limit.js';

const GRACE_MS = 20;

const [runs = 10, processes = 4, perProcess = 40] = process.argv.slice(2).map(Number);
const phase: SharedPhase = {
  rate: { limit: 20, interval: 500 },
  backlogPerProcess: perProcess,
  durationMs: 15_000,
};
const windows = Math.ceil((processes * perProcess) / phase.rate.limit);
const idealMs = (windows - 1) * (phase.rate.interval + GRACE_MS);
console.log(`${processes} processes x ${perProcess} tasks at 20/500ms: ideal span ${idealMs} ms`);
let within = 0;
for (let run = 1; run <= runs; run++) {
  const result = await sharedPhase(OURS_THROTTLER, 'binding', phase, processes);
  const over = (result.spanMs / idealMs - 1) * 100;
  if (result.started === result.tasks && over <= 5) within += 1;
  console.log(
    `run ${run}: span ${result.spanMs.toFixed(1)} ms (${over >= 0 ? '+' : ''}${over.toFixed(1)}%), ` +
      `started ${result.started}/${result.tasks}, most in a window ${result.mostInWindow} ` +
      `(${result.violatingWindows} over on the hosts' clock)` +
      (result.error ? `, error: ${result.error}` : ''),
  );
}
console.log(`${within} of ${runs} within 5% of the ideal`);
