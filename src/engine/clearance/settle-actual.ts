/**
 * ACTUAL_COST answered from the settle book (settle-book.ts): apart from the book, so that the book's feature
 * value needs nothing of the clearance.
 */
import { type Dimensions, resolveActualCost, ThrottlerOptionError } from '../../rate/index.js';
import type { ThrottlerAudit } from '../audit/throttler-audit.js';
import type { Clearance } from './clearance.js';
import type { SettleBook } from './settle-book.js';

/**
 * ACTUAL_COST: the oldest delivery under `id` still settleable takes its actual cost (checked against its
 * estimate: resolveActualCost), in the clearance and in the audit. Throws a ThrottlerOptionError naming `id` or
 * `cost` (then nothing changed).
 */
export function settleActualCost(
  dispatcher: {
    settleBook: SettleBook | undefined;
    clearance: Clearance;
    audit: ThrottlerAudit | undefined;
    options: { readonly dimensions: Dimensions | undefined };
  },
  id: unknown,
  cost: unknown,
  now: number,
): void {
  const { clearance, audit } = dispatcher;
  // The machine refuses ACTUAL_COST without the settle feature before it asks (control.ts).
  const settleBook = dispatcher.settleBook as SettleBook;
  const ticket = id === undefined ? undefined : settleBook.peek(id, now);
  if (ticket === undefined || clearance.settleDelivery === undefined) {
    throw new ThrottlerOptionError(
      'id',
      'the id of a delivered message still awaiting its actual cost (delivered within the longest interval, not settled yet)',
      id,
    );
  }
  const actual = resolveActualCost(cost, ticket.estimate, dispatcher.options.dimensions);
  settleBook.checkCeiling(actual, dispatcher.options.dimensions, cost);
  settleBook.take(id, now);
  clearance.settleDelivery(ticket.handle, ticket.channel, ticket.at, ticket.estimate, actual, now);
  audit?.settle(ticket.channel, ticket.at, ticket.estimate, actual);
}
