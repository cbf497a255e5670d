import type { Cost } from '../../rate/index.js';

/** Priority levels: 0 (goes last) to 9 (goes first), p-queue's way round. */
export const PRIORITY_LEVELS = 10;
/** The priority of a message that names none: the middle, so that a sender can both raise and lower one. */
export const DEFAULT_PRIORITY = 5;

/**
 * A message waiting in the throttler, with what the throttler needs to know
 * about it. Read-only to everything but MessageQueues, which writes the fields
 * once, as the message is queued (for a SelfQueuedMessage, through `enter`).
 */
export interface QueuedMessage<TMessage> {
  /** Arrival order across all channels; FIFO order is this order. */
  readonly seq: number;
  readonly message: TMessage;
  readonly channel: string | undefined;
  /** A number, or (rates in dimensions) one per dimension, resolved as it was admitted. */
  readonly cost: Cost;
  /** When it was queued, on the throttler's time source. */
  readonly queuedAt: number;
  /** The key a CANCEL event names it by, if the sender gave one. */
  readonly id: unknown;
  /** 0-9, higher first, as the sender gave it; undefined: `DEFAULT_PRIORITY`. */
  readonly priority?: number | undefined;
  /** The last moment it may be delivered, on the throttler's time source; undefined: none. */
  readonly deadline?: number | undefined;
  /** Its position in the heap of deadlines (kept by Deadlines); only a message with a deadline has one. */
  deadlineSlot?: number | undefined;
  /**
   * What the clearance resolved its channel to as it was admitted (the local policies: the channel's or
   * key's scope), kept while it waits so that its name is looked up once; only a message on a channel has one.
   */
  scope?: unknown;
  /** A retry's place in line (its first attempt's arrival); undefined: its own arrival (`queuedAt`, `seq`). */
  readonly place?: Place | undefined;
  /** Its positions in its lane's heaps of retries (lane.ts), while it waits there. */
  placeSlot?: number | undefined;
  lastPlaceSlot?: number | undefined;
  /**
   * A message cancelled in the middle of its queue stays there as a tombstone, skipped, until the
   * queue is compacted (removal from the middle would be O(n)); a plain entry lets go of its `message` at once.
   */
  cancelled: boolean;
}

/**
 * Where a retry waits in line: the arrival of its first attempt, `at` on the throttler's clock and `seq` its
 * arrival order then (-1: it was sent as it arrived, before anything that waits now). A retry so placed goes
 * before every message that arrived after its first attempt, at its priority, as if it had waited all along.
 */
export interface Place {
  readonly at: number;
  readonly seq: number;
}

/** The time a message's rank counts from: its arrival, or a retry's first arrival. */
export function placedAt(entry: QueuedMessage<unknown>): number {
  return entry.place === undefined ? entry.queuedAt : entry.place.at;
}

/**
 * Whether `a` stands before `b` in line: the earlier arrival (a retry's first), then the earlier arrival order.
 * For messages that are no retries this is their arrival order (`seq`), since `queuedAt` never runs backwards.
 */
export function placedBefore(a: QueuedMessage<unknown>, b: QueuedMessage<unknown>): boolean {
  const atA = placedAt(a);
  const atB = placedAt(b);
  if (atA !== atB) return atA < atB;
  const seqA = a.place === undefined ? a.seq : a.place.seq;
  const seqB = b.place === undefined ? b.seq : b.place.seq;
  return seqA < seqB || (seqA === seqB && a.seq < b.seq);
}

/** The priority level a waiting message is filed under. */
export function levelOf(entry: { readonly priority?: number | undefined }): number {
  return entry.priority ?? DEFAULT_PRIORITY;
}

/**
 * The queue entry of a checked message. A message that is its own entry (SelfQueuedMessage) is
 * filled in and used as it is, but only one never queued before: a restore from a live snapshot
 * hands over messages another throttler still holds as its entries, and those must stay untouched
 * (they get an entry of their own).
 */
