import { type CostPolicy, createCostPolicy } from '../../policies/index.js';
import { type Cost, costKey, type Rate } from '../../rate/index.js';
import { type ResolvedOptions, tracksInFlight } from '../options/options.js';
import type { RestoredState } from '../saved/persisted-format.js';
import type { Clearance, ClearanceRequest, PerChannelClearance, SavedClearance } from './clearance.js';
import { checkedCost, costFits, smallestIn } from './cost-check.js';
import { InFlightDeliveries } from './in-flight.js';
import type { Scope } from './scope.js';
import { ScopePolicies } from './scope-policies.js';

/**
 * The clearance the local policies give, at once: the overall policy and each
 * channel's or key's (the time comes from them, never computed here; the channels
 * and keys live in ScopePolicies), the pause and the deliveries in flight. Every
 * answer is the latest of what each of them allows.
 */
/** One rate and the cost its window holds now (`LocalClearance.windowUse`). */
export interface WindowUse {
  readonly rate: Rate;
  readonly held: number;
}

export class LocalClearance implements Clearance, PerChannelClearance {
  readonly answersAtOnce = true;
  private readonly options: ResolvedOptions;
  /** The rates in force (SET_RATE changes them), overall and per channel: what a restore must rebuild. */
  rates: Rate[];
  readonly channelRates: Map<string, Rate[]>;
  private readonly overall: CostPolicy;
  /** The configured channels' policies, and the keys' (created on demand, forgotten when long idle). */
  private readonly scopes: ScopePolicies;
  pausedUntil = Number.NEGATIVE_INFINITY;
  /** Deliveries sent and not yet settled (tracked only with maxConcurrent or countUntil 'done'). */
  private readonly inFlight = new InFlightDeliveries();
  private readonly tracksInFlight: boolean;
  /** Told when a channel's own policy changed, so that per-channel ordering files its head again. */
  channelChanged: (channel: string | undefined) => void = () => {};
  readonly perChannel: PerChannelClearance = this;

  constructor(options: ResolvedOptions, now: number) {
    this.options = options;
    this.rates = options.rates;
    this.channelRates = new Map(options.channels);
    this.overall = createCostPolicy(
      options.strategyValue,
      options.rates,
      options.strategyOptions,
      now,
      options.splitByDimension,
    );
    this.scopes = new ScopePolicies(options, now, this.overall.startsPeriodsOnActivation);
    this.tracksInFlight = tracksInFlight(options);
    if (this.tracksInFlight) this.scopes.holdsInFlight = (name) => this.inFlight.holds(name);
  }

  get inFlightCount(): number {
    return this.inFlight.count;
  }

  get startsPeriodsOnActivation(): boolean {
    return this.overall.startsPeriodsOnActivation;
  }

  /** The keys' template rates in force; undefined without the `keys` option. */
  get keyRates(): Rate[] | undefined {
    return this.scopes.templateRates;
  }

  /** Keys held now: those used recently, or with messages waiting or in flight. */
  get liveKeys(): number {
    return this.scopes.liveKeys;
  }

  checkMessage(channel: unknown, cost: unknown): Cost {
    let smallestLimit = this.overall.smallestLimit;
    const scope = channel === undefined ? undefined : this.scopes.find(channel);
    if (channel !== undefined) {
      const limit = this.scopes.smallestLimitOf(channel, scope);
      if (limit === undefined) throw this.scopes.unknownError(channel);
      smallestLimit = Math.min(smallestLimit, limit);
    }
    return checkedCost(cost, smallestLimit, this.options.dimensions, (index) => this.limitIn(channel, scope, index));
  }

  /** The smallest limit of one dimension among the overall rates and the channel's; undefined if none names it. */
  private limitIn(channel: unknown, scope: Scope | undefined, index: number): number | undefined {
    const own = channel === undefined ? undefined : this.scopes.smallestLimitIn(channel, scope, index);
    return smallestIn(index, this.overall, own);
  }

  /** The message carries its scope from here on: nothing asked about it while it waits looks its name up again. */
  admit(request: ClearanceRequest, now: number): void {
    if (request.channel !== undefined) request.scope = this.scopes.admitted(request.channel, now);
  }

  withdraw(request: ClearanceRequest): void {
    const scope = this.carriedScope(request);
    if (scope !== undefined) this.scopes.left(scope);
  }

  fits(request: ClearanceRequest): boolean {
    const scope = this.carriedScope(request);
    const smallest = this.smallestLimitFor(request.channel, scope) ?? Number.POSITIVE_INFINITY;
    return costFits(request.cost, smallest, (index) => this.limitIn(request.channel, scope, index));
  }

