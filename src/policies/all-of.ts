import { type Rate, ThrottlerOptionError } from '../rate/index.js';
import { type SavedPolicyState, smallestLimitOf, type ThrottlePolicy } from './policy.js';
import { field, readArray, readKind, readRecord } from './saved-fields.js';
import type { SmoothRateState } from './smooth-rate.js';
import type { VoucherTimerState } from './timer.js';

/** What one part (one rate) of an AllOfPolicies saves. */
export type PartState = VoucherTimerState | SmoothRateState;

/** What an AllOfPolicies saves: one state per rate, in the order of the rates. */
export interface AllOfState<TPart extends SavedPolicyState = PartState> {
  readonly kind: 'all-of';
  readonly parts: readonly TPart[];
}

/**
 * Several policies that must all allow a delivery (several rates at once, or a
 * channel's rate beside the overall one). Because every policy's permission is
 * monotone in time, the earliest time all allow is the latest of their answers.
 */
export class AllOfPolicies<TPart extends SavedPolicyState = SavedPolicyState>
  implements ThrottlePolicy<AllOfState<TPart>>
{
  private parts: ThrottlePolicy<TPart>[];
  private readonly createPart: (rate: Rate, now: number) => ThrottlePolicy<TPart>;
  smallestLimit: number;

  constructor(rates: readonly Rate[], createPart: (rate: Rate, now: number) => ThrottlePolicy<TPart>, now: number) {
    this.createPart = createPart;
    this.parts = rates.map((rate) => createPart(rate, now));
    this.smallestLimit = smallestLimitOf(rates);
  }

  earliestDelivery(now: number, cost: number): number {
    let earliest = now;
    for (const part of this.parts) earliest = Math.max(earliest, part.earliestDelivery(now, cost));
    return earliest;
  }

  recordDelivery(at: number, cost: number, requestedAt?: number): void {
    for (const part of this.parts) part.recordDelivery(at, cost, requestedAt);
  }

  settleDelivery(at: number, estimate: number, actual: number, now: number): void {
    for (const part of this.parts) part.settleDelivery(at, estimate, actual, now);
  }

  windowUse(now: number, into: number[]): void {
    for (const part of this.parts) part.windowUse(now, into);
  }

  get grantsInBulk(): boolean {
    return this.parts.every((part) => part.grantsInBulk);
  }

  get startsPeriodsOnActivation(): boolean {
    return this.parts.some((part) => part.startsPeriodsOnActivation);
  }

  activate(now: number): void {
    for (const part of this.parts) part.activate(now);
  }

  activationStartsPeriod(now: number): boolean {
    for (const part of this.parts) if (part.activationStartsPeriod?.(now)) return true;
    return false;
  }

  /**
   * Same number of rates: each part keeps its state under its new rate. Otherwise the parts start
   * afresh. A rate a part refuses (its constructor throws) changes nothing.
   */
  setRates(rates: readonly Rate[], now: number): void {
    // Built first even when the old parts stay, so that a refused rate throws before any part changed.
    const fresh = rates.map((rate) => this.createPart(rate, now));
    if (rates.length === this.parts.length) {
      for (const [index, rate] of rates.entries()) this.parts[index]?.setRates([rate], now);
    } else {
      for (const part of fresh) {
        part.activate(now);
        part.takeOver?.(this.parts, now);
      }
      this.parts = fresh;
    }
    this.smallestLimit = smallestLimitOf(rates);
  }

  save(shift: number): AllOfState<TPart> {
    return { kind: 'all-of', parts: this.parts.map((part) => part.save(shift)) };
  }

  /** One saved part per rate, each restored (and checked) by its own part. */
  load(saved: unknown, shift: number, path = 'state', savedAt = Number.POSITIVE_INFINITY): void {
    const record = readRecord(saved, path);
    readKind(record, 'all-of', path);
    const parts = readArray(field(record, 'parts'), `${path}.parts`);
    if (parts.length !== this.parts.length) {
      throw new ThrottlerOptionError(`${path}.parts`, `an array of ${this.parts.length} (one state per rate)`, parts);
    }
    for (const [index, part] of this.parts.entries()) {
      part.load(parts[index], shift, `${path}.parts[${index}]`, savedAt);
    }
  }
}
