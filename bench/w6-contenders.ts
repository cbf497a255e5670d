/**
 * W6's contenders: limiters that share one limit among processes through Redis, each configured
 * as close to a strict "limit per interval" as it allows. Every process of a fleet opens one with
 * the same name, hands its whole backlog over at once, and is told when each task starts.
 */
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import { RateLimiterQueue, RateLimiterRedis } from 'rate-limiter-flexible';
import { OURS_RAW, OURS_THROTTLER } from './w6-ours.js';
import type { SharedContender } from './w6-shared-contender.js';

/** How often each Bottleneck limiter runs its heartbeat script, the one thing that refreshes a drained reservoir. */
export const BOTTLENECK_HEARTBEAT_MS = 250;

const BOTTLENECK_CLUSTER: SharedContender = {
  id: 'bottleneck-cluster',
  name: 'Bottleneck 2 clustering (ioredis, reservoir)',
  kind: 'peer',
  configuration: (rate) =>
    `new Bottleneck({ id: name, datastore: 'ioredis', connection: new Bottleneck.IORedisConnection({ client }), ` +
    `reservoir: ${rate.limit}, reservoirRefreshAmount: ${rate.limit}, reservoirRefreshInterval: ${rate.interval}, ` +
    `heartbeatInterval: ${BOTTLENECK_HEARTBEAT_MS} }).schedule(fn)`,
  why:
    'The reservoir, as in W1-W3: N per interval is what it does. Its scripts refresh a drained reservoir only when' +
    ' a script runs, and with a backlog waiting nothing runs but the heartbeat, every 5 s by default (the README asks' +
    ' for refresh intervals in multiples of 5000 with Clustering): heartbeatInterval, an option of the Redis' +
    ` datastore that the README does not list, is set to ${BOTTLENECK_HEARTBEAT_MS} ms as the local datastore's, so` +
    " that each process checks four times a second. The scripts decide on the calling client's Date.now(). One" +
    ' IORedisConnection per process around its client (Bottleneck duplicates it for pub/sub).',
  async open({ redis, name, rate, onStart }) {
    const connection = new Bottleneck.IORedisConnection({ client: redis, Redis });
    const limiter = new Bottleneck({
      id: name,
      datastore: 'ioredis',
      connection,
      clearDatastore: false,
      reservoir: rate.limit,
      reservoirRefreshAmount: rate.limit,
      reservoirRefreshInterval: rate.interval,
      heartbeatInterval: BOTTLENECK_HEARTBEAT_MS,
    });
    let errors = 0;
    limiter.on('error', () => {
      errors += 1;
    });
    await limiter.ready();
    let next = 0;
    return {
      submit(count) {
        for (let n = 0; n < count; n++) {
          const index = next++;
          limiter.schedule(async () => onStart(index)).catch(() => {});
        }
      },
      get errors() {
        return errors;
      },
    };
  },
};

const RATE_LIMITER_FLEXIBLE: SharedContender = {
  id: 'rate-limiter-flexible',
  name: 'rate-limiter-flexible 11 (RateLimiterRedis + RateLimiterQueue)',
  kind: 'peer',
  configuration: (rate) =>
    `new RateLimiterQueue(new RateLimiterRedis({ storeClient: client, keyPrefix: name, points: ${rate.limit}, ` +
    `duration: ${rate.interval / 1000} }), { maxQueueSize }).removeTokens(1).then(fn)`,
  why:
    'RateLimiterQueue is its way to wait for a limit rather than be refused, over RateLimiterRedis, its Redis' +
    ' limiter: points per duration is a fixed window that starts at the first consume after the key expired' +
    ' (one Lua script: SET NX EX, INCRBY, PTTL), in whole seconds. It has no sliding window; execEvenly would spread' +
    " grants over the window, a different (smoother) promise, as Bottleneck's minTime. Each process's queue asks" +
    " Redis once per task and, when refused, waits for the window's PTTL.",
  async open({ redis, name, rate, onStart }) {
    if (rate.interval % 1000 !== 0)
      throw new Error(`rate-limiter-flexible counts whole seconds, not ${rate.interval} ms`);
    const limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: name,
      points: rate.limit,
      duration: rate.interval / 1000,
    });
    const queue = new RateLimiterQueue(limiter, { maxQueueSize: 10_000_000 });
    let errors = 0;
    let next = 0;
    return {
      submit(count) {
        for (let n = 0; n < count; n++) {
          const index = next++;
          queue.removeTokens(1).then(
            () => onStart(index),
            () => {
              errors += 1;
            },
          );
        }
      },
      get errors() {
        return errors;
      },
    };
  },
};

export const SHARED_CONTENDERS: readonly SharedContender[] = [
  OURS_THROTTLER,
  OURS_RAW,
  BOTTLENECK_CLUSTER,
  RATE_LIMITER_FLEXIBLE,
];

export function sharedContender(id: string): SharedContender {
  const found = SHARED_CONTENDERS.find((candidate) => candidate.id === id);
  if (found === undefined) {
    throw new Error(`No W6 contender "${id}"; known: ${SHARED_CONTENDERS.map((c) => c.id).join(', ')}`);
  }
  return found;
}
