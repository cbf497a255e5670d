/**
 * A user's policy (defineStrategy, own-strategy.ts) as the engine holds it: every answer checked against
 * the contract, every throw caught. A user's code is not trusted to keep the throttler's promises, so a
 * breach never lets a message through (a bad or thrown `earliestDelivery` answers Infinity, "not until an
 * event": the queue stays as it was) and never ends the actor; the breach is kept in the throttler's
 * PolicyFaults, which the machine reports as a `strategyError` event after the event it was handling.
 * The capabilities the engine reads off a policy come from the strategy's declaration, never from the
 * user's object. Only own strategies pay for the checks: the library's policies are held as they are.
 */
import { type Rate, ThrottlerOptionError } from '../rate/index.js';
import { type StrategyOptions, smallestLimitOf, type ThrottlePolicy } from './policy.js';
import { field, readRecord } from './saved-fields.js';

/**
 * The policy contract a strategy of one's own implements (defineStrategy's `createPolicy` returns one). It is
 * told the time on every call and must never read a clock or start a timer, so that it answers alike in
 * virtual time and on real timers. Every time is in ms on the throttler's clock; every cost a positive number.
 *
 * The one rule: once `earliestDelivery(now, cost)` returns `t`, a delivery of that cost is allowed at every
 * time >= t until another delivery is recorded (permission is monotone in time), so that the throttler can
 * combine several limits by taking the latest answer and wake once, at that time.
 */
export interface StrategyPolicy {
  /**
   * The earliest time >= `now` at which a delivery of `cost` may go; Infinity: not until something changes
   * (another delivery settles, the rates change). A question: changes nothing. An answer that is not a number
   * >= now, or a throw, is a breach: nothing goes and the throttler emits `strategyError`. So is an answer
   * later than `now` after one no later than `now` for the same cost with no delivery recorded between (the one rule).
   */
  earliestDelivery(now: number, cost: number): number;
  /** A delivery of `cost` went at `at` (the throttler asked `earliestDelivery` first). Times never decrease. */
  recordDelivery(at: number, cost: number): void;
  /**
   * The delivery recorded at `at` with cost `estimate` turned out to cost `actual` (ACTUAL_COST, told at
   * `now` >= `at`). Absent: an overrun (`actual` > `estimate`) is recorded as a delivery of the difference at
   * `now`, which holds it back at least as long; an underrun gives nothing back.
   */
  settleDelivery?(at: number, estimate: number, actual: number, now: number): void;
  /** The throttler went from idle to active at `now` (a period may start here). Absent: nothing to start. */
  activate?(now: number): void;
  /** The rates changed at `now` (SET_RATE). Absent: a new policy is made for them and this one's history is forgotten. */
  setRates?(rates: readonly Rate[], now: number): void;
  /** Appends to `into`, one number per rate in order, the cost its window holds at `now` (for metrics). Absent: 0 each. */
  windowUse?(now: number, into: number[]): void;
  /** With `settlesInFlight`: `cost` went and counts as in flight until `releaseInFlight`. Required then. */
  holdInFlight?(cost: number): void;
  /** With `settlesInFlight`: a held `cost` settled at `at`; from then on it counts as a delivery at `at`. Required then. */
  releaseInFlight?(at: number, cost: number): void;
  /** With `settlesInFlight`, on a restore: everything held settles at `at`. */
  settleAllInFlight?(at: number): void;
  /**
   * The state as plain JSON, every time shifted by `shift` ms (add it). With `load`, a snapshot can be saved
   * (`actor.getPersistedSnapshot()`); without both, saving one is refused.
   */
  save?(shift: number): unknown;
  /**
   * Restores into this fresh policy what `save` wrote (after a JSON round trip, or damaged), adding `shift` ms
   * to every time. Must throw on anything its `save` could not have written: the restore is then refused.
   */
  load?(saved: unknown, shift: number): void;
}

/** What an own policy saves: the user's state under the strategy's name. */
export interface OwnPolicyState {
  readonly kind: 'own';
  readonly strategy: string;
  readonly state: unknown;
}

/** One throttler's contract breaches, kept until the machine reports them (`strategyError`). Never saved. */
export class PolicyFaults {
  private fault: Error | undefined = undefined;
  /** Counts the events handled (`take` not continuing one), and the one the last breach was reported in. */
  private event = 0;
  private reportedIn = -1;

