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
  /** 0-9, higher first; undefined: 5. */
  readonly priority?: number | undefined;
  /** The last moment it may go (absolute); or `maxWait`, ms after `at`. */
  readonly deadline?: number | undefined;
  readonly maxWait?: number | undefined;
}

/** maxPriorityWait in the property scenarios: 100 ms a level, short enough that aging shows. */
export const SCENARIO_MAX_PRIORITY_WAIT = 900;

/**
 * A message's rank, from the definition: its arrival less 1/9 of maxPriorityWait per level of
 * priority (default 5). The lowest rank goes first; a tie goes to the one that arrived first.
 */
export function rankOf(arrival: Arrival, maxPriorityWait: number): number {
  return arrival.at - (arrival.priority ?? 5) * (maxPriorityWait / 9);
}

/** Whether `a` goes before `b` when both may go: the lower rank, then the earlier arrival. */
export function goesBefore(a: Arrival, b: Arrival, maxPriorityWait: number): boolean {
  const rankA = rankOf(a, maxPriorityWait);
  const rankB = rankOf(b, maxPriorityWait);
  return rankA < rankB || (rankA === rankB && a.id < b.id);
}

/** The last moment an arrival may be delivered; Infinity when it has no deadline. */
export function deadlineOf(arrival: Arrival): number {
  if (arrival.deadline !== undefined) return arrival.deadline;
  if (arrival.maxWait !== undefined) return arrival.at + arrival.maxWait;
  return Number.POSITIVE_INFINITY;
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

/** A message dropped because its deadline passed, and when. */
export interface ExpectedDrop {
  readonly id: number;
  readonly at: number;
}

/**
 * The work-conserving schedule: every delivery happens at the earliest time the
 * window allows given the deliveries before it.
 *
 * - 'fifo': the waiting message of lowest rank (rankOf) goes next; everything else waits.
 * - 'per-channel': each channel (and "no channel") keeps its own order, by rank;
 *   of the heads of those queues the one allowed earliest goes first, a tie
 *   going to the lower rank, then the one that arrived first.
 *
 * Arrivals and deliveries at the same instant: what is due goes before a
 * message that arrives at that instant is considered (the machine's wake-up
 * timer fires before the test sends the next message), and after each arrival
 * everything then due goes before the next arrival.
 *
 * Deadlines: a message may go at any time up to its deadline. One still waiting
 * at its deadline D is dropped at D once nothing more can go at D (before an
 * arrival at D); one that arrives past its deadline is dropped as it arrives.
 */
export function expectedRun(
  config: RateConfig,
  arrivals: readonly Arrival[],
  ordering: 'fifo' | 'per-channel',
  maxPriorityWait = SCENARIO_MAX_PRIORITY_WAIT,
): { delivered: ExpectedDelivery[]; expired: ExpectedDrop[] } {
  const delivered: ExpectedDelivery[] = [];
  const expired: ExpectedDrop[] = [];
  let waiting: Arrival[] = [];
  let nextArrival = 0;
  let now = Number.NEGATIVE_INFINITY;
  for (;;) {
    let best: { message: Arrival; at: number } | undefined;
    for (const message of headsOf(waiting, ordering, maxPriorityWait)) {
      const at = earliestAllowed(config, delivered, now, message.cost, message.channel);
      if (best === undefined || at < best.at || (at === best.at && goesBefore(message, best.message, maxPriorityWait)))
        best = { message, at };
    }
    const arrival = arrivals[nextArrival];
    const arrivesAt = arrival?.at ?? Number.POSITIVE_INFINITY;
    const deadline = Math.min(...waiting.map(deadlineOf));
    if (best !== undefined && best.at <= arrivesAt && best.at <= deadline) {
      now = best.at;
      waiting.splice(waiting.indexOf(best.message), 1);
      delivered.push({ id: best.message.id, at: best.at, cost: best.message.cost, channel: best.message.channel });
      continue;
    }
    if (deadline <= arrivesAt && deadline < Number.POSITIVE_INFINITY) {
      now = deadline;
      for (const message of waiting) if (deadlineOf(message) <= now) expired.push({ id: message.id, at: now });
      waiting = waiting.filter((message) => deadlineOf(message) > now);
      continue;
    }
    if (arrival === undefined) return { delivered, expired };
    now = arrival.at;
    if (deadlineOf(arrival) < now) expired.push({ id: arrival.id, at: now });
    else waiting.push(arrival);
    nextArrival += 1;
  }
}

/** The deliveries of `expectedRun`. */
export function expectedSchedule(
  config: RateConfig,
  arrivals: readonly Arrival[],
  ordering: 'fifo' | 'per-channel',
  maxPriorityWait = SCENARIO_MAX_PRIORITY_WAIT,
): ExpectedDelivery[] {
  return expectedRun(config, arrivals, ordering, maxPriorityWait).delivered;
}

/** The messages that may go next (the one of lowest rank, overall or per channel), in arrival order. */
function headsOf(waiting: readonly Arrival[], ordering: 'fifo' | 'per-channel', maxPriorityWait: number): Arrival[] {
  const heads = new Map<string | undefined, Arrival>();
  for (const message of waiting) {
    const key = ordering === 'fifo' ? 'all' : message.channel;
    const head = heads.get(key);
    if (head === undefined || goesBefore(message, head, maxPriorityWait)) heads.set(key, message);
  }
  return [...heads.values()].sort((a, b) => a.id - b.id);
}
