/**
 * What the p-queue ports share: `new PQueue(options)` as a throttler, p-queue's priorities on our scale,
 * and `until`, which moves virtual time on, timer by timer, until a promise settles (p-queue's tests
 * await real time). docs/coming-from.md, "From p-queue", is the mapping.
 */
import { it, vi } from 'vitest';
import { createThrottler, type ThrottlerOptions } from '../../../src/index.js';

export const fixture = Symbol('fixture');
export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
export const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** p-queue's options, as its tests pass them. */
export interface PQueueOptions {
  concurrency?: number;
  autoStart?: boolean;
  intervalCap?: number;
  interval?: number;
  strict?: boolean;
  timeout?: number;
}

/**
 * `new PQueue(options)`: `concurrency` is maxConcurrent, `intervalCap`/`interval` a rate (strict: the
 * sliding window), none a rate that never binds; `autoStart: false` a pause; a queue-level `timeout`
 * the `taskDefaults`.
 */
export function queueOf(options: PQueueOptions = {}, extra: Partial<ThrottlerOptions> = {}) {
  const { concurrency, autoStart = true, intervalCap, interval, strict, timeout } = options;
  const limited = intervalCap !== undefined && intervalCap !== Number.POSITIVE_INFINITY && interval !== undefined;
  const queue = createThrottler({
    rate: limited ? `${intervalCap}/${interval}ms` : '1000000/1s',
    ...(strict ? { strategy: 'sliding-window' } : {}),
    ...(concurrency === undefined || concurrency === Number.POSITIVE_INFINITY ? {} : { maxConcurrent: concurrency }),
    ...(timeout === undefined ? {} : { taskDefaults: { timeout } }),
    ...extra,
  } as ThrottlerOptions);
  if (!autoStart) queue.pause();
  return queue;
}

/** p-queue's priority (higher first, default 0) on our 0-9 scale (default 5). */
export const priority = (p: number) => Math.max(0, Math.min(9, 5 + p));

/** Moves virtual time on, timer by timer, until `promise` settles; then returns it. */
export async function until<T>(promise: Promise<T>, limitMs = 3_600_000): Promise<T> {
  let done = false;
  const mark = () => {
    done = true;
  };
  promise.then(mark, mark);
  const start = performance.now();
  await vi.advanceTimersByTimeAsync(0);
  while (!done && performance.now() - start < limitMs) {
    if (vi.getTimerCount() === 0) {
      // A promise chain may still be unwinding after the last timer: let it run before giving up.
      for (let turn = 0; turn < 10 && !done; turn++) await vi.advanceTimersByTimeAsync(0);
      break;
    }
    await vi.advanceTimersToNextTimerAsync();
  }
  if (!done) throw new Error('until: the promise never settled (no timer left to run)');
  return promise;
}

/** The virtual time since `start`, as p-queue's timeSpan. */
export function timeSpan() {
  const start = performance.now();
  return () => performance.now() - start;
}

/** Tests kept by title and skipped, with the documented reason. */
export function skipped(reason: string, titles: string[]) {
  for (const title of titles) it.skip(`${title}: ${reason}`, () => {});
}
