/**
 * A region's processes watching its share agent (docs/regions.md, "An agent that dies"): the agent sets the
 * regional store's rate at every renewal, a notice every process hears; a process that hears none for
 * `leaseMs − renewEveryMs − 3 × storeLagMs` pauses the regional store itself, and again every
 * `renewEveryMs` while none comes. That is before the last lease the agent applied can have ended (its grant
 * was applied at most renewEveryMs + storeLagMs after its ask, heard at most storeLagMs later, the pause lands
 * within storeLagMs), so a region whose agent died grants nothing past its lease. A pause that was not
 * needed lapses by itself (2 × renewEveryMs + storeLagMs). One timer per watch.
 *
 * A process that starts after the agent died, with no process watching, would grant at the store's stale
 * share until its own first silence; so a process opens the regional store through `watch.store`, which
 * refuses to open (throws, naming why) until this watch has heard a renewal: `await watch.ready` first. From
 * that renewal on it is a watching process like any other, its silence counted from the renewal it heard.
 * A renewal is a published `rates` notice, never one a reply to the watch's own calls teaches (the store's
 * state, which a dead agent's stale share also is).
 */

import type { ResolvedOptions, StoreHooks } from '../../engine/index.js';
import { ThrottlerOptionError } from '../../rate/index.js';
import type { SharedLimiter, SharedLimiterConfig, SharedStore } from '../protocol.js';

/** What `watchRegionShares` takes: the region's store and configuration, and the agent's terms. */
export interface RegionWatchOptions {
  store: SharedStore;
  /** The configuration the region's throttlers and its agent open. */
  config: SharedLimiterConfig;
  leaseMs: number;
  /** Default leaseMs / 4, as the agent's. */
  renewEveryMs?: number | undefined;
  /** Default 100, as the agent's. */
  storeLagMs?: number | undefined;
}

/** A running watch. */
export interface RegionWatch {
  /** Pauses this process sent because no renewal was heard. */
  readonly pauses: number;
  /** Resolves at the first renewal this watch hears (the agent is alive): open the store after it. */
  readonly ready: Promise<void>;
  /** The regional store for this process's throttlers: opens (`open`, a throttler's clearance) only once `ready`, else throws. */
  readonly store: SharedStore;
  stop(): void;
}

/** Watches the region's agent from one process (see the file's header); starts as though a renewal was just heard. */
export function watchRegionShares(options: RegionWatchOptions): RegionWatch {
  if (typeof options !== 'object' || options === null) {
    throw new ThrottlerOptionError('options', 'an object { store, config, leaseMs }', options);
  }
  const { leaseMs } = options;
  if (typeof leaseMs !== 'number' || !Number.isFinite(leaseMs) || leaseMs <= 0) {
    throw new ThrottlerOptionError('leaseMs', 'a positive finite number of ms', leaseMs);
  }
  const renewEveryMs = options.renewEveryMs ?? leaseMs / 4;
  const storeLagMs = options.storeLagMs ?? 100;
  const silenceMs = leaseMs - renewEveryMs - 3 * storeLagMs;
  if (typeof renewEveryMs !== 'number' || typeof storeLagMs !== 'number' || !(renewEveryMs > 0 && silenceMs > 0)) {
    throw new ThrottlerOptionError(
      'renewEveryMs',
      'positive, with renewEveryMs + 3 × storeLagMs below leaseMs',
      options.renewEveryMs,
    );
  }
  if (typeof options.store?.open !== 'function')
    throw new ThrottlerOptionError('store', 'a shared store', options.store);
  return new Watch(options.store, options.store.open(options.config), silenceMs, renewEveryMs, storeLagMs);
}

/** `store`, refusing to open until `heard()`: a process grants nothing before it has heard the agent alive. */
function gatedStore(store: SharedStore, heard: () => boolean): SharedStore {
  const mustHaveHeard = () => {
    if (!heard()) {
      throw new ThrottlerOptionError(
        'store',
        "opened once the region's watch heard a renewal (await watch.ready): its agent may be dead",
        store.name,
      );
    }
  };
  return {
    name: store.name,
    open(config: SharedLimiterConfig) {
      mustHaveHeard();
      return store.open(config);
    },
    clearanceFor(throttle: ResolvedOptions, hooks: StoreHooks) {
      mustHaveHeard();
      return store.clearanceFor(throttle, hooks);
    },
    ...(store.check === undefined ? {} : { check: (throttle: ResolvedOptions) => store.check?.(throttle) }),
    audit: () => store.audit(),
    close: () => store.close(),
  };
}

class Watch implements RegionWatch {
  pauses = 0;
  readonly ready: Promise<void>;
  readonly store: SharedStore;
  private heard = false;
  /** The watch's own calls in flight: a `rates` notice their replies teach is the store's state, not a renewal. */
  private ownCalls = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    store: SharedStore,
    private readonly limiter: SharedLimiter,
    private readonly silenceMs: number,
    private readonly renewEveryMs: number,
    private readonly storeLagMs: number,
  ) {
    let heard = () => {};
    this.ready = new Promise<void>((resolve) => {
      heard = resolve;
    });
    this.store = gatedStore(store, () => this.heard);
    this.unsubscribe = limiter.subscribe((notice) => {
      if (notice.type !== 'rates' || this.ownCalls > 0) return;
      this.heard = true;
      heard();
      this.arm(this.silenceMs);
    });
    this.arm(silenceMs);
    // One call first: a store hears the published renewals only once a reply taught it the state's epoch.
    this.call(() => limiter.check());
  }

  /** One call of the watch's own (a failure is tried again at the next silence; the store's outage policy holds meanwhile). */
  private call(act: () => Promise<void>): void {
    this.ownCalls += 1;
    act()
      .catch(() => {})
      .finally(() => {
        this.ownCalls -= 1;
      });
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.unsubscribe();
  }

  private arm(ms: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.silent(), ms);
  }

  private silent(): void {
    this.pauses += 1;
    this.arm(this.renewEveryMs);
    this.call(() => this.limiter.pause(this.renewEveryMs * 2 + this.storeLagMs));
  }
}