  /** Keeps the first breach since the last `take`. */
  report(error: Error): void {
    this.fault ??= error;
  }

  /**
   * The breach to report after an action, if any and none was reported in this event yet; then forgotten.
   * `continues`: the action goes on with the event before (a second action of its transition, or one for an
   * event the machine raised in it), whose steps ask the policy again and breach again.
   */
  take(continues: boolean): Error | undefined {
    if (!continues) this.event++;
    const fault = this.fault;
    this.fault = undefined;
    if (fault === undefined || this.reportedIn === this.event) return undefined;
    this.reportedIn = this.event;
    return fault;
  }

  toJSON(): undefined {
    return undefined;
  }
}

/** What an own policy is made of: its strategy's name and capabilities, how to make the user's object, the sink. */
export interface OwnPolicySetup {
  readonly name: string;
  readonly leases: boolean;
  readonly settlesInFlight: boolean;
  /** The user's `createPolicy`, checked as it answers (checkedPolicy). */
  readonly create: (rates: readonly Rate[], now: number) => StrategyPolicy;
  /** Where breaches go (a PolicyFaults); absent outside a machine (a tool's own policy): they are thrown. */
  readonly faults: StrategyOptions['faults'];
}

const OPTIONAL_METHODS = [
  'settleDelivery',
  'activate',
  'setRates',
  'windowUse',
  'holdInFlight',
  'releaseInFlight',
  'settleAllInFlight',
  'save',
  'load',
] as const;

/**
 * The user's policy for `rates` (the option they come from: `rate`, `channels.search`, ...), its shape checked: a
 * ThrottlerOptionError naming the strategy and what is wrong.
 */
export function checkedPolicy(
  setup: OwnPolicySetup,
  rates: readonly Rate[],
  now: number,
  from = 'rate',
): StrategyPolicy {
  const where = `strategy "${setup.name}": createPolicy(${from})`;
  let policy: unknown;
  try {
    policy = setup.create(rates, now);
  } catch (error) {
    throw withCause(
      new ThrottlerOptionError(where, 'a function that returns a policy, not one that throws', error),
      error,
    );
  }
  if (typeof policy !== 'object' || policy === null) {
    throw new ThrottlerOptionError(where, 'a policy object (StrategyPolicy)', policy);
  }
  const methods = policy as Record<string, unknown>;
  for (const required of ['earliestDelivery', 'recordDelivery']) {
    if (typeof methods[required] !== 'function') {
      throw new ThrottlerOptionError(`${where}.${required}`, 'a function', methods[required]);
    }
  }
  for (const optional of OPTIONAL_METHODS) {
    const method = methods[optional];
    if (method !== undefined && typeof method !== 'function') {
      throw new ThrottlerOptionError(`${where}.${optional}`, 'a function or absent', method);
    }
  }
  if (setup.settlesInFlight) {
    for (const held of ['holdInFlight', 'releaseInFlight']) {
      if (typeof methods[held] !== 'function') {
        throw new ThrottlerOptionError(
          `${where}.${held}`,
          'a function (the strategy declares settlesInFlight)',
          methods[held],
        );
      }
    }
  }
  return policy as StrategyPolicy;
}

/** What a scope whose policy could not be made answers: nothing goes, until an event. */
const REFUSING: StrategyPolicy = {
  earliestDelivery: () => Number.POSITIVE_INFINITY,
  recordDelivery: () => {},
};

/** A frozen copy of `rates` for the user's code: the throttler's own (its audit, metrics, snapshot) are not its to sort. */
export function frozenRates(rates: readonly Rate[]): readonly Rate[] {
  return Object.freeze(rates.map((rate) => Object.freeze({ ...rate })));
}

function withCause<T extends Error>(error: T, cause: unknown): T {
  error.cause = cause;
  return error;
}

/** A thrown Error shown by its name and message (its own fields are few); anything else as it is. */
function shownThrow(thrown: unknown): unknown {
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : thrown;
}

