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

/**
 * Half a round trip for every request in flight on one timer: each waits the same time, so they are
 * due in the order they left, and one timer armed for the first is enough. A timer per request costs
 * the fake clock a scan of every timer id it ever held at once on each step (a backlog sent at once
 * leaves it scanning a thousand slots per timer for the rest of the run); here it holds two.
 */
class DelayLine {
  private readonly due: Array<{ at: number; resolve: () => void }> = [];
  private head = 0;
  private armed = false;

  constructor(private readonly delay: number) {}

  /** Resolves `delay` ms from now, after every wait that began before it. */
  wait(): Promise<void> {
    return new Promise((resolve) => {
      this.due.push({ at: Date.now() + this.delay, resolve });
      this.arm();
    });
  }

  private arm(): void {
    const next = this.due[this.head];
    if (this.armed || next === undefined) return;
    this.armed = true;
    setTimeout(() => this.fire(), Math.max(0, next.at - Date.now()));
  }

  private fire(): void {
    this.armed = false;
    const time = Date.now();
    for (let next = this.due[this.head]; next !== undefined && next.at <= time; next = this.due[this.head]) {
      this.head += 1;
      next.resolve();
    }
    // Drop what was answered once it is most of the line, so that the line keeps what is in flight.
    if (this.head > 1_024 && this.head * 2 > this.due.length) {
      this.due.splice(0, this.head);
      this.head = 0;
    }
    this.arm();
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
    // The uplink here is a constant half round trip: no spread, so none to measure (the default with
    // serverLimits would take the whole round trip as the spread and give its share of the quota up).
    transit: 0,
    serverLimits: serverLimits((value) => value, {
      adaptive: { min: `${options.min}/1s`, max: `${options.max}/1s` },
      onError: (error) => {
        if (!stopped) errors.push(error);
      },
    }),
  });
  const start = Date.now();
  // Half the round trip there, half back: the server decides at arrival.
  const there = new DelayLine(latency / 2);
  const back = new DelayLine(latency / 2);
  const send = (): void => {
    if (stopped) return;
    throttler
      .schedule(async () => {
        if (latency > 0) await there.wait();
        const time = Date.now();
        const status = server.request(time);
        const index = Math.floor((time - start) / window);
        while (intervals.length <= index) intervals.push({ accepted: 0, refused: 0 });
        const counts = intervals[index] as IntervalCounts;
        if (status === 200) counts.accepted += 1;
        else counts.refused += 1;
        if (latency > 0) await back.wait();
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
