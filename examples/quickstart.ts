// The README's quickstart: 5 messages through a 2-per-second throttler to a target actor.
import { createActor, fromCallback } from 'xstate';
import { throttlerMachine } from '../src/index.js';

const started = performance.now();
const api = createActor(
  fromCallback<{ type: 'call'; n: number }>(({ receive }) => {
    receive((event) => console.log(`call ${event.n} at ${Math.round(performance.now() - started)} ms`));
  }),
).start();

const throttler = createActor(throttlerMachine, { input: { rate: '2/1s', strategy: 'sliding-window' } }).start();
throttler.send({ type: 'SET_TARGET', target: api });
for (let n = 1; n <= 5; n++) throttler.send({ type: 'QUEUE', message: { type: 'call', n } });
// Prints calls 1-2 at ~0 ms, 3-4 at ~1000 ms, 5 at ~2000 ms; then the throttler goes idle.
throttler.on('idled', () => {
  console.log('idle:', throttler.getSnapshot().context.counts);
  throttler.stop();
  api.stop();
});
