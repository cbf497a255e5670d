import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { ScopePolicies } from '../../src/engine/clearance/scope-policies.js';
import { throttlerMachine } from '../../src/index.js';
import { createRecorder, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/**
 * A message's channel name is looked up (the name to its channel's or key's policy, in the Maps) once:
 * its check finds it, its admission and the fast path's questions ask again and are answered from the
 * last lookup; from then on its queue entry carries what was found, and the questions about it while it
 * waits and its delivery look nothing up. In virtual time.
 */
beforeEach(useVirtualTime);
afterEach(() => {
  vi.restoreAllMocks();
  restoreRealTime();
});

const ORDERINGS = ['fifo', 'per-channel'] as const;

describe('channel lookups', () => {
  for (const ordering of ORDERINGS) {
    it(`looks a queued message's channel or key up once however long it waits (${ordering})`, () => {
      const lookups = vi.spyOn(ScopePolicies.prototype as unknown as { lookUp(name: string): unknown }, 'lookUp');
      const recorder = createRecorder<Numbered>();
      const actor = createActor(throttlerMachine, {
        input: { rate: '100/1s', channels: { a: '2/1s' }, keys: { rate: '2/1s' }, ordering, target: recorder.ref },
      }).start();
      // The first two of each name go at once; the next two of each wait a second for their window.
      actor.send({ type: 'QUEUE_BATCH', messages: [1, 2].map((n) => ({ message: { type: 'msg', n }, channel: 'a' })) });
      actor.send({ type: 'QUEUE_BATCH', messages: [3, 4].map((n) => ({ message: { type: 'msg', n }, channel: 'k' })) });
      lookups.mockClear();
      // Names alternate, so that no message is answered from the one before it.
      const waiting = [5, 6, 7, 8].map((n) => ({ message: { type: 'msg', n }, channel: n % 2 === 1 ? 'a' : 'k' }));
      actor.send({ type: 'QUEUE_BATCH', messages: waiting });
      advance(500);
      expect(recorder.messages().map(({ n }) => n)).toEqual([1, 2, 3, 4]);
      advance(1_000);
      expect(
        recorder
          .messages()
          .map(({ n }) => n)
          .sort((x, y) => x - y),
      ).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(lookups).toHaveBeenCalledTimes(waiting.length);
      actor.stop();
    });
  }

  for (const [name, input] of [
    ['a configured channel', { channels: { a: '5/1s', ['__proto__']: '5/1s' } }],
    ['a key', { keys: { rate: '5/1s' } }],
  ] as const) {
    it(`looks the channel of a message sent straight through up once (${name})`, () => {
      const lookups = vi.spyOn(ScopePolicies.prototype as unknown as { lookUp(name: string): unknown }, 'lookUp');
      const recorder = createRecorder<Numbered>();
      const actor = createActor(throttlerMachine, {
        input: { rate: '100/1s', ...input, target: recorder.ref },
      }).start();
      // Two names in turn, each message alone: every one goes at once, on the idle fast path.
      for (let n = 1; n <= 4; n++)
        actor.send({ type: 'QUEUE', message: { type: 'msg', n }, channel: n % 2 ? 'a' : '__proto__' });
      expect(recorder.messages().map(({ n }) => n)).toEqual([1, 2, 3, 4]);
      expect(lookups).toHaveBeenCalledTimes(4);
      actor.stop();
    });
  }

  it('carries the scope a key was admitted with: one forgotten meanwhile would have been made anew', () => {
    const recorder = createRecorder<Numbered>();
    const actor = createActor(throttlerMachine, {
      input: { rate: '100/1s', keys: { rate: '1/1s', idleAfter: 10 }, target: recorder.ref },
    }).start();
    // k's second message waits for k's window while other keys come and go: k must not be forgotten.
    actor.send({ type: 'QUEUE', message: { type: 'msg', n: 1 }, channel: 'k' });
    actor.send({ type: 'QUEUE', message: { type: 'msg', n: 2 }, channel: 'k' });
    for (let n = 3; n < 40; n++) {
      advance(20);
      actor.send({ type: 'QUEUE', message: { type: 'msg', n }, channel: `other-${n}` });
    }
    advance(1_000);
    const times = recorder.received.filter(({ message }) => message.n <= 2).map(({ at }) => at);
    expect(times).toEqual([0, 1_000]);
    actor.stop();
  });
});
