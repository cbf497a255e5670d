/**
 * Our W6 contender until createThrottler takes a store: the shared limiter of src/redis driven
 * directly, the way a throttler would drive it. The process keeps its waiting tasks, reserves up to
 * RAW_BATCH of them per round trip (`SharedLimiter.reserve`), and sends each granted task at its
 * grant's time (reply arrival + waitMs), on one timer that also wakes it to ask again when told
 * 'later'. One request in flight at a time; no polling, no heartbeat.
 */
import type { Redis } from 'ioredis';
import { createThrottler } from '../src/index.js';
import { createRedisStore } from '../src/redis/index.js';
import type { ReservationRequest, SharedLimiter } from '../src/store/index.js';
import type { RateSpec } from './contenders.js';
import type { SharedContender, SharedContext, SharedInstance } from './w6-shared-contender.js';

/** Requests per reserve call: the whole backlog of W6's binding phase; ten calls for its non-binding one. */
export const RAW_BATCH = 1000;

const ONE: ReservationRequest = { cost: 1 };

/**
 * The Redis time (ms) a reservation was granted for. The reservation is opaque to users; the
 * benchmark reads it (`epoch member channel`, member `µs:cost:seq:nonce`) only to check the grants
 * on the clock the store promises strictness on, as test/support/redis.ts does.
 */
export function grantTimeOf(reservation: string): number {
  const member = reservation.split(' ')[1] ?? '';
  return Number(member.split(':')[0]) / 1000;
}

/** Sends granted tasks at their time and asks for more when the store allows. */
class GrantSender implements SharedInstance {
  private handedOver = 0;
  /** The next task to ask a grant for. */
  private nextToReserve = 0;
  /** Granted tasks in grant order: their index and local send time; `head` is the next to send. */
  private dueIndex: number[] = [];
  private dueAt: number[] = [];
  private head = 0;
  private inFlight = false;
  /** When the store said it may grant again (Infinity: it did not say wait). */
  private retryAt = Number.POSITIVE_INFINITY;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  errors = 0;

  constructor(
    private readonly limiter: SharedLimiter,
    private readonly onStart: (index: number) => void,
    private readonly onGrant: ((index: number, redisMs: number) => void) | undefined,
  ) {}

  submit(count: number): void {
    this.handedOver += count;
    this.reserveMore();
  }

  private reserveMore(): void {
    if (this.inFlight || this.nextToReserve >= this.handedOver || this.retryAt !== Number.POSITIVE_INFINITY) return;
    this.inFlight = true;
    const size = Math.min(RAW_BATCH, this.handedOver - this.nextToReserve);
    this.limiter.reserve(new Array<ReservationRequest>(size).fill(ONE)).then(
      (outcomes) => {
        const arrived = performance.now();
        this.inFlight = false;
        for (const outcome of outcomes) {
          if (outcome.kind === 'granted') {
            const index = this.nextToReserve++;
            this.dueIndex.push(index);
            this.dueAt.push(arrived + outcome.waitMs);
            this.onGrant?.(index, grantTimeOf(outcome.reservation));
          } else if (outcome.kind === 'later') {
            // Every later request in the batch got the same answer.
            this.retryAt = arrived + outcome.retryAfterMs;
            break;
          } else {
            // Refused (a cost above the limit): cannot happen at cost 1; counted, and the task skipped.
            this.errors += 1;
            this.nextToReserve += 1;
          }
        }
        this.step();
      },
      () => {
        // A timed-out call may still have reserved in Redis; the bench counts the error and asks again shortly.
        this.inFlight = false;
        this.errors += 1;
        this.retryAt = performance.now() + 100;
        this.arm();
      },
    );
  }

  private readonly wake = (): void => {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    this.step();
  };

