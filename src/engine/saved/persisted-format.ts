/**
 * The saved format: what a persisted snapshot holds under `context.dispatcher`
 * (written by `Dispatcher.toJSON`), and the reading of it back, field by field,
 * for `restoreThrottler`. Reading refuses anything damaged with one
 * ThrottlerOptionError naming the field's path from the snapshot and the value
 * (`persisted.context.dispatcher.state.queue[2].cost must be a positive
 * integer, got 0`); the policies' own states are checked by their policies.
 *
 * Format 3 adds to a waiting message its priority and deadline
 * (persisted-message.ts); a snapshot is written as format 3 only when a waiting
 * message has either, so that a version which reads format 2 still reads every
 * other snapshot, and refuses one whose deadlines it would ignore. Format 2 keeps
 * channel states as [name, state] pairs. Format 1 kept them in an object keyed by
 * channel name, where a channel named `__proto__` set the object's prototype
 * instead and lost its window. Formats 1 and 2 are still read; a format 1 one
 * that lost a configured channel's state is refused rather than restored with an
 * empty window. Format 3 also keeps the keyed limits (persisted-keys.ts): written as
 * format 3 too whenever keys are configured.
 */

import type { CostPolicyState } from '../../policies/index.js';
import { field, isRecord, readArray, readCount, readRecord, readTime } from '../../policies/saved-fields.js';
import { type Rate, ThrottlerOptionError } from '../../rate/index.js';
import type { CommonOptions, ResolvedOptions } from '../options/options.js';
import { describeChannels, readKeyStates, readKeysOption } from './persisted-keys.js';
import { type RestoredMessage, readMessage, type SavedMessage } from './persisted-message.js';
import type { SavedKey, SavedPolicy } from './saved-policy.js';

export type { SavedMessage } from './persisted-message.js';

/** Marks a dispatcher saved by `Dispatcher.toJSON`, so that restoring can refuse anything else. */
export const PERSISTED_FORMAT = 'xstate-throttler/3';
/** The format written when no waiting message has a priority or a deadline and no keys are configured. */
export const FORMAT_WITHOUT_PRIORITIES = 'xstate-throttler/2';
/** The format before channel states became pairs. */
const FIRST_FORMAT = 'xstate-throttler/1';
const FORMATS: readonly unknown[] = [PERSISTED_FORMAT, FORMAT_WITHOUT_PRIORITIES, FIRST_FORMAT];

/** Where the saved dispatcher sits in a persisted snapshot: every path an error names starts here. */
const ROOT = 'persisted.context.dispatcher';

/** The counts as saved. */
export interface SavedCounts {
  queued: number;
  delivered: number;
  dropped: number;
  rejected: number;
}

/** A dispatcher's saved state, times shifted to the wall clock. */
export interface DispatcherState<TMessage> {
  /** When it was saved: no delivery, arrival or period start it records is later. */
  savedAt: number;
  queue: Array<SavedMessage<TMessage>>;
  overall: CostPolicyState;
  /** [name, state] pairs: a name is data, `__proto__` included. */
  channels: Array<[string, CostPolicyState]>;
  /** The live keys as [name, state, own rates or null]. */
  keys: Array<[string, CostPolicyState, Rate[] | null]>;
  pausedUntil: number | 'forever' | null;
  counts: SavedCounts;
}

/**
 * A dispatcher as a persisted snapshot holds it. Times in `state` are wall-clock
 * ms (Date.now()). After a JSON round trip, Infinity (an unbounded capacity or
 * maxConcurrent) reads as null.
 */
export interface PersistedDispatcher<TMessage> {
  format: typeof PERSISTED_FORMAT | typeof FORMAT_WITHOUT_PRIORITIES;
  options: Omit<
    ResolvedOptions,
    | 'now'
    | 'weight'
    | 'strategyValue'
    | 'dimensions'
    | 'channels'
    | 'keys'
    | 'capacity'
    | 'maxConcurrent'
    | 'maxDeliveriesPerTurn'
    | 'transitMeter'
    | 'features'
    | 'splitByDimension'
  > & {
    channels: Array<[string, Rate[]]>;
    keys: { rates: Rate[]; idleAfter: number } | null;
    capacity: number | null;
    maxConcurrent: number | null;
    maxDeliveriesPerTurn: number | null;
  };
  state: DispatcherState<TMessage>;
}

