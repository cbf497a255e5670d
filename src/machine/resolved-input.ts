/**
 * The machine's input with options an adapter has already resolved: the adapters check the user's
 * options as they are created (an error is thrown where the user called), and the machine takes
 * what they resolved instead of checking the same options a second time. Kept out of the input's
 * public type: a user's own input is always checked whole.
 */
import { type ResolvedOptions, resolveOptions } from '../engine/options/options.js';
import type { ThrottlerInput } from './types.js';

/** Inputs an adapter built, with the options it resolved from them (a WeakMap: nothing in the input shows). */
const resolvedInputs = new WeakMap<ThrottlerInput, ResolvedOptions>();

/** An adapter's input, its options already resolved by `resolveOptions` from these same fields. */
export function withResolvedOptions(input: ThrottlerInput, resolved: ResolvedOptions): ThrottlerInput {
  resolvedInputs.set(input, resolved);
  return input;
}

/** The input's options, resolved: as the adapter that built the input resolved them, or checked now. */
export function optionsOfInput(input: ThrottlerInput): ResolvedOptions {
  return resolvedInputs.get(input) ?? resolveOptions(input);
}