  /** Sends what is due, asks again if the store's wait is over, and arms the one timer for what comes next. */
  private step(): void {
    const now = performance.now();
    while (this.head < this.dueAt.length && (this.dueAt[this.head] as number) <= now) {
      const index = this.dueIndex[this.head] as number;
      this.head += 1;
      this.onStart(index);
    }
    if (this.head > 4096 && this.head * 2 > this.dueAt.length) {
      this.dueIndex = this.dueIndex.slice(this.head);
      this.dueAt = this.dueAt.slice(this.head);
      this.head = 0;
    }
    if (this.retryAt <= now) this.retryAt = Number.POSITIVE_INFINITY;
    this.reserveMore();
    this.arm();
  }

  private arm(): void {
    const nextDue = this.head < this.dueAt.length ? (this.dueAt[this.head] as number) : Number.POSITIVE_INFINITY;
    const at = Math.min(nextDue, this.retryAt);
    if (at === Number.POSITIVE_INFINITY || this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    // A timer may fire a fraction of a millisecond early (libuv counts whole ms): wake() then re-arms.
    this.timer = setTimeout(this.wake, Math.max(0, at - performance.now()));
  }
}

export function rateText(rate: RateSpec): string {
  return `${rate.limit}/${rate.interval}ms`;
}

export const OURS_RAW: SharedContender = {
  id: 'ours-raw',
  name: 'xstate-throttler store (raw limiter)',
  kind: 'ours',
  configuration: (rate) =>
    `createRedisStore({ redis, name }).open({ strategy: 'sliding-window', rates: '${rateText(rate)}' }).reserve(requests)` +
    ` with up to ${RAW_BATCH} requests a call, one call in flight; each grant sent at reply + waitMs on one timer`,
  why:
    'The shared limiter itself, driven as a throttler would drive it (createThrottler({ store }) is being wired' +
    ' and will join as its own contender): a strict sliding window on Redis time, reservations rather than' +
    ' polling, a whole backlog asked for in one round trip, at most maxReserveAheadMs (default: the interval)' +
    ' reserved ahead.',
  async open(context: SharedContext): Promise<SharedInstance> {
    const store = createRedisStore({ redis: context.redis as Redis, name: context.name, commandTimeout: 5_000 });
    const limiter = store.open({ strategy: 'sliding-window', rates: rateText(context.rate) });
    return new GrantSender(limiter, context.onStart, context.onGrant);
  },
};

/** Ours as users run it: createThrottler with the Redis store (the machine asks the store, a burst per round trip). */
export const OURS_THROTTLER: SharedContender = {
  id: 'ours-throttler',
  name: 'xstate-throttler createThrottler({ store })',
  kind: 'ours',
  configuration: (rate) =>
    `createThrottler({ rate: '${rateText(rate)}', strategy: 'sliding-window', store: createRedisStore({ redis, name }) })` +
    '.schedule(fn)',
  why:
    'The promise API on the shared store: the machine reserves what waits in one call (up to 1000), sends each' +
    ' grant on its one timer, and gives back and asks again for a grant it could not send within grantGraceMs' +
    ' (20 ms), which the script adds to the spacing of grants: strict on the common clock, not only on Redis time.',
  async open({ redis, name, rate, onStart }) {
    // bench/w6-start-spans.ts may set the fleet's reserve-ahead (every process of the fleet inherits it).
    const ahead = process.env.W6_RESERVE_AHEAD_MS;
    const store = createRedisStore({
      redis,
      name,
      commandTimeout: 5000,
      ...(ahead === undefined ? {} : { maxReserveAheadMs: Number(ahead) }),
    });
    const throttler = createThrottler({ rate: rateText(rate), strategy: 'sliding-window', store });
    let errors = 0;
    let next = 0;
    return {
      submit(count) {
        for (let n = 0; n < count; n++) {
          const index = next++;
          throttler
            .schedule(async () => onStart(index))
            .catch(() => {
              errors += 1;
            });
        }
      },
      get errors() {
        return errors;
      },
    };
  },
};
