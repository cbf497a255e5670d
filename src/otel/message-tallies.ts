/**
 * `throttler.messages`, counted as plain numbers as events arrive and read by the observable counter at
 * collection: a message costs one increment, never an SDK call. Deliveries and messages queued are not
 * heard one by one (a listener to `delivered` turns the promise API's lease off, one to `queued` the
 * machine's quiet path): they are read from the throttler's own counts, less what they held when it
 * was instrumented.
 */
import type { Attributes, BatchObservableResult, Observable } from '@opentelemetry/api';
import type { ThrottlerEmitted } from '../machine/index.js';
import { type MessageResult, THROTTLER_ATTRIBUTES } from './names.js';
import { define } from './options.js';

type Dropped = Extract<ThrottlerEmitted, { type: 'dropped' }>;
type Rejected = Extract<ThrottlerEmitted, { type: 'rejected' }>;

/** The dropped reasons that are results of their own. */
const RESULT_OF_DROP: Partial<Record<Dropped['reason'], MessageResult>> = {
  expired: 'expired',
  cancelled: 'cancelled',
};

export class MessageTallies {
  /** The other results by result and reason (`dropped|drop-oldest`, `expired|`), each with its attributes. */
  private readonly counted = new Map<string, { value: number; readonly attributes: Attributes }>();
  private readonly deliveredAttributes: Attributes;
  private readonly queuedAttributes: Attributes;

  constructor(
    private readonly base: Attributes,
    private readonly deliveredBefore: number,
    private readonly queuedBefore: number,
  ) {
    this.deliveredAttributes = this.attributesOf('delivered', undefined);
    this.queuedAttributes = this.attributesOf('queued', undefined);
  }

  dropped(event: Dropped): void {
    const result = RESULT_OF_DROP[event.reason];
    if (result === undefined) this.add('dropped', event.reason);
    else this.add(result, undefined);
  }

  rejected(event: Rejected): void {
    this.add('rejected', event.reason);
  }

  /** Every result seen so far; deliveries from the throttler's own count (`delivered`, since it was created). */
  observe(result: BatchObservableResult, instrument: Observable, delivered: number, queued: number): void {
    result.observe(instrument, Math.max(0, delivered - this.deliveredBefore), this.deliveredAttributes);
    result.observe(instrument, Math.max(0, queued - this.queuedBefore), this.queuedAttributes);
    for (const { value, attributes } of this.counted.values()) result.observe(instrument, value, attributes);
  }

  private add(result: MessageResult, reason: string | undefined): void {
    const key = `${result}|${reason ?? ''}`;
    const entry = this.counted.get(key);
    if (entry === undefined) this.counted.set(key, { value: 1, attributes: this.attributesOf(result, reason) });
    else entry.value += 1;
  }

  private attributesOf(result: MessageResult, reason: string | undefined): Attributes {
    const attributes: Attributes = { ...this.base };
    define(attributes, THROTTLER_ATTRIBUTES.result, result);
    if (reason !== undefined) define(attributes, THROTTLER_ATTRIBUTES.reason, reason);
    return attributes;
  }
}
