import type { MachineContext } from '../../src/machine/machine-types.js';

/**
 * The machine's full context (its dispatcher, clock and pacer), which the public `ThrottlerContext`
 * leaves out: for the tests that look inside the queue or the clearance.
 */
export function machineContext(actor: { getSnapshot(): { context: object } }): MachineContext {
  return actor.getSnapshot().context as MachineContext;
}
