/**
 * Run by test/machine/cancel.test.ts in a process of its own with `--expose-gc`:
 * queues messages that each hold a payload, cancels all but the first and the
 * last (so every cancelled one sits in the middle of the queue), collects
 * garbage and prints, as JSON, how many MB the waiting messages took and how
 * many stay held once cancelled: through the machine's CANCEL, and through
 * the promise API's AbortSignal.
 */
import { createActor } from 'xstate';
import { createThrottler, throttlerMachine } from '../../src/index.js';

const COUNT = 10_000;
const MB = 1024 * 1024;

declare const gc: () => void;

function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function payload(n: number): number[] {
  return new Array<number>(256).fill(n);
}

async function throughMachine(): Promise<{ queuedMB: number; heldMB: number }> {
  const baseline = heapUsed();
  const actor = createActor(throttlerMachine, { input: { rate: '1/1d' } }).start();
  for (let n = 0; n < COUNT; n++) actor.send({ type: 'QUEUE', message: { type: 'job', payload: payload(n) }, id: n });
  const queued = heapUsed();
  for (let n = 1; n < COUNT - 1; n++) actor.send({ type: 'CANCEL', id: n });
  const held = heapUsed();
  if (actor.getSnapshot().context.counts.queued !== 2) throw new Error('expected two messages left');
  actor.stop();
  return { queuedMB: (queued - baseline) / MB, heldMB: (held - baseline) / MB };
}

async function throughPromiseApi(): Promise<{ queuedMB: number; heldMB: number }> {
  const baseline = heapUsed();
  const throttler = createThrottler({ rate: '1/1d' });
  const controllers: AbortController[] = [];
  for (let n = 0; n < COUNT; n++) {
    const controller = new AbortController();
    controllers.push(controller);
    const data = payload(n);
    throttler.schedule(() => data.length, { signal: controller.signal }).catch(() => {});
  }
  await new Promise((resolve) => setImmediate(resolve));
  const queued = heapUsed();
  // The first task ran at once; the second and the last stay waiting, everything between is aborted.
  for (let n = 2; n < COUNT - 1; n++) controllers[n]?.abort();
  controllers.length = 0;
  await new Promise((resolve) => setImmediate(resolve));
  const held = heapUsed();
  if (throttler.counts.queued !== 2) throw new Error(`expected two tasks left, got ${throttler.counts.queued}`);
  throttler.stop();
  return { queuedMB: (queued - baseline) / MB, heldMB: (held - baseline) / MB };
}

const machine = await throughMachine();
const promiseApi = await throughPromiseApi();
process.stdout.write(JSON.stringify({ machine, promiseApi }));
