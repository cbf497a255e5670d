import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { throttlerMachine } from '../../src/machine/throttler-machine.js';
import type { ThrottlerEmitted } from '../../src/machine/types.js';
import { ThrottlerOptionError } from '../../src/rate/index.js';

/**
 * STORE_STATUS, what a store's clearance sends its throttler, turned into the emitted store events;
 * a malformed one is refused as invalidEvent, naming the shapes it may take, and changes nothing.
 */
function throttler() {
  const now = 100;
  const actor = createActor(throttlerMachine, { input: { rate: '1/1s', now: () => now } });
  const emitted: ThrottlerEmitted[] = [];
  actor.on('*', (event) => emitted.push(event));
  actor.start();
  return { actor, emitted };
}

describe('STORE_STATUS', () => {
  it('a conflict becomes storeConflict with its facts; a quarantine storeQuarantined with its end', () => {
    const { actor, emitted } = throttler();
    const error = new ThrottlerOptionError('rate', 'the same in every process', '10/1s');
    actor.send({ type: 'STORE_STATUS', conflict: { error, option: 'rate', ours: '10/1s', stored: '5/1s' } });
    actor.send({ type: 'STORE_STATUS', quarantinedUntil: 1100 });
    actor.send({ type: 'STORE_STATUS', up: false, error: new Error('timeout') });
    actor.send({ type: 'STORE_STATUS', up: true });
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
    actor.send({ type: 'STORE_STATUS', ...fields } as never);
    expect(emitted).toHaveLength(1);
    const [refused] = emitted as Array<{ type: string; error: Error }>;
    expect(refused?.type).toBe('invalidEvent');
    expect(refused?.error.message).toMatch(
      /^STORE_STATUS must be \{ up: boolean, error\?: Error \}, \{ conflict: \{ error, option, ours, stored \} \} or \{ quarantinedUntil: number \}, got /,
    );
    expect(actor.getSnapshot().context.version).toBe(before);
  });
});
