/** The LEASE and LEASE_END events (lease.ts): checked, then answered in the event's own `lease` object. */
import type { AnyActorRef } from 'xstate';
import { ThrottlerOptionError } from '../rate/index.js';
import { answerObjectError } from './answer-object.js';
import { type Effects, published, refuse } from './effects.js';
import type { MachineContext, MachineEvent } from './machine-types.js';
import { listensTo } from './xstate-internals.js';

/** The fields the machine writes into a lease (the holder counts in `spent`). */
const LEASE_FIELDS = ['granted', 'spent'] as const;

/** LEASE: up to `want` permits now, written into `lease.granted` (0 when none may be leased). */
export function grantLease(context: MachineContext, event: MachineEvent, effects: Effects, self: AnyActorRef): void {
  if (event.type !== 'LEASE') return;
  const { lease, want } = event;
  // Decided before anything changes: every later write into the lease is a plain one that cannot throw.
  const invalidLease = answerObjectError(lease, 'lease', '{ granted }', LEASE_FIELDS);
  if (invalidLease !== undefined) {
    refuse(effects, event, invalidLease);
    return;
  }
  try {
    if (typeof want !== 'number' || !Number.isSafeInteger(want) || want < 1) {
      lease.granted = 0;
      refuse(effects, event, new ThrottlerOptionError('want', 'a positive integer', want));
    } else if (listensTo(self, 'delivered')) {
      // A listener to `delivered` hears every message with its fields: leased starts have none of their own.
      lease.granted = 0;
      lease.spent = 0;
    } else {
      context.dispatcher.grantLease(lease, want, context.now());
    }
  } catch {
    // Only a Proxy that passed the checks and then threw: a lease it opened is charged whole (lease.ts).
    refuse(effects, event, new ThrottlerOptionError('lease', 'a writable object that receives { granted }', lease));
  }
}

/** LEASE_END: what the open lease spent counts as delivered now (withEffects has ended it already). */
export function endLease(context: MachineContext, _event: MachineEvent, effects: Effects): void {
  effects.assign(published(context, context.target, context.wakeAt));
}
