import type { CostPolicy } from '../../policies/index.js';
import type { Rate } from '../../rate/index.js';

/**
 * One channel's or key's policy, and what lazy activation and forgetting need. A waiting message
 * carries its own (QueuedMessage.scope, from its admission on), so that its name is looked up once.
 */
export interface Scope {
  readonly policy: CostPolicy;
  /** A key's name (KeysByUse files it under it); undefined for a configured channel. */
  readonly key: string | undefined;
  /** The last activation this policy has seen: a later one reaches it at its next use. */
  activation: number;
  /** Keys: rates of its own (a SET_RATE naming it), or undefined while it follows the template. */
  ownRates: Rate[] | undefined;
  /** Keys: how long it must stay idle before it may be forgotten, max(idleAfter, its longest interval). */
  keepFor: number;
  /** Keys: when it was last used (a delivery, a settle, a message admitted, a rate set, its creation). */
  lastUsed: number;
  /** Keys: messages admitted for it and still waiting. */
  waiting: number;
  /**
   * Keys: whether its policy has recorded a delivery (or was restored, and may hold some). One that never
   * has (created by a SET_RATE, or by messages cancelled or dropped) has an empty window: it is kept for
   * `idleAfter` only, not for its longest interval too.
   */
  holdsDeliveries: boolean;
  /** Keys: kept by KeysByUse. */
  placed: number;
}
