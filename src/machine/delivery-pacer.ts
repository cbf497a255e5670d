/**
 * How much one pass of the delivery loop may send before it yields. A backlog
 * released at a high rate would otherwise go out in one synchronous step (100k
 * deliveries in one turn of the event loop, with no I/O or timer in between).
 * Instead a pass sends at most `maxDeliveriesPerTurn`; when more are due it stops,
 * and the machine arms its one wake-up timer with delay 0, so the rest goes in
 * slices, each on a later turn of the loop, at the same time on the
 * throttler's clock. An adapter's `deliveryGate` can end a pass early the same
 * way (a task paused its own throttler: the rest of the pass must wait for the
 * PAUSE in the mailbox).
 *
 * A slice is shared by what one event does: the batch it brings in (with room
 * for the batch itself on top) and the delivery loop after it. It ends, and the next begins full, when a pass finds
 * nothing more due, or when the zero-delay wake-up arrives.
 */
export class DeliveryPacer {
  /** Sends left in this slice. */
  private left: number;
  /** A pass stopped with messages due; the zero-delay wake-up continues it. */
  private holding = false;

  constructor(
    private readonly perTurn: number,
    private readonly gate: (() => boolean) | undefined,
    /**
     * Whether a listener hears every delivery (`delivered`): then each send is an emitted event, and an
     * event cannot take a quiet path (quiet.ts). Unknown (a throttler that cannot ask its actor): yes.
     */
    readonly deliveriesHeard: () => boolean = () => true,
    /** Whether a listener hears messages join the queue (`queued`): a QUEUE that only queues must then emit. */
    readonly queueingHeard: () => boolean = () => true,
    /** Whether a listener hears messages leave the queue (`dequeued`). */
    readonly dequeueingHeard: () => boolean = () => true,
  ) {
    this.left = perTurn;
  }

  /**
   * An event brings `brought` messages in: a fresh slice with room for them on top, unless a pass is being
   * held (then they wait their turn behind it). What may go of a burst handed over at once goes in the
   * sender's own turn, as one QUEUE per message would (each of those goes inside its own send); what
   * the throttler releases later by itself (a window moving on, RESUME, a new rate) goes in slices.
   */
  beginPass(brought: number): void {
    if (!this.holding) this.left = this.perTurn + brought;
  }

  /** The messages brought in are placed: the rest of the event's pass, and anything after it, gets a slice at most. */
  broughtPlaced(): void {
    if (!this.holding) this.left = Math.min(this.left, this.perTurn);
  }

  /**
   * Whether a due message may be sent now; asked only when one is due. No
   * (the slice is spent, or the gate is closed) holds the pass until the
   * zero-delay wake-up. Changes state: a no is remembered until then.
   */
  maySend(): boolean {
    if (this.left > 0 && (this.gate === undefined || this.gate())) return true;
    this.holding = true;
    return false;
  }

  /** Scratch state of the delivery loop: nothing of it belongs in a saved snapshot. */
  toJSON(): undefined {
    return undefined;
  }

  /** One message went. */
  sent(): void {
    this.left -= 1;
  }

  /** Whether no adapter's gate can close a pass: then a send depends on the slice alone. */
  get ungated(): boolean {
    return this.gate === undefined;
  }

  /** Whether the last pass stopped with messages due: the wake-up is armed for now, delay 0. */
  get isHolding(): boolean {
    return this.holding;
  }

  /** The pass found nothing more due, or the zero-delay wake-up came: the next pass gets a full slice. */
  endSlice(): void {
    this.holding = false;
    this.left = this.perTurn;
  }
}
