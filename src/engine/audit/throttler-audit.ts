import { type Cost, costIn, type Dimensions, formatRate, type Rate } from '../../rate/index.js';
import { KeysByUse, type UsedEntry } from '../clearance/keys-by-use.js';
import { type AuditRetention, WindowAudit, type WindowFindings } from './window-audit.js';

/** One rate's findings in one scope, as `audit()` reports them. */
export interface RateAudit extends WindowFindings {
  /** `'overall'`, a configured `'channel'`, one live `'key'`, or `'keys'`: every key ever used, together. */
  scope: 'overall' | 'channel' | 'key' | 'keys';
  /** The channel's or key's name (scopes `'channel'` and `'key'`). */
  name?: string | undefined;
  /** The rate, as `'10/1s'`. */
  rate: string;
  /** The dimension the rate limits (rates in dimensions only): its windows hold each delivery's cost in it. */
  dimension?: string | undefined;
  limit: number;
  /** The rate's interval in ms: the length of the windows audited. */
  interval: number;
}

/** Everything a throttler's audit has found since it began. */
export interface ThrottlerAuditReport {
  /** When the audit began (the throttler's start or restore), on its clock. */
  since: number;
  /** Deliveries audited (a lease's permits count one each; so does each delivery whose cost is per dimension). */
  deliveries: number;
  /** The sum of `windowsOver` over every rate and scope (the `'keys'` lines count each key's once). */
  windowsOver: number;
  rates: RateAudit[];
}

/** Live keys looked at per delivery, to fold into `'keys'` those whose windows have emptied. */
const SWEEP_STEPS = 2;

/** A scope's audits, one per rate in force, and the audits its earlier rates left (a SET_RATE). */
class ScopeAudit implements UsedEntry {
  /** A key's place in KeysByUse (unused for the overall scope and configured channels). */
  lastUsed = 0;
  placed = 0;
  private rates: readonly Rate[];
  current: WindowAudit[];
  readonly past: WindowAudit[] = [];
  /** Each current audit's dimension number (rates in dimensions only), where a vector cost holds its cost. */
  private slots: number[] = [];
  constructor(
    rates: readonly Rate[],
    private readonly dimensions: Dimensions | undefined,
    private readonly retention: AuditRetention,
  ) {
    this.rates = rates;
    this.current = this.audits(rates);
  }
  record(at: number, cost: Cost): void {
    const { current } = this;
    if (typeof cost === 'number') {
      for (let i = 0; i < current.length; i += 1) (current[i] as WindowAudit).record(at, cost);
      return;
    }
    for (let i = 0; i < current.length; i += 1) {
      const one = cost[this.slots[i] as number] ?? 0;
      if (one > 0) (current[i] as WindowAudit).record(at, one);
    }
  }
  settle(at: number, estimate: Cost, actual: Cost): void {
    const { current } = this;
    const vector = typeof estimate !== 'number';
    for (let i = 0; i < current.length; i += 1) {
      const slot = this.slots[i] as number;
      const was = costIn(estimate, slot);
      const now = costIn(actual, slot);
      // A cost per dimension counts a delivery only where it costs more than 0 (as `record`).
      const deliveries = vector ? Number(now > 0) - Number(was > 0) : 0;
      if (now !== was || deliveries !== 0) (current[i] as WindowAudit).settle(at, now - was, deliveries);
    }
  }
  setRates(rates: readonly Rate[]): void {
    // An audit that saw nothing found nothing: it is not kept as a line of its own. A kept one gets no
    // more deliveries nor settles (a settle changes the rates in force), so it keeps its findings alone.
    for (const audit of this.current) audit.close();
    this.past.push(...this.current.filter((audit) => audit.mostAt !== undefined));
    this.rates = rates;
    this.current = this.audits(rates);
  }
  private audits(rates: readonly Rate[]): WindowAudit[] {
    const numbered = this.dimensions;
    if (numbered !== undefined) this.slots = rates.map((rate) => numbered.indexOf(rate.dimension as string) ?? -1);
    return rates.map((rate) => new WindowAudit(rate, this.retention));
  }
  /** Whether these are the rates it was given as `rates` (a key following the template). */
  follows(rates: readonly Rate[] | undefined): boolean {
    return this.rates === rates;
  }
  all(): WindowAudit[] {
    return [...this.past, ...this.current];
  }
}

