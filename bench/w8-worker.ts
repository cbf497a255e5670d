/**
 * One process of a W8 fleet (forked by bench/w8-tenants.ts, over IPC): opens its contender on its own
 * Redis client (a keyed throttler on the shared store, per-channel or FIFO, or a Bottleneck Group on
 * Redis whose every key's limiter is chained to one overall limiter), says it is ready, submits its
 * schedule of (time, key) from the fleet's common start, records when each task starts, and reports at
 * the end of the run: per task its key, when it was submitted and when it started (common clock), and
 * the Redis round trips it made. Ours also reports, per task, the Redis time of the grant it was sent on
 * (the time the store counted it) and when it was sent, and Redis' clock against the common clock, so
 * that the fleet judges the grants on Redis time and the sends' lateness. Then it exits; the fleet
 * deletes the keys.
 */
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import { createThrottler, type ThrottlerOptions } from '../src/index.js';
import { createRedisStore } from '../src/redis/index.js';
import { countingClient } from './redis-round-trips.js';
import { BOTTLENECK_HEARTBEAT_MS } from './w6-contenders.js';
import { grantTimeOf } from './w6-ours.js';
import { commonNow } from './w6-protocol.js';

export type W8Contender = 'ours-lines' | 'ours-weighted' | 'ours-fifo' | 'bottleneck-group';

export interface W8Open {
  type: 'open';
  contender: W8Contender;
  name: string;
  overall: { limit: number; interval: number };
  key: { limit: number; interval: number };
  /** Submissions: ms after the start, and the key (an index into `keys`). */
  at: number[];
  key_: number[];
  keys: string[];
  /** 'ours-weighted': the weights of keys[0..), every other key weighing 1. */
  weights?: number[];
}

export interface W8Go {
  type: 'go';
  startAt: number;
  endAt: number;
}

export interface W8Report {
  type: 'done';
  /** Per submission, in the order of `at`: when it started (common clock), null if it did not. */
  started: Array<number | null>;
  submitted: Array<number | null>;
  roundTrips: number;
  errors: number;
  /** Ours: per submission, the Redis time (ms) of the grant it was sent on, null if none (not sent, or sent on no grant). */
  grantAt?: Array<number | null>;
  /** Ours: per submission, when the throttler recorded its send (common clock), null if it did not. */
  sentAt?: Array<number | null>;
  /** Redis' clock minus the common clock (ms), read before and after the run, with half the fastest round trip. */
  redisOffset?: { before: number; after: number; uncertainty: number };
  /** Ours: sends on no grant (on the local window), and submissions the bench could not follow to their grant. */
  ungranted?: number;
  unfollowed?: number;
  /** Ours: storeSlow if told (the grace in use widened by the round trip), and the grants rewound. */
  slow?: { roundTripMs: number; graceMs: number } | undefined;
  rewound?: { given: number; retimed: number };
  reused?: number;
}

type Submit = (key: string, index: number, onStart: () => void) => void;

type Store = NonNullable<ThrottlerOptions['store']>;

/**
 * Ours: what the store counted for each task. A bench-only wrapper around the store's clearance through the
 * `store` option's interface: `admit` names the queue entry's seq as `schedule` queues it (a bounded queue
 * hands it over at once), and `recordDelivery` returns the grant's reservation (its member starts with the
 * grant's Redis time, bench/w6-ours.ts' `grantTimeOf`). Nothing in the throttler changes.
 */
class GrantRecorder {
  readonly grantAt: number[];
  readonly sentAt: number[];
  ungranted = 0;
  unfollowed = 0;
  /** The store told its link too slow for the grace (storeSlow): the round trip and the grace in use since. */
  slow: { roundTripMs: number; graceMs: number } | undefined;
  /** Grants given back and asked for again, or moved to Redis' now (storeGrantsRewound). */
  readonly rewound = { given: 0, retimed: 0 };
  /** Sends on a grant another send of this process was recorded on already (never expected). */
  reused = 0;
  private readonly used = new Set<string>();
  private admitted: number | undefined;
  private readonly taskOf = new Map<number, number>();

  constructor(tasks: number) {
    this.grantAt = new Array<number>(tasks).fill(Number.NaN);
    this.sentAt = new Array<number>(tasks).fill(Number.NaN);
  }

  wrap(store: Store): Store {
    return {
      name: store.name,
      ...(store.check === undefined ? {} : { check: store.check.bind(store) }),
      clearanceFor: (options, hooks) => {
        const clearance = store.clearanceFor(options, {
          ...hooks,
          slow: (roundTripMs, graceMs) => {
            this.slow = { roundTripMs, graceMs };
            hooks.slow(roundTripMs, graceMs);
          },
          rewound: (given, retimed, reason) => {
            this.rewound.given += given;
            this.rewound.retimed += retimed;
            hooks.rewound(given, retimed, reason);
          },
        });
        const admit = clearance.admit?.bind(clearance);
        const record = clearance.recordDelivery.bind(clearance);
        clearance.admit = (request, now) => {
          this.admitted = request.seq;
          admit?.(request, now);
        };
        clearance.recordDelivery = (request, at, requestedAt) => {
          const handle = record(request, at, requestedAt);
          const index = this.taskOf.get(request.seq);
          if (index !== undefined) {
            this.taskOf.delete(request.seq);
            this.sentAt[index] = commonNow();
            if (typeof handle !== 'string') this.ungranted += 1;
            else {
              this.grantAt[index] = grantTimeOf(handle);
              // Two sends on one grant would be a bug of the process side: counted, never expected.
              if (this.used.has(handle)) this.reused += 1;
              this.used.add(handle);
            }
          }
          return handle;
        };
        return clearance;
      },
    };
  }

