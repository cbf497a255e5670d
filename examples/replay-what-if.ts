// What if: record half a second of real traffic through a throttler, then replay the recording through
// three configurations in virtual time and compare them. A noisy tenant sends bursts of 25 calls, two
// quiet tenants a call every 30 ms; the API answers in 5 to 15 ms, and now and then with a 429.
// Real timers for the recording (about a second), virtual time for the replays (milliseconds).
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createThrottler, type ThrottlerOptions } from '../src/index.js';
import { compare, recordingFile, recordThrottler } from '../src/replay/index.js';

const configuration: ThrottlerOptions = {
  rate: '20/100ms',
  strategy: 'sliding-window',
  keys: { rate: '20/100ms' },
  maxConcurrent: 6,
};
const file = join(tmpdir(), 'xstate-throttler-example-traffic.ndjson');
const out = createWriteStream(file);
const throttler = createThrottler(configuration);
const recording = recordThrottler(throttler, { to: out, configuration });

let calls = 0;
/** The API: 5 to 15 ms, and every 40th call a 429 asking for 100 ms of quiet. */
async function callApi(): Promise<{ status: number; headers: Record<string, string> }> {
  const n = ++calls;
  await new Promise((resolve) => setTimeout(resolve, 5 + (n % 3) * 5));
  return n % 40 === 0 ? { status: 429, headers: { 'retry-after': '0.1' } } : { status: 200, headers: {} };
}

const tasks: Promise<unknown>[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
for (let tick = 0; tick < 16; tick++) {
  if (tick % 5 === 0) {
    for (let n = 0; n < 25; n++) tasks.push(recording.schedule(callApi, { channel: 'noisy', maxWait: 300 }));
  }
  tasks.push(recording.schedule(callApi, { channel: tick % 2 ? 'quiet-a' : 'quiet-b' }));
  await sleep(30);
}
await Promise.allSettled(tasks);
recording.close();
throttler.stop();
out.end();
await once(out, 'finish');
console.log(`recorded ${recording.arrivals} arrivals to ${file}`);

// Three what-ifs on the same recording, read once from the file.
const { reports, table } = await compare(recordingFile(file), [
  { ...configuration, name: 'as configured' },
  { ...configuration, name: 'per tenant', keys: { rate: '8/100ms' }, ordering: 'per-channel' },
  { ...configuration, name: 'half the rate', rate: '10/100ms' },
]);
console.log(table);
for (const report of reports) {
  const quiet = report.keys.find((key) => key.key === 'quiet-a');
  console.log(`${report.name}: quiet-a waited at most ${quiet?.waits.max.toFixed(0)} ms`);
}
