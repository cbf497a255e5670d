/**
 * One process of a W8 fleet (forked by bench/w8-tenants.ts, over IPC): opens its contender on its own
 * Redis client (a keyed throttler on the shared store, per-channel or FIFO, or a Bottleneck Group on
 * Redis whose every key's limiter is chained to one overall limiter), says it is ready, submits its
 * schedule of (time, key) from the fleet's common start, records when each task starts, and reports at
 * the end of the run: per task its key, when it was submitted and when it started (common clock), and
 * the Redis round trips it made. Then it exits; the fleet deletes the keys.
 */
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import { createThrottler } from '../src/index.js';
import { createRedisStore } from '../src/redis/index.js';
import { countingClient } from './redis-round-trips.js';
import { BOTTLENECK_HEARTBEAT_MS } from './w6-contenders.js';
import { commonNow } from './w6-protocol.js';

export type W8Contender = 'ours-lines' | 'ours-fifo' | 'bottleneck-group';

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
}

type Submit = (key: string, onStart: () => void) => void;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const send = (message: unknown): Promise<void> =>
  new Promise((resolve, reject) =>
    process.send?.(message, undefined, {}, (error) => (error ? reject(error) : resolve())),
  );

const { redis, counts, reset } = countingClient();
let errors = 0;
let opened: { submit: Submit; run: W8Open } | undefined;

async function openContender(run: W8Open): Promise<Submit> {
  const rate = (r: { limit: number; interval: number }) => `${r.limit}/${r.interval}ms`;
  if (run.contender !== 'bottleneck-group') {
    const store = createRedisStore({ redis, name: run.name });
    const throttler = createThrottler({
      rate: rate(run.overall),
      strategy: 'sliding-window',
      keys: { rate: rate(run.key) },
      ordering: run.contender === 'ours-lines' ? 'per-channel' : 'fifo',
      store,
      capacity: 1_000_000,
    });
    return (key, onStart) => {
      throttler
        .schedule(async () => onStart(), { channel: key })
        .catch(() => {
          errors += 1;
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
  return (key, onStart) => {
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
  const { submit, run } = opened;
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
      submit(run.keys[run.key_[index] as number] as string, () => {
        started[index] = commonNow();
      });
    }
    await sleep(Math.min(5, next < run.at.length ? (run.at[next] as number) - elapsed : 5));
  }
  const report: W8Report = { type: 'done', started, submitted, roundTrips: counts.roundTrips, errors };
  await send(report);
  process.exit(0);
}

process.on('message', (message: W8Open | W8Go) => {
  const step =
    message.type === 'open'
      ? redis
          .ping()
          .then(() => openContender(message))
          .then(async (submit) => {
            opened = { submit, run: message };
            await send({ type: 'ready' });
          })
      : go(message);
  step.catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
});
