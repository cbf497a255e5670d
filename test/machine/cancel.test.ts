import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { type ThrottlerEmitted, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

function startThrottler(input: ThrottlerInput) {
  const actor = createActor(throttlerMachine, { input }).start();
  const dropped: unknown[] = [];
  actor.on('dropped', (event: Extract<ThrottlerEmitted, { type: 'dropped' }>) => dropped.push(event.message));
  return { actor, dropped };
}

describe('CANCEL with an id several waiting messages share', () => {
  it('takes out the oldest of them, then the next, then nothing', () => {
    const target = createRecorder<Numbered>();
    const { actor, dropped } = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: target.ref });
    for (const n of [1, 2, 3, 4]) actor.send({ type: 'QUEUE', message: msg(n), id: n === 4 ? 'other' : 'job' });
    // 1 went at once; 2 and 3 wait under 'job'.
    for (let i = 0; i < 3; i++) actor.send({ type: 'CANCEL', id: 'job' });
    expect(dropped).toEqual([msg(2), msg(3)]);
    advance(5_000);
    expect(target.messages()).toEqual([msg(1), msg(4)]);
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 0, delivered: 2, dropped: 2, rejected: 0 });
  });

  it("with 'per-channel' ordering: the id names the oldest message still waiting, on whichever channel", () => {
    const target = createRecorder<Numbered>();
    const { actor, dropped } = startThrottler({
      rate: '10/1s',
      strategy: 'sliding-window',
      channels: { a: '1/1s', b: '1/1s' },
      ordering: 'per-channel',
    });
    actor.send({ type: 'QUEUE', message: msg(1), channel: 'a', id: 'job' });
    actor.send({ type: 'QUEUE', message: msg(2), channel: 'a', id: 'job' });
    actor.send({ type: 'QUEUE', message: msg(3), channel: 'b', id: 'job' });
    actor.send({ type: 'SET_TARGET', target: target.ref });
    // 1 and 3 went (one per channel); 2 is the only one left under 'job'.
    expect(target.messages()).toEqual([msg(1), msg(3)]);
    actor.send({ type: 'CANCEL', id: 'job' });
    expect(dropped).toEqual([msg(2)]);
    advance(5_000);
    expect(target.messages()).toEqual([msg(1), msg(3)]);
  });
});
