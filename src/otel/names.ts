/**
 * The instruments' names, units and attribute keys: one namespace, `throttler.*`, shaped after the
 * one rate-limiting convention OpenTelemetry has (ASP.NET Core's `aspnetcore.rate_limiting.*`) and
 * proposed in docs/metrics.md as a generic one. Units follow the OpenTelemetry conventions: UCUM,
 * seconds for durations, `1` for a ratio, `{thing}` annotations for counts.
 */
export const THROTTLER_METRICS = {
  /** Counter, `{message}`, by `throttler.result` (and `throttler.reason` for dropped / rejected). */
  messages: { name: 'throttler.messages', unit: '{message}' },
  /** UpDownCounter (observed), `{message}`: waiting in the queue now. */
  queuedMessages: { name: 'throttler.queued_messages', unit: '{message}' },
  /** UpDownCounter (observed), `{delivery}`: delivered and not yet settled (maxConcurrent, countUntil 'done'). */
  activeDeliveries: { name: 'throttler.active_deliveries', unit: '{delivery}' },
  /** Histogram, `s`: how long a message that waited was queued before it went. */
  timeInQueue: { name: 'throttler.message.time_in_queue', unit: 's' },
  /** Gauge, `1`: 1 while a pause is in force (PAUSE, a server's Retry-After, a fleet-wide pause), else 0. */
  paused: { name: 'throttler.paused', unit: '1' },
  /** Gauge, `1`: what the current window of a rate holds, as a fraction of its limit. */
  windowUtilization: { name: 'throttler.window.utilization', unit: '1' },
  /** Gauge, `1`: the most any window of a rate has held since the throttler started (the audit), over its limit. */
  windowPeakUtilization: { name: 'throttler.window.peak_utilization', unit: '1' },
  /** Counter, `{window}`: windows of a rate that held more than its limit (the audit); 0 is the promise kept. */
  windowOverruns: { name: 'throttler.window.overruns', unit: '{window}' },
  /** Counter, `{round_trip}`: calls to the store that waited for its reply. */
  storeRoundTrips: { name: 'throttler.store.round_trips', unit: '{round_trip}' },
  /** Counter, `{grant}`: grants given back to the store unsent (rewound and asked again, late, withdrawn). */
  storeReturnedGrants: { name: 'throttler.store.returned_grants', unit: '{grant}' },
  /** Counter, `{quarantine}`: the store's shared state was lost and nothing was granted for a while. */
  storeQuarantines: { name: 'throttler.store.quarantines', unit: '{quarantine}' },
  /** Counter, `{conflict}`: calls the store refused for this throttler's configuration, by `throttler.store.option`. */
  storeConflicts: { name: 'throttler.store.conflicts', unit: '{conflict}' },
  /** Counter, `s`: time the store granted nothing, by `throttler.store.state` (`down`, `quarantined`). */
  storeUnavailableTime: { name: 'throttler.store.unavailable_time', unit: 's' },
} as const;

/** The attribute keys the instruments set. */
export const THROTTLER_ATTRIBUTES = {
  /** The `name` given to `instrumentThrottler`, on every series. */
  name: 'throttler.name',
  /** How a message ended (or that it queued): see {@link MessageResult}. */
  result: 'throttler.result',
  /** Why a message was dropped (`drop-oldest`, `drop-newest`, `cost-exceeds-limit`) or rejected (`overflow`, `invalid`). */
  reason: 'throttler.reason',
  /** A rate, as `formatRate` writes it (`10/1s`). */
  rate: 'throttler.rate',
  /** The dimension a rate limits (rates in dimensions, `{ requests, tokens }`), beside `throttler.rate`. */
  dimension: 'throttler.dimension',
  /** A channel or key, on the utilisation series of the `channels` asked for, and the audit's. */
  channel: 'throttler.channel',
  /** The audit's scope of a line: `overall`, `channel`, `keys` (every key together), or `key` (one asked for). */
  scope: 'throttler.scope',
  /** The store option another process holds with another value (`storeConflict`). */
  storeOption: 'throttler.store.option',
  /** `down` or `quarantined`. */
  storeState: 'throttler.store.state',
} as const;

/**
 * `throttler.result`: `delivered` (went to its target), `queued` (had to wait; it later ends as one of
 * the others), `dropped` (displaced from a full queue, or its cost above a new limit), `expired` (its
 * deadline passed), `rejected` (refused on arrival: invalid, or the queue full), `cancelled` (CANCEL or
 * an aborted signal).
 */
export type MessageResult = 'delivered' | 'queued' | 'dropped' | 'expired' | 'rejected' | 'cancelled';

/** The most channels and keys that get utilisation series of their own (the `channels` option). */
export const MAX_CHANNEL_SERIES = 100;

/** Bucket bounds for the wait histogram, in seconds: 1 ms to 5 min, as a rate limiter's waits run. */
export const TIME_IN_QUEUE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
