/**
 * A region's share agent (docs/regions.md): one per region, beside the region's processes. It asks home
 * every `renewEveryMs` (with the region's bound and demand) and keeps the regional store's rates in force
 * at the region's share, W(1 + δ) long, or the store paused while the region holds no lease. The region's
 * processes use the regional store as ever: no message waits on home.
 *
 * The store acts before the share is heard (a lowered rate is in force before the bound counts from it),
 * and the lease's end pauses the store `storeLagMs` early, so that every regional decision falls inside a
 * lease as the argument counts it. One timer; one ask out at a time.
 */
import { ThrottlerOptionError } from '../../rate/index.js';
import type { SharedLimiter, SharedLimiterConfig, SharedStore } from '../protocol.js';
import { RegionShare } from './region-share.js';
import type { ShareAsk, ShareGrant } from './share-messages.js';
import { type ShareTerms, type ShareTermsInput, shareTerms } from './share-terms.js';

/** What `createRegionShares` takes. */
export interface RegionSharesOptions extends Omit<ShareTermsInput, 'rate'> {
  /** The region's name, as home knows it. */
  region: string;
  /** The regional store its processes use. */
  store: SharedStore;
  /** The configuration the region's throttlers open (their rates are the global ones; sliding-window, overall rates only). */
  config: SharedLimiterConfig;
  /** Sends an ask to home and resolves with its grant (a rejection or no answer within renewEveryMs: asked again later). */
  home: (ask: ShareAsk) => Promise<ShareGrant>;
  /** Cost units the region waits for plus its use, now (what home splits the limit by). */
  demand: () => number;
  /** How long the regional store may take to act on a call, at most (default 100): the lease's end pauses it this early. */
  storeLagMs?: number | undefined;
  /** The region's clock in ms (default `performance.now`); the regional store's, where they differ, within clockDrift. */
  clock?: (() => number) | undefined;
}

/** A running share agent. */
export interface RegionShares {
  readonly region: string;
  readonly terms: ShareTerms;
  /** The shares in force now, per rate (0: no lease). */
  limits(): number[];
  /** Asks sent to home so far. */
  readonly asks: number;
  /** Store calls that ended after the lease they acted for (0 keeps the premise of storeLagMs). */
  readonly lateActs: number;
  /** The last failure (home's answer, `demand()`, a store call); each is tried again at the next ask. */
  readonly lastError: unknown;
  /** Pauses the regional store, then asks home; resolves once the first answer is applied. */
  start(): Promise<void>;
  /** Stops asking; the regional store stays paused (a day) until an agent starts again. */
  stop(): Promise<void>;
}

const HOLD_MS = 86_400_000;

/** A region's share agent (see the file's header). */
export function createRegionShares(options: RegionSharesOptions): RegionShares {
  if (typeof options !== 'object' || options === null) {
    throw new ThrottlerOptionError('options', 'an object { region, store, config, home, demand, ... }', options);
  }
  const config = checkRegionConfig(options.config);
  const terms = shareTerms({ ...options, rate: config.rates });
  for (const name of ['home', 'demand'] as const) {
    if (typeof options[name] !== 'function') throw new ThrottlerOptionError(name, 'a function', options[name]);
  }
  const storeLagMs = options.storeLagMs ?? 100;
  if (typeof storeLagMs !== 'number' || !(storeLagMs >= 0 && storeLagMs < terms.leaseMs - terms.renewEveryMs)) {
    throw new ThrottlerOptionError('storeLagMs', 'a number of ms, 0 or more, below leaseMs - renewEveryMs', storeLagMs);
  }
  if (typeof options.store?.open !== 'function')
    throw new ThrottlerOptionError('store', 'a shared store', options.store);
  const share = new RegionShare(options.region, terms);
  return new RegionAgent(share, options.store.open(config), options, storeLagMs);
}

function checkRegionConfig(config: SharedLimiterConfig): SharedLimiterConfig {
  if (typeof config !== 'object' || config === null) {
    throw new ThrottlerOptionError('config', "the region's throttlers' configuration", config);
  }
  if (config.strategy !== 'sliding-window') {
    throw new ThrottlerOptionError('config.strategy', "'sliding-window' (shares across regions)", config.strategy);
  }
  for (const name of ['channels', 'keys', 'transit'] as const) {
    if (config[name] !== undefined) {
      throw new ThrottlerOptionError(`config.${name}`, 'unset (shares are of the overall rates)', config[name]);
    }
  }
  return config;
}

