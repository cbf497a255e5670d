import type { Redis } from 'ioredis';
import { SimulatedClock } from 'xstate';
import type { ThrottlerInput } from '../../src/machine/types.js';
import type { RedisStoreOptions } from '../../src/redis/types.js';
import type { FleetAuditReport } from '../../src/store/protocol.js';
import { type StoreThrottler, storeThrottler } from './store-throttler.js';

/** One message sent to one throttler of the fleet at a virtual time. */
export interface FleetArrival {
  readonly at: number;
  readonly throttler: number;
  readonly channel: string | undefined;
  readonly n: number;
  /** The message's cost, if not 1 (a number, or a map of dimension to cost). */
  readonly cost?: number | Record<string, number>;
}

/**
 * Several throttler machines on one shared limiter, in one virtual time: one SimulatedClock is every
 * machine's clock and the store's test clock (Redis' time), so a reply takes no virtual time. `run`
 * sends the arrivals at their times and moves time to the next wake-up of any throttler, waiting for
 * Redis' replies in between (real I/O).
 */
export class StoreFleet {
  readonly clock = new SimulatedClock();
  readonly throttlers: StoreThrottler[];
  /** When each message (by n) was sent. */
  readonly sentAt = new Map<number, number>();

  constructor(
    redis: Redis,
    name: string,
    size: number,
    input: Omit<ThrottlerInput, 'store' | 'now'>,
    storeOptions: Partial<RedisStoreOptions> = {},
  ) {
    this.throttlers = Array.from({ length: size }, () => storeThrottler(redis, name, input, storeOptions, this.clock));
  }

  get deliveries(): StoreThrottler['deliveries'] {
    return this.throttlers.flatMap((throttler) => throttler.deliveries);
  }

  /**
   * Sends `arrivals` (sorted by time) at their times and steps until virtual time `until` (or, with no
   * `until`, until nothing is armed and nothing is left to send). `each` runs before every step (an audit).
   * Gives up after `maxSteps`. Returns the steps taken.
   */
  async run(
    arrivals: readonly FleetArrival[],
    until = Number.POSITIVE_INFINITY,
    each?: () => Promise<void>,
    maxSteps = 20_000,
    /** The longest move of time in one step (an audit must read at least once per interval). */
    maxJump = Number.POSITIVE_INFINITY,
  ): Promise<number> {
    let next = 0;
    for (let steps = 0; steps < maxSteps; steps++) {
      while (next < arrivals.length && (arrivals[next] as FleetArrival).at <= this.clock.now()) {
        const arrival = arrivals[next] as FleetArrival;
        this.sentAt.set(arrival.n, this.clock.now());
        (this.throttlers[arrival.throttler] as StoreThrottler).actor.send({
          type: 'QUEUE',
          message: { type: 'job', n: arrival.n },
          channel: arrival.channel,
          ...(arrival.cost === undefined ? {} : { cost: arrival.cost }),
        });
        next += 1;
      }
      // Twice: one throttler's answer can start another's call (a notice), which the first round missed.
      await Promise.all(this.throttlers.map((throttler) => throttler.quiet()));
      await Promise.all(this.throttlers.map((throttler) => throttler.quiet()));
      await each?.();
      let wakeAt = next < arrivals.length ? (arrivals[next] as FleetArrival).at : Number.POSITIVE_INFINITY;
      for (const throttler of this.throttlers) wakeAt = Math.min(wakeAt, throttler.actor.getSnapshot().context.wakeAt);
      if (wakeAt > until) {
        if (Number.isFinite(until)) this.clock.increment(Math.max(0, until - this.clock.now()));
        return steps;
      }
      if (!Number.isFinite(wakeAt)) return steps;
      this.clock.increment(Math.min(maxJump, Math.max(0, wakeAt - this.clock.now())));
    }
    return maxSteps;
  }

  /**
   * {@link run}, reading the fleet's audit (`store.audit()`) before a step whenever `everyMs` of virtual time
   * passed since the last read (at least once per interval keeps it exact: gaps 0), and once more at the end.
   * Returns the last report.
   */
  async runAudited(
    arrivals: readonly FleetArrival[],
    until: number,
    everyMs = 400,
    maxSteps = 20_000,
    maxJump = Number.POSITIVE_INFINITY,
  ): Promise<FleetAuditReport> {
    let last: FleetAuditReport | undefined;
    let auditedAt = Number.NEGATIVE_INFINITY;
    const audit = async () => {
      if (this.clock.now() - auditedAt < everyMs) return;
      auditedAt = this.clock.now();
      last = await (this.throttlers[0]?.store.audit() as Promise<FleetAuditReport>);
    };
    await this.run(arrivals, until, audit, maxSteps, maxJump);
    auditedAt = Number.NEGATIVE_INFINITY;
    await audit();
    return last as FleetAuditReport;
  }

  async stop(): Promise<void> {
    for (const throttler of this.throttlers) {
      throttler.actor.stop();
      await throttler.store.close();
    }
  }
}

/** What a fleet with weighted fairness shares: the overall rate, each key's, and the keys' weights (1 unless listed). */
export interface WeightedFleetLimits {
  readonly overall: { readonly limit: number; readonly interval: number };
  readonly key: { readonly limit: number; readonly interval: number };
  readonly weights: ReadonlyMap<string, number>;
}

/**
 * A fleet of `size` throttlers with `fairness: 'weighted'` on one limiter: sliding window and grace 0
 * unless `input` and `storeOptions` say otherwise (`input.rate` replaces the overall rate: dimensions).
 */
export function weightedFleet(
  redis: Redis,
  name: string,
  size: number,
  limits: WeightedFleetLimits,
  input: Partial<Omit<ThrottlerInput, 'store' | 'now'>> = {},
  storeOptions: Partial<RedisStoreOptions> = {},
): StoreFleet {
  return new StoreFleet(
    redis,
    name,
    size,
    {
      rate: [limits.overall],
      strategy: 'sliding-window',
      keys: { rate: [limits.key] },
      fairness: 'weighted',
      weight: (key) => limits.weights.get(key) ?? 1,
      ...input,
    },
    { grantGraceMs: 0, ...storeOptions },
  );
}