/**
 * The online audit of every window a throttler's deliveries filled: for each rate in force, overall, per
 * configured channel and per key. It counts what was sent (`Dispatcher.recordDelivery`), whatever
 * decided when (the local policies or a store), so it shows what each strategy really does (the timer's
 * 2N) and proves the strict ones. A key's audit lives while its windows hold deliveries; then its findings
 * fold into the `'keys'` line, so memory follows the keys in use, not every key ever seen.
 */
/** The limits an audit judges: the resolved options' rates (ResolvedOptions has them all). */
export interface AuditedLimits {
  readonly dimensions: Dimensions | undefined;
  readonly rates: readonly Rate[];
  readonly channels: ReadonlyMap<string, readonly Rate[]>;
  readonly keys: { readonly rates: readonly Rate[] } | undefined;
}

export class ThrottlerAudit {
  private readonly since: number;
  private deliveries = 0;
  private readonly overall: ScopeAudit;
  private readonly channels = new Map<string, ScopeAudit>();
  /** The keys' template, while there is one (a SET_RATE may replace it). */
  private keyRates: readonly Rate[] | undefined;
  /** A key's rates in force, its own or the template's (the clearance knows; undefined: the template). */
  private readonly ratesOfKey: (name: string) => readonly Rate[] | undefined;
  /**
   * Keys with deliveries in a window, oldest use first (a delivery moves its key to the end). KeysByUse
   * rather than a Map swept from a fresh iterator: V8 keeps a deleted entry until the Map is compacted,
   * so each sweep passed every key folded since (half the CPU of 300,000 keys, in a profile).
   */
  private readonly keys = new KeysByUse<ScopeAudit>();
  /** What the keys folded away found, by rate: the `'keys'` lines start from these. */
  private readonly folded = new Map<string, { rate: Rate; findings: WindowFindings }>();
  private readonly dimensions: Dimensions | undefined;
  /** The oldest delivery still settleable: every rate keeps what a window of it could hold, for its settle. */
  private readonly retention: AuditRetention = { from: Infinity };

  constructor(options: AuditedLimits, now: number, ratesOfKey?: (name: string) => readonly Rate[] | undefined) {
    this.since = now;
    this.dimensions = options.dimensions;
    this.overall = this.scope(options.rates);
    for (const [name, rates] of options.channels) this.channels.set(name, this.scope(rates));
    this.keyRates = options.keys?.rates;
    this.ratesOfKey = ratesOfKey ?? (() => undefined);
  }

  /**
   * A delivery of `cost` at `at` on `channel` (undefined: none), with `settleableFrom` the time of the oldest
   * delivery a settle may still reach (the settle book's; Infinity: none). O(rates) amortised.
   */
  record(channel: string | undefined, cost: Cost, at: number, settleableFrom = Infinity): void {
    this.retention.from = settleableFrom;
    this.deliveries += typeof cost === 'number' ? cost : 1;
    const overall = this.overall.current;
    if (overall.length === 1 && typeof cost === 'number') (overall[0] as WindowAudit).record(at, cost);
    else this.overall.record(at, cost);
    if (channel !== undefined) (this.channels.get(channel) ?? this.keyAudit(channel, at))?.record(at, cost);
    // Every delivery sweeps, keyed or not, so keys nobody uses any more are folded under any traffic.
    if (this.keys.size > 0) this.sweep(at);
  }

  /**
   * The delivery of `at` on `channel` cost `actual`, not its `estimate` as recorded: in each rate the
   * difference (in the rate's dimension) is added. The windows that hold it are judged again (WindowAudit.settle).
   */
  settle(channel: string | undefined, at: number, estimate: Cost, actual: Cost): void {
    if (typeof estimate === 'number' && typeof actual === 'number') this.deliveries += actual - estimate;
    this.overall.settle(at, estimate, actual);
    if (channel !== undefined) (this.channels.get(channel) ?? this.keys.get(channel))?.settle(at, estimate, actual);
  }

