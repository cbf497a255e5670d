/**
 * The memory store's shared state, scope by scope: what the scripts keep in Redis hashes and sorted
 * sets (lua/prelude.ts), kept in maps. Scope 'overall', each channel, and each key (created by its
 * first use, dropped once past its life as a Redis key expires). Times and intervals are integer µs
 * of the store's clock, rates `{ limit, us, d }` with d the dimension's number from 1 (0: no
 * dimensions), as the scripts read them (limiter-config.ts `ratesJson`).
 */
import type { Rate } from '../rate/index.js';
import { type DeclaredConfig, ratesJson } from './limiter-config.js';
import { MemoryLog } from './memory-log.js';

export interface MemoryRate {
  readonly limit: number;
  readonly us: number;
  readonly d: number;
}

/** A token bucket: Guava SmoothBursty's next free time and stored permits (src/policies/smooth-rate.ts). */
export interface Bucket {
  nextFree: number;
  stored: number;
}

export interface Scope {
  /** undefined: overall; else the channel's or key's name. */
  readonly name: string | undefined;
  readonly isKey: boolean;
  /** Rates of its own (setRate), else the declared ones (a key's: the template). */
  own: { readonly rates: MemoryRate[]; readonly parsed: Rate[] } | undefined;
  readonly logs: Map<number, MemoryLog>;
  readonly buckets: Map<number, Bucket>;
  /** A key's state lives until then (µs), as its Redis hash expires. */
  expiresAt: number;
}

export function memoryRates(rates: readonly Rate[], dims: readonly string[] | undefined): MemoryRate[] {
  return (JSON.parse(ratesJson(rates, dims)) as Array<[number, number, number?]>).map(([limit, us, d]) => ({
    limit,
    us,
    d: d ?? 0,
  }));
}

function scope(name: string | undefined, isKey: boolean): Scope {
  return { name, isKey, own: undefined, logs: new Map(), buckets: new Map(), expiresAt: Number.POSITIVE_INFINITY };
}

export class MemoryScopes {
  readonly overall = scope(undefined, false);
  private readonly channels = new Map<string, Scope>();
  private readonly keys = new Map<string, Scope>();
  private readonly declaredChannels = new Map<string, MemoryRate[]>();
  private readonly declaredKeys: MemoryRate[] | undefined;
  private readonly declaredRates: MemoryRate[];
  /** The keys' template set by setKeyTemplate, else undefined (the declared one). */
  template: { readonly rates: MemoryRate[]; readonly parsed: Rate[] } | undefined;
  /** The longest interval any key was given of its own (Redis' 'Lk'). */
  keyLongest = 0;
  /** Key lookups since the last sweep of expired keys: a sweep per that many keys keeps it O(1) a call. */
  private sinceSweep = 0;
  /** The keys this call used: their life is extended as it ends (`extendKeys`). */
  private readonly used: Scope[] = [];

  constructor(
    readonly declared: DeclaredConfig,
    private readonly grace: number,
  ) {
    this.declaredRates = memoryRates(declared.rates, declared.dims);
    for (const [name, rates] of declared.channels) this.declaredChannels.set(name, memoryRates(rates, declared.dims));
    this.declaredKeys = declared.keys && memoryRates(declared.keys, declared.dims);
  }

  /** The scope of a request's channel or key (undefined: overall only), made on first use. */
  of(channel: string | undefined, isKey: boolean, now: number): Scope {
    if (channel === undefined) return this.overall;
    const map = isKey ? this.keys : this.channels;
    let found = map.get(channel);
    if (found !== undefined && found.expiresAt <= now) {
      map.delete(channel);
      found = undefined;
    }
    if (found === undefined) {
      found = scope(channel, isKey);
      map.set(channel, found);
    }
    if (isKey) {
      this.used.push(found);
      if (++this.sinceSweep > this.keys.size) this.sweep(now);
    }
    return found;
  }

  /** The keys this call used live until at least `until` (µs), as a script extends its keys' life. */
  extendKeys(until: number): void {
    for (const s of this.used)
      s.expiresAt = s.expiresAt === Number.POSITIVE_INFINITY ? until : Math.max(s.expiresAt, until);
    this.used.length = 0;
  }

  /** The rates in force in a scope. */
  ratesOf(s: Scope): MemoryRate[] {
    if (s.own) return s.own.rates;
    if (s.name === undefined) return this.declaredRates;
    if (s.isKey) return this.template?.rates ?? this.declaredKeys ?? [];
    return this.declaredChannels.get(s.name) ?? [];
  }

  log(s: Scope, d: number): MemoryLog {
    let log = s.logs.get(d);
    if (log === undefined) {
      log = new MemoryLog();
      s.logs.set(d, log);
    }
    return log;
  }

  /** Every live scope: the overall one, the channels and the keys (for the audit of windows and tests). */
  *all(): Iterable<Scope> {
    yield this.overall;
    yield* this.channels.values();
    yield* this.keys.values();
  }

  /** The longest interval + grace of any rate in force (Redis' L): how long the state must outlive its last grant. */
  longest(): number {
    let longest = this.keyLongest;
    const rates = [this.ratesOf(this.overall), this.template?.rates ?? this.declaredKeys ?? []];
    for (const name of this.declaredChannels.keys()) rates.push(this.ratesOf(this.channelScope(name)));
    for (const list of rates) for (const rate of list) longest = Math.max(longest, rate.us + this.grace);
    return longest;
  }

  /** The channels with rates of their own (setRate), and those rates. */
  *channelRates(): Iterable<[string, Rate[]]> {
    for (const [name, s] of this.channels) if (s.own) yield [name, s.own.parsed];
  }

  /** A channel's scope if it has state, else a bare one that reads the declared rates. */
  private channelScope(name: string): Scope {
    return this.channels.get(name) ?? scope(name, false);
  }

  private sweep(now: number): void {
    this.sinceSweep = 0;
    for (const [name, s] of this.keys) if (s.expiresAt <= now) this.keys.delete(name);
  }
}
