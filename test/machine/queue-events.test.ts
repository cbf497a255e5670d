import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { createThrottler, type ThrottlerEmitted, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

type Heard = Extract<ThrottlerEmitted, { type: 'queued' | 'dequeued' | 'delivered' | 'dropped' }>;

function start(input: Partial<ThrottlerInput>, types: Heard['type'][]) {
  const target = createRecorder<Numbered>();
  const actor = createActor(throttlerMachine, {
    input: { rate: '2/1s', strategy: 'sliding-window', target: target.ref, ...input },
  });
  const heard: string[] = [];
  for (const type of types)
    actor.on(type, (event) => {
      const e = event as Heard;
      const n = (e.message as Numbered).n;
      if (e.type === 'dequeued') heard.push(`dequeued ${n} ${e.queuedAt}->${e.at}`);
      else if (e.type === 'queued') heard.push(`queued ${n} at ${e.at} cost ${e.cost}`);
      else heard.push(`${e.type} ${n}`);
    });
  actor.start();
  return { actor, target, heard };
}

describe('queued and dequeued: a message joining the queue, and leaving it for its target', () => {
  it('a message that waits is queued, then dequeued right after its delivered, with its wait; one straight through is neither', () => {
    const { actor, heard } = start({}, ['queued', 'dequeued', 'delivered']);
    for (let n = 1; n <= 4; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    advance(1500);
    expect(heard).toEqual([
      'delivered 1',
      'delivered 2',
      'queued 3 at 0 cost 1',
      'queued 4 at 0 cost 1',
      'delivered 3',
      'dequeued 3 0->1000',
      'delivered 4',
      'dequeued 4 0->1000',
    ]);
  });

  it('every path that queues emits it: a batch, a channel, a priority, and the quiet path while someone listens', () => {
    const { actor, heard } = start({ channels: { a: '1/1s' } }, ['queued', 'dequeued']);
    actor.send({ type: 'QUEUE', message: msg(1) });
    actor.send({ type: 'QUEUE', message: msg(2) });
    actor.send({ type: 'QUEUE', message: msg(3) }); // the first to wait: active
    actor.send({ type: 'QUEUE', message: msg(4) }); // only joins behind the head: the quiet path without a listener
    actor.send({ type: 'QUEUE_BATCH', messages: [{ message: msg(5), channel: 'a', cost: 1 }, { message: msg(6) }] });
    actor.send({ type: 'QUEUE', message: msg(7), priority: 9 });
    expect(heard.filter((line) => line.startsWith('queued')).map((line) => line.split(' ')[1])).toEqual([
      '3',
      '4',
      '5',
      '6',
      '7',
    ]);
    advance(5000);
    expect(heard.filter((line) => line.startsWith('dequeued'))).toHaveLength(5);
    expect(actor.getSnapshot().context.counts).toMatchObject({ queued: 0, delivered: 7 });
  });

  it('a dropped message is queued and then dropped, never dequeued', () => {
    const { actor, heard } = start({}, ['queued', 'dequeued', 'dropped']);
    for (let n = 1; n <= 3; n++) actor.send({ type: 'QUEUE', message: msg(n), maxWait: 10 });
    advance(1000);
    expect(heard).toEqual(['queued 3 at 0 cost 1', 'dropped 3']);
  });

  it('listening to queued and dequeued keeps the promise API starting tasks inside schedule (its lease)', async () => {
    const throttler = createThrottler({ rate: '100/1s', strategy: 'sliding-window' });
    const heard: string[] = [];
    throttler.actor.on('queued', () => heard.push('queued'));
    throttler.actor.on('dequeued', () => heard.push('dequeued'));
    let started = 0;
    const done = Array.from({ length: 3 }, () => throttler.schedule(() => started++));
    // Started inside schedule: a lease, no queue entry.
    expect(started).toBe(3);
    await Promise.all(done);
    expect(heard).toEqual([]);
    throttler.stop();
  });
});