  /**
   * SET_RATE: later deliveries are audited against the new rates; what the old ones found is kept. A key
   * with no audit live takes its rates from the clearance at its next delivery.
   */
  setRates(rates: readonly Rate[], channel: string | undefined): void {
    if (channel === undefined) this.overall.setRates(rates);
    else (this.channels.get(channel) ?? this.keys.get(channel))?.setRates(rates);
  }

  /** SET_RATE of the keys' template: keys that follow it are audited against the new rates. */
  setKeyTemplate(rates: readonly Rate[]): void {
    const old = this.keyRates;
    this.keyRates = rates;
    for (const scope of this.keys.values()) if (scope.follows(old)) scope.setRates(rates);
  }

  report(): ThrottlerAuditReport {
    const rates: RateAudit[] = [];
    const line = (audit: WindowAudit, scope: RateAudit['scope'], name?: string): void => {
      rates.push({ scope, ...(name === undefined ? {} : { name }), ...findings(audit, audit) });
    };
    for (const audit of this.overall.all()) line(audit, 'overall');
    for (const [name, scope] of this.channels) for (const audit of scope.all()) line(audit, 'channel', name);
    const keys = new Map<string, RateAudit>();
    for (const { rate, findings: found } of this.folded.values()) mergeKeys(keys, rate, found);
    for (const [name, scope] of this.keys) {
      for (const audit of scope.all()) {
        line(audit, 'key', name);
        mergeKeys(keys, audit, audit);
      }
    }
    rates.push(...keys.values());
    const windowsOver = rates.reduce((sum, rate) => (rate.scope === 'key' ? sum : sum + rate.windowsOver), 0);
    return { since: this.since, deliveries: this.deliveries, windowsOver, rates };
  }

  /** A key's audit, made on its first delivery; undefined for a name that is no key (no `keys` option). */
  private keyAudit(name: string, at: number): ScopeAudit | undefined {
    const template = this.keyRates;
    if (template === undefined) return undefined;
    const scope = this.keys.get(name) ?? this.scope(this.ratesOfKey(name) ?? template);
    this.keys.use(name, scope, at);
    return scope;
  }

  private scope(rates: readonly Rate[]): ScopeAudit {
    return new ScopeAudit(rates, this.dimensions, this.retention);
  }

  /** Folds away a few keys at the oldest end whose windows hold nothing at `at`. */
  private sweep(at: number): void {
    this.keys.sweep(at, SWEEP_STEPS, (_name, scope) => {
      if (!scope.current.every((audit) => audit.isEmptyAt(at))) return 'stop';
      for (const audit of scope.all()) this.fold(audit);
      return 'forget';
    });
  }

  private fold(audit: WindowAudit): void {
    const id = rateId(audit);
    const kept = this.folded.get(id);
    if (kept === undefined) {
      const { limit, interval, dimension } = audit;
      this.folded.set(id, { rate: { limit, interval, dimension }, findings: copy(audit) });
      return;
    }
    combine(kept.findings, audit);
  }
}

function copy(found: WindowFindings): WindowFindings {
  return { most: found.most, mostAt: found.mostAt, windowsOver: found.windowsOver };
}

/** Adds `found` into `into`: the larger most (the earlier moment on a tie), the windows over summed. */
function combine(into: WindowFindings, found: WindowFindings): void {
  if (found.most > into.most || (found.most === into.most && (found.mostAt ?? Infinity) < (into.mostAt ?? Infinity))) {
    into.most = found.most;
    into.mostAt = found.mostAt;
  }
  into.windowsOver += found.windowsOver;
}

function findings(rate: Rate, found: WindowFindings): Omit<RateAudit, 'scope' | 'name'> {
  const { limit, interval, dimension } = rate;
  return { rate: formatRate(rate), ...(dimension === undefined ? {} : { dimension }), limit, interval, ...copy(found) };
}

/** A rate told apart from every other, its dimension included (`tokens 30000/1m`). */
function rateId(rate: Rate): string {
  return rate.dimension === undefined ? formatRate(rate) : `${JSON.stringify(rate.dimension)} ${formatRate(rate)}`;
}

function mergeKeys(keys: Map<string, RateAudit>, rate: Rate, found: WindowFindings): void {
  const id = rateId(rate);
  const line = keys.get(id);
  if (line === undefined) keys.set(id, { scope: 'keys', ...findings(rate, found) });
  else combine(line, found);
}
