/**
 * Per-channel ordering over a store: the two halves the dispatcher's head schedule asks
 * (src/engine/head-schedule.ts). A store's answer for a head is where its grant lets it go, or a time
 * to look again (a line held by its key, a retry, a check), or Infinity until the store answers; the
 * dispatcher asks the clearance once more before sending a head the schedule finds due, so an answer
 * that went stale only delays. What the halves add: a head answered Infinity is filed afresh when the
 * store next wakes the throttler (its grant, or its line's hold, has come), and every head after an
 * event that changes them all (a rewind, a notice, a pause). O(1) per head answered.
 */
import type { ClearanceRequest, PerChannelClearance, StoreHooks } from '../engine/index.js';

export class StoreChannelHalves implements PerChannelClearance {
  channelChanged: (channel: string | undefined) => void = () => {};
  allChanged: () => void = () => {};
  /** Lines whose head was answered Infinity since the last wake. */
  private readonly unanswered = new Set<string | undefined>();
  /** Lines a reply answered for since the last wake (the only ones whose answer can have changed), if it is known. */
  private readonly answered = new Set<string | undefined>();
  private precise = false;
  private everything = false;

  constructor(
    /** The store's answer for a head, the in-flight cap and the pause left to the common half. */
    private readonly answer: (request: ClearanceRequest, now: number) => number,
    private readonly common: (cost: number, now: number) => number,
  ) {}

  /** The hooks with every wake (an answer, a notice, a failure) first filing afresh the heads waiting for news. */
  refilingOnWake(hooks: StoreHooks): StoreHooks {
    const { wake } = hooks;
    return {
      ...hooks,
      wake: () => {
        this.refile();
        wake();
      },
    };
  }

  channelClearAt(request: ClearanceRequest, now: number): number {
    const at = this.answer(request, now);
    if (at === Number.POSITIVE_INFINITY) this.unanswered.add(request.channel);
    return at;
  }

  commonClearAt(cost: number, now: number): number {
    return this.common(cost, now);
  }

  /**
   * A reply answered for a message of this line: its head is asked again at the next wake. A wake after
   * such replies only refiles those lines (O(batch), not O(lines waiting)); any other wake refiles every
   * line whose head was answered Infinity.
   */
  replied(channel: string | undefined): void {
    this.precise = true;
    this.answered.add(channel);
  }

  /** Every head is to be asked again (filed afresh at the next `refile`). */
  changedAll(): void {
    this.everything = true;
  }

  /** Files afresh the heads that wait for this news: called before every wake, and after a pause or resume. */
  refile(): void {
    // The queue of no channel is filed only with all of them (the schedule hears channels by name).
    const lines = this.precise ? this.answered : this.unanswered;
    this.precise = false;
    if (this.everything || lines.has(undefined)) {
      this.everything = false;
      this.unanswered.clear();
      this.answered.clear();
      this.allChanged();
      return;
    }
    for (const channel of lines) {
      this.unanswered.delete(channel);
      this.channelChanged(channel);
    }
    lines.clear();
  }
}
