import { type Cost, type Dimensions, type Rate, ThrottlerOptionError } from '../../rate/index.js';
import type { FeatureValue } from '../options/feature-value.js';
import { Deque } from '../queue/deque.js';

/**
 * Most deliveries kept awaiting their actual cost (ACTUAL_COST): past it the oldest is forgotten and keeps
 * its estimate. A delivery is forgotten anyway once the longest interval in force has passed since it went:
 * no window holds it any more, so its actual cost could change nothing.
 */
export const MAX_SETTLEABLE = 10_000;

/**
 * How many times the largest limit in force an actual cost may be: an overrun of a few windows' worth is
 * real (a call that used far more than its estimate); a thousand is a mistake (units), and taken it would
 * carry the policies' sums past the integers a float holds exactly.
 */
export const MAX_OVERRUN_FACTOR = 1_000;

/** What settling one delivery needs: when it went, on which channel, its estimate, and the clearance's handle. */
export interface SettleTicket {
  readonly id: unknown;
  readonly at: number;
  readonly channel: string | undefined;
  readonly estimate: Cost;
  /** What the clearance gave as it recorded the delivery (the local policies: the channel's or key's policy). */
  readonly handle: unknown;
  readonly expiresAt: number;
  /** The next delivery under the same id, newer. */
  newer: SettleTicket | undefined;
  taken: boolean;
}

/**
 * Delivered messages that carry an id, awaiting their actual cost, oldest first: O(1) per delivery and per
 * settle, bounded by {@link MAX_SETTLEABLE} and by time. Several deliveries under one id settle oldest first,
 * as CANCEL takes the oldest of several waiting.
 */
export class SettleBook {
  /** Per id, its oldest and newest tickets not yet taken (a chain through `newer`). */
  private readonly byId = new Map<unknown, { oldest: SettleTicket; newest: SettleTicket }>();
  /** Every ticket in delivery order, taken ones until they reach the front. */
  private readonly order = new Deque<SettleTicket>();
  private live = 0;
  /** The longest interval of any rate ever in force: how long a ticket is kept. */
  private horizon = 0;
  /** A transit spread's bound (stated J, or a measured one's max; 0 without): the policies keep a delivery that much longer. */
  private spread = 0;
  /** The largest limit of any rate ever in force, per dimension (undefined: of every rate): what bounds an actual cost. */
  private readonly largest = new Map<string | undefined, number>();
  private readonly capacity: number;

  constructor(rates: Iterable<readonly Rate[]>, capacity = MAX_SETTLEABLE, spread = 0) {
    this.capacity = capacity;
    this.spread = Number.isFinite(spread) ? spread : 0;
    for (const set of rates) this.widen(set);
  }

  /** Tickets not yet taken nor forgotten (some may have expired since the last call). */
  get size(): number {
    return this.live;
  }

  /** Rates now in force somewhere: a ticket is kept for their longest interval too. */
  widen(rates: readonly Rate[]): void {
    for (const rate of rates) {
      this.horizon = Math.max(this.horizon, rate.interval);
      for (const dimension of new Set([undefined, rate.dimension]))
        this.largest.set(dimension, Math.max(this.largest.get(dimension) ?? 0, rate.limit));
    }
  }

  /**
   * Refuses an actual cost above {@link MAX_OVERRUN_FACTOR} times the largest limit of any rate in force in its
   * dimension (a number: of any rate), so that the sums stay exact integers.
   */
  checkCeiling(actual: Cost, dimensions: Dimensions | undefined, input: unknown, path = 'cost'): void {
    const refuse = (ceiling: number, where: string, value: unknown) => {
      throw new ThrottlerOptionError(
        where,
        `an actual cost at most ${ceiling}, ${MAX_OVERRUN_FACTOR} times the largest limit in force`,
        value,
      );
    };
    const any = this.ceilingOf(undefined) ?? Number.MAX_SAFE_INTEGER;
    if (typeof actual === 'number') {
      if (actual > any) refuse(any, path, input);
      return;
    }
    for (const [index, value] of actual.entries()) {
      const name = dimensions?.names[index];
      const ceiling = this.ceilingOf(name) ?? any;
      if (value > ceiling) refuse(ceiling, `${path}.${name}`, value);
    }
  }

