/**
 * What an unknown option name meant, as a feature value (options/features-option.ts): another library's
 * name for one of ours (p-queue, Bottleneck, p-throttle), computed from the value where it can be, or the
 * nearest known name by edit distance for a typo. The main entry loads it by itself; xstate-throttler/lean
 * only with `features: [optionHints]` (without it an unknown name is still refused, the options listed).
 */

import type { FeatureValue } from './feature-value.js';

/** The option-name hints feature: what `name` (given `value`, beside `options`) meant, if anything. */
export interface OptionHintsFeature extends FeatureValue<'optionHints'> {
  readonly meant: (name: string, value: unknown, options: object, candidates: readonly string[]) => string | undefined;
}

/** The hints as the library reads them (the main entry's faces pass it by itself). */
export const optionHintsFeature: OptionHintsFeature = {
  feature: 'optionHints',
  meant: (name, value, options, candidates) => {
    const foreign = Object.hasOwn(FOREIGN, name) ? FOREIGN[name] : undefined;
    return foreign?.(value, options as Options) ?? nearest(name, candidates);
  },
};

/** Unknown option names answered with what was meant: pass it in `features` to xstate-throttler/lean. */
export const optionHints: FeatureValue<'optionHints'> = optionHintsFeature;

type Options = Readonly<Record<string, unknown>>;

/** What another library's option is called here, from its value and its neighbours. */
const FOREIGN: Readonly<Record<string, (value: unknown, options: Options) => string>> = {
  concurrency: (value) => `maxConcurrent${example(value)} (p-queue's concurrency)`,
  minTime: (value) =>
    isPositive(value)
      ? `rate: '1/${value}ms' (Bottleneck's minTime: at most one start every ${value} ms)`
      : "rate: '1/100ms' for at most one start every 100 ms (Bottleneck's minTime)",
  intervalCap: (value, options) =>
    `rate: '${perInterval(value, options.interval)}' (p-queue's intervalCap per interval)`,
  interval: (value, options) =>
    `rate: '${perInterval(options.intervalCap ?? options.limit, value)}' (the limit per interval in one string)`,
  limit: (value, options) => `rate: '${perInterval(value, options.interval)}' (p-throttle's limit per interval)`,
  highWater: (value) => `capacity${example(value)} (Bottleneck's highWater)`,
  reservoir: () => "rate: '<reservoir>/<refresh interval>' (Bottleneck's reservoir and its refresh)",
  reservoirRefreshAmount: () => "rate: '<amount>/<refresh interval>' (Bottleneck's reservoir refresh)",
  reservoirRefreshInterval: () => "rate: '<amount>/<refresh interval>' (Bottleneck's reservoir refresh)",
  autoStart: () => "pause() right after createThrottler, and resume() to start (p-queue's autoStart: false)",
  queueSize: (value) => `capacity${example(value)}`,
  maxQueued: (value) => `capacity${example(value)}`,
  timeout: () => 'the per-task option: schedule(fn, { timeout }), or for every task taskDefaults: { timeout }',
  // A task's options, as Bottleneck's job options and p-queue's add options name them.
  weight: (value) => `cost${example(value)} (Bottleneck's weight)`,
  expiration: (value) => `timeout${example(value)} (Bottleneck's expiration)`,
  throwOnTimeout: () => 'timeout alone: a task past its timeout always rejects (ThrottlerTimeoutError)',
};

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function example(value: unknown): string {
  return isPositive(value) ? `: ${value}` : '';
}

function perInterval(limit: unknown, interval: unknown): string {
  return `${isPositive(limit) ? limit : '<limit>'}/${isPositive(interval) ? `${interval}ms` : '<interval>'}`;
}

/**
 * The known name closest to `name` (case aside): one it begins (`onDrop`: `onDropped`), else one within
 * a third of its length in edits.
 */
function nearest(name: string, candidates: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  if (lower.length >= 4) {
    const completed = candidates.find((candidate) => candidate.toLowerCase().startsWith(lower));
    if (completed !== undefined) return completed;
  }
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Edit distance counting a swap of two neighbours as one edit (optimal string alignment), row by row. */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, (before[j - 2] as number) + 1);
      }
      row[j] = distance;
    }
    before = previous;
    previous = row;
  }
  return previous[b.length] as number;
}
