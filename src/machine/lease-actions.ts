/** The LEASE and LEASE_END events (lease.ts): checked, then answered in the event's own `lease` object. */
import type { AnyActorRef } from 'xstate';
import { ThrottlerOptionError } from '../rate/index.js';
import { type Effects, published, refuse } from './effects.js';
import type { MachineContext, MachineEvent } from './machine-types.js';
import { listensTo } from './xstate-internals.js';

/** LEASE: up to `want` permits now, written into `lease.granted` (0 when none may be leased). */
export function grantLease(context: MachineContext, event: MachineEvent, effects: Effects, self: AnyActorRef): void {
  if (event.type !== 'LEASE') return;
  const { lease, want } = event;
  if (typeof lease !== 'object' || lease === null || Object.isFrozen(lease)) {
    refuse(effects, event, new ThrottlerOptionError('lease', 'a writable object that receives { granted }', lease));
    return;
  }
  if (typeof want !== 'number' || !Number.isSafeInteger(want) || want < 1) {
    lease.granted = 0;
    refuse(effects, event, new ThrottlerOptionError('want', 'a positive integer', want));
    return;
  }
  // A listener to `delivered` hears every message with its fields: leased starts have none of their own.
  if (listensTo(self, 'delivered')) {
    lease.granted = 0;
    lease.spent = 0;
    return;
  }
  context.dispatcher.grantLease(lease, want, context.now());
}

/** LEASE_END: what the open lease spent counts as delivered now (withEffects has ended it already). */
export function endLease(context: MachineContext, _event: MachineEvent, effects: Effects): void {
  effects.assign(published(context, context.target, context.wakeAt));
}
