import { type CostPolicyState, createCostPolicy } from '../../policies/index.js';
import { type Cost, type Rate, ThrottlerOptionError } from '../../rate/index.js';
import { isKeyName } from '../options/keys-option.js';
import { type ResolvedOptions, unknownChannelError } from '../options/options.js';
import type { SavedKey, SavedPolicy } from '../saved/saved-policy.js';
import { smallestInRates } from './cost-check.js';
import { KeysByUse, type SweepVerdict } from './keys-by-use.js';
import type { Scope } from './scope.js';

/**
 * Idle keys looked at per use of a key. More than one, so that forgetting keeps ahead of keys
 * appearing: each new key pays for the look at up to this many old ones.
 */
const SWEEP_STEPS = 4;

/**
 * The policies of the names a message may carry in `channel`: the configured channels (kept for good)
 * and, with `keys`, keys made on their first use with the template's rates. Names are data: Maps only.
 *
 * Forgetting. A key is forgotten once idle longer than both `idleAfter` and its longest interval (one
 * that never delivered: `idleAfter` alone), with nothing waiting or in flight: no window of its rates
 * holds any of its deliveries then, so a fresh policy allows nothing the old one would have refused.
 * Keys wait in a Map ordered by last use; each use of a key, and every delivery, looks at a few at the
 * oldest end: O(1) per use, memory bounded by the keys used recently.
 *
 * Activation (the timer strategy's only) is O(1): a policy hears of the latest one at its next use,
 * the same as at once, since nothing touched it in between.
 */
export class ScopePolicies {
  private readonly options: ResolvedOptions;
  private readonly channels = new Map<string, Scope>();
  /** Live keys, least recently used first. */
  private readonly keys = new KeysByUse<Scope>();
  /** The template's rates in force (SET_RATE with keyTemplate changes them); undefined without `keys`. */
  templateRates: Rate[] | undefined;
  private templateKeepFor = 0;
  private templateSmallestLimit = Number.POSITIVE_INFINITY;
  private activations = 0;
  private activatedAt = Number.NEGATIVE_INFINITY;
  /** Whether a name has deliveries in flight (held cost): such a key is never forgotten. */
  holdsInFlight: (name: string) => boolean = () => false;

  /** Whether the strategy's policies start anything on activation (so a fresh one would). */
  private readonly startsPeriods: boolean;
  /** The last name looked up and its scope, or none (creating or forgetting that key replaces this). */
  private lastName: string | undefined;
  private lastFound: Scope | undefined;

  constructor(options: ResolvedOptions, now: number, startsPeriods: boolean) {
    this.options = options;
    this.startsPeriods = startsPeriods;
    for (const [name, rates] of options.channels)
      this.channels.set(name, this.newScope(undefined, rates, now, undefined));
    if (options.keys !== undefined) this.useTemplate(options.keys.rates);
  }

  /** Keys held now (for tests and inspection). */
  get liveKeys(): number {
    return this.keys.size;
  }

  /** A configured channel, or (with `keys`) a valid key name. */
  isKnown(name: unknown): name is string {
    if (typeof name !== 'string') return false;
    return this.channels.has(name) || (this.templateRates !== undefined && isKeyName(name));
  }

  /** The error for a name that is neither. */
  unknownError(name: unknown): ThrottlerOptionError {
    return unknownChannelError(name, this.channels.keys(), this.templateRates !== undefined);
  }

  /** A live name's scope, activated; undefined for a key that is not live and for anything unknown. A question. */
  find(name: unknown): Scope | undefined {
    if (typeof name !== 'string') return undefined;
    // A message's several questions (its check, the fast path's, its record) look its name up once.
    const scope = name === this.lastName ? this.lastFound : this.lookUp(name);
    this.remember(name, scope);
    return scope === undefined ? undefined : this.activated(scope);
  }

  /** The name's live scope from the Maps: the lookup `find` saves. */
  private lookUp(name: string): Scope | undefined {
    return this.channels.get(name) ?? this.keys.get(name);
  }

  private remember(name: string | undefined, scope: Scope | undefined): void {
    this.lastName = name;
    this.lastFound = scope;
  }

  /** A known name's scope, activated; a key's is created on its first use. */
  resolve(name: string, now: number): Scope {
    return this.find(name) ?? this.created(name, now);
  }

