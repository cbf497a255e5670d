import { describe, expect, expectTypeOf, it } from 'vitest';
import { createActor } from 'xstate';
import { createThrottler, type ThrottlerContext, type ThrottlerEvent, throttlerMachine } from '../../src/index.js';

/**
 * What users' code sees of the machine: the public event union, input and context (types.ts), not
 * the machine's own events, its dispatcher or the adapters' delivery gate. The `@ts-expect-error`
 * lines are checked by `tsc` (npm run typecheck covers test/).
 */
describe('the public types of the machine', () => {
  it("types actor.send with the events a user sends, and not the machine's own", () => {
    const actor = createActor(throttlerMachine, { input: { rate: '2/1s' } }).start();
    actor.send({ type: 'QUEUE', message: { type: 'job' } });
    // @ts-expect-error the machine's own wake-up is not a user's event
    actor.send({ type: 'WAKE' });
    // @ts-expect-error nor is the promise API's lease
    actor.send({ type: 'LEASE_END' });
    expectTypeOf<Extract<ThrottlerEvent, { type: 'DRAINED' | 'LEASE' | 'STORE_STATUS' }>>().toBeNever();
    expect(actor.getSnapshot().context.counts.queued).toBe(1);
    actor.stop();
  });

  it('shows only the documented context, and takes no delivery gate', () => {
    const actor = createActor(throttlerMachine, { input: { rate: '2/1s' } });
    expectTypeOf(actor.getSnapshot().context).toEqualTypeOf<ThrottlerContext>();
    // @ts-expect-error the dispatcher is the library's own
    expect(actor.getSnapshot().context.dispatcher).toBeDefined();
    // @ts-expect-error deliveryGate is for the adapters only
    createActor(throttlerMachine, { input: { rate: '2/1s', deliveryGate: () => true } });
  });

  it("types the promise API's actor the same way", () => {
    const throttler = createThrottler({ rate: '2/1s' });
    expectTypeOf(throttler.actor.send).parameter(0).toEqualTypeOf<ThrottlerEvent>();
    throttler.stop();
  });
});