/** A user's policy behind the contract's checks (see the file's header). */
export class OwnPolicy implements ThrottlePolicy<OwnPolicyState> {
  private readonly setup: OwnPolicySetup;
  private inner: StrategyPolicy;
  /** The rates a policy could not be made for (createPolicy threw), until one is. */
  private missing: readonly Rate[] | undefined = undefined;
  private rateCount: number;
  smallestLimit: number;
  /** Only a policy with `activate` is told of activations; then a message goes through `active` to be. */
  readonly startsPeriodsOnActivation: boolean;
  /** The strategy's `leases`: the user declares that k at once count as k singly. */
  readonly grantsInBulk: boolean;
  /**
   * The one rule's memory: the last answer (Infinity: none) since the last call that may change the policy's
   * mind, the time it was asked at, and its cost. An answer moved later breaks the rule and would have the
   * throttler wake and ask again forever, sending nothing: it is reported, not waited on.
   */
  private answered = Number.POSITIVE_INFINITY;
  private askedAt = 0;
  private askedCost = 0;

  constructor(setup: OwnPolicySetup, rates: readonly Rate[], now: number) {
    this.setup = setup;
    this.inner = REFUSING;
    // Every configured list was tried as the options were checked (own-strategy.ts): one that fails now (a
    // key's, a SET_RATE's) is a breach, and its scope lets nothing go rather than end the actor.
    this.create(rates, now);
    this.rateCount = rates.length;
    this.smallestLimit = smallestLimitOf(rates);
    this.startsPeriodsOnActivation = this.inner.activate !== undefined;
    this.grantsInBulk = setup.leases;
  }

  earliestDelivery(now: number, cost: number): number {
    // No policy yet: made again at each question, each failure a breach, so that nothing waits on it unheard.
    if (this.missing !== undefined) this.create(this.missing, now);
    let at: unknown;
    try {
      at = this.inner.earliestDelivery(now, cost);
    } catch (error) {
      this.breach(`earliestDelivery(${now}, ${cost})`, 'a time, not a throw', error, error);
      return Number.POSITIVE_INFINITY;
    }
    if (typeof at !== 'number' || !(at >= now)) {
      this.breach(`earliestDelivery(${now}, ${cost})`, `a time >= now (${now}), or Infinity`, at);
      return Number.POSITIVE_INFINITY;
    }
    // The rule, for the same cost only (it says nothing across costs): allowed from the last answer on.
    if (at > now && now >= this.answered && cost === this.askedCost) {
      const earlier = `earliestDelivery(${this.askedAt}, ${cost}) answered ${this.answered}`;
      const rule = `so cost ${cost} stays allowed from ${this.answered} on: the one rule`;
      this.breach(
        `earliestDelivery(${now}, ${cost})`,
        `an answer not moved later with no delivery recorded between (${earlier}, ${rule})`,
        at,
      );
      return Number.POSITIVE_INFINITY;
    }
    this.answered = at;
    this.askedAt = now;
    this.askedCost = cost;
    return at;
  }

  recordDelivery(at: number, cost: number): void {
    this.answered = Number.POSITIVE_INFINITY;
    this.guarded('recordDelivery', () => this.inner.recordDelivery(at, cost));
  }

  settleDelivery(at: number, estimate: number, actual: number, now: number): void {
    this.answered = Number.POSITIVE_INFINITY;
    const { inner } = this;
    if (inner.settleDelivery !== undefined) {
      this.guarded('settleDelivery', () => inner.settleDelivery?.(at, estimate, actual, now));
    } else if (actual > estimate) {
      this.guarded('recordDelivery', () => inner.recordDelivery(now, actual - estimate));
    }
  }

  activate(now: number): void {
    // A period may start here: the policy may change its mind.
    this.answered = Number.POSITIVE_INFINITY;
    this.guarded('activate', () => this.inner.activate?.(now));
  }

  /** With `activate`, every activation may start something: messages go through `active`, which calls it. */
  activationStartsPeriod(): boolean {
    return this.startsPeriodsOnActivation;
  }

  setRates(rates: readonly Rate[], now: number): void {
    this.answered = Number.POSITIVE_INFINITY;
    const { inner } = this;
    if (inner.setRates !== undefined) this.guarded('setRates', () => inner.setRates?.(frozenRates(rates), now));
    else {
      // Failing, nothing goes: the old policy would let through what the old rates allowed.
      this.inner = REFUSING;
      this.create(rates, now);
    }
    this.rateCount = rates.length;
    this.smallestLimit = smallestLimitOf(rates);
  }