  /**
   * The smallest limit of a name's rates, `scope` what `find` gave for it (a key that is not live: the
   * template's); undefined for an unknown name.
   */
  smallestLimitOf(name: unknown, scope: Scope | undefined): number | undefined {
    if (scope !== undefined) return scope.policy.smallestLimit;
    return this.isNewKey(name) ? this.templateSmallestLimit : undefined;
  }

  /** As `smallestLimitOf`, in one dimension (numbered as the throttler's); undefined also when its rates do not name it. */
  smallestLimitIn(name: unknown, scope: Scope | undefined, index: number): number | undefined {
    if (scope !== undefined) return scope.policy.smallestLimitIn?.(index);
    return this.isNewKey(name) ? smallestInRates(this.templateRates, this.options.dimensions?.names[index]) : undefined;
  }

  /** Whether a known name's rates allow `cost` now, `scope` its live scope if any. A question: nothing is created. */
  allowsNow(scope: Scope | undefined, cost: Cost, now: number): boolean {
    // A fresh policy of every library strategy allows its first delivery at once (test/machine/keyed-limits.test.ts);
    // one of the user's own may not: the message queues, which makes its key, whose policy is then asked.
    if (scope === undefined) return !this.options.strategyValue.own;
    return scope.policy.earliestDelivery(now, cost) <= now;
  }

  /** Whether activating would start the name's voucher period. A question, as `allowsNow`. */
  activationStarts(name: unknown, now: number): boolean {
    const scope = this.find(name);
    if (scope !== undefined) return scope.policy.activationStartsPeriod?.(now) === true;
    return this.isNewKey(name) && this.startsPeriods;
  }

  /** A name with no live scope that a first use would make a key (a configured channel always has one). */
  private isNewKey(name: unknown): boolean {
    return this.templateRates !== undefined && isKeyName(name);
  }

  /** The throttler became active: every policy hears of it at its next use. */
  activate(now: number): void {
    if (!this.startsPeriods) return;
    this.activations += 1;
    this.activatedAt = now;
  }

  /**
   * A message for this name entered the queue: its key is created if need be, and kept while the message
   * waits. Returns the scope, for the message to carry.
   */
  admitted(name: string, now: number): Scope {
    const scope = this.resolve(name, now);
    if (scope.key === undefined) return scope;
    scope.waiting += 1;
    this.used(scope, now);
    return scope;
  }

  /** A message of this scope left the queue (sent, cancelled or dropped). */
  left(scope: Scope): void {
    if (scope.waiting > 0) scope.waiting -= 1;
  }

  /** The scope was used at `at` (a settle, a message admitted, a rate set): a key moves to the newest end; a few old ones are swept. */
  used(scope: Scope | undefined, at: number): void {
    if (scope?.key !== undefined) this.keys.use(scope.key, scope, at);
    this.sweep(at);
  }

  /**
   * A delivery at `at`, in a scope or none: its key now holds deliveries, and a few old keys are swept even
   * when it has no key, so that keys nobody uses any more (a SET_RATE's) are forgotten under any traffic.
   */
  delivered(scope: Scope | undefined, at: number): void {
    if (scope === undefined) {
      this.sweep(at);
      return;
    }
    scope.holdsDeliveries = true;
    this.used(scope, at);
  }

  /** Replaces a channel's rates, or gives a key rates of its own (kept while the key lives). */
  setRates(name: string, rates: Rate[], now: number): void {
    const scope = this.resolve(name, now);
    scope.policy.setRates(rates, now);
    if (scope.key !== undefined) {
      scope.ownRates = rates;
      scope.keepFor = this.keepFor(rates);
      this.used(scope, now);
    }
  }

  /**
   * Replaces the template: every live key without rates of its own takes the new rates now, and every key
   * created later starts with them. O(live keys), once per change (never per message).
   */
  setTemplate(rates: Rate[], now: number): void {
    if (this.templateRates === undefined) {
      throw new ThrottlerOptionError('keyTemplate', 'sent only to a throttler with the keys option', true);
    }
    // Built first: a rate the strategy refuses (warming-up's arithmetic) throws before anything changed.
    createCostPolicy(
      this.options.strategyValue,
      rates,
      this.options.strategyOptions,
      now,
      this.options.splitByDimension,
    );
    this.useTemplate(rates);
    for (const scope of this.keys.values()) {
      if (scope.ownRates !== undefined) continue;
      this.activated(scope).policy.setRates(rates, now);
      scope.keepFor = this.templateKeepFor;
    }
  }

