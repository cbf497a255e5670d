/**
 * Waits summarised in bounded memory: up to EXACT_UP_TO waits are kept, and their percentiles are exact;
 * past that, a histogram of buckets 1% wide on a log scale (plus exact zeros, the smallest and the largest)
 * answers within 0.5% of the true percentile whatever the recording's length, its memory growing with the
 * spread of the waits (a few hundred buckets), never with their number.
 */

/** p50 and p99 (nearest rank; past EXACT_UP_TO waits within 0.5%), `max` exact; all 0 when nothing was delivered. */
export interface WaitSummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

/** Waits kept one by one, for exact percentiles, before the histogram alone answers. */
export const EXACT_UP_TO = 4096;
const GROWTH = Math.log(1.01);
/** Waits below a microsecond count as none: the clock's readings are not finer. */
const SMALLEST = 0.001;

export class WaitHistogram {
  private zeros = 0;
  private count = 0;
  private sum = 0;
  private min = Infinity;
  private max = 0;
  /** Counts by bucket (bucket b: waits from SMALLEST × 1.01^b), a dense array: a few hundred to a few thousand. */
  private readonly buckets: number[] = [];
  private exact: number[] | undefined = [];

  add(wait: number): void {
    this.count++;
    if (this.exact !== undefined) {
      if (this.exact.length < EXACT_UP_TO) this.exact.push(wait);
      else this.exact = undefined;
    }
    this.sum += wait;
    if (wait < this.min) this.min = wait;
    if (wait > this.max) this.max = wait;
    if (wait < SMALLEST) {
      this.zeros++;
      return;
    }
    const bucket = Math.floor(Math.log(wait / SMALLEST) / GROWTH);
    while (this.buckets.length <= bucket) this.buckets.push(0);
    this.buckets[bucket] = (this.buckets[bucket] as number) + 1;
  }

  summary(): WaitSummary {
    if (this.count === 0) return { count: 0, p50: 0, p99: 0, max: 0, mean: 0 };
    const exact = this.exact?.slice().sort((a, b) => a - b);
    const at = (share: number): number => {
      const rank = Math.max(1, Math.ceil(share * this.count));
      if (exact !== undefined) return exact[rank - 1] as number;
      if (rank <= this.zeros) return this.min;
      let seen = this.zeros;
      for (let bucket = 0; bucket < this.buckets.length; bucket++) {
        seen += this.buckets[bucket] as number;
        // The bucket's middle on the log scale, held within what was seen.
        if (seen >= rank) return Math.min(this.max, Math.max(this.min, SMALLEST * Math.exp((bucket + 0.5) * GROWTH)));
      }
      return this.max;
    };
    return { count: this.count, p50: at(0.5), p99: at(0.99), max: this.max, mean: this.sum / this.count };
  }
}
