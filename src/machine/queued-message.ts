/** A message waiting in the throttler, with what the throttler needs to know about it. */
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
  /** Cancelled messages stay in their queue as tombstones and are skipped: removal from the middle would be O(n). */
  cancelled: boolean;
}