  /** Every channel's and live key's state, times shifted by `shift`. */
  save(shift: number): {
    channels: Array<[string, CostPolicyState]>;
    keys: Array<[string, CostPolicyState, Rate[] | null]>;
  } {
    const channels: Array<[string, CostPolicyState]> = [];
    for (const [name, scope] of this.channels) channels.push([name, this.activated(scope).policy.save(shift)]);
    const keys: Array<[string, CostPolicyState, Rate[] | null]> = [];
    for (const [name, scope] of this.keys) {
      keys.push([name, this.activated(scope).policy.save(shift), scope.ownRates ?? null]);
    }
    return { channels, keys };
  }

  /**
   * Loads saved channel and key states (each checked by its policy); restored keys count as used at `now`.
   * Cost in flight at the save settles at `now`.
   */
  load(
    channels: ReadonlyMap<string, SavedPolicy>,
    keys: ReadonlyMap<string, SavedKey>,
    shift: number,
    savedAt: number,
    now: number,
  ): void {
    this.remember(undefined, undefined);
    for (const [name, { saved, path }] of channels) this.channels.get(name)?.policy.load(saved, shift, path, savedAt);
    for (const [name, { saved, path, rates }] of keys) {
      const scope = this.newScope(name, rates ?? (this.templateRates as Rate[]), now, rates);
      scope.policy.load(saved, shift, path, savedAt);
      scope.holdsDeliveries = true;
      this.keys.use(name, scope, now);
    }
    for (const scope of this.channels.values()) scope.policy.settleAllInFlight?.(now);
    for (const scope of this.keys.values()) scope.policy.settleAllInFlight?.(now);
  }

  /** A key's first use: its scope, created with the template's rates. */
  private created(key: string, now: number): Scope {
    const scope = this.newScope(key, this.templateRates as Rate[], now, undefined);
    this.keys.use(key, scope, now);
    this.sweep(now);
    this.remember(key, scope);
    return scope;
  }

  private newScope(key: string | undefined, rates: Rate[], now: number, ownRates: Rate[] | undefined): Scope {
    const { strategyValue, strategyOptions } = this.options;
    return {
      policy: createCostPolicy(strategyValue, rates, strategyOptions, now, this.options.splitByDimension),
      key,
      activation: this.activations,
      ownRates,
      keepFor: this.keepFor(rates),
      lastUsed: now,
      waiting: 0,
      holdsDeliveries: false,
      placed: 0,
    };
  }

  /** The latest activation reaches a policy that has not heard of it. */
  activated(scope: Scope): Scope {
    if (scope.activation !== this.activations) {
      scope.activation = this.activations;
      scope.policy.activate(this.activatedAt);
    }
    return scope;
  }

  private useTemplate(rates: Rate[]): void {
    this.templateRates = rates;
    this.templateKeepFor = this.keepFor(rates);
    this.templateSmallestLimit = Math.min(...rates.map((rate) => rate.limit));
  }

  /** How long a key that never delivered is kept idle: its window is empty, only its own rates would go. */
  private get idleAfter(): number {
    return this.options.keys?.idleAfter ?? 0;
  }

  private keepFor(rates: readonly Rate[]): number {
    let keepFor = this.idleAfter;
    for (const rate of rates) keepFor = Math.max(keepFor, rate.interval);
    return keepFor;
  }

  /**
   * A few keys from the least recently used end: an expired one is forgotten; one still in use (waiting or
   * in flight) goes to the back as used now; one kept longer for rates of its own goes to the back as it
   * is. The first key not idle past the template's keep-for ends the sweep: every key after it was used
   * later (or lingers for its own rates).
   */
  private sweep(now: number): void {
    // Channels only (no keys, or none live): nothing to look at, and no iterator to make.
    if (this.keys.size > 0) this.keys.sweep(now, SWEEP_STEPS, this.verdict);
  }

  private readonly verdict = (name: string, scope: Scope, idle: number): SweepVerdict => {
    if (scope.waiting > 0 || this.holdsInFlight(name)) return 'in-use';
    if (idle > (scope.holdsDeliveries ? scope.keepFor : this.idleAfter)) {
      if (name === this.lastName) this.remember(undefined, undefined);
      return 'forget';
    }
    return idle > this.templateKeepFor ? 'linger' : 'stop';
  };
}