/** A saved dispatcher state as read back: every field checked, times still on the wall clock. */
export interface RestoredState<TMessage> {
  /** Undefined in format 1, which did not record it. */
  savedAt: number | undefined;
  queue: Array<RestoredMessage<TMessage>>;
  overall: SavedPolicy;
  channels: Map<string, SavedPolicy>;
  /** Empty before format 3. */
  keys: Map<string, SavedKey>;
  /** -Infinity: not paused; Infinity: until resumed. */
  pausedUntil: number;
  counts: SavedCounts;
}

/** A saved dispatcher whose format is one this version reads, with its options as `resolveOptions` takes them. */
export interface PersistedParts {
  readonly format: string;
  readonly options: CommonOptions;
  readonly state: unknown;
}

/** The format and options of a saved dispatcher (the JSON form), checked as far as `resolveOptions` does not. */
export function readPersisted(dispatcher: unknown, persisted: unknown): PersistedParts {
  const format = isRecord(dispatcher) ? field(dispatcher, 'format') : undefined;
  if (!FORMATS.includes(format)) {
    throw new ThrottlerOptionError(
      'persisted',
      `a throttler's persisted snapshot (actor.getPersistedSnapshot(), whose context.dispatcher has format "${PERSISTED_FORMAT}", "${FORMAT_WITHOUT_PRIORITIES}" or "${FIRST_FORMAT}")`,
      format === undefined ? persisted : format,
    );
  }
  const record = readRecord(dispatcher, ROOT);
  const path = `${ROOT}.options`;
  const options = readRecord(field(record, 'options'), path);
  const strategyOptions = readRecord(field(options, 'strategyOptions'), `${path}.strategyOptions`);
  const nullable = (name: string) => field(options, name) ?? undefined;
  const input = {
    rate: field(options, 'rates'),
    strategy: field(options, 'strategy'),
    channels: readChannelRates(field(options, 'channels'), `${path}.channels`),
    keys: readKeysOption(field(options, 'keys'), `${path}.keys`),
    ordering: field(options, 'ordering'),
    // Absent from snapshots saved before weighted fairness: the default. The weight function is never saved.
    fairness: field(options, 'fairness'),
    maxBurst: field(strategyOptions, 'maxBurst') ?? undefined,
    warmup: field(strategyOptions, 'warmup') ?? undefined,
    coldFactor: field(strategyOptions, 'coldFactor') ?? undefined,
    // Absent from snapshots saved before the option existed: none.
    pace: field(strategyOptions, 'pace') ?? undefined,
    capacity: nullable('capacity'),
    overflow: field(options, 'overflow'),
    countUntil: field(options, 'countUntil'),
    maxConcurrent: nullable('maxConcurrent'),
    // Absent from snapshots saved before the option existed.
    timerPrecision: field(options, 'timerPrecision'),
    // null is an unbounded slice written by JSON (Infinity); absent (older snapshots) takes the default.
    maxDeliveriesPerTurn:
      field(options, 'maxDeliveriesPerTurn') === null
        ? Number.POSITIVE_INFINITY
        : field(options, 'maxDeliveriesPerTurn'),
    // Absent from snapshots saved before priorities: the default.
    maxPriorityWait: field(options, 'maxPriorityWait'),
    // Absent from snapshots saved before the option existed: none.
    transit: field(options, 'transit'),
  };
  // resolveOptions checks every one of these at run time, as it does a user's options.
  return { format: format as string, options: input as CommonOptions, state: field(record, 'state') };
}

/**
 * The saved state of a dispatcher with these (resolved) options. Messages are
 * checked to be objects; what else they hold is the saving throttler's business.
 */
