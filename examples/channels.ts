// A strict overall rate plus per-channel rates and weighted messages:
// never more than 5 cost per second overall, 2 searches per second, one upload (cost 2) per second.
import { createActor, fromCallback } from 'xstate';
import { throttlerMachine } from '../src/index.js';

const started = performance.now();
const target = createActor(
  fromCallback<{ type: string; n: number }>(({ receive }) => {
    receive((m) => console.log(`${String(Math.round(performance.now() - started)).padStart(5)} ms  ${m.type} ${m.n}`));
  }),
).start();

const throttler = createActor(throttlerMachine, {
  input: {
    rate: '5/1s',
    strategy: 'sliding-window',
    channels: { search: '2/1s', upload: '2/1s' },
    ordering: 'per-channel',
    target,
  },
}).start();

for (let n = 1; n <= 3; n++) throttler.send({ type: 'QUEUE', message: { type: 'search', n }, channel: 'search' });
for (let n = 1; n <= 2; n++)
  throttler.send({ type: 'QUEUE', message: { type: 'upload', n }, channel: 'upload', cost: 2 });
throttler.send({ type: 'QUEUE', message: { type: 'ping', n: 1 } });
throttler.on('rejected', (event) => console.log('rejected:', event.error.message));
throttler.send({ type: 'QUEUE', message: { type: 'upload', n: 99 }, channel: 'upload', cost: 3 });
throttler.on('idled', () => {
  console.log('done:', throttler.getSnapshot().context.counts);
  throttler.stop();
  target.stop();
});
