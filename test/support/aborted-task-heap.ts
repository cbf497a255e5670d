/**
 * Run by test/adapters/promise-load.test.ts in its own process, with
 * `node --expose-gc --import tsx`: the heap that tasks aborted while they wait
 * still hold, once their promises are gone. Prints `{ bytesPerTask }` as JSON.
 * Each task's run function holds a 1 KB payload, as a real request would.
 */
import { createThrottler } from '../../src/index.js';

const count = Number(process.argv[2] ?? 50_000);
const shared = process.argv[3] === 'shared';
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

const throttler = createThrottler({ rate: '1/1h', strategy: 'sliding-window' });
// The first task starts, the second holds the queue head for an hour: the aborted ones wait behind it.
void throttler.schedule(() => 'first');
throttler.schedule(() => 'head').catch(() => {});
await turn();
gc();
const before = process.memoryUsage().heapUsed;
const sharedController = new AbortController();
let controllers: AbortController[] = [];
for (let i = 0; i < count; i++) {
  const controller = shared ? sharedController : new AbortController();
  controllers.push(controller);
  const payload = `${'x'.repeat(1024)}${i}`;
  throttler.schedule(() => payload.length, { signal: controller.signal }).catch(() => {});
}
await turn();
for (const controller of controllers) controller.abort();
controllers = [];
await turn();
gc();
const after = process.memoryUsage().heapUsed;
console.log(JSON.stringify({ bytesPerTask: Math.round((after - before) / count), counts: throttler.counts }));
throttler.stop();
