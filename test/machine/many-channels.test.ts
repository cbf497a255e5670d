import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor, type EventObject, fromCallback } from 'xstate';
import type { Overflow } from '../../src/engine/options/options.js';
import { throttlerMachine } from '../../src/index.js';
import { cpuMsOf } from '../support/cpu-time.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/**
 * Per-channel ordering with many channels: the cost of one message must not
 * grow with the number of channels (keyed limits will have a million keys).
 * The CPU time per message is compared between 10 and 10,000 channels, the
 * throttler itself running in virtual time. Before the head
 * schedule, every delivery and every overflow looked at every channel's queue:
 * at 10,000 channels a delivery took 20x as long as at 10.
 * The bound is generous (the machine is shared): a logarithm is allowed, a
 * linear term is not.
 */

const MESSAGES = 20_000;
const GENEROUS_FACTOR = 6;
const CAPACITY = 1_000;
const BATCH = 1_000;
/** Every one of them holds a message at some point: the old scan grew with the channels ever used. */
const OVERFLOW_CHANNELS = 20_000;
const OVERFLOW_MESSAGES = 20_000;

interface Job extends EventObject {
  type: 'job';
  n: number;
}

function channelsInput(count: number): Record<string, string> {
  const channels: Record<string, string> = {};
  for (let index = 0; index < count; index++) channels[`key-${index}`] = '2/1s';
  return channels;
}

/** CPU ms (cpu-time.ts) per message to queue MESSAGES messages round-robin over `channelCount` channels and deliver them all. */
function deliveryCost(channelCount: number): number {
  let delivered = 0;
  const target = createActor(
    fromCallback<Job>(({ receive }) => {
      receive(() => {
        delivered += 1;
      });
    }),
  ).start();
  const actor = createActor(throttlerMachine, {
    input: {
      rate: '1000000/1s',
      strategy: 'sliding-window',
      ordering: 'per-channel',
      channels: channelsInput(channelCount),
      target,
    },
  }).start();
  const elapsed = cpuMsOf(() => {
    for (let n = 0; n < MESSAGES; n++) {
      // Two costs in use: the head schedule groups heads by cost.
      actor.send({ type: 'QUEUE', message: { type: 'job', n }, channel: `key-${n % channelCount}`, cost: 1 + (n % 2) });
    }
    while (delivered < MESSAGES) advance(1_000);
  });
  actor.stop();
  return elapsed / MESSAGES;
}

/** CPU ms per message when every message overflows a full queue spread over `channelCount` channels. */
function overflowCost(channelCount: number, overflow: Overflow): number {
  const actor = createActor(throttlerMachine, {
    input: {
      rate: '1/1s',
      strategy: 'sliding-window',
      ordering: 'per-channel',
      channels: channelsInput(channelCount),
      capacity: CAPACITY,
      overflow,
    },
  }).start();
  let dropped = 0;
  actor.on('dropped', () => {
    dropped += 1;
  });
  // In batches, so that what is measured is the queue's work rather than XState's per event.
  const batch = Array.from({ length: BATCH }, () => ({ message: { type: 'job', n: 0 }, channel: 'key-0' }));
  const elapsed = cpuMsOf(() => {
    for (let n = 0; n < OVERFLOW_MESSAGES; n += BATCH) {
      for (const [index, entry] of batch.entries()) {
        entry.message = { type: 'job', n: n + index };
        entry.channel = `key-${(n + index) % channelCount}`;
      }
      actor.send({ type: 'QUEUE_BATCH', messages: batch });
    }
  });
  expect(dropped).toBe(OVERFLOW_MESSAGES - CAPACITY);
  actor.stop();
  return elapsed / OVERFLOW_MESSAGES;
}

/** The better of two runs (a busy machine only ever makes a run slower, even in CPU time: caches). */
function best(measure: () => number): number {
  return Math.min(measure(), measure());
}

describe("ordering 'per-channel' with many channels", () => {
  it('delivers at a cost per message independent of the number of channels', () => {
    const few = best(() => deliveryCost(10));
    const many = best(() => deliveryCost(10_000));
    console.log(`per-channel delivery: ${few.toFixed(4)} ms/message with 10 channels, ${many.toFixed(4)} with 10,000`);
    expect(many / few).toBeLessThan(GENEROUS_FACTOR);
  });

  it.each(['drop-oldest', 'drop-newest'] as const)(
    'overflows (%s) at a cost per message independent of the number of channels',
    (overflow) => {
      const few = best(() => overflowCost(10, overflow));
      const many = best(() => overflowCost(OVERFLOW_CHANNELS, overflow));
      console.log(
        `per-channel ${overflow}: ${few.toFixed(4)} ms/message with 10 channels, ${many.toFixed(4)} with ${OVERFLOW_CHANNELS.toLocaleString('en')}`,
      );
      expect(many / few).toBeLessThan(GENEROUS_FACTOR);
    },
  );
});
