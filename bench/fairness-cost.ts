/**
 * What weighted fairness costs per message: `messages` messages over `keys` keys queued while no
 * target is set, then delivered in one pass through a limit that never binds (so every message goes
 * through the head schedule: filed, chosen, taken), with `ordering: 'per-channel'` and then with
 * `fairness: 'weighted'`, alternating, the CPU time (process.cpuUsage) of each run, median of 7
 * after 3 to warm up. `node --import tsx bench/fairness-cost.ts [keys] [messages]`; docs/tenants.md
 * quotes it.
 */
import { createActor, fromCallback } from 'xstate';
import { throttlerMachine } from '../src/index.js';
import { median } from './stats.js';

type Mode = 'per-channel' | 'weighted';

const keys = Number(process.argv[2] ?? 10);
const messages = Number(process.argv[3] ?? 100_000);
const names = Array.from({ length: keys }, (_, index) => `tenant:${index}`);
let received = 0;
const target = createActor(
  fromCallback(({ receive }) =>
    receive(() => {
      received += 1;
    }),
  ),
).start();

/** One run's CPU time, in ms. */
function run(mode: Mode): number {
  received = 0;
  const actor = createActor(throttlerMachine, {
    input: {
      rate: '1000000000/1s',
      strategy: 'sliding-window',
      keys: { rate: '1000000000/1s' },
      maxDeliveriesPerTurn: Number.POSITIVE_INFINITY,
      ...(mode === 'weighted'
        ? { fairness: 'weighted', weight: (key: string) => 1 + (key.length % 3) }
        : { ordering: 'per-channel' }),
    },
  }).start();
  const before = process.cpuUsage();
  for (let index = 0; index < messages; index++)
    actor.send({ type: 'QUEUE', message: { type: 'm' }, channel: names[index % keys] });
  actor.send({ type: 'SET_TARGET', target });
  const spent = process.cpuUsage(before);
  actor.stop();
  if (received !== messages) throw new Error(`${mode}: ${received} of ${messages} delivered`);
  return (spent.user + spent.system) / 1000;
}

const samples: Record<Mode, number[]> = { 'per-channel': [], weighted: [] };
for (let round = 0; round < 10; round++)
  for (const mode of ['per-channel', 'weighted'] as const) {
    const ms = run(mode);
    if (round >= 3) samples[mode].push(ms);
  }
for (const mode of ['per-channel', 'weighted'] as const) {
  const ms = median(samples[mode]);
  console.log(`${mode}: ${keys} keys, ${messages} messages: ${((ms * 1000) / messages).toFixed(1)} µs CPU a message`);
}
