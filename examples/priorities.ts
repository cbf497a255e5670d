// Priorities and deadlines: urgent calls overtake a backlog; a call that cannot go within its maxWait
// is dropped ('expired') instead of going late. 0 goes last, 9 first (p-queue's way round), default 5.
import { createActor, fromCallback } from 'xstate';
import { createThrottler, throttlerMachine } from '../src/index.js';

const started = performance.now();
const at = () => `${String(Math.round(performance.now() - started)).padStart(4)} ms`;
const api = createActor(
  fromCallback<{ type: 'call'; name: string }>(({ receive }) => {
    receive((call) => console.log(`${at()}  ${call.name}`));
  }),
).start();

const throttler = createActor(throttlerMachine, { input: { rate: '2/200ms', strategy: 'sliding-window' } }).start();
for (let n = 1; n <= 4; n++)
  throttler.send({ type: 'QUEUE', message: { type: 'call', name: `report ${n}` }, priority: 1 });
throttler.send({ type: 'QUEUE', message: { type: 'call', name: 'page view' } });
throttler.send({ type: 'QUEUE', message: { type: 'call', name: 'login' }, priority: 9 });
throttler.send({
  type: 'QUEUE',
  message: { type: 'call', name: 'search (stale after 150 ms)' },
  priority: 0,
  maxWait: 150,
});
throttler.on('dropped', ({ message, reason }) => console.log(`${at()}  dropped ${message.name}: ${reason}`));
throttler.on('idled', () => {
  console.log('done:', throttler.getSnapshot().context.counts);
  throttler.stop();
  api.stop();
  void promiseApi();
});

// The promise API takes the same per task: a late task is rejected with a ThrottlerExpiredError.
async function promiseApi(): Promise<void> {
  const tasks = createThrottler({ rate: '1/100ms', strategy: 'sliding-window' });
  const order: string[] = [];
  await Promise.all([
    tasks.schedule(() => order.push('first')),
    tasks.schedule(() => order.push('low'), { priority: 0 }),
    tasks.schedule(() => order.push('urgent'), { priority: 9 }),
    tasks
      .schedule(() => order.push('stale'), { maxWait: 50 })
      .catch((error: Error) => order.push(`stale: ${error.name}`)),
  ]);
  console.log(`promise API: ${order.join(', ')}`);
  tasks.stop();
}
throttler.send({ type: 'SET_TARGET', target: api });