class RegionAgent implements RegionShares {
  readonly region: string;
  readonly terms: ShareTerms;
  asks = 0;
  lateActs = 0;
  lastError: unknown;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private paused = false;
  private asking = false;
  private nextAskAt = Number.NEGATIVE_INFINITY;
  private readonly clock: () => number;

  constructor(
    private readonly share: RegionShare,
    private readonly limiter: SharedLimiter,
    private readonly options: RegionSharesOptions,
    private readonly storeLagMs: number,
  ) {
    this.region = share.region;
    this.terms = share.terms;
    this.clock = options.clock ?? (() => performance.now());
  }

  limits(): number[] {
    return this.share.limits(this.clock());
  }

  async start(): Promise<void> {
    await this.hold();
    await this.renew();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.limiter.pause(HOLD_MS);
    this.paused = true;
  }

  /** One ask, its answer applied; the timer stays armed meanwhile, for the lease's end. A failure is kept in `lastError`. */
  private async renew(): Promise<void> {
    if (this.stopped || this.asking) return;
    this.asking = true;
    try {
      await this.askAndApply();
    } catch (error) {
      // demand() or a store call failed: the next ask tries again (the watches hold the region meanwhile).
      this.lastError = error;
    } finally {
      this.asking = false;
      this.arm();
    }
  }

  private async askAndApply(): Promise<void> {
    const now = this.clock();
    this.nextAskAt = now + this.terms.renewEveryMs;
    const ask = this.share.ask(now, this.options.demand());
    this.asks += 1;
    this.arm();
    let grant: ShareGrant | undefined;
    try {
      grant = await answerWithin(this.options.home(ask), this.terms.renewEveryMs);
    } catch (error) {
      this.lastError = error;
    }
    if (grant !== undefined && !this.stopped) await this.apply(grant);
    // No lease in force: held (told again at every ask, in case a resume by anyone lifted it).
    if (!this.stopped && this.share.limits(this.clock()).some((limit) => limit === 0)) await this.hold();
  }

  /** The store first (its rate, or a pause for a grant of 0), then the share: the store never holds more than the share counts. */
  private async apply(grant: ShareGrant): Promise<void> {
    if (!this.share.accepts(grant, this.clock() + this.storeLagMs)) return;
    if (grant.shares.some((share) => share === 0)) {
      await this.hold();
    } else {
      const rates = grant.shares.map((limit, i) => ({ limit, interval: this.terms.regionalIntervalMs[i] as number }));
      await this.limiter.setRate(rates);
      if (this.paused) {
        this.paused = false;
        await this.limiter.resume();
      }
    }
    if (!this.share.hear(grant, this.clock()) && !this.paused) {
      // The store took the rate after the lease would have ended: outside the premise, counted.
      this.lateActs += 1;
      await this.hold();
    }
  }

  /** Pauses the regional store until a grant is applied (a lease ended, or a grant of 0); `endsAt`: the lease it acts for. */
  private async hold(endsAt = Number.POSITIVE_INFINITY): Promise<void> {
    // The flag before the call, the calls in the order issued: the flag always says what the store was told last.
    this.paused = true;
    // A day, not a short pause renewed: a pause that lapsed (a late timer, a slow answer) would put the
    // store's last rate back in force with no lease. Only a grant applied lifts it (resume).
    await this.limiter.pause(HOLD_MS);
    if (this.clock() > endsAt) this.lateActs += 1;
  }

  private arm(): void {
    if (this.stopped) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    const holdAt = this.paused ? Number.POSITIVE_INFINITY : this.share.leaseEndsAt() - this.storeLagMs;
    // While an ask is out, its end arms the next one: only the lease's end is watched meanwhile.
    const at = Math.min(this.asking ? Number.POSITIVE_INFINITY : this.nextAskAt, holdAt);
    if (at === Number.POSITIVE_INFINITY) return;
    this.timer = setTimeout(() => void this.wake(), Math.max(0, at - this.clock()));
  }

  private async wake(): Promise<void> {
    this.timer = undefined;
    const endsAt = this.share.leaseEndsAt();
    try {
      if (!this.paused && this.clock() >= endsAt - this.storeLagMs) await this.hold(endsAt);
    } catch (error) {
      this.lastError = error;
    }
    if (this.clock() >= this.nextAskAt && !this.asking) await this.renew();
    else this.arm();
  }
}

/** The answer, or a rejection once `ms` passed without one (an ask lost on the way). */
function answerWithin(answer: Promise<ShareGrant>, ms: number): Promise<ShareGrant> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer from home')), ms);
    answer.then(
      (grant) => {
        clearTimeout(timer);
        resolve(grant);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
