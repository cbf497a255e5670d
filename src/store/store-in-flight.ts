/**
 * A store clearance's deliveries in flight, with `maxConcurrent` (a store does not take `countUntil:
 * 'done'`): started as a message goes, settled by SETTLED, which must name one of them.
 */
import { InFlightDeliveries, type ResolvedOptions, tracksInFlight } from '../engine/index.js';
import { type Cost, costKey, type Dimensions, ThrottlerOptionError } from '../rate/index.js';

export class StoreInFlight {
  private readonly inFlight = new InFlightDeliveries();
  private readonly tracked: boolean;
  private readonly dimensions: Dimensions | undefined;

  constructor(options: ResolvedOptions) {
    this.tracked = tracksInFlight(options);
    this.dimensions = options.dimensions;
  }

  get count(): number {
    return this.inFlight.count;
  }

  start(channel: string | undefined, cost: Cost): void {
    if (this.tracked) this.inFlight.start(channel, costKey(cost));
  }

  /** SETTLED: throws a ThrottlerOptionError unless it names a delivery in flight. */
  settle(channel: unknown, cost: unknown): void {
    if (!this.tracked) {
      throw new ThrottlerOptionError('SETTLED', 'sent only with maxConcurrent (nothing else is tracked in flight)', {
        channel,
        cost,
      });
    }
    if (this.dimensions !== undefined) {
      this.inFlight.take(channel, cost, true, this.dimensions);
      return;
    }
    const settled = cost ?? 1;
    if (
      (channel !== undefined && typeof channel !== 'string') ||
      typeof settled !== 'number' ||
      !this.inFlight.settle(channel as string | undefined, settled)
    ) {
      throw new ThrottlerOptionError(
        'SETTLED',
        `the channel and cost of a delivery in flight (in flight: ${this.inFlight.describe()})`,
        { channel, cost },
      );
    }
  }
}
