/**
 * Option names checked against the ones a call knows: TypeScript refuses an unknown name at compile
 * time, plain JavaScript would otherwise ignore it (a `concurrency: 2` meant as a limit, silently none).
 * The error names the option and its value and says what was meant: another library's name for one of
 * ours (p-queue, Bottleneck, p-throttle), computed from the value where it can be, or the nearest known
 * name by edit distance for a typo.
 */
import { describeValue, ThrottlerOptionError } from '../../rate/index.js';
import type { CommonOptions } from './options.js';

/** Every option of CommonOptions: a Record, so the compiler fails when one is added and not listed here. */
const COMMON: Record<keyof CommonOptions, true> = {
  rate: true,
  strategy: true,
  channels: true,
  keys: true,
  ordering: true,
  fairness: true,
  weight: true,
  maxBurst: true,
  warmup: true,
  coldFactor: true,
  capacity: true,
  overflow: true,
  countUntil: true,
  maxConcurrent: true,
  now: true,
  timerPrecision: true,
  maxDeliveriesPerTurn: true,
  maxPriorityWait: true,
  transit: true,
  features: true,
};

/** The names every face of the throttler takes (its own come on top). */
export const COMMON_OPTION_NAMES: readonly string[] = Object.keys(COMMON);

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
 * Throws a ThrottlerOptionError for the first own enumerable name of `options` not in `known`
 * (nor CommonOptions' when `common`). `where` says whose options they are.
 */
export function checkOptionNames(options: object, known: readonly string[], where: string, common = false): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name) || (common && Object.hasOwn(COMMON, name))) continue;
    const value = (options as Options)[name];
    if (value === undefined) continue;
    const candidates = common ? [...COMMON_OPTION_NAMES, ...known] : known;
    const foreign = Object.hasOwn(FOREIGN, name) ? FOREIGN[name] : undefined;
    const meant = foreign?.(value, options as Options) ?? nearest(name, candidates);
    const error = new ThrottlerOptionError(name, 'a known option', value);
    error.message =
      `${name} is not an option of ${where} (got ${describeValue(value)})` +
      (meant === undefined ? `; the options are ${candidates.join(', ')}` : `: did you mean ${meant}?`);
    throw error;
  }
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
