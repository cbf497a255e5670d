/**
 * A fleet's replay (docs/replay.md, "A fleet"): the arrivals of each recorded `process` through a throttler
 * of its own, every one over one shared store made on the replay's clock (`fleet: (clock) =>
 * createMemoryStore({ name, clock })`). A store answers by promise: after each arrival and each timer the
 * replay lets every answer in flight land (a macrotask turn) before virtual time moves on, so the fleet
 * decides as it would on a clock that waits for the store.
 */
import type { ThrottlerAuditReport, ThrottlerInput } from '../machine/index.js';
import { parseRates, type RatesInput, ThrottlerOptionError } from '../rate/index.js';

/** The store a fleet shares, as `fleet` makes it: a throttler's `store`, with the fleet's audit where it has one. */
export type FleetStore = NonNullable<ThrottlerInput['store']> & {
  audit?: (() => Promise<ThrottlerAuditReport>) | undefined;
};

/** `fleet`: the shared store, made on the replay's clock. */
export type FleetOf = (clock: () => number) => FleetStore;

/** Lets every promise in flight settle, and what they set off: one macrotask turn. */
export function storeAnswers(): Promise<void> {
  return new Promise<void>((resolve) => {
    if (typeof setImmediate === 'function') setImmediate(resolve);
    else setTimeout(resolve, 0);
  });
}

/** The store made on the replay's clock, checked. */
export function fleetStore(fleet: unknown, clock: () => number): FleetStore {
  if (typeof fleet !== 'function') {
    throw new ThrottlerOptionError(
      'fleet',
      'a function (clock) => store, e.g. createMemoryStore({ name, clock })',
      fleet,
    );
  }
  const store = (fleet as FleetOf)(clock);
  if (
    typeof store !== 'object' ||
    store === null ||
    typeof (store as { clearanceFor?: unknown }).clearanceFor !== 'function'
  ) {
    throw new ThrottlerOptionError('fleet', 'a function returning a store (xstate-throttler/store, /redis)', store);
  }
  return store;
}

/** How often (virtual ms) the fleet's audit is read so that it misses no grant: half the shortest overall interval. */
export function auditEvery(rate: unknown): number {
  try {
    const rates = parseRates(rate as RatesInput);
    return Math.max(1, Math.min(...rates.map((each) => each.interval)) / 2);
  } catch {
    return 500; // the throttler refuses the rate itself, naming it
  }
}
