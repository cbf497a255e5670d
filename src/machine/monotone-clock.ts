import { ThrottlerOptionError } from '../rate/index.js';

/**
 * The throttler's reading of the user's `now()`, made safe to schedule by.
 *
 * A strict window is only as good as the time it is counted on, and `now` may
 * be any function: one that returns NaN (or a string, or Infinity) would date a
 * delivery nowhere and let the next one through at once; one that steps back
 * would make every window look longer than it is and stall the throttler for
 * as long as the step. So a reading that is not a finite number is refused and
 * time stands still at the last good reading, and a step back is absorbed: time
 * carries on from where it was, at the rate the source runs (the step is added
 * to every later reading). Time never runs backwards and never jumps on a bad
 * reading. What went wrong is kept for the machine to report (`invalidEvent`).
 */
export class MonotoneClock {
  private readonly source: () => number;
  /** The last reading returned, on the throttler's own time line. */
  private last: number;
  /** The last raw reading of the source that was a finite number. */
  private lastRaw: number;
  /** Added to every raw reading: the sum of the steps back seen so far. */
  private offset = 0;
  /** The first thing that went wrong since the last `takeFault`, if anything did. */
  private fault: Error | undefined = undefined;
  /** Whether the latest reading was bad: a source that stays bad is reported once, not at every reading. */
  private failing = false;

  constructor(source: () => number) {
    this.source = source;
    const first = this.readSource();
    if (!isTime(first)) throw new ThrottlerOptionError('now()', 'a finite time in milliseconds', first);
    this.last = first;
    this.lastRaw = first;
  }

  /** The time now; bound so that it can be passed around as a plain function. */
  readonly now = (): number => {
    const raw = this.readSource();
    if (!isTime(raw)) {
      if (!this.failing) this.fault ??= new ThrottlerOptionError('now()', 'a finite time in milliseconds', raw);
      this.failing = true;
      return this.last;
    }
    this.failing = false;
    if (raw < this.lastRaw) {
      this.fault ??= new ThrottlerOptionError(
        'now()',
        `never earlier than its last reading (${this.lastRaw}); the throttler's time carries on from ${this.last}`,
        raw,
      );
      this.offset += this.lastRaw - raw;
    }
    this.lastRaw = raw;
    this.last = Math.max(this.last, raw + this.offset);
    return this.last;
  };

  /**
   * The last reading `now` returned, read again without asking the source: for a step that read the clock
   * a moment ago (a quiet path's action after its guard), where another reading cost as much as the rest.
   */
  get latest(): number {
    return this.last;
  }

  /** Nothing of it is saved: a restored throttler reads its own process's clock. */
  toJSON(): undefined {
    return undefined;
  }

  /** Whether something went wrong that has not been reported yet. A question: changes nothing. */
  get hasFault(): boolean {
    return this.fault !== undefined;
  }

  /** What went wrong with the source since the last call, to be reported once; then forgotten. */
  takeFault(): Error | undefined {
    const fault = this.fault;
    this.fault = undefined;
    return fault;
  }

  private readSource(): unknown {
    try {
      return this.source();
    } catch (error) {
      if (!this.failing) this.fault ??= error instanceof Error ? error : new Error(String(error));
      this.failing = true;
      return undefined;
    }
  }
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
