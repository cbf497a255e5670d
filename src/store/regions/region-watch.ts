/**
 * A region's processes watching its share agent (docs/regions.md, "An agent that dies"): the agent sets the
 * regional store's rate at every renewal, a notice every process hears; a process that hears none for
 * `leaseMs − renewEveryMs − 3 × storeLagMs` pauses the regional store itself, and again every
 * `renewEveryMs` while none comes. That is before the last lease the agent applied can have ended (its grant
 * was applied at most renewEveryMs + storeLagMs after its ask, heard at most storeLagMs later, the pause lands
 * within storeLagMs), so a region whose agent died grants nothing past its lease. A pause that was not
 * needed lapses by itself (2 × renewEveryMs + storeLagMs). One timer per watch.
 */
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
  return new Watch(options.store.open(options.config), silenceMs, renewEveryMs, storeLagMs);
}

class Watch implements RegionWatch {
  pauses = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly limiter: SharedLimiter,
    private readonly silenceMs: number,
    private readonly renewEveryMs: number,
    private readonly storeLagMs: number,
  ) {
    this.unsubscribe = limiter.subscribe((notice) => {
      if (notice.type === 'rates') this.arm(this.silenceMs);
    });
    this.arm(silenceMs);
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
    // A failed pause is tried again at the next silence; the store's own outage policy holds meanwhile.
    this.limiter.pause(this.renewEveryMs * 2 + this.storeLagMs).catch(() => {});
  }
}
