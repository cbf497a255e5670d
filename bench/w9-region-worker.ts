/**
 * One process of a W9 region (forked by bench/w9-regions.ts, over IPC): a raw limiter on its region's own
 * Redis, reserving one slot per waiting message as the regional store allows, with messages arriving at the
 * rate the orchestrator states per phase. It reports its waiting count every 100 ms (the region's demand)
 * and, at the end, every grant's Redis time and every reserve call's round trip.
 */
import { Redis } from 'ioredis';
import { createRedisStore } from '../src/redis/index.js';
import { type SharedLimiterConfig, watchRegionShares } from '../src/store/index.js';

export interface RegionWorkerOpen {
  readonly type: 'open';
  readonly port: number;
  readonly name: string;
  readonly config: SharedLimiterConfig;
  readonly maxReserveAheadMs: number;
  /** Messages per second arriving at this process, per phase of `phaseMs` from the start, cycling. */
  readonly perSecond: readonly number[];
  readonly phaseMs: number;
  readonly durationMs: number;
  /** With shares: the agent's terms, for this process's watch on it (watchRegionShares). */
  readonly watch?: { readonly leaseMs: number; readonly renewEveryMs: number } | undefined;
}

export interface RegionWorkerReport {
  readonly type: 'report';
  readonly grants: number[];
  readonly reserveMs: number[];
  /** Pauses this process's watch sent (no renewal heard). */
  readonly watchPauses: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));
const send = (message: unknown) => process.send?.(message);

async function run(open: RegionWorkerOpen): Promise<void> {
  const redis = new Redis({ port: open.port, host: '127.0.0.1', enableOfflineQueue: false });
  await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  const store = createRedisStore({ redis, name: open.name, maxReserveAheadMs: open.maxReserveAheadMs });
  const limiter = store.open(open.config);
  const watch = open.watch === undefined ? undefined : watchRegionShares({ ...open.watch, store, config: open.config });
  const grants: number[] = [];
  const reserveMs: number[] = [];
  let waiting = 0;
  const start = performance.now();
  const endAt = start + open.durationMs;
  let owed = 0;
  let last = start;
  const arrive = setInterval(() => {
    const now = performance.now();
    const phase = Math.floor((now - start) / open.phaseMs) % open.perSecond.length;
    owed += ((open.perSecond[phase] as number) * (now - last)) / 1000;
    last = now;
    // A bounded queue (2 s of arrivals, the oldest dropped): the waiting work follows the arrival rate.
    waiting = Math.min(waiting + Math.floor(owed), Math.max(1, 2 * (open.perSecond[phase] as number)));
    owed -= Math.floor(owed);
    send({ type: 'waiting', waiting });
  }, 100);
  while (performance.now() < endAt) {
    if (waiting === 0) {
      await sleep(5);
      continue;
    }
    const asked = performance.now();
    const [outcome] = await limiter.reserve([{ cost: 1 }]).catch(() => [undefined]);
    reserveMs.push(performance.now() - asked);
    if (outcome?.kind === 'granted') {
      waiting -= 1;
      grants.push(outcome.redisTime);
    } else {
      await sleep(Math.min(outcome?.kind === 'later' ? outcome.retryAfterMs : 50, 50));
    }
  }
  clearInterval(arrive);
  watch?.stop();
  send({ type: 'report', grants, reserveMs, watchPauses: watch?.pauses ?? 0 } satisfies RegionWorkerReport);
  await store.close();
  redis.disconnect();
}

process.once('message', (message: RegionWorkerOpen) => {
  run(message).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
