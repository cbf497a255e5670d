import { type Delivery, type RateConfig, type RateScope, scopesOf } from './oracle.js';

/**
 * The smooth strategies' promise over spans, for the property tests: what one rate's deliveries may
 * cost over any span from one delivery to a later one.
 */

/** A span [from, to] of one rate's deliveries whose cost is more than the bound allows. */
interface SpanExcess extends RateScope {
  readonly from: number;
  readonly to: number;
  readonly cost: number;
  readonly allowed: number;
}

/**
 * How much later than its grant a delivery may go: the wake-up timer is armed in whole ms, rounded
 * up. The schedule stays on Guava's grants (a late wake-up is not idle time), so the deliveries of
 * a span [a, b] were granted within [a − 1 ms, b]: the bound on grants holds over that longer span.
 */
const TIMER_SLACK_MS = 1;

/**
 * Every span [a, b] from one delivery to a later one, for every rate: the cost
 * delivered in it against `allowance + limit × (b − a + timer slack) / interval +
 * the cost of the last request in it` (granted ahead of its permits; the next
 * request waits that off). Returns the spans over the bound.
 */
export function spansOverBound(
  config: RateConfig,
  deliveries: readonly Delivery[],
  allowanceOf: (scope: RateScope) => number,
): SpanExcess[] {
  const excesses: SpanExcess[] = [];
  for (const scope of scopesOf(config)) {
    const inScope = deliveries.filter((delivery) => scope.channel === undefined || delivery.channel === scope.channel);
    for (let first = 0; first < inScope.length; first++) {
      let cost = 0;
      for (let last = first; last < inScope.length; last++) {
        const from = inScope[first] as Delivery;
        const to = inScope[last] as Delivery;
        cost += to.cost;
        const span = to.at - from.at + TIMER_SLACK_MS;
        const allowed = allowanceOf(scope) + (scope.rate.limit * span) / scope.rate.interval + to.cost;
        // The tolerance only absorbs rounding in `allowed`; costs are whole numbers.
        if (cost > allowed + 1e-9) excesses.push({ ...scope, from: from.at, to: to.at, cost, allowed });
      }
    }
  }
  return excesses;
}