  /** Around one `schedule`: the seq it admitted is this task's. */
  follow(index: number, schedule: () => void): void {
    this.admitted = undefined;
    schedule();
    if (this.admitted === undefined) this.unfollowed += 1;
    else this.taskOf.set(this.admitted, index);
  }
}

/** Redis' clock minus the common clock (ms), from the fastest of a few TIME calls, and half that round trip. */
async function redisOffset(): Promise<{ offset: number; uncertainty: number }> {
  let best = { offset: 0, uncertainty: Number.POSITIVE_INFINITY };
  for (let n = 0; n < 25; n++) {
    const asked = commonNow();
    const [seconds, micros] = await redis.time();
    const answered = commonNow();
    const half = (answered - asked) / 2;
    if (half < best.uncertainty) {
      best = { offset: Number(seconds) * 1000 + Number(micros) / 1000 - (asked + half), uncertainty: half };
    }
  }
  return best;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const send = (message: unknown): Promise<void> =>
  new Promise((resolve, reject) =>
    process.send?.(message, undefined, {}, (error) => (error ? reject(error) : resolve())),
  );

const { redis, counts, reset } = countingClient();
let errors = 0;
let opened:
  | {
      submit: Submit;
      run: W8Open;
      recorder: GrantRecorder | undefined;
      before: { offset: number; uncertainty: number };
    }
  | undefined;

async function openContender(run: W8Open, recorder: GrantRecorder | undefined): Promise<Submit> {
  const rate = (r: { limit: number; interval: number }) => `${r.limit}/${r.interval}ms`;
  if (run.contender !== 'bottleneck-group' && recorder !== undefined) {
    const store = recorder.wrap(createRedisStore({ redis, name: run.name }));
    const weights = new Map((run.weights ?? []).map((weight, index) => [run.keys[index] as string, weight]));
    const throttler = createThrottler({
      rate: rate(run.overall),
      strategy: 'sliding-window',
      keys: { rate: rate(run.key) },
      ordering: run.contender === 'ours-fifo' ? 'fifo' : 'per-channel',
      ...(run.contender === 'ours-weighted' && {
        fairness: 'weighted' as const,
        weight: (key: string) => weights.get(key) ?? 1,
      }),
      store,
      capacity: 1_000_000,
    });
    return (key, index, onStart) => {
      recorder.follow(index, () => {
        throttler
          .schedule(async () => onStart(), { channel: key })
          .catch(() => {
            errors += 1;
          });
      });
    };
  }
  const connection = new Bottleneck.IORedisConnection({ client: redis, Redis });
  const reservoir = (r: { limit: number; interval: number }) => ({
    reservoir: r.limit,
    reservoirRefreshAmount: r.limit,
    reservoirRefreshInterval: r.interval,
    heartbeatInterval: BOTTLENECK_HEARTBEAT_MS,
  });
  const overall = new Bottleneck({
    id: `${run.name}-all`,
    datastore: 'ioredis',
    connection,
    clearDatastore: false,
    ...reservoir(run.overall),
  });
  overall.on('error', () => {
    errors += 1;
  });
  await overall.ready();
  const group = new Bottleneck.Group({
    id: run.name,
    datastore: 'ioredis',
    connection,
    clearDatastore: false,
    timeout: 60_000,
    ...reservoir(run.key),
  });
  group.on('created', (limiter) => {
    limiter.on('error', () => {
      errors += 1;
    });
    limiter.chain(overall);
  });
  return (key, _index, onStart) => {
    group
      .key(key)
      .schedule(async () => onStart())
      .catch(() => {
        errors += 1;
      });
  };
}

async function go({ startAt, endAt }: W8Go): Promise<void> {
  if (opened === undefined) throw new Error('go before open');
  const { submit, run, recorder, before } = opened;
  const started = new Array<number>(run.at.length).fill(Number.NaN);
  const submitted = new Array<number>(run.at.length).fill(Number.NaN);
  await sleep(startAt - commonNow() - 2);
  while (commonNow() < startAt) {
    // The last two milliseconds spin, so that every process starts at the same moment.
  }
  reset();
  let next = 0;
  // One loop submits what is due, every few ms: a timer per submission would be 10,000s of timers.
  while (commonNow() < endAt) {
    const elapsed = commonNow() - startAt;
    while (next < run.at.length && (run.at[next] as number) <= elapsed) {
      const index = next++;
      submitted[index] = commonNow();
      submit(run.keys[run.key_[index] as number] as string, index, () => {
        started[index] = commonNow();
      });
    }
    await sleep(Math.min(5, next < run.at.length ? (run.at[next] as number) - elapsed : 5));
  }
  const roundTrips = counts.roundTrips;
  const after = await redisOffset();
  const report: W8Report = {
    type: 'done',
    started,
    submitted,
    roundTrips,
    errors,
    redisOffset: {
      before: before.offset,
      after: after.offset,
      uncertainty: Math.max(before.uncertainty, after.uncertainty),
    },
    ...(recorder === undefined
      ? {}
      : {
          grantAt: recorder.grantAt,
          sentAt: recorder.sentAt,
          ungranted: recorder.ungranted,
          unfollowed: recorder.unfollowed,
          slow: recorder.slow,
          reused: recorder.reused,
          rewound: recorder.rewound,
        }),
  };
  await send(report);
  process.exit(0);
}

process.on('message', (message: W8Open | W8Go) => {
  const step =
    message.type === 'open'
      ? redis.ping().then(async () => {
          const recorder = message.contender === 'bottleneck-group' ? undefined : new GrantRecorder(message.at.length);
          const submit = await openContender(message, recorder);
          opened = { submit, run: message, recorder, before: await redisOffset() };
          await send({ type: 'ready' });
        })
      : go(message);
  step.catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
});