  clearAt(request: ClearanceRequest, now: number): number {
    const at = this.commonClearAt(request.cost, now);
    return at === Number.POSITIVE_INFINITY ? at : Math.max(at, this.channelClearAt(request, now));
  }

  allowsNow(channel: unknown, cost: unknown, now: number): boolean {
    const scope = channel === undefined ? undefined : this.scopes.find(channel);
    const smallestLimit = this.smallestLimitFor(channel, scope);
    if (smallestLimit === undefined) return false;
    // A cost per dimension only as checkMessage resolved it (a vector); a map as sent takes the normal path.
    const vector = Array.isArray(cost);
    if (!vector && (!Number.isInteger(cost) || (cost as number) < 1 || (cost as number) > smallestLimit)) return false;
    const checkedCost = cost as Cost;
    const at = this.commonClearAt(checkedCost, now);
    return at <= now && (channel === undefined || this.scopes.allowsNow(scope, checkedCost, now));
  }

  /**
   * The most of `want` the overall policy, the pause and the in-flight cap let go now as messages of cost 1:
   * a cost of k asked for once, since the policy grants in bulk (k at once count as k singly). None with
   * deliveries tracked in flight (each would need its own SETTLED). O(log want) questions, once per lease.
   */
  leaseCapacity(want: number, now: number): number {
    if (this.tracksInFlight || !this.overall.grantsInBulk) return 0;
    const allows = (cost: number): boolean => this.commonClearAt(cost, now) <= now;
    let most = Math.min(want, this.overall.smallestLimit);
    if (most < 1 || !allows(1)) return 0;
    if (allows(most)) return most;
    let least = 1;
    while (most - least > 1) {
      const middle = least + Math.floor((most - least) / 2);
      if (allows(middle)) least = middle;
      else most = middle;
    }
    return least;
  }

  /** Returns what settling it needs (its channel's or key's policy, null without one); undefined with countUntil 'done'. */
  recordDelivery(request: ClearanceRequest, at: number, requestedAt: number): CostPolicy | null | undefined {
    const { channel, cost } = request;
    const scope = channel === undefined ? undefined : this.scopeOf(request, at);
    const channelPolicy = scope?.policy;
    if (this.options.countUntil === 'done') {
      this.overall.holdInFlight?.(cost);
      channelPolicy?.holdInFlight?.(cost);
    } else {
      this.overall.recordDelivery(at, cost, requestedAt);
      channelPolicy?.recordDelivery(at, cost, requestedAt);
    }
    if (this.tracksInFlight) this.inFlight.start(channel, costKey(cost));
    if (scope !== undefined && request.seq >= 0) this.scopes.left(scope);
    this.scopes.delivered(scope, at);
    this.channelChanged(channel);
    // Held in flight, a delivery's cost enters the window as it settles: there is no delivery time to correct.
    return this.options.countUntil === 'done' ? undefined : (channelPolicy ?? null);
  }

  /** The overall policy and the delivery's channel or key policy each take the actual cost at `at`. */
  settleDelivery(handle: unknown, channel: string | undefined, at: number, est: Cost, actual: Cost, now: number) {
    this.overall.settleDelivery(at, est, actual, now);
    (handle as CostPolicy | null)?.settleDelivery(at, est, actual, now);
    this.channelChanged(channel);
  }

  /** O(1): only the timer strategy starts anything, and its channels and keys hear of it at their next use. */
  activate(now: number): void {
    if (!this.overall.startsPeriodsOnActivation) return;
    this.overall.activate(now);
    this.scopes.activate(now);
  }

  /**
   * Yes when the timer's tick period would start on activation (Akka): a message that would open
   * a new period goes through `active`; one inside the running period of the latest delivery need not.
   */
  activationStarts(channel: unknown, now: number): boolean {
    if (this.overall.activationStartsPeriod?.(now)) return true;
    return this.scopes.activationStarts(channel, now);
  }

  setRates(rates: Rate[], channel: string | undefined, now: number): void {
    if (channel === undefined) {
      this.overall.setRates(rates, now);
      this.rates = rates;
      return;
    }
    if (!this.scopes.isKnown(channel)) throw this.scopes.unknownError(channel);
    this.scopes.setRates(channel, rates, now);
    if (this.channelRates.has(channel)) this.channelRates.set(channel, rates);
    this.channelChanged(channel);
  }

  setKeyTemplate(rates: Rate[], now: number): void {
    this.scopes.setTemplate(rates, now);
  }

  ownRatesOf(key: string): readonly Rate[] | undefined {
    return this.scopes.find(key)?.ownRates;
  }

  pause(until: number): void {
    this.pausedUntil = until;
  }