export function queueEntry<TMessage>(
  seq: number,
  message: TMessage,
  channel: string | undefined,
  cost: Cost,
  queuedAt: number,
  id: unknown,
  priority: number | undefined,
  deadline: number | undefined,
): QueuedMessage<TMessage> {
  if (message instanceof SelfQueuedMessage && message.queuedAt === undefined) {
    message.enter(seq, channel, cost, queuedAt, id, priority, deadline);
    return message as QueuedMessage<TMessage>;
  }
  // With none of channel, id, priority and deadline (the common case) those fields are left out, and
  // read as undefined: every field costs 8 bytes a waiting message (bench/README.md, W2).
  if (channel === undefined && id === undefined && priority === undefined && deadline === undefined)
    return { seq, message, cost, queuedAt, cancelled: false } as QueuedMessage<TMessage>;
  return {
    seq,
    message,
    channel,
    cost,
    queuedAt,
    id,
    priority,
    deadline,
    deadlineSlot: -1,
    scope: undefined,
    cancelled: false,
  };
}

/**
 * A message that is its own queue entry: MessageQueues fills in these fields
 * and queues the message itself instead of wrapping it in a new object. Only
 * the library's own adapters build these (the promise API's tasks): a million
 * waiting tasks then cost a million objects fewer (bench/README.md, W2). A
 * message is its own entry only the first time it is queued; queued again (a
 * restore from a live snapshot) it is wrapped like any other message.
 */
export abstract class SelfQueuedMessage {
  seq = 0;
  // Undefined until queued (`enter`). Not 0: a field first holding a small integer and later a fraction
  // makes V8 migrate every object already built (a million waiting tasks took 0.9 s to queue instead of 0.2 s).
  // Not NaN either: a field that only ever held numbers gets a box of its own in every object (16 bytes a
  // waiting task); one that held undefined first points at the number, which a whole batch shares.
  queuedAt: number = undefined as unknown as number;
  cancelled = false;
  abstract channel: string | undefined;
  /** As given until queued (the machine checks it then); the checked cost from then on. */
  abstract cost: unknown;
  abstract id: unknown;
  // Declared, never initialised here: most tasks have neither, and every field costs 8 bytes a waiting task.
  /** As given until queued; the checked priority from then on. */
  declare priority?: number | undefined;
  /** The checked deadline once queued (from `deadline` or `maxWait`, as given). */
  declare deadline?: number | undefined;
  declare deadlineSlot?: number;
  /** Written by the clearance for a task on a channel only. */
  declare scope?: unknown;
  /** A retry's place in line (written by the adapter before it is queued, for a retry only). */
  declare place?: Place | undefined;
  declare placeSlot?: number | undefined;
  declare lastPlaceSlot?: number | undefined;

  get message(): this {
    return this;
  }

  /**
   * Its sender took it back (the promise API: a task aborted or cleared, perhaps by another task running
   * in this very pass) and the CANCEL saying so may still wait in the mailbox: it is dropped as cancelled
   * where it would have gone, so it spends no slot.
   */
  get withdrawn(): boolean {
    return false;
  }

  /** Called by MessageQueues as it queues the message. */
  enter(
    seq: number,
    channel: string | undefined,
    cost: Cost,
    queuedAt: number,
    id: unknown,
    priority: number | undefined,
    deadline: number | undefined,
  ): void {
    this.seq = seq;
    this.channel = channel;
    this.cost = cost;
    this.queuedAt = queuedAt;
    if (id !== undefined || this.id !== undefined) this.id = id;
    this.cancelled = false;
    // Written only when there is something to write: a property added after construction costs a task its own store.
    if (priority !== undefined || this.priority !== undefined) this.priority = priority;
    if (deadline !== undefined || this.deadline !== undefined) this.deadline = deadline;
  }
}

/** Whether a message is one its sender took back (SelfQueuedMessage.withdrawn): dropped, never sent. */
export function isWithdrawn(message: unknown): boolean {
  return message instanceof SelfQueuedMessage && message.withdrawn;
}
