import type { Redis } from 'ioredis';
import { createRedisStore, type RedisStore } from '../../src/redis/index.js';
import { createMemoryStore } from '../../src/store/index.js';
import type { SharedLimiter, SharedLimiterConfig, SharedStore } from '../../src/store/protocol.js';
import type { Arrival, RateConfig } from './oracle.js';
import { grantTimeOf } from './redis.js';

/**
 * A shared limiter whose scripts read a virtual clock (the store's test-only `testClock`), so
 * that the real Lua in the real Redis is driven through schedules in virtual time.
 */
export interface VirtualLimiter {
  readonly store: SharedStore;
  readonly limiter: SharedLimiter;
  /** Sets the virtual time, in ms. */
  setTime(ms: number): void;
  now(): number;
}

export function virtualLimiter(
  redis: Redis,
  name: string,
  config: SharedLimiterConfig,
  startAt = 0,
  commandTimeout = 5000,
): VirtualLimiter & { readonly store: RedisStore } {
  let now = startAt;
  const store = createRedisStore({ redis, name, testClock: () => now, commandTimeout });
  return {
    store,
    // The script's own arithmetic, exact to the grant: no grace unless a test asks for one (the store's default is 20 ms).
    limiter: store.open({ ...config, grantGraceMs: config.grantGraceMs ?? 0 }),
    setTime: (ms) => {
      now = ms;
    },
    now: () => now,
  };
}

/** As `virtualLimiter`, on a memory store (createMemoryStore) whose clock is the virtual one. */
export function virtualMemoryLimiter(name: string, config: SharedLimiterConfig, startAt = 0): VirtualLimiter {
  let now = startAt;
  const store = createMemoryStore({ name, clock: () => now });
  return {
    store,
    limiter: store.open({ ...config, grantGraceMs: config.grantGraceMs ?? 0 }),
    setTime: (ms) => {
      now = ms;
    },
    now: () => now,
  };
}

/** The config of an oracle scenario as the store opens it. */
export function storeConfig(
  config: RateConfig,
  strategy: 'sliding-window' | 'token-bucket',
  extra: Partial<SharedLimiterConfig> = {},
): SharedLimiterConfig {
  const channels = new Map(
    Object.entries(config.channels).map(([name, rates]) => [name, rates.map((r) => ({ ...r }))]),
  );
  return { strategy, rates: config.overall.map((r) => ({ ...r })), channels, ...extra };
}

/** A grant as the driver saw it: which arrival, when it was asked for, and its Redis (virtual) time. */
export interface DrivenGrant {
  readonly id: number;
  readonly at: number;
  readonly askedAt: number;
  readonly cost: number;
  readonly channel: string | undefined;
  readonly reservation: string;
}

/**
 * Sends arrivals through the limiter as a throttler would: a FIFO queue; whenever something
 * arrives (or a retry is due) the waiting messages are reserved in arrival order, in one call
 * ('batches') or one call each ('events'); a message told "later" holds every one behind it until
 * its retry. Returns the grants in the order granted.
 */
export async function driveArrivals(
  virtual: VirtualLimiter,
  arrivals: readonly Arrival[],
  /** 'unheard' (the machine's quiet paths) means nothing to a store: sent as events. */
  sendAs: 'events' | 'batches' | 'unheard',
): Promise<DrivenGrant[]> {
  const grants: DrivenGrant[] = [];
  const waiting: Arrival[] = [];
  let next = 0;
  let retryAt: number | undefined;
  for (;;) {
    const arrival = arrivals[next];
    if (arrival === undefined && retryAt === undefined) return grants;
    const at = Math.min(arrival?.at ?? Number.POSITIVE_INFINITY, retryAt ?? Number.POSITIVE_INFINITY);
    virtual.setTime(at);
    while (arrivals[next] !== undefined && (arrivals[next] as Arrival).at === at)
      waiting.push(arrivals[next++] as Arrival);
    if (retryAt !== undefined && retryAt > at) continue;
    retryAt = undefined;
    const groups = sendAs === 'batches' ? [waiting.slice()] : waiting.map((one) => [one]);
    for (const group of groups) {
      const outcomes = await virtual.limiter.reserve(group.map(({ cost, channel }) => ({ cost, channel })));
      let deferred = false;
      for (const [index, outcome] of outcomes.entries()) {
        const message = group[index] as Arrival;
        if (outcome.kind === 'granted') {
          waiting.splice(waiting.indexOf(message), 1);
          const grantAt = grantTimeOf(outcome.reservation);
          if (Math.abs(grantAt - (at + outcome.waitMs)) > 1e-6)
            throw new Error(`wait ${outcome.waitMs} from ${at} is not ${grantAt}`);
          grants.push({ ...message, at: grantAt, askedAt: at, reservation: outcome.reservation });
        } else if (outcome.kind === 'later') {
          retryAt = at + outcome.retryAfterMs;
          deferred = true;
          break;
        } else {
          throw outcome.error;
        }
      }
      if (deferred) break;
    }
  }
}
