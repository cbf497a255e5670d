import type { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import { type AnyActorRef, createActor, createEmptyActor, SimulatedClock } from 'xstate';
import { throttlerMachine } from '../../src/machine/named-machine.js';
import type { ThrottlerEmitted, ThrottlerInput } from '../../src/machine/types.js';
import { createRedisStore } from '../../src/redis/index.js';
import type { RedisStoreOptions } from '../../src/redis/types.js';
import { createMemoryStore, type SharedStore } from '../../src/store/index.js';
import type { SharedLimiter } from '../../src/store/protocol.js';
import { type CountedClient, countedClient } from './counted-client.js';

/**
 * A throttler machine with a Redis store, in virtual time: XState's SimulatedClock runs the
 * machine's one timer, and the same virtual time is the throttler's `now` and the store's
 * test-only Redis clock. Redis itself is real, so each step waits for its replies (real I/O).
 */
export interface StoreThrottler {
  readonly actor: ReturnType<typeof createActor<typeof throttlerMachine>>;
  readonly store: SharedStore;
  readonly clock: SimulatedClock;
  /** Every delivery: the message's `n` and the virtual time it went. */
  readonly deliveries: Array<{ n: number; at: number; channel: string | undefined; cost: number }>;
  readonly emitted: ThrottlerEmitted[];
  /** Resolves once no call of the store is out and every answer was handled (counted-client.ts). */
  quiet(): Promise<void>;
  /** The store's script calls so far (its round trips to Redis). */
  calls(): number;
  /** Waits for Redis to answer what is out, then moves virtual time to the next wake-up; false when none. */
  step(): Promise<boolean>;
  /** Steps until `deliveries` holds `count`, or `realMs` of real time passed; returns the virtual time. */
  runUntil(count: number, realMs?: number): Promise<number>;
}

/**
 * A wait of real time, which no reply is sure to come back within on a loaded machine: to wait for the
 * store's calls, use `quiet()` (an event). A test that moves the clock while a call is still out
 * makes it a slow round trip, and stale grants are then moved ahead by it (late-grants.ts).
 */
export async function settle(ms = 15): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Where a test's store keeps the shared limiter: a real Redis, or 'memory' (createMemoryStore, no Redis). */
export type StoreBackend = Redis | 'memory';

/** A test file's backend and fresh limiter names (test/support/redis.ts `redisForFile` for Redis). */
export interface StoreFile {
  readonly backend: StoreBackend;
  fresh(label: string): string;
}

/** The memory store for a test file: names fresh per test, nothing to connect or delete. */
export function memoryForFile(): StoreFile {
  return { backend: 'memory', fresh: (label) => `${label}-${++memoryNames}` };
}
let memoryNames = 0;

export function storeThrottler(
  backend: StoreBackend,
  name: string,
  input: Omit<ThrottlerInput, 'store' | 'now'>,
  storeOptions: Partial<RedisStoreOptions> = {},
  clock = new SimulatedClock(),
): StoreThrottler {
  const { store, counted } =
    backend === 'memory' ? memoryStoreNamed(name, clock, storeOptions) : redisStore(backend, name, clock, storeOptions);
  const deliveries: StoreThrottler['deliveries'] = [];
  const emitted: ThrottlerEmitted[] = [];
  // A started empty actor discards what it gets (one never started would get nothing: targetNotStarted).
  const target = createEmptyActor() as AnyActorRef;
  target.start();
  const actor = createActor(throttlerMachine, {
    input: { ...input, store, now: () => clock.now(), target },
    clock,
  });
  actor.on('*', (event) => {
    emitted.push(event);
    if (event.type === 'delivered') {
      deliveries.push({
        n: event.message.n as number,
        at: event.at,
        channel: event.channel,
        cost: event.cost as number,
      });
    }
  });
  actor.start();
  const step = async (): Promise<boolean> => {
    await counted.quiet();
    const { wakeAt } = actor.getSnapshot().context;
    if (!Number.isFinite(wakeAt)) return false;
    clock.increment(Math.max(0, wakeAt - clock.now()));
    return true;
  };
  return {
    actor,
    store,
    clock,
    deliveries,
    emitted,
    quiet: counted.quiet,
    calls: () => counted.calls,
    step,
    async runUntil(count, realMs = 10_000) {
      // Nothing armed means a reply is still out (or a test waits in vain): real time bounds the wait.
      const giveUpAt = performance.now() + realMs;
      while (deliveries.length < count && performance.now() < giveUpAt) await step();
      return clock.now();
    },
  };
}

/**
 * A list of this file's throttlers, each stopped and its store closed after every test (registers the
 * afterEach, as redisForFile registers its hooks): push each throttler a test starts.
 */
export function stoppedAfterEach(): StoreThrottler[] {
  const running: StoreThrottler[] = [];
  afterEach(async () => {
    for (const t of running.splice(0)) {
      t.actor.stop();
      await t.store.close();
    }
  });
  return running;
}

function redisStore(redis: Redis, name: string, clock: SimulatedClock, storeOptions: Partial<RedisStoreOptions>) {
  const counted = countedClient(redis);
  const store = createRedisStore({
    redis: counted.redis,
    name,
    testClock: () => clock.now(),
    commandTimeout: 5000,
    ...storeOptions,
  });
  return { store, counted };
}

/**
 * One memory store per name, as throttlers sharing a name share a Redis limiter, on the clock of the
 * first; its calls counted as the limiters' round trips. Its answers come in microtasks: one macrotask
 * turn without a new call is quiet.
 */
const memoryStores = new Map<string, { store: SharedStore; counted: Pick<CountedClient, 'quiet' | 'calls'> }>();

function memoryStoreNamed(name: string, clock: SimulatedClock, storeOptions: Partial<RedisStoreOptions>) {
  const known = memoryStores.get(name);
  if (known) return known;
  const { grantGraceMs, maxReserveAheadMs, onStoreDown, localShare } = storeOptions;
  const store = createMemoryStore({
    name,
    clock: () => clock.now(),
    grantGraceMs,
    maxReserveAheadMs,
    onStoreDown,
    localShare,
  });
  const limiters: SharedLimiter[] = [];
  const open = store.open;
  store.open = (config) => {
    const limiter = open(config);
    limiters.push(limiter);
    return limiter;
  };
  const calls = () => limiters.reduce((sum, limiter) => sum + limiter.roundTrips, 0);
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  const counted = {
    get calls() {
      return calls();
    },
    async quiet() {
      for (let before = -1; before !== calls(); ) {
        before = calls();
        await nextTurn();
      }
    },
  };
  const made = { store, counted };
  memoryStores.set(name, made);
  return made;
}
