import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { restoreThrottler, throttlerMachine } from '../../src/lean/index.js';
import { fixedWindow } from '../support/own-strategies.js';
import { createRecorder } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** xstate-throttler/lean knows no strategy by name, and takes one of a user's own as it takes the library's values. */
describe('a strategy of your own on xstate-throttler/lean', () => {
  it('throttles the lean machine, and a snapshot restores with the lean restoreThrottler', () => {
    const target = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: { rate: '2/100ms', strategy: fixedWindow, target: target.ref },
    }).start();
    for (let i = 0; i < 5; i++) actor.send({ type: 'QUEUE', message: { type: 'm', i } });
    advance(100);
    expect(target.received.map(({ at }) => at)).toEqual([0, 0, 100, 100]);
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    const later = createRecorder();
    const restored = restoreThrottler(saved, { strategy: fixedWindow, target: later.ref });
    advance(99);
    expect(later.received).toEqual([]);
    advance(1);
    expect(later.received.map(({ message }) => message)).toEqual([{ type: 'm', i: 4 }]);
    restored.stop();
  });
});
