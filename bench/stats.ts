/**
 * The arithmetic the workloads share: medians over rounds, percentiles, and the
 * window counts and ideal schedule W3 judges strictness and precision by.
 * Everything here is exact and brute force: the inputs are a few thousand
 * numbers at most, and a benchmark's yardstick must be obviously right.
 */

/** The median of the values (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The p-th percentile (0..100), nearest rank: the smallest value with at least p% of the values at or below it. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

/** How many of `times` fall in [from, from + window). Brute force over every time. */
export function countInWindow(times: readonly number[], from: number, window: number): number {
  let count = 0;
  for (const time of times) if (time >= from && time < from + window) count += 1;
  return count;
}

/**
 * The most starts in any window [t, t + window). The busiest window can always
 * be slid right until it starts at a start time, so trying each start time as
 * the window's beginning is exhaustive.
 */
export function mostInAnyWindow(times: readonly number[], window: number): number {
  let most = 0;
  for (const from of times) most = Math.max(most, countInWindow(times, from, window));
  return most;
}

/** How many windows [s, s + window), one beginning at each start time s, hold more than `limit` starts. */
export function violatingWindows(times: readonly number[], window: number, limit: number): number {
  let violations = 0;
  for (const from of times) if (countInWindow(times, from, window) > limit) violations += 1;
  return violations;
}

/**
 * The ideal strict schedule: the earliest start of each task, in arrival (FIFO)
 * order, that a strict sliding window of `limit` per `window` ms allows. Task i
 * may start no earlier than it arrived, than task i - 1 started (FIFO), and
 * than `window` after task i - limit started (otherwise limit + 1 starts would
 * share a window). Greedy is optimal: starting any task earlier is never allowed.
 */
export function idealStrictSchedule(arrivals: readonly number[], window: number, limit: number): number[] {
  const ideal: number[] = [];
  for (const [index, arrival] of arrivals.entries()) {
    let start = arrival;
    if (index > 0) start = Math.max(start, ideal[index - 1] as number);
    if (index >= limit) start = Math.max(start, (ideal[index - limit] as number) + window);
    ideal.push(start);
  }
  return ideal;
}

/**
 * Each task's start minus the earliest start a strict window allows given the
 * arrivals and the starts that really happened before it: max(its arrival, the
 * previous start, the start `limit` tasks back + window). Unlike lateness
 * against the ideal schedule, one late wake-up is not carried forward into
 * every later window: this is the delay each decision adds by itself.
 */
export function delayBehindOwnWindow(
  starts: readonly number[],
  arrivals: readonly number[],
  window: number,
  limit: number,
): number[] {
  return starts.map((start, index) => {
    let earliest = arrivals[index] as number;
    if (index > 0) earliest = Math.max(earliest, starts[index - 1] as number);
    if (index >= limit) earliest = Math.max(earliest, (starts[index - limit] as number) + window);
    return start - earliest;
  });
}

/** Each task's start minus its ideal start (negative: it started earlier than a strict window allows). */
export function lateness(starts: readonly number[], ideal: readonly number[]): number[] {
  return starts.map((start, index) => start - (ideal[index] as number));
}

/**
 * mostInAnyWindow and violatingWindows in one pass over the sorted times, for W5's 100,000 starts
 * (the brute force above is O(n²): ten billion comparisons there). Same windows, same counts: the
 * window beginning at a start holds every time from the first one equal to it up to the last one
 * before it + window, and both ends only move forward as the starts do. test/bench checks it
 * against the brute force.
 */
export function windowCounts(times: readonly number[], window: number, limit: number): WindowCounts {
  const sorted = Float64Array.from(times).sort();
  let most = 0;
  let violating = 0;
  let low = 0;
  let high = 0;
  for (let index = 0; index < sorted.length; index++) {
    const from = sorted[index] as number;
    if (index > 0 && from !== sorted[index - 1]) low = index;
    if (high < index) high = index;
    while (high < sorted.length && (sorted[high] as number) < from + window) high += 1;
    const count = high - low;
    if (count > most) most = count;
    if (count > limit) violating += 1;
  }
  return { most, violating };
}

export interface WindowCounts {
  /** The most starts in any window [t, t + window) (mostInAnyWindow). */
  most: number;
  /** Windows beginning at a start that hold more than the limit (violatingWindows). */
  violating: number;
}

/**
 * How much sooner than `window` after a start the start `limit` places later came, at worst, in
 * the times' units (0 when never: then no window holds more than `limit`). The size of the worst
 * violation in time, where violatingWindows gives their number: a window exceeded because of a
 * 0.5 ms jitter and one exceeded by a refill 400 ms early count the same there.
 */
export function worstShortfall(times: readonly number[], window: number, limit: number): number {
  const sorted = Float64Array.from(times).sort();
  let worst = 0;
  for (let index = 0; index + limit < sorted.length; index++) {
    worst = Math.max(worst, window - ((sorted[index + limit] as number) - (sorted[index] as number)));
  }
  return worst;
}

/**
 * The rate a backlog drained at, per second: (starts - limit) / (last start - the limit-th start).
 * Every limiter here may let its first `limit` go at once (a full window, a full bucket, a full
 * reservoir); after that a backlog drains at the limit at best. Measured from the limit-th start,
 * not the first: starting the first window's tasks takes time (their number x the CPU per task),
 * a strict window repeats that spread in every later window, and the last window's spread would end
 * the span, so from the first start even a strict window with no lateness at all scored 0.55% under
 * its limit at 5 µs a task (10,000 per second, 100,000 tasks). From the limit-th start an ideal
 * strict schedule scores exactly the limit, whatever its spread, whether the rest come in bursts (a
 * sliding window) or one by one (a bucket); what is missing is lateness carried forward. Counting
 * all starts over the span instead would credit a strict window with 11% more than its limit at 10
 * windows. NaN for fewer than limit + 2 starts.
 */
export function drainRate(times: readonly number[], limit: number): number {
  if (times.length < limit + 2) return Number.NaN;
  const sorted = Float64Array.from(times).sort();
  const from = sorted[limit - 1] as number;
  const last = sorted[sorted.length - 1] as number;
  return last > from ? ((times.length - limit) / (last - from)) * 1000 : Number.NaN;
}
