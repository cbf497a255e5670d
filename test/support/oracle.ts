/**
 * A brute-force model of the strict sliding window, written from the definition
 * and not from src/policies, so that the property tests compare the real
 * machine against something that is obviously right rather than against itself.
 *
 * The definition: for every rate {limit, interval}, no window [s, s + interval)
 * holds deliveries whose cost adds up to more than `limit`. Overall rates count
 * every delivery; a channel's rates count only that channel's deliveries.
 *
 * Everything here is quadratic or worse on purpose: the runs are small, and a
 * clever oracle would need tests of its own.
 */

/** At most `limit` (total cost) per `interval` ms. */
export interface OracleRate {
  readonly limit: number;
  readonly interval: number;
}

/** The rates a throttler obeys: the overall ones, and each channel's on top. */
export interface RateConfig {
  readonly overall: readonly OracleRate[];
  readonly channels: Readonly<Record<string, readonly OracleRate[]>>;
}

/** A delivery that happened (or is expected to happen). */
export interface Delivery {
  readonly at: number;
  readonly cost: number;
  readonly channel: string | undefined;
}

/** A message as it arrives at the throttler, in the order it was sent. */
export interface Arrival {
  readonly id: number;
  readonly at: number;
  readonly cost: number;
  readonly channel: string | undefined;
}

/** Which rate a window was measured against: the overall one, or a channel's. */
export interface RateScope {
  readonly channel: string | undefined;
  readonly rate: OracleRate;
}

/** The fullest window found for one rate. */
export interface WorstWindow extends RateScope {
  /** Where the window [start, start + interval) begins (a delivery time); NaN when nothing was delivered. */
  readonly start: number;
  /** The total cost inside it. */
  readonly cost: number;
}

/** Every rate in the config with the channel it applies to (undefined: overall). */
export function scopesOf(config: RateConfig): RateScope[] {
  const scopes: RateScope[] = config.overall.map((rate) => ({ channel: undefined, rate }));
  for (const [channel, rates] of Object.entries(config.channels)) {
    for (const rate of rates) scopes.push({ channel, rate });
  }
  return scopes;
}

/** Whether a delivery counts against a rate of this scope. */
function counts(scope: RateScope, delivery: { channel: string | undefined }): boolean {
  return scope.channel === undefined || scope.channel === delivery.channel;
}

/** The cost of the deliveries of this scope inside [start, end). */
function costWithin(scope: RateScope, deliveries: readonly Delivery[], start: number, end: number): number {
  let total = 0;
  for (const delivery of deliveries) {
    if (counts(scope, delivery) && delivery.at >= start && delivery.at < end) total += delivery.cost;
  }
  return total;
}

/**
 * For each rate, the window [t, t + interval) holding the most cost, trying
 * every delivery time as t. That suffices: sliding a window's start forward to
 * the next delivery loses nothing and can only take more in at the far end.
 */
export function worstWindows(config: RateConfig, deliveries: readonly Delivery[]): WorstWindow[] {
  return scopesOf(config).map((scope) => {
    let worst: WorstWindow = { ...scope, start: Number.NaN, cost: 0 };
    for (const delivery of deliveries) {
      if (!counts(scope, delivery)) continue;
      const cost = costWithin(scope, deliveries, delivery.at, delivery.at + scope.rate.interval);
      if (cost > worst.cost) worst = { ...scope, start: delivery.at, cost };
    }
    return worst;
  });
}

/** The windows holding more than their rate's limit (empty when the sliding-window promise holds). */
export function overfullWindows(config: RateConfig, deliveries: readonly Delivery[]): WorstWindow[] {
  return worstWindows(config, deliveries).filter((window) => window.cost > window.rate.limit);
}

/**
 * Whether a delivery of `cost` on `channel` at time `at` keeps every window
 * within its limit, given earlier deliveries (all at or before `at`). Only the
 * windows containing `at` change; of those, the one starting just after
 * `at - interval` holds every earlier delivery the others hold, so it is the
 * one to check: the deliveries in (at - interval, at].
 */
