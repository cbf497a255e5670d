// Keyed limits: 2 calls per second for each customer, whoever they turn out to be, under 10 per second
// overall. A customer's window is created by their first call and forgotten once idle for 5 s.
import { createActor, fromCallback } from 'xstate';
import { throttlerMachine } from '../src/index.js';

const started = performance.now();
const target = createActor(
  fromCallback<{ type: string; customer: string; n: number }>(({ receive }) => {
    receive((call) => {
      const at = String(Math.round(performance.now() - started)).padStart(5);
      console.log(`${at} ms  ${call.customer} call ${call.n}`);
    });
  }),
).start();

const throttler = createActor(throttlerMachine, {
  input: {
    rate: '10/1s',
    strategy: 'sliding-window',
    keys: { rate: '2/1s', idleAfter: '5s' },
    ordering: 'per-channel', // a busy customer does not hold back the others
    target,
  },
}).start();

// A key is any non-empty string in `channel`: customers known only at run time.
const call = (customer: string, n: number) =>
  throttler.send({ type: 'QUEUE', message: { type: 'call', customer, n }, channel: customer });

// One customer gets a rate of their own (kept while their key lives).
throttler.send({ type: 'SET_RATE', rate: '3/1s', channel: 'acme' });
for (let n = 1; n <= 3; n++) call('alice', n);
for (let n = 1; n <= 3; n++) call('acme', n);
call('bob', 1);
throttler.on('rejected', (event) => console.log('rejected:', event.error.message));
call('', 1);

throttler.on('idled', () => {
  console.log('done:', throttler.getSnapshot().context.counts);
  throttler.stop();
  target.stop();
});
