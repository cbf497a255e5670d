/**
 * The retry budget (`retry.budget`): what keeps an outage from turning into a retry storm. "Recent" is
 * a sliding window on the throttler's clock: at the moment a failed attempt would be retried (time t),
 * A = the first attempts that started in (t - window, t] (each as it starts; retries are not counted,
 * or each would raise the allowance of the next) and R = the retries granted in that window (each as
 * it is granted). The retry is granted when R + 1 <= max(min, ratio × A); otherwise the task's promise
 * rejects with its last error. So over any run, retries <= ratio × first attempts, plus at most `min`
 * per window in windows with fewer than min / ratio first attempts: cover the grants by windows ending
 * at the latest grant not yet covered; they do not overlap, and each holds at most max(min, ratio × its A).
 *
 * One ledger per throttler, shared by every task whose retry names a budget; it records from the first
 * such task on (until then nothing is kept). Each record is one number in an array that keeps only the
 * longest window in use: O(1) amortised a record, O(log n) a decision.
 */
import { type DurationInput, parseDuration, ThrottlerOptionError } from '../rate/index.js';

export interface RetryBudgetOptions {
  /** The most retries may add to recent first attempts, from 0 to 1 (0.1: one retry per ten tasks). */
  ratio: number;
  /** What "recent" means: the last `window` on the throttler's clock (`'10s'` or ms). Default 10 s. */
  window?: DurationInput | undefined;
  /** Retries granted in a window whatever the ratio, so a quiet throttler may still retry. Default 1. */
  min?: number | undefined;
}

export interface ResolvedBudget {
  readonly ratio: number;
  readonly window: number;
  readonly min: number;
}

export const DEFAULT_BUDGET_WINDOW = 10_000;

export function resolveBudget(input: unknown): ResolvedBudget {
  const options = (typeof input === 'number' ? { ratio: input } : input) as Partial<RetryBudgetOptions> | null;
  if (typeof options !== 'object' || options === null) {
    throw new ThrottlerOptionError('retry.budget', 'a ratio from 0 to 1, or { ratio, window?, min? }', input);
  }
  const { ratio, window, min = 1 } = options;
  if (typeof ratio !== 'number' || !(ratio >= 0 && ratio <= 1)) {
    throw new ThrottlerOptionError('retry.budget.ratio', 'a number from 0 to 1', ratio);
  }
  if (!Number.isSafeInteger(min) || min < 0) {
    throw new ThrottlerOptionError('retry.budget.min', 'an integer >= 0', min);
  }
  return {
    ratio,
    window: window === undefined ? DEFAULT_BUDGET_WINDOW : parseDuration(window, 'retry.budget.window'),
    min,
  };
}

/** Times in increasing order (the throttler's clock never runs back); those older than the window leave from the front. */
class TimeLog {
  private times: number[] = [];
  private head = 0;

  record(at: number): void {
    this.times.push(at);
  }

  /** How many are after `since`. */
  countAfter(since: number): number {
    const { times } = this;
    let low = this.head;
    let high = times.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((times[middle] as number) > since) high = middle;
      else low = middle + 1;
    }
    return times.length - low;
  }

  /** Forgets what is at or before `before`; the array is cut once the dead front is half of it. */
  prune(before: number): void {
    const { times } = this;
    while (this.head < times.length && (times[this.head] as number) <= before) this.head += 1;
    if (this.head > 32 && this.head * 2 > times.length) {
      this.times = times.slice(this.head);
      this.head = 0;
    }
  }
}

export class RetryLedger {
  private readonly attempts = new TimeLog();
  private readonly retries = new TimeLog();
  /** The longest window asked about: what the logs keep. */
  private keep = 0;

  constructor(private readonly now: () => number) {}

  /** A task's first attempt started (a retry's start is not recorded). */
  firstAttemptStarted(): void {
    const at = this.now();
    this.attempts.record(at);
    this.attempts.prune(at - this.keep);
  }

  /** A task will ask with this budget: its window is kept from now on. */
  uses(budget: ResolvedBudget): void {
    if (budget.window > this.keep) this.keep = budget.window;
  }

  /** Whether `budget` grants one more retry now; if so, it is recorded as granted. */
  grant(budget: ResolvedBudget): boolean {
    const at = this.now();
    const since = at - budget.window;
    const granted = this.retries.countAfter(since);
    const allowed = Math.max(budget.min, budget.ratio * this.attempts.countAfter(since));
    if (granted + 1 > allowed) return false;
    this.retries.record(at);
    this.retries.prune(at - this.keep);
    return true;
  }
}
