/**
 * One process of a W9 region (forked by bench/w9-regions.ts, over IPC): a throttler (`createThrottler` over
 * `xstate-throttler/redis`'s store on its region's own Redis, as a user runs one), with messages arriving at
 * the rate the orchestrator states per phase. With shares, the process watches its region's agent and its
 * throttler takes the watch's store once the watch heard the agent (`await watch.ready`, docs/regions.md).
 * It reports its waiting count every 100 ms (the region's demand) and, at the end, every grant's Redis time
 * (from the reservation the store's clearance recorded each delivery on) and the round trips of a probe
 * (`check()`, one call to the regional store, every 50 ms: what a decision waits for).
 */
import { Redis } from 'ioredis';
import { createThrottler, type ThrottlerOptions } from '../src/index.js';
import { createRedisStore } from '../src/redis/index.js';
import { type SharedLimiterConfig, watchRegionShares } from '../src/store/index.js';
import { grantTimeOf } from './w6-ours.js';

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
  /** The probe's round trips to the regional store, ms. */
  readonly reserveMs: number[];
  /** Pauses this process's watch sent (no renewal heard). */
  readonly watchPauses: number;
  /** Sends not on a grant of the store (never expected), and tasks refused by the bounded queue. */
  readonly ungranted: number;
  readonly overflowed: number;
  /** ms from start until the watch heard the agent (0 without shares). */
  readonly readyAfterMs: number;
}

type Store = NonNullable<ThrottlerOptions['store']>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));
const send = (message: unknown) => process.send?.(message);

/** The store's clearance, each delivery's reservation read for its grant's Redis time (nothing else changes). */
function recordingGrants(store: Store, grants: number[], counts: { ungranted: number }): Store {
  return {
    name: store.name,
    ...(store.check === undefined ? {} : { check: store.check.bind(store) }),
    clearanceFor: (options, hooks) => {
      const clearance = store.clearanceFor(options, hooks);
      const record = clearance.recordDelivery.bind(clearance);
      clearance.recordDelivery = (request, at, requestedAt) => {
        const handle = record(request, at, requestedAt);
        if (typeof handle === 'string') grants.push(grantTimeOf(handle));
        else counts.ungranted += 1;
        return handle;
      };
      return clearance;
    },
  };
}

async function run(open: RegionWorkerOpen): Promise<void> {
  const redis = new Redis({ port: open.port, host: '127.0.0.1', enableOfflineQueue: false });
  await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  const store = createRedisStore({ redis, name: open.name, maxReserveAheadMs: open.maxReserveAheadMs });
  const start = performance.now();
  const grants: number[] = [];
  const counts = { ungranted: 0, overflowed: 0 };
  const most = Math.max(1, 2 * Math.max(...open.perSecond));
  // Until the throttler exists, arrivals wait here and count as the region's demand: a region at share 0
  // sets no rate, so its watches hear nothing until home lends it a share for the work it reports.
  let early = 0;
  let throttler: ReturnType<typeof createThrottler> | undefined;
  const endAt = start + open.durationMs;
  let owed = 0;
  let last = performance.now();
  const arrive = setInterval(() => {
    const now = performance.now();
    const phase = Math.floor((now - start) / open.phaseMs) % open.perSecond.length;
    owed += ((open.perSecond[phase] as number) * (now - last)) / 1000;
    last = now;
    for (; owed >= 1; owed -= 1) {
      if (throttler === undefined) early = Math.min(most, early + 1);
      else throttler.schedule(async () => {}).catch(() => (counts.overflowed += 1));
    }
    send({ type: 'waiting', waiting: throttler?.size ?? early });
  }, 100);
  const watch = open.watch === undefined ? undefined : watchRegionShares({ ...open.watch, store, config: open.config });
  if (watch !== undefined) await watch.ready;
  const readyAfterMs = performance.now() - start;
  throttler = createThrottler({
    rate: open.config.rates,
    strategy: 'sliding-window',
    store: recordingGrants(watch?.store ?? store, grants, counts),
    // A bounded queue (2 s of arrivals, the oldest given up): the waiting work follows the arrival rate.
    capacity: most,
    overflow: 'drop-oldest',
  });
  const probe = store.open(open.config);
  for (; early > 0; early -= 1) throttler.schedule(async () => {}).catch(() => (counts.overflowed += 1));
  const reserveMs: number[] = [];
  while (performance.now() < endAt) {
    const asked = performance.now();
    await probe.check().catch(() => {});
    reserveMs.push(performance.now() - asked);
    await sleep(50);
  }
  clearInterval(arrive);
  throttler.clear();
  await throttler.stop();
  watch?.stop();
  send({
    type: 'report',
    grants,
    reserveMs,
    watchPauses: watch?.pauses ?? 0,
    ungranted: counts.ungranted,
    overflowed: counts.overflowed,
    readyAfterMs,
  } satisfies RegionWorkerReport);
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