  /** A delivery under `id` went at `at` with cost `estimate`. O(1) amortised. */
  add(id: unknown, at: number, channel: string | undefined, estimate: Cost, handle: unknown): void {
    this.forget(at);
    const ticket: SettleTicket = {
      id,
      at,
      channel,
      estimate,
      handle,
      expiresAt: at + this.horizon + this.spread,
      newer: undefined,
      taken: false,
    };
    const chain = this.byId.get(id);
    if (chain === undefined) this.byId.set(id, { oldest: ticket, newest: ticket });
    else {
      chain.newest.newer = ticket;
      chain.newest = ticket;
    }
    this.order.push(ticket);
    this.live += 1;
    if (this.live > this.capacity) this.forget(at);
  }

  /** The oldest delivery under `id` still settleable at `now`, taken out; undefined when none. */
  take(id: unknown, now: number): SettleTicket | undefined {
    this.forget(now);
    const chain = this.byId.get(id);
    if (chain === undefined) return undefined;
    const ticket = chain.oldest;
    this.unlink(ticket, chain);
    return ticket;
  }

  /** The oldest delivery under `id` still settleable at `now`, left in; undefined when none. */
  peek(id: unknown, now: number): SettleTicket | undefined {
    this.forget(now);
    return this.byId.get(id)?.oldest;
  }

  /** Whether a delivery under `id` is settleable at `now`. A question, but it forgets what expired. */
  has(id: unknown, now: number): boolean {
    this.forget(now);
    return this.byId.has(id);
  }

  private ceilingOf(dimension: string | undefined): number | undefined {
    const largest = this.largest.get(dimension);
    return largest === undefined ? undefined : Math.min(Number.MAX_SAFE_INTEGER, largest * MAX_OVERRUN_FACTOR);
  }

  /** When the oldest delivery still settleable at `now` went (Infinity: none): how far back the audit must keep. */
  settleableFrom(now: number): number {
    this.forget(now);
    return this.order.peekFirst()?.at ?? Infinity;
  }

  /** Drops from the front what was taken, what expired by `now`, and what is over the cap. */
  private forget(now: number): void {
    for (let front = this.order.peekFirst(); front !== undefined; front = this.order.peekFirst()) {
      if (!front.taken) {
        if (front.expiresAt > now && this.live <= this.capacity) return;
        // The front is the oldest ticket of its id not taken: every older one went first.
        this.unlink(front, this.byId.get(front.id) as { oldest: SettleTicket; newest: SettleTicket });
      }
      this.order.shift();
    }
  }

  private unlink(ticket: SettleTicket, chain: { oldest: SettleTicket; newest: SettleTicket }): void {
    ticket.taken = true;
    this.live -= 1;
    if (ticket.newer === undefined) this.byId.delete(ticket.id);
    else chain.oldest = ticket.newer;
  }
}

/**
 * Estimate-then-settle as a feature value (options/features-option.ts): the settle book a throttler keeps of
 * its deliveries with an id. The main entry loads it by itself; xstate-throttler/lean only with
 * `features: [settle]`, without which ACTUAL_COST and a task's `settle` are refused with what to import.
 */
export interface SettleFeature extends FeatureValue<'settle'> {
  /** A book of the deliveries settleable within the longest of `rates`' intervals, widened by `spread`. */
  readonly book: (rates: Iterable<readonly Rate[]>, spread: number) => SettleBook;
}

const settleFeature: SettleFeature = {
  feature: 'settle',
  book: (rates, spread) => new SettleBook(rates, MAX_SETTLEABLE, spread),
};

/** A delivery's actual cost settled after it went (ACTUAL_COST, `settle`): pass it in `features` to xstate-throttler/lean. */
export const settle: FeatureValue<'settle'> = settleFeature;
