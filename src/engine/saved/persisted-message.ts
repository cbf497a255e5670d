/**
 * A waiting message as a persisted snapshot keeps it, and the reading of one
 * back (persisted-format.ts reads the rest). Priority and deadline came with
 * format 3: absent, as in formats 1 and 2, they read as the default priority
 * and no deadline. A retry that keeps its place (QueuedMessage.place) is saved
 * with `arrivedAt`, its first attempt's arrival, so that it keeps it restored.
 */
import { field, readCost, readPastTime, readRecord } from '../../policies/saved-fields.js';
import { type Cost, type CostInput, costInput, type Dimensions, ThrottlerOptionError } from '../../rate/index.js';
import type { ResolvedOptions } from '../options/options.js';
import { checkPriority, messageError } from '../queue/message-checks.js';
import type { QueuedMessage } from '../queue/queued-message.js';
import { readSavedChannel } from './persisted-keys.js';

/** A waiting message as saved: plain JSON when the message is. Times are wall-clock ms. */
export interface SavedMessage<TMessage> {
  message: TMessage;
  channel: string | undefined;
  /** A number, or (rates in dimensions) a map of dimension to cost, as the sender wrote it. */
  cost: CostInput;
  queuedAt: number;
  id: unknown;
  /** Left out (undefined) for the default priority, and before format 3. */
  priority?: number | undefined;
  /** Left out (undefined) for none, and before format 3. */
  deadline?: number | undefined;
  /** A retry's place in line: its first attempt's arrival, at or before `queuedAt`; left out for any other message. */
  arrivedAt?: number | undefined;
}

/** A saved message as read back: its cost resolved as the restoring throttler holds it. */
export type RestoredMessage<TMessage> = Omit<SavedMessage<TMessage>, 'cost'> & { cost: Cost };

/** A waiting message as saved, its times shifted by `shift` ms (onto the wall clock). */
export function savedMessage<TMessage>(
  entry: QueuedMessage<TMessage>,
  shift: number,
  dimensions: Dimensions | undefined,
): SavedMessage<TMessage> {
  const { message, channel, cost, queuedAt, id, priority, deadline, place } = entry;
  const saved: SavedMessage<TMessage> = {
    message,
    channel,
    // By dimension name, not number: what it means does not hang on the order of the restoring rates.
    cost: costInput(cost, dimensions),
    queuedAt: queuedAt + shift,
    id,
    priority,
    deadline: deadline === undefined ? undefined : deadline + shift,
  };
  if (place !== undefined) saved.arrivedAt = place.at + shift;
  return saved;
}

/** Whether a saved message needs format 3 to be read as it was: an older reader would drop these fields. */
export function needsPriorityFormat(message: SavedMessage<unknown>): boolean {
  return message.priority !== undefined || message.deadline !== undefined || message.arrivedAt !== undefined;
}

/** One saved message, every field checked; `savedAt` bounds its arrival (Infinity when unknown). */
export function readMessage<TMessage>(
  value: unknown,
  path: string,
  options: ResolvedOptions,
  savedAt: number,
): RestoredMessage<TMessage> {
  const entry = readRecord(
    value,
    path,
    'an object { message, channel, cost, queuedAt, id, priority?, deadline?, arrivedAt? }',
  );
  const message = readRecord(field(entry, 'message'), `${path}.message`, 'an object (the message)');
  // Delivered as an event, as a queued message must be: a message without a string type is refused here too.
  const invalidMessage = messageError(message, `${path}.message`);
  if (invalidMessage !== undefined) throw invalidMessage;
  const channel = readSavedChannel(field(entry, 'channel'), `${path}.channel`, options);
  // A cost above a limit lowered since is kept: the message is dropped when it comes next, as it would have been.
  const cost = readSavedCost(field(entry, 'cost'), `${path}.cost`, options.dimensions);
  const queuedAt = readPastTime(field(entry, 'queuedAt'), `${path}.queuedAt`, savedAt);
  const saved: RestoredMessage<TMessage> = {
    message: message as TMessage,
    channel,
    cost,
    queuedAt,
    id: field(entry, 'id'),
  };
  const priority = field(entry, 'priority');
  if (priority !== undefined) saved.priority = readPriority(priority, `${path}.priority`);
  // A deadline passed while saved is kept: the message is dropped (expired) once restored, never delivered.
  const deadline = field(entry, 'deadline');
  if (deadline !== undefined) saved.deadline = readDeadline(deadline, `${path}.deadline`);
  const arrivedAt = field(entry, 'arrivedAt');
  if (arrivedAt !== undefined) saved.arrivedAt = readArrival(arrivedAt, `${path}.arrivedAt`, queuedAt);
  return saved;
}

/** A saved cost: a positive integer, or (rates in dimensions) a map of some of the dimensions to costs. */
function readSavedCost(value: unknown, path: string, dimensions: Dimensions | undefined): Cost {
  if (typeof value !== 'object' || value === null) return readCost(value, path);
  if (dimensions === undefined || Array.isArray(value)) {
    throw new ThrottlerOptionError(path, 'a positive integer (the rates name no dimensions)', value);
  }
  return dimensions.resolve(value, () => Number.MAX_SAFE_INTEGER, path);
}

/**
 * A saved deadline: any finite time, however far. QUEUE takes any deadline or maxWait (a far one is
 * no deadline in practice), so a restore takes what it saved; a deadline can only drop a message
 * sooner, never let more through, so its size is no damage to refuse.
 */
function readDeadline(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ThrottlerOptionError(path, 'a wall-clock time in ms (finite)', value);
  }
  return value;
}

/** A retry's first arrival: a finite time no later than its `queuedAt` (a place in line it took already). */
function readArrival(value: unknown, path: string, queuedAt: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value > queuedAt) {
    throw new ThrottlerOptionError(path, `a wall-clock time in ms no later than queuedAt (${queuedAt})`, value);
  }
  return value;
}

function readPriority(value: unknown, path: string): number {
  try {
    return checkPriority(value) as number;
  } catch {
    throw new ThrottlerOptionError(path, 'an integer from 0 to 9', value);
  }
}
