import { type Cost, costKey, type Dimensions, describeValue, ThrottlerOptionError } from '../../rate/index.js';
import { settledCost } from './cost-check.js';

/**
 * Deliveries sent and not yet settled (with `maxConcurrent` or `countUntil: 'done'`),
 * counted by channel and cost (a cost per dimension by its `costKey`: equal costs, equal keys).
 *
 * A SETTLED event says "one delivery of this channel and cost has finished". It
 * is matched against what is in flight: with `countUntil: 'done'` a settle puts
 * its cost into the window and frees the slot, so a settle that matched nothing
 * (repeated, or with another cost or channel) would open the strict window or
 * leave a slot held forever. Deliveries of one channel and cost are
 * interchangeable for the window, so counting them is enough: no id is needed,
 * and the match is O(1).
 */
export class InFlightDeliveries {
  private readonly byChannel = new Map<string | undefined, Map<number | string, number>>();
  private total = 0;

  get count(): number {
    return this.total;
  }

  start(channel: string | undefined, cost: number | string): void {
    let byCost = this.byChannel.get(channel);
    if (byCost === undefined) {
      byCost = new Map();
      this.byChannel.set(channel, byCost);
    }
    byCost.set(cost, (byCost.get(cost) ?? 0) + 1);
    this.total += 1;
  }

  /** Whether any delivery of this channel is in flight. */
  holds(channel: string | undefined): boolean {
    return this.byChannel.has(channel);
  }

  /** Takes one delivery of this channel and cost out; false (and nothing changes) when none is in flight. */
  settle(channel: string | undefined, cost: number | string): boolean {
    const byCost = this.byChannel.get(channel);
    const waiting = byCost?.get(cost);
    if (byCost === undefined || waiting === undefined) return false;
    if (waiting === 1) {
      byCost.delete(cost);
      // Channels come and go (keyed limits): an empty entry is not kept.
      if (byCost.size === 0) this.byChannel.delete(channel);
    } else {
      byCost.set(cost, waiting - 1);
    }
    this.total -= 1;
    return true;
  }

  /** What is in flight, in a few words (for error messages). */
  /**
   * SETTLED: the delivery in flight of this channel and cost (checked; a cost per dimension read by `dimensions`)
   * is done, and its cost returned. Otherwise nothing changes and a ThrottlerOptionError says why: a wrong or
   * repeated settle must never open the window, nor hold a slot forever. `tracked`: whether anything is.
   */
  take(channel: unknown, cost: unknown, tracked: boolean, dimensions: Dimensions | undefined): Cost {
    if (!tracked) {
      throw new ThrottlerOptionError(
        'SETTLED',
        'sent only with maxConcurrent or countUntil "done" (nothing else is tracked in flight)',
        { channel, cost },
      );
    }
    if (channel !== undefined && typeof channel !== 'string') {
      throw new ThrottlerOptionError('channel', 'the channel of a delivery in flight, or undefined', channel);
    }
    const settled = settledCost(cost, dimensions);
    if (!this.settle(channel, costKey(settled))) {
      throw new ThrottlerOptionError(
        'SETTLED',
        `the channel and cost of a delivery in flight (in flight: ${this.describe()})`,
        { channel, cost: settled },
      );
    }
    return settled;
  }

  describe(): string {
    const parts: string[] = [];
    for (const [channel, byCost] of this.byChannel) {
      for (const [cost, count] of byCost) parts.push(`${count} of channel ${describeValue(channel)} with cost ${cost}`);
      if (parts.length >= 5) break;
    }
    return parts.length === 0 ? 'nothing' : parts.join(', ');
  }
}