  resume(): void {
    this.pausedUntil = Number.NEGATIVE_INFINITY;
  }

  /**
   * It must match a delivery in flight by channel and cost; otherwise nothing changes and a
   * ThrottlerOptionError says why (a wrong or repeated settle must never open the window, nor
   * hold a slot forever). With countUntil 'done' the cost enters the window now.
   */
  settle(given: unknown, cost: unknown, now: number): void {
    const settled = this.inFlight.take(given, cost, this.tracksInFlight, this.options.dimensions);
    const channel = given as string | undefined; // take checked it
    if (this.options.countUntil === 'done') {
      this.overall.releaseInFlight?.(now, settled);
      if (channel !== undefined) this.scopes.resolve(channel, now).policy.releaseInFlight?.(now, settled);
      this.channelChanged(channel);
    }
    if (channel !== undefined) this.scopes.used(this.scopes.find(channel), now);
  }

  tryAcquire(channel: string | undefined, cost: Cost, now: number, queuedGoesAt?: number): number {
    // Queued messages go first; the permit can be free no sooner than the next of them has gone.
    if (queuedGoesAt !== undefined) return Math.max(queuedGoesAt - now, 1);
    const request = { seq: -1, channel, cost };
    const at = this.clearAt(request, now);
    if (at > now) return at - now;
    this.recordDelivery(request, now, now);
    return 0;
  }

  /** What the overall policy, the pause and the in-flight cap allow: the same for every channel. */
  commonClearAt(cost: Cost, now: number): number {
    if (this.inFlight.count >= this.options.maxConcurrent) return Number.POSITIVE_INFINITY;
    return Math.max(now, this.pausedUntil, this.overall.earliestDelivery(now, cost));
  }

  /** What the request's channel's own policy allows (no channel: no limit of its own). */
  channelClearAt(request: ClearanceRequest, now: number): number {
    if (request.channel === undefined) return now;
    return this.scopeOf(request, now).policy.earliestDelivery(now, request.cost);
  }

  /**
   * What each rate's window holds at `now` (its cost, with the rate): overall (undefined), or a channel's or
   * live key's own rates; none for a key not live (no window of it holds anything). For metrics; a question.
   */
  windowUse(channel: string | undefined, now: number): WindowUse[] {
    const scope = channel === undefined ? undefined : this.scopes.find(channel);
    const rates =
      channel === undefined ? this.rates : (this.channelRates.get(channel) ?? scope?.ownRates ?? this.keyRates);
    const policy = channel === undefined ? this.overall : scope?.policy;
    if (policy === undefined || rates === undefined) return [];
    const held: number[] = [];
    policy.windowUse(now, held);
    return rates.map((rate, index) => ({ rate, held: held[index] ?? 0 }));
  }

  save(shift: number): SavedClearance {
    return { overall: this.overall.save(shift), ...this.scopes.save(shift) };
  }

  /**
   * Loads saved policy states, each checked by its own policy (a ThrottlerOptionError leaves this
   * half-restored: throw it away); cost in flight at the save settles at `settledAt`.
   */
  load(state: RestoredState<unknown>, shift: number, settledAt: number): void {
    const { overall, savedAt = Number.POSITIVE_INFINITY } = state;
    this.overall.load(overall.saved, shift, overall.path, savedAt);
    this.scopes.load(state.channels, state.keys, shift, savedAt, settledAt);
    this.overall.settleAllInFlight?.(settledAt);
    this.pausedUntil = state.pausedUntil + shift;
  }

  /** The smallest limit a message on `channel` (its scope as `find` gave it) must fit; undefined for an unknown name. */
  private smallestLimitFor(channel: unknown, scope: Scope | undefined): number | undefined {
    if (channel === undefined) return this.overall.smallestLimit;
    const limit = this.scopes.smallestLimitOf(channel, scope);
    return limit === undefined ? undefined : Math.min(this.overall.smallestLimit, limit);
  }

  /** The scope a request carries, or its channel's live one; undefined without a channel. Never creates a key. */
  private carriedScope(request: ClearanceRequest): Scope | undefined {
    if (request.channel === undefined) return undefined;
    return (request.scope as Scope | undefined) ?? this.scopes.find(request.channel);
  }

  /**
   * A request's scope, activated: the one it carries since its admission, or (a message straight through,
   * or one a store admitted) its channel's, looked up and, for a key, created. Only for a request with a channel.
   */
  private scopeOf(request: ClearanceRequest, now: number): Scope {
    const carried = request.scope as Scope | undefined;
    return carried === undefined ? this.scopes.resolve(request.channel as string, now) : this.scopes.activated(carried);
  }
}
