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
  readonly cost: number;
  /** When it was queued, on the throttler's time source. */
  readonly queuedAt: number;
  /** The key a CANCEL event names it by, if the sender gave one. */
  readonly id: unknown;
  /**
   * A message cancelled in the middle of its queue stays there as a tombstone, skipped, until the
   * queue is compacted (removal from the middle would be O(n)); a plain entry lets go of its `message` at once.
   */
  cancelled: boolean;
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
  // Not 0: a field first holding a small integer and later a fraction makes V8 migrate every
  // object already built (a million waiting tasks took 0.9 s to queue instead of 0.2 s).
  queuedAt: number = Number.NaN;
  cancelled = false;
  abstract channel: string | undefined;
  /** As given until queued (the machine checks it then); the checked cost from then on. */
  abstract cost: number | undefined;
  abstract id: unknown;

  get message(): this {
    return this;
  }

  /** Called by MessageQueues as it queues the message. */
  enter(seq: number, channel: string | undefined, cost: number, queuedAt: number, id: unknown): void {
    this.seq = seq;
    this.channel = channel;
    this.cost = cost;
    this.queuedAt = queuedAt;
    this.id = id;
    this.cancelled = false;
  }
}
