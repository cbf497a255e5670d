import { formatRate, type Rate } from '../rate/index.js';
import { costIn, type Delivery, type ParsedRates, type Recorded } from './events.js';

/** The window `[start, start + interval)` that holds the most cost, and how much it holds. */
export interface BusiestWindow {
  /** `'overall'` counts every delivery; `'channel'` only those of `channel`. */
  readonly scope: 'overall' | 'channel';
  readonly channel?: string | undefined;
  /** The rate, e.g. `3/1s`. */
  readonly rate: string;
  /** The rate's dimension (rates in dimensions): its windows count each delivery's cost in it. */
  readonly dimension?: string | undefined;
  readonly limit: number;
  readonly interval: number;
  /** Where the window starts (a delivery time); undefined when nothing was delivered. */
  readonly start: number | undefined;
  /** Total cost delivered in the window: what the limit bounds. */
  readonly count: number;
  /** How many deliveries that is. */
  readonly deliveries: number;
}

/**
 * The busiest window of length `interval` over deliveries sorted by time, counting cost, by a
 * two-pointer sweep: O(n). Some busiest window always starts at a delivery, so only those starts
 * are tried; ties go to the earliest. No deliveries: count 0 and no start.
 */
export function sweepBusiestWindow(
  deliveries: readonly Delivery[],
  interval: number,
): { start: number | undefined; count: number; deliveries: number } {
  let best = { start: undefined as number | undefined, count: 0, deliveries: 0 };
  let end = 0;
  let cost = 0;
  for (let first = 0; first < deliveries.length; first++) {
    const start = (deliveries[first] as Delivery).at;
    // [first, end) is the window; at huge times start + interval can round to start and hold nothing.
    if (end < first) {
      end = first;
      cost = 0;
    }
    while (end < deliveries.length && (deliveries[end] as Delivery).at < start + interval) {
      cost += (deliveries[end] as Delivery).cost;
      end += 1;
    }
    if (cost > best.count) best = { start, count: cost, deliveries: end - first };
    if (end > first) cost -= (deliveries[first] as Delivery).cost;
  }
  return best;
}

/** Deliveries per channel, each list in time order. */
export function byChannel(deliveries: readonly Delivery[]): Map<string | undefined, Delivery[]> {
  const channels = new Map<string | undefined, Delivery[]>();
  for (const delivery of deliveries) {
    let list = channels.get(delivery.channel);
    if (list === undefined) channels.set(delivery.channel, (list = []));
    list.push(delivery);
  }
  return channels;
}

function measure(rate: Rate, deliveries: readonly Delivery[], channel: string | undefined): BusiestWindow {
  const { dimension } = rate;
  // A rate in a dimension counts the deliveries that cost something in it, at that cost.
  const counted =
    dimension === undefined
      ? deliveries
      : deliveries.flatMap((delivery) => {
          const cost = costIn(delivery, dimension);
          return cost > 0 ? [{ ...delivery, cost }] : [];
        });
  const found = sweepBusiestWindow(counted, rate.interval);
  return {
    scope: channel === undefined ? 'overall' : 'channel',
    ...(channel === undefined ? {} : { channel }),
    rate: formatRate(rate),
    ...(dimension === undefined ? {} : { dimension }),
    limit: rate.limit,
    interval: rate.interval,
    ...found,
  };
}

/** The busiest window for every rate: overall rates first, then each channel's, in the order given. */
export function measureWindows(recorded: Recorded, rates: ParsedRates): BusiestWindow[] {
  const windows = rates.overall.map((rate) => measure(rate, recorded.deliveries, undefined));
  const channels = byChannel(recorded.deliveries);
  for (const [name, channelRates] of rates.channels) {
    for (const rate of channelRates) windows.push(measure(rate, channels.get(name) ?? [], name));
  }
  return windows;
}