export function readState<TMessage extends object>(
  parts: PersistedParts,
  options: ResolvedOptions,
): RestoredState<TMessage> {
  const path = `${ROOT}.state`;
  const state = readRecord(parts.state, path);
  const savedAt = parts.format === FIRST_FORMAT ? undefined : readTime(field(state, 'savedAt'), `${path}.savedAt`);
  const savedQueue = readArray(field(state, 'queue'), `${path}.queue`);
  if (savedQueue.length > options.capacity) {
    throw new ThrottlerOptionError(`${path}.queue`, `at most ${options.capacity} messages (the capacity)`, savedQueue);
  }
  const queue = savedQueue.map((entry, index) =>
    readMessage<TMessage>(entry, `${path}.queue[${index}]`, options, savedAt ?? Number.POSITIVE_INFINITY),
  );
  const channels =
    parts.format === FIRST_FORMAT
      ? readChannelsByName(field(state, 'channels'), `${path}.channels`, options)
      : readChannelPairs(field(state, 'channels'), `${path}.channels`, options);
  for (const name of options.channels.keys()) {
    if (!channels.has(name)) {
      throw new ThrottlerOptionError(
        `${path}.channels`,
        `a state for every configured channel, "${name}" included`,
        field(state, 'channels'),
      );
    }
  }
  const keys =
    parts.format === PERSISTED_FORMAT ? readKeyStates(field(state, 'keys'), `${path}.keys`, options) : new Map();
  const counts = readCounts(field(state, 'counts'), `${path}.counts`);
  if (counts.queued !== queue.length) {
    throw new ThrottlerOptionError(
      `${path}.counts.queued`,
      `${queue.length} (the messages in the queue)`,
      counts.queued,
    );
  }
  return {
    savedAt,
    queue,
    overall: { saved: field(state, 'overall'), path: `${path}.overall` },
    channels,
    keys,
    pausedUntil: readPausedUntil(field(state, 'pausedUntil'), `${path}.pausedUntil`),
    counts,
  };
}

function readChannelRates(value: unknown, path: string): Record<string, unknown> {
  const pairs = readArray(value, path, 'an array of [name, rates] pairs');
  // Without a prototype, so that a channel named "__proto__" is a key like any other.
  const channels: Record<string, unknown> = Object.create(null);
  for (const [index, entry] of pairs.entries()) {
    const pair = readArray(entry, `${path}[${index}]`, 'a [name, rates] pair');
    const name = pair[0];
    if (typeof name !== 'string' || Object.hasOwn(channels, name)) {
      throw new ThrottlerOptionError(`${path}[${index}][0]`, 'a channel name (a string) not given before', name);
    }
    channels[name] = pair[1];
  }
  return channels;
}

function readChannelPairs(value: unknown, path: string, options: ResolvedOptions): Map<string, SavedPolicy> {
  const pairs = readArray(value, path, 'an array of [name, state] pairs');
  const channels = new Map<string, SavedPolicy>();
  for (const [index, entry] of pairs.entries()) {
    const pair = readArray(entry, `${path}[${index}]`, 'a [name, state] pair');
    const name = pair[0];
    if (typeof name !== 'string' || !options.channels.has(name) || channels.has(name)) {
      const requirement = `a configured channel, named once (${describeChannels(options)})`;
      throw new ThrottlerOptionError(`${path}[${index}][0]`, requirement, name);
    }
    channels.set(name, { saved: pair[1], path: `${path}[${index}][1]` });
  }
  return channels;
}

/** Format 1: an object keyed by channel name (own keys only: JSON.parse makes "__proto__" one). */
function readChannelsByName(value: unknown, path: string, options: ResolvedOptions): Map<string, SavedPolicy> {
  const record = readRecord(value, path, 'an object of channel name to state');
  const channels = new Map<string, SavedPolicy>();
  for (const name of Object.keys(record)) {
    const channelPath = `${path}.${name}`;
    if (!options.channels.has(name)) {
      const requirement = `absent: not a configured channel (${describeChannels(options)})`;
      throw new ThrottlerOptionError(channelPath, requirement, record[name]);
    }
    channels.set(name, { saved: record[name], path: channelPath });
  }
  return channels;
}

function readCounts(value: unknown, path: string): SavedCounts {
  const counts = readRecord(value, path);
  return {
    queued: readCount(field(counts, 'queued'), `${path}.queued`),
    delivered: readCount(field(counts, 'delivered'), `${path}.delivered`),
    dropped: readCount(field(counts, 'dropped'), `${path}.dropped`),
    rejected: readCount(field(counts, 'rejected'), `${path}.rejected`),
  };
}

function readPausedUntil(value: unknown, path: string): number {
  if (value === null) return Number.NEGATIVE_INFINITY;
  if (value === 'forever') return Number.POSITIVE_INFINITY;
  if (typeof value !== 'number')
    throw new ThrottlerOptionError(path, 'null, "forever" or a wall-clock time in ms', value);
  return readTime(value, path);
}
