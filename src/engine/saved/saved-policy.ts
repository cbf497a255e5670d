/**
 * A policy's saved state as read from a snapshot, before its policy checks it: the one shape the
 * saved format (persisted-format.ts, persisted-keys.ts) hands to the policies that load it
 * (scope-policies.ts), kept apart from both so that neither imports the other.
 */
import type { Rate } from '../../rate/index.js';

/** A policy's saved state, not yet checked (its policy checks it as it loads it), and the path it was found at. */
export interface SavedPolicy {
  readonly saved: unknown;
  readonly path: string;
}

/** A saved key: its policy's state, and its own rates (undefined: the template's). */
export interface SavedKey extends SavedPolicy {
  readonly rates: Rate[] | undefined;
}
