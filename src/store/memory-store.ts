/**
 * A shared store in memory: one process's throttlers (and raw limiters) share every rate through it,
 * as a fleet shares a Redis store, decided by the same rules as the Redis scripts on an injected clock
 * (Bottleneck's LocalDatastore idea). For tests of store code without Redis, for workers of one
 * process, and as the reference a third backend is held to (test/store/conformance.ts).
 *
 * Every call is decided whole, at once, on the store's clock (never running backwards); its answer is
 * a resolved promise, and the notices it causes reach every listener before the caller resumes. The
 * state expires as Redis' keys do (past the last grant's windows and any pause, + 10 s), and a keyed
 * limit's with it. Not kept: weighted fairness (refused by name), a quarantine (nothing is ever lost).
 */
import type { ResolvedOptions, StoreHooks } from '../engine/index.js';
import { ThrottlerOptionError } from '../rate/index.js';
import { MemoryBackend } from './memory-backend.js';
import { MemoryLimiter } from './memory-limiter.js';
import type { SharedLimiterConfig, SharedStore } from './protocol.js';
import { RedisClearance } from './store-clearance.js';
import { type CommonStoreOptions, checkStoreDown, declareWith, throttlerConfig } from './store-options.js';

/** What `createMemoryStore` takes. */
export interface MemoryStoreOptions {
  /** The shared limiter's name, for messages. Non-empty. */
  name: string;
  /** The store's clock in ms (default `performance.now`): pass a test's virtual clock to decide in virtual time. */
  clock?: (() => number) | undefined;
  /** How far ahead of the store's now grants may be held, in ms: the default of every `open` and throttler. */
  maxReserveAheadMs?: number | undefined;
  /** How late after its time a grant may still be sent, in ms: the default of every `open` and throttler (else 20 with sliding-window). */
  grantGraceMs?: number | undefined;
  /** As the Redis store's: what a throttler does while the store does not answer (a memory store always answers). */
  onStoreDown?: 'pause' | 'local' | undefined;
  /** With onStoreDown 'local': the share of every limit one throttler may use alone, in (0, 1]. */
  localShare?: number | undefined;
  /** As the Redis store's: with onStoreDown 'local', how long after the store is back every process has reconnected. Default '2.5s'. */
  reconnectWithin?: number | string | undefined;
}

/** A shared store in memory; pass it as a throttler's `store` option, or `open` its raw limiter. */
export interface MemoryStore extends SharedStore {}

/** A shared store in memory named `name` (see the file's header). */
export function createMemoryStore(options: MemoryStoreOptions): MemoryStore {
  if (typeof options !== 'object' || options === null) {
    throw new ThrottlerOptionError('options', 'an object { name, clock? }', options);
  }
  const name = options.name;
  if (typeof name !== 'string' || name.length === 0) {
    throw new ThrottlerOptionError('name', 'a non-empty string naming the shared limiter', name);
  }
  const clock = options.clock ?? (() => performance.now());
  if (typeof clock !== 'function') {
    throw new ThrottlerOptionError('clock', 'a function returning milliseconds', clock);
  }
  const whenDown = checkStoreDown(options);
  const backend = new MemoryBackend(name, clock);
  const common: CommonStoreOptions = options;
  const declare = (config: SharedLimiterConfig) => declareWith(common, config, false);
  const refuseWeighted = (throttle: ResolvedOptions) => {
    if (throttle.fairness === 'weighted') {
      throw new ThrottlerOptionError(
        'fairness',
        "'none' with the memory store (weighted fairness on a store keeps its finish tags in Redis: use createRedisStore)",
        throttle.fairness,
      );
    }
  };
  const open = (config: SharedLimiterConfig) => {
    if (backend.closed) throw new ThrottlerOptionError('store', 'open (it was closed)', name);
    return new MemoryLimiter(backend, declare(config));
  };
  const store: MemoryStore = {
    name,
    open,
    clearanceFor(throttle: ResolvedOptions, hooks: StoreHooks) {
      refuseWeighted(throttle);
      // Through the store's own `open`, so that whoever wraps it (a test counting calls) sees every handle.
      return new RedisClearance(store.open(throttlerConfig(throttle)) as MemoryLimiter, throttle, hooks, whenDown);
    },
    check(throttle: ResolvedOptions) {
      if (backend.closed) throw new ThrottlerOptionError('store', 'open (it was closed)', name);
      refuseWeighted(throttle);
      declare(throttlerConfig(throttle));
    },
    async audit() {
      return backend.audit();
    },
    async close() {
      backend.closed = true;
    },
  };
  return store;
}