  windowUse(now: number, into: number[]): void {
    const inner = this.inner;
    const rateCount = this.rateCount;
    // The user's numbers in an array of their own: `into` holds the other policies' too.
    const own: unknown[] = [];
    if (inner.windowUse !== undefined) this.guarded('windowUse', () => inner.windowUse?.(now, own as number[]));
    const held = (value: unknown) => typeof value === 'number' && value >= 0 && value < Number.POSITIVE_INFINITY;
    if (inner.windowUse !== undefined && (own.length !== rateCount || !own.every(held))) {
      this.breach(`windowUse(${now})`, `one finite number >= 0 per rate (${rateCount}), appended`, own);
    }
    // One number per rate whatever the user appended (metrics read them by position), 0 for a bad one.
    for (let index = 0; index < rateCount; index++) into.push(held(own[index]) ? (own[index] as number) : 0);
  }

  holdInFlight(cost: number): void {
    this.answered = Number.POSITIVE_INFINITY;
    this.guarded('holdInFlight', () => this.inner.holdInFlight?.(cost));
  }

  releaseInFlight(at: number, cost: number): void {
    this.answered = Number.POSITIVE_INFINITY;
    this.guarded('releaseInFlight', () => this.inner.releaseInFlight?.(at, cost));
  }

  settleAllInFlight(at: number): void {
    this.answered = Number.POSITIVE_INFINITY;
    this.guarded('settleAllInFlight', () => this.inner.settleAllInFlight?.(at));
  }

  /** The user's state, or a refusal: a snapshot of a strategy whose policies cannot restore would lose its windows. */
  save(shift: number): OwnPolicyState {
    const { inner, setup } = this;
    if (inner.save === undefined || inner.load === undefined) {
      throw new ThrottlerOptionError(
        'strategy',
        `a strategy whose policies have save and load to save a snapshot (strategy "${setup.name}"'s have not)`,
        setup.name,
      );
    }
    let state: unknown;
    try {
      state = inner.save(shift);
    } catch (error) {
      // Thrown where the snapshot is asked for, as the other refusals, naming the strategy and the call.
      const refusal = new ThrottlerOptionError(
        `strategy "${setup.name}": save(${shift})`,
        'a method that does not throw',
        shownThrow(error),
      );
      throw withCause(refusal, error);
    }
    return { kind: 'own', strategy: setup.name, state };
  }

  load(saved: unknown, shift: number, path = 'policy'): void {
    const { inner, setup } = this;
    const record = readRecord(saved, path);
    if (field(record, 'kind') !== 'own' || field(record, 'strategy') !== setup.name) {
      throw new ThrottlerOptionError(path, `the saved state of strategy "${setup.name}"`, saved);
    }
    if (inner.load === undefined) {
      throw new ThrottlerOptionError(
        'strategy',
        `a strategy whose policies have load (strategy "${setup.name}"'s have not)`,
        setup.name,
      );
    }
    const state = field(record, 'state');
    this.answered = Number.POSITIVE_INFINITY;
    try {
      inner.load(state, shift);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw withCause(
        new ThrottlerOptionError(`${path}.state`, `what strategy "${setup.name}" loads (${reason})`, state),
        error,
      );
    }
  }

  /** The user's policy for `rates`; failing, a breach, and `missing` keeps the rates to try again. */
  private create(rates: readonly Rate[], now: number): void {
    this.missing = rates;
    this.answered = Number.POSITIVE_INFINITY;
    this.guarded('createPolicy', () => {
      this.inner = checkedPolicy(this.setup, rates, now);
      this.missing = undefined;
    });
  }

  /** Runs a call of the user's that answers nothing; a throw is a breach, and the policy goes on. */
  private guarded(method: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.breach(method, 'a method that does not throw', error, error);
    }
  }

  /** Reports a breach of the contract to the throttler, or throws it where no throttler hears (a tool's policy). */
  private breach(call: string, requirement: string, value: unknown, cause?: unknown): void {
    // A throw is shown by its name and message, and is the error's cause.
    const shown = cause === undefined ? value : shownThrow(cause);
    const error = new ThrottlerOptionError(`strategy "${this.setup.name}": ${call}`, requirement, shown);
    if (cause !== undefined) withCause(error, cause);
    if (this.setup.faults === undefined) throw error;
    this.setup.faults.report(error);
  }
}
