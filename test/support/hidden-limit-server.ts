/**
 * A simulated server that enforces a sliding window it never states (at most `limit` accepted requests
 * in any window of `window` ms; a refused one is not counted), and a client that keeps it busy through
 * the promise API with `serverLimits({ adaptive })`, each refused request sent again, all in virtual time.
 * Per interval it records what was accepted and refused, which test/server-limits/adaptive-limit.property.test.ts measures.
 */
import { vi } from 'vitest';
import { createThrottler, type Throttler } from '../../src/index.js';
import { serverLimits } from '../../src/server-limits/index.js';

export class HiddenLimitServer {
  private readonly accepted: number[] = [];
  private head = 0;

  private fixedStart = 0;
  private fixedCount = 0;

  constructor(
    public limit: number,
    private readonly window = 1_000,
    /** `'fixed'`: a count per aligned window instead, reset at each window's start. */
    private readonly kind: 'sliding' | 'fixed' = 'sliding',
  ) {}

  /** The status of a request arriving at `time`. */
  request(time: number): 200 | 429 {
    if (this.kind === 'fixed') {
      const start = Math.floor(time / this.window) * this.window;
      if (start !== this.fixedStart) [this.fixedStart, this.fixedCount] = [start, 0];
      if (this.fixedCount >= this.limit) return 429;
      this.fixedCount += 1;
      return 200;
    }
    while (this.head < this.accepted.length && (this.accepted[this.head] as number) <= time - this.window) {
      this.head += 1;
    }
    if (this.accepted.length - this.head >= this.limit) return 429;
    this.accepted.push(time);
    return 200;
  }
}

export interface IntervalCounts {
  accepted: number;
  refused: number;
}

export interface AdaptiveRun {
  readonly server: HiddenLimitServer;
  readonly throttler: Throttler;
  /** Counts per interval of `window` ms since the start. */
  readonly intervals: IntervalCounts[];
  /** What serverLimits' onError was told before `stop()` (after it, a stopped throttler refuses setRate). */
  readonly errors: Error[];
  /** Runs `count` more intervals. */
  run(count: number): Promise<void>;
  stop(): void;
}

/**
 * A client with `backlog` requests always waiting (each one answered is replaced), adapting between
 * `min` and `max` per `window`; the throttler is created at `max`, its configured ceiling.
 */
export function startAdaptiveRun(
  limit: number,
  options: { min: number; max: number; backlog: number; latency?: number; kind?: 'sliding' | 'fixed' },
): AdaptiveRun {
  const latency = options.latency ?? 0;
  const window = 1_000;
  const server = new HiddenLimitServer(limit, window, options.kind);
  const intervals: IntervalCounts[] = [];
  const errors: Error[] = [];
  let stopped = false;
  const throttler = createThrottler({
    rate: `${options.max}/1s`,
    strategy: 'sliding-window',
    serverLimits: serverLimits((value) => value, {
      adaptive: { min: `${options.min}/1s`, max: `${options.max}/1s` },
      onError: (error) => {
        if (!stopped) errors.push(error);
      },
    }),
  });
  const start = Date.now();
  const send = (): void => {
    if (stopped) return;
    throttler
      .schedule(async () => {
        // Half the round trip there, half back: the server decides at arrival.
        if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency / 2));
        const time = Date.now();
        const status = server.request(time);
        const index = Math.floor((time - start) / window);
        while (intervals.length <= index) intervals.push({ accepted: 0, refused: 0 });
        const counts = intervals[index] as IntervalCounts;
        if (status === 200) counts.accepted += 1;
        else counts.refused += 1;
        if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency / 2));
        return { status, headers: {} };
      })
      .then(send, () => undefined);
  };
  for (let n = 0; n < options.backlog; n += 1) send();
  return {
    server,
    throttler,
    intervals,
    errors,
    async run(count) {
      await vi.advanceTimersByTimeAsync(count * window);
    },
    stop() {
      stopped = true;
      throttler.stop();
    },
  };
}
