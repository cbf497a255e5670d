import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { throttlerMachine } from '../../src/index.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/**
 * In `active`, a QUEUE that joins a queue behind its head can still change the next send: it may
 * displace the head (drop-oldest) or carry a deadline before the armed wake-up. Each such QUEUE must
 * run the delivery pass (a short cut that skipped the pass for messages placed behind the head was
 * tried for W2 and measured no faster: bench/analysis.md).
 */
describe('a QUEUE in active that joins the queue behind its head', () => {
  it('a QUEUE that displaces the head (drop-oldest) runs the pass: the new head goes at once if it may', () => {
    const target = createRecorder<Numbered>();
    const actor = createActor(throttlerMachine, {
      input: {
        rate: '100/1s',
        strategy: 'sliding-window',
        channels: { a: '1/1s', b: '10/1s' },
        capacity: 2,
        overflow: 'drop-oldest',
        target: target.ref,
      },
    }).start();
    actor.send({ type: 'QUEUE', message: msg(1), channel: 'a' });
    actor.send({ type: 'QUEUE', message: msg(2), channel: 'a' });
    // FIFO: 3 (channel b) waits behind 2, which waits for channel a's window.
    actor.send({ type: 'QUEUE', message: msg(3), channel: 'b' });
    expect(target.messages().map((m) => m.n)).toEqual([1]);
    advance(500);
    // 4 displaces 2 (the oldest): 3 is the head now and channel b allows it at once.
    actor.send({ type: 'QUEUE', message: msg(4), channel: 'b' });
    expect(target.messages().map((m) => m.n)).toEqual([1, 3, 4]);
    expect(target.times()).toEqual([0, 500, 500]);
  });

  it('a QUEUE behind the head with a deadline before the wake-up re-arms the timer for it', () => {
    const target = createRecorder<Numbered>();
    const actor = createActor(throttlerMachine, {
      input: { rate: '1/1s', strategy: 'sliding-window', target: target.ref },
    }).start();
    const dropped: number[] = [];
    actor.on('dropped', (event) => dropped.push((event.message as Numbered).n));
    actor.send({ type: 'QUEUE', message: msg(1) });
    actor.send({ type: 'QUEUE', message: msg(2) });
    actor.send({ type: 'QUEUE', message: msg(3), maxWait: 300 });
    expect(actor.getSnapshot().context.wakeAt).toBe(300);
    advance(300);
    expect(dropped).toEqual([3]);
    advance(700);
    expect(target.messages().map((m) => m.n)).toEqual([1, 2]);
  });
});
