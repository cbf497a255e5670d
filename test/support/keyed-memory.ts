/**
 * Run by test/machine/keyed-limits-memory.test.ts in a process of its own with `--expose-gc`: sends
 * messages to distinct keys in virtual time (a SimulatedClock for the one timer, the same virtual time
 * as `now`), 100 new keys a millisecond, and prints, as JSON, how many keys and waiting messages the
 * throttler held at most and at the end, and how much heap it used, collected, after 100,000 keys and
 * at the end. Keys are kept 100 ms after their last use (the template's interval; idleAfter is
 * shorter), so about 10,000 were used recently at any time.
 *
 * Two runs: 300,000 keys with one message each, in 'fifo' order (each goes at once), and 200,000
 * keys with two messages each in 'per-channel' order, the second waiting 100 ms in its key's queue
 * (400,000 messages: the run is slower per key, and the queues' part is the same at any count).
 */
import { createActor, fromCallback, SimulatedClock } from 'xstate';
import type { LocalClearance } from '../../src/engine/clearance/local-clearance.js';
import { throttlerMachine } from '../../src/index.js';
import { machineContext } from './machine-context.js';

const KEYS_PER_MS = 100;
const MB = 1024 * 1024;

declare const gc: () => void;

function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** `perKey` messages to each key; with 2, the second waits for the key's window (100 ms) in its own queue. */
function run(ordering: 'fifo' | 'per-channel', keyCount: number, perKey: number) {
  const clock = new SimulatedClock();
  let delivered = 0;
  const target = createActor(fromCallback(({ receive }) => receive(() => void delivered++))).start();
  const actor = createActor(throttlerMachine, {
    clock,
    input: {
      strategy: 'sliding-window',
      rate: '1000000/1s',
      keys: { rate: '1/100ms', idleAfter: '50ms' },
      ordering,
      now: () => clock.now(),
      maxDeliveriesPerTurn: Number.POSITIVE_INFINITY,
      target,
    },
  }).start();
  const dispatcher = machineContext(actor).dispatcher;
  const clearance = dispatcher.clearance as LocalClearance;
  let maxLive = 0;
  let maxQueued = 0;
  let heapAt100k = 0;
  const started = performance.now();
  for (let first = 0; first < keyCount; first += KEYS_PER_MS) {
    const messages = [];
    for (let key = first; key < first + KEYS_PER_MS; key++)
      for (let copy = 0; copy < perKey; copy++) messages.push({ message: { type: 'job' }, channel: `key-${key}` });
    actor.send({ type: 'QUEUE_BATCH', messages });
    clock.increment(1);
    maxLive = Math.max(maxLive, clearance.liveKeys);
    maxQueued = Math.max(maxQueued, dispatcher.counts.queued);
    if (first + KEYS_PER_MS === 100_000) heapAt100k = heapUsed();
  }
  const heapAtEnd = heapUsed();
  const seconds = (performance.now() - started) / 1000;
  const result = {
    ordering,
    keys: keyCount,
    perKey,
    delivered,
    maxLiveKeys: maxLive,
    finalLiveKeys: clearance.liveKeys,
    maxQueued,
    heapAt100kMB: heapAt100k / MB,
    heapAtEndMB: heapAtEnd / MB,
    seconds,
  };
  actor.stop();
  return result;
}

process.stdout.write(JSON.stringify([run('fifo', 300_000, 1), run('per-channel', 200_000, 2)]));