export function allowsAt(
  config: RateConfig,
  deliveries: readonly Delivery[],
  at: number,
  cost: number,
  channel: string | undefined,
): boolean {
  const candidate = { channel };
  for (const scope of scopesOf(config)) {
    if (!counts(scope, candidate)) continue;
    let inWindow = 0;
    for (const delivery of deliveries) {
      if (counts(scope, delivery) && delivery.at > at - scope.rate.interval && delivery.at <= at) {
        inWindow += delivery.cost;
      }
    }
    if (inWindow + cost > scope.rate.limit) return false;
  }
  return true;
}

/**
 * The earliest time >= now at which a delivery of `cost` on `channel` may go
 * under the strict sliding window. What is allowed changes only when an earlier
 * delivery leaves a window (at its time plus an interval), so those times and
 * `now` are the only candidates; each is checked from the definition.
 */
export function earliestAllowed(
  config: RateConfig,
  deliveries: readonly Delivery[],
  now: number,
  cost: number,
  channel: string | undefined,
): number {
  const candidates = [now];
  for (const { rate } of scopesOf(config)) {
    for (const delivery of deliveries) {
      if (delivery.at + rate.interval > now) candidates.push(delivery.at + rate.interval);
    }
  }
  candidates.sort((a, b) => a - b);
  for (const at of candidates) if (allowsAt(config, deliveries, at, cost, channel)) return at;
  // Only a cost above a limit never fits; the caller generates none.
  return Number.POSITIVE_INFINITY;
}

/** A message's expected delivery. */
export interface ExpectedDelivery extends Delivery {
  readonly id: number;
}

/**
 * The work-conserving schedule: every delivery happens at the earliest time the
 * window allows given the deliveries before it.
 *
 * - 'fifo': the oldest waiting message goes next; everything behind it waits.
 * - 'per-channel': each channel (and "no channel") keeps its own order; of the
 *   heads of those queues the one allowed earliest goes first, a tie going to
 *   the one that arrived first.
 *
 * Arrivals and deliveries at the same instant: what is due goes before a
 * message that arrives at that instant is considered (the machine's wake-up
 * timer fires before the test sends the next message), and after each arrival
 * everything then due goes before the next arrival.
 */
export function expectedSchedule(
  config: RateConfig,
  arrivals: readonly Arrival[],
  ordering: 'fifo' | 'per-channel',
): ExpectedDelivery[] {
  const delivered: ExpectedDelivery[] = [];
  const waiting: Arrival[] = [];
  let nextArrival = 0;
  let now = Number.NEGATIVE_INFINITY;
  for (;;) {
    let best: { message: Arrival; at: number } | undefined;
    for (const message of headsOf(waiting, ordering)) {
      const at = earliestAllowed(config, delivered, now, message.cost, message.channel);
      // Heads come in arrival order, so a strict `<` leaves a tie with the earlier arrival.
      if (best === undefined || at < best.at) best = { message, at };
    }
    const arrival = arrivals[nextArrival];
    if (best !== undefined && (arrival === undefined || best.at <= arrival.at)) {
      now = best.at;
      waiting.splice(waiting.indexOf(best.message), 1);
      delivered.push({ id: best.message.id, at: best.at, cost: best.message.cost, channel: best.message.channel });
      continue;
    }
    if (arrival === undefined) return delivered;
    now = arrival.at;
    waiting.push(arrival);
    nextArrival += 1;
  }
}

/** The messages that may go next, in arrival order. */
function headsOf(waiting: readonly Arrival[], ordering: 'fifo' | 'per-channel'): Arrival[] {
  if (ordering === 'fifo') return waiting.slice(0, 1);
  const heads: Arrival[] = [];
  const seen = new Set<string | undefined>();
  for (const message of waiting) {
    if (seen.has(message.channel)) continue;
    seen.add(message.channel);
    heads.push(message);
  }
  return heads;
}
