/**
 * The machine's input with options an adapter has already resolved: the adapters check the user's
 * options as they are created (an error is thrown where the user called), and the machine takes
 * what they resolved instead of checking the same options a second time. Kept out of the input's
 * public type: a user's own input is always checked whole.
 */
import { optionHintsIn } from '../engine/options/features-option.js';
import { checkOptionNames } from '../engine/options/option-names.js';
import { type ResolvedOptions, resolveOptionsKnowing } from '../engine/options/options.js';
import type { StrategyLookup } from '../engine/options/strategy-option.js';
import { refuseMeasuredTransit } from '../engine/options/transit-option.js';
import type { ThrottlerInput } from './types.js';

/** Inputs an adapter built, with the options it resolved from them (a WeakMap: nothing in the input shows). */
const resolvedInputs = new WeakMap<ThrottlerInput, ResolvedOptions>();

/** An adapter's input, its options already resolved by `resolveOptions` from these same fields. */
export function withResolvedOptions(input: ThrottlerInput, resolved: ResolvedOptions): ThrottlerInput {
  resolvedInputs.set(input, resolved);
  return input;
}

/**
 * The input's options, resolved: as the adapter that built the input resolved them, or checked now, a
 * strategy that is not a value read by `lookup` (every name, or none: the lean machine).
 */
export function optionsOfInput(input: ThrottlerInput, lookup: StrategyLookup): ResolvedOptions {
  const resolved = resolvedInputs.get(input);
  if (resolved !== undefined) return resolved;
  // A user's own input: a name it does not know (plain JavaScript) is refused with what was meant.
  if (typeof input === 'object' && input !== null)
    checkOptionNames(
      input,
      INPUT_OPTION_NAMES,
      'the throttler input',
      true,
      optionHintsIn(input.features, lookup.features),
    );
  return refuseMeasuredTransit(resolveOptionsKnowing(input, lookup), 'the throttler input');
}

/** The machine input's own options, on top of the common ones. */
const INPUT_OPTION_NAMES = ['target', 'store'];
