import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { byAnyName } from '../../src/engine/options/strategy-option.js';
import type { MachineEvent } from '../../src/machine/machine-types.js';
import { OWN_EVENT } from '../../src/machine/own-events.js';
import { machineKnowing } from '../../src/machine/throttler-machine.js';
import type { ThrottlerEmitted } from '../../src/machine/types.js';
import { ThrottlerOptionError } from '../../src/rate/index.js';

/** The machine with the library's own types, its input naming strategies as the main entry's does. */
const internalThrottlerMachine = machineKnowing(byAnyName);

/**
 * STORE_STATUS, what a store's clearance sends its throttler, turned into the emitted store events;
 * a malformed one is refused as invalidEvent, naming the shapes it may take, and changes nothing.
 * Sent marked as the library marks its own events (own-events.ts): from outside they are refused.
 */
const own = (fields: object): MachineEvent => ({ type: 'STORE_STATUS', ...fields, [OWN_EVENT]: true }) as MachineEvent;
function throttler() {
  const now = 100;
  const actor = createActor(internalThrottlerMachine, { input: { rate: '1/1s', now: () => now } });
  const emitted: ThrottlerEmitted[] = [];
  actor.on('*', (event) => emitted.push(event));
  actor.start();
  return { actor, emitted };
}

describe('STORE_STATUS', () => {
  it('a conflict becomes storeConflict with its facts; a quarantine storeQuarantined with its end', () => {
    const { actor, emitted } = throttler();
    const error = new ThrottlerOptionError('rate', 'the same in every process', '10/1s');
    actor.send(own({ conflict: { error, option: 'rate', ours: '10/1s', stored: '5/1s' } }));
    actor.send(own({ quarantinedUntil: 1100 }));
    actor.send(own({ up: false, error: new Error('timeout') }));
    actor.send(own({ up: true }));
    expect(emitted).toEqual([
      { type: 'storeConflict', error, option: 'rate', ours: '10/1s', stored: '5/1s', at: 100 },
      { type: 'storeQuarantined', until: 1100, at: 100 },
      { type: 'storeDown', error: new Error('timeout'), at: 100 },
      { type: 'storeUp', at: 100 },
    ]);
  });

  it.each([
    ['a conflict without an error', { conflict: { option: 'rate' } }],
    ['a conflict that is not an object', { conflict: 'rate' }],
    ['a quarantine end that is not a number', { quarantinedUntil: '5s' }],
    ['an up that is not a boolean', { up: 'yes' }],
  ])('%s is refused as invalidEvent', (_, fields) => {
    const { actor, emitted } = throttler();
    const before = actor.getSnapshot().context.version;
    actor.send(own(fields));
    expect(emitted).toHaveLength(1);
    const [refused] = emitted as Array<{ type: string; error: Error }>;
    expect(refused?.type).toBe('invalidEvent');
    expect(refused?.error.message).toMatch(
      /^STORE_STATUS must be \{ up: boolean, error\?: Error \}, \{ conflict: \{ error, option, ours, stored \} \} or \{ quarantinedUntil: number \}, got /,
    );
    expect(actor.getSnapshot().context.version).toBe(before);
  });
});
