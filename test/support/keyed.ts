import { createActor } from 'xstate';
import type { LocalClearance } from '../../src/engine/clearance/local-clearance.js';
import {
  type ThrottlerEmitted,
  type ThrottlerInput,
  type ThrottlerOptionError,
  throttlerMachine,
} from '../../src/index.js';
import { machineContext } from './machine-context.js';
import { createRecorder, msg, type Numbered } from './recorder.js';

/**
 * A throttler with keyed limits and a recording target, for the keyed-limits tests: strict window,
 * a generous overall rate and a key template of 2/1s unless `input` says otherwise.
 */
export function startKeyed(input: Partial<ThrottlerInput> = {}) {
  const target = createRecorder<Numbered>();
  const actor = createActor(throttlerMachine, {
    input: { strategy: 'sliding-window', rate: '100/1s', keys: { rate: '2/1s' }, target: target.ref, ...input },
  });
  const emitted: ThrottlerEmitted[] = [];
  actor.on('*', (event) => emitted.push(event as ThrottlerEmitted));
  actor.start();
  return {
    actor,
    target,
    emitted,
    queue: (n: number, channel?: unknown, cost?: number) =>
      actor.send({ type: 'QUEUE', message: msg(n), channel: channel as string, cost }),
    /** [message number, delivery time] in the order the target received them. */
    deliveries: () => target.received.map((received) => [received.message.n, received.at]),
    /** How many keys the throttler holds now. */
    liveKeys: () => (machineContext(actor).dispatcher.clearance as LocalClearance).liveKeys,
    /** The keys a persisted snapshot holds, by name, with their own rates (null: the template's). */
    savedKeys: () => {
      const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
      const keys = saved.context.dispatcher.state.keys as Array<[string, unknown, unknown]>;
      return new Map(keys.map(([name, , rates]) => [name, rates]));
    },
    /** The `rejected` or `invalidEvent` events so far, with their errors. */
    events: (type: 'rejected' | 'invalidEvent') =>
      emitted.filter((event) => event.type === type) as unknown as Array<{
        reason?: string;
        error: ThrottlerOptionError;
      }>,
  };
}
