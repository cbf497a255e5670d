/**
 * A throttler on a store: its round trips and the grants it gave back (read from its clearance's
 * counts at collection), and from its events, the quarantines, the conflicts and the time the store
 * granted nothing (down, or quarantined), all on the throttler's clock.
 */
import type { Attributes, BatchObservableResult, Meter, Observable } from '@opentelemetry/api';
import type { ThrottlerEmitted } from '../machine/index.js';
import { THROTTLER_ATTRIBUTES, THROTTLER_METRICS } from './names.js';
import { define } from './options.js';
import type { Listenable, ThrottlerView } from './throttler-view.js';

type Quarantined = Extract<ThrottlerEmitted, { type: 'storeQuarantined' }>;
type Conflict = Extract<ThrottlerEmitted, { type: 'storeConflict' }>;

/** Spans of time, possibly overlapping, added up as they come: the total so far and the one running. */
class TimeSpans {
  private total = 0;
  private from = Number.NaN;
  private until = Number.NaN;

  /** A span from `from` to `until` (Infinity: until `end`). */
  begin(from: number, until = Number.POSITIVE_INFINITY): void {
    if (from < this.until) {
      this.until = Math.max(this.until, until);
      return;
    }
    if (!Number.isNaN(this.from)) this.total += this.until - this.from;
    this.from = from;
    this.until = until;
  }

  end(at: number): void {
    if (Number.isNaN(this.from) || !(at < this.until)) return;
    this.until = Math.max(this.from, at);
  }

  /** Milliseconds in every span, up to `now`. */
  upTo(now: number): number {
    if (Number.isNaN(this.from)) return this.total;
    return this.total + Math.max(0, Math.min(now, this.until) - this.from);
  }
}

export class StoreMetrics {
  readonly observables: Observable[];
  private readonly roundTrips: Observable;
  private readonly returnedGrants: Observable;
  private readonly quarantines: Observable;
  private readonly conflicts: Observable;
  private readonly unavailable: Observable;
  private quarantineCount = 0;
  private readonly conflictCounts = new Map<string, { value: number; readonly attributes: Attributes }>();
  private readonly down = new TimeSpans();
  private readonly quarantined = new TimeSpans();
  private readonly downAttributes: Attributes;
  private readonly quarantinedAttributes: Attributes;

  constructor(
    meter: Meter,
    private readonly base: Attributes,
    private readonly view: ThrottlerView,
  ) {
    const m = THROTTLER_METRICS;
    this.roundTrips = meter.createObservableCounter(m.storeRoundTrips.name, {
      unit: m.storeRoundTrips.unit,
      description: 'Calls to the shared store that waited for its reply.',
    });
    this.returnedGrants = meter.createObservableCounter(m.storeReturnedGrants.name, {
      unit: m.storeReturnedGrants.unit,
      description: 'Grants given back to the store unsent: rewound and asked for again, too late, withdrawn.',
    });
    this.quarantines = meter.createObservableCounter(m.storeQuarantines.name, {
      unit: m.storeQuarantines.unit,
      description: "The store's shared state was lost; nothing was granted until the quarantine ended.",
    });
    this.conflicts = meter.createObservableCounter(m.storeConflicts.name, {
      unit: m.storeConflicts.unit,
      description: 'Calls the store refused: another process holds another value of an option.',
    });
    this.unavailable = meter.createObservableCounter(m.storeUnavailableTime.name, {
      unit: m.storeUnavailableTime.unit,
      description: 'Time the store granted nothing to this throttler: down, or quarantined.',
    });
    this.observables = [this.roundTrips, this.returnedGrants, this.quarantines, this.conflicts, this.unavailable];
    this.downAttributes = this.with(THROTTLER_ATTRIBUTES.storeState, 'down');
    this.quarantinedAttributes = this.with(THROTTLER_ATTRIBUTES.storeState, 'quarantined');
  }

  /** The store's events this needs, each listened to; returns their subscriptions. */
  listen(actor: Listenable): Array<{ unsubscribe(): void }> {
    return [
      actor.on('storeDown', (event) => this.down.begin((event as { at: number }).at)),
      actor.on('storeUp', (event) => this.down.end((event as { at: number }).at)),
      actor.on('storeQuarantined', (event) => {
        const { at, until } = event as Quarantined;
        this.quarantineCount += 1;
        this.quarantined.begin(at, until);
      }),
      actor.on('storeConflict', (event) => {
        const { option } = event as Conflict;
        const entry = this.conflictCounts.get(option);
        if (entry === undefined) {
          this.conflictCounts.set(option, {
            value: 1,
            attributes: this.with(THROTTLER_ATTRIBUTES.storeOption, option),
          });
        } else entry.value += 1;
      }),
    ];
  }

  observe(result: BatchObservableResult): void {
    const traffic = this.view.traffic();
    if (traffic === undefined) return;
    result.observe(this.roundTrips, traffic.roundTrips, this.base);
    result.observe(this.returnedGrants, traffic.grantsReturned, this.base);
    result.observe(this.quarantines, this.quarantineCount, this.base);
    for (const { value, attributes } of this.conflictCounts.values()) result.observe(this.conflicts, value, attributes);
    const now = this.view.now();
    result.observe(this.unavailable, this.down.upTo(now) / 1000, this.downAttributes);
    result.observe(this.unavailable, this.quarantined.upTo(now) / 1000, this.quarantinedAttributes);
  }

  private with(key: string, value: string): Attributes {
    const attributes: Attributes = { ...this.base };
    define(attributes, key, value);
    return attributes;
  }
}
