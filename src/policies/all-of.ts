import type { Rate } from '../rate/index.js';
import { type PolicyState, smallestLimitOf, type ThrottlePolicy } from './policy.js';

/**
 * Several policies that must all allow a delivery (several rates at once, or a
 * channel's rate beside the overall one). Because every policy's permission is
 * monotone in time, the earliest time all allow is the latest of their answers.
 */
export class AllOfPolicies implements ThrottlePolicy {
  private parts: ThrottlePolicy[];
  private readonly createPart: (rate: Rate, now: number) => ThrottlePolicy;
  smallestLimit: number;

  constructor(rates: readonly Rate[], createPart: (rate: Rate, now: number) => ThrottlePolicy, now: number) {
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

  activate(now: number): void {
    for (const part of this.parts) part.activate(now);
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
      for (const part of fresh) part.activate(now);
      this.parts = fresh;
    }
    this.smallestLimit = smallestLimitOf(rates);
  }

  save(shift: number): PolicyState {
    return { kind: 'all-of', parts: this.parts.map((part) => part.save(shift)) };
  }

  load(state: PolicyState, shift: number): void {
    const saved = state.parts as PolicyState[];
    for (const [index, partState] of saved.entries()) this.parts[index]?.load(partState, shift);
  }
}
