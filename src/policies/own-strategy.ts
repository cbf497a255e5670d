/**
 * A strategy of one's own (`defineStrategy`, xstate-throttler/strategies): a name, a `createPolicy` that
 * makes a StrategyPolicy for a list of rates, and what it supports. Every field is checked as the user calls
 * (a ThrottlerOptionError naming the field and the value); the value made is a strategy as the library's
 * are, which every entry takes (`strategy: fixedWindow`, the lean one too), and whose policies are held
 * behind the contract's checks (own-policy.ts). What it cannot do is refused where it is asked: a shared
 * store (its scripts know only the library's algorithms), `transit`, `pace`, and saving a snapshot unless
 * its policies have `save` and `load`.
 */
import { type Rate, ThrottlerOptionError } from '../rate/index.js';
import {
  checkedPolicy,
  frozenRates,
  OwnPolicy,
  type OwnPolicySetup,
  PolicyFaults,
  type StrategyPolicy,
} from './own-policy.js';
import { STRATEGIES, type StrategyName } from './policy.js';
import { markOwnStrategy, type Strategy, type StrategyImplementation } from './strategy.js';

/** What `defineStrategy` takes. */
export interface StrategyDefinition<TName extends string = string> {
  /**
   * The strategy's name: what errors, a saved snapshot and a restore name it by. Any non-empty string
   * (`__proto__` too) but a library strategy's ("timer", "sliding-window", "token-bucket", "warming-up").
   */
  readonly name: TName;
  /**
   * A fresh policy for `rates` (one or more that must all hold, each `{ limit, interval }` in ms), made at
   * `now`: for the throttler's rate as it is created, for each channel and key, and on a SET_RATE when the
   * policy has no `setRates`. Called without `this`; `rates` is a frozen copy (the throttler's are not the policy's).
   */
  readonly createPolicy: (rates: readonly Rate[], now: number) => StrategyPolicy;
  /**
   * Whether a delivery of cost k counts exactly as k deliveries of cost 1 at the same time, so that the
   * promise API may start tasks inside `schedule` on one permit count (a lease). Default false.
   */
  readonly leases?: boolean | undefined;
  /**
   * Whether the policy can hold a delivery's cost until it settles (`holdInFlight` / `releaseInFlight`), which
   * `countUntil: 'done'` needs. Default false: `countUntil: 'done'` is refused.
   */
  readonly settlesInFlight?: boolean | undefined;
}

const FIELDS: ReadonlySet<string> = new Set(['name', 'createPolicy', 'leases', 'settlesInFlight']);

/**
 * A strategy of one's own, for the `strategy` option of every entry (xstate-throttler/lean's too):
 * `defineStrategy({ name: 'fixed-window', createPolicy: (rates, now) => new FixedWindow(rates, now) })`.
 * Checks every field now, each error a ThrottlerOptionError naming it and its value; the policy's own shape
 * is checked as the throttler makes the first one. docs/strategies.md, "A strategy of your own".
 */
export function defineStrategy<const TName extends string>(definition: StrategyDefinition<TName>): Strategy<TName> {
  if (typeof definition !== 'object' || definition === null) {
    throw new ThrottlerOptionError('strategy', 'an object with a name and a createPolicy function', definition);
  }
  for (const key of Object.keys(definition)) {
    if (!FIELDS.has(key)) {
      throw new ThrottlerOptionError(
        `strategy.${key}`,
        `absent: a strategy takes ${[...FIELDS].join(', ')}`,
        (definition as never)[key],
      );
    }
  }
  // Each field read once: a getter answers what the checks saw.
  const { name, createPolicy, leases = false, settlesInFlight = false } = definition;
  if (typeof name !== 'string' || name.length === 0) {
    throw new ThrottlerOptionError('strategy.name', 'a non-empty string', name);
  }
  if (STRATEGIES.includes(name as string as StrategyName)) {
    throw new ThrottlerOptionError('strategy.name', "a name that is not a library strategy's", name);
  }
  if (typeof createPolicy !== 'function') {
    throw new ThrottlerOptionError('strategy.createPolicy', 'a function (rates, now) => policy', createPolicy);
  }
  if (typeof leases !== 'boolean') throw new ThrottlerOptionError('strategy.leases', 'a boolean or absent', leases);
  if (typeof settlesInFlight !== 'boolean') {
    throw new ThrottlerOptionError('strategy.settlesInFlight', 'a boolean or absent', settlesInFlight);
  }
  const create = (rates: readonly Rate[], now: number) => createPolicy(frozenRates(rates), now);
  const checked: OwnPolicySetup = { name, leases, settlesInFlight, create, faults: undefined };
  const implementation: StrategyImplementation = {
    name,
    leases,
    settlesInFlight,
    // A store refuses a strategy of one's own (strategy-option.ts), so it has no grant to retime.
    retimesLateGrants: false,
    own: true,
    createFaults: () => new PolicyFaults(),
    createPolicy: (rates, options, now) => new OwnPolicy({ ...checked, faults: options.faults }, rates, now),
    // A policy made for every configured list as the options are checked, so that a bad one throws at the call.
    checkOptions: (options, rateLists) => {
      for (const [option, list] of rateLists) checkedPolicy(checked, list, 0, option);
      return options;
    },
    transitRefusal: `a strategy of your own takes no transit spread (strategy "${name}")`,
    paceRefusal: `a strategy of your own spaces its deliveries itself (strategy "${name}")`,
  };
  markOwnStrategy(implementation);
  // Typed as users see it: the name as given, createPolicy out of the public type (as the library's values).
  return Object.freeze(implementation) as unknown as Strategy<TName>;
}
