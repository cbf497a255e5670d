/**
 * What a throttler holds now (its clock, the end of its pause, its rates per scope), read from its
 * actor's snapshot at the moment an answer is applied. The helper decides on this rather than on what it
 * remembers sending, so that a RESUME, a pause or a rate set by hand is seen. The one place this entry
 * point reads the machine's context (its dispatcher's clearance); checked against src/machine/types.ts
 * and src/engine/clearance/clearance.ts, and covered by test/server-limits/what-holds.test.ts.
 */
import type { Rate } from '../rate/index.js';

export interface ThrottlerInForce {
  /** The throttler's own clock (its `now` option, `performance.now()` by default). */
  now(): number;
  /** When its pause ends, on its clock: -Infinity when none was set or it was resumed, Infinity until RESUME. */
  pausedUntil(): number;
  /** The rates in force for a scope: overall (undefined), a channel, or for a key the keys' template; undefined for a name it lacks. */
  rates(channel: string | undefined): readonly Rate[] | undefined;
  /**
   * What each rate of a scope (overall: undefined) holds at `at` of what was delivered by now (a time ahead
   * tells what will still be held then); undefined when the throttler's windows cannot be read (a store).
   */
  windowUse(channel: string | undefined, at: number): ReadonlyArray<{ rate: Rate; held: number }> | undefined;
  /** The transit spread J its windows are widened by now (the `transit` option, stated or measured), 0 without. */
  spread(): number;
}

interface ClearanceView {
  readonly pausedUntil: number;
  readonly rates: readonly Rate[];
  readonly channelRates: ReadonlyMap<string, readonly Rate[]>;
  readonly keyRates: readonly Rate[] | undefined;
  /** The local policies' (local-clearance.ts); a store's clearance has none. */
  readonly windowUse?: (channel: string | undefined, now: number) => Array<{ rate: Rate; held: number }>;
}

interface ContextView {
  readonly now: () => number;
  readonly dispatcher: {
    readonly clearance: ClearanceView;
    readonly options?: { readonly strategyOptions?: { readonly transit?: { spreadAt(now: number): number } } };
  };
}

/** The throttler actor itself, or the promise API's throttler (its `actor`); undefined for anything else. */
export function throttlerInForce(target: unknown): ThrottlerInForce | undefined {
  const actor = snapshotHolder(target) ?? snapshotHolder((target as { actor?: unknown } | null)?.actor);
  if (actor === undefined || contextOf(actor) === undefined) return undefined;
  const context = (): ContextView => contextOf(actor) as ContextView;
  return {
    now: () => context().now(),
    pausedUntil: () => context().dispatcher.clearance.pausedUntil,
    rates: (channel) => {
      const clearance = context().dispatcher.clearance;
      if (channel === undefined) return clearance.rates;
      return clearance.channelRates.get(channel) ?? (channel === '' ? undefined : clearance.keyRates);
    },
    spread: () => {
      const view = context();
      const spread = view.dispatcher.options?.strategyOptions?.transit?.spreadAt(view.now());
      return typeof spread === 'number' && spread > 0 ? spread : 0;
    },
    windowUse: (channel, at) => {
      const clearance = context().dispatcher.clearance;
      return typeof clearance.windowUse === 'function' ? clearance.windowUse(channel, at) : undefined;
    },
  };
}

interface SnapshotHolder {
  getSnapshot(): unknown;
}

function snapshotHolder(value: unknown): SnapshotHolder | undefined {
  const holder = value as Partial<SnapshotHolder> | null | undefined;
  return typeof holder === 'object' && holder !== null && typeof holder.getSnapshot === 'function'
    ? (holder as SnapshotHolder)
    : undefined;
}

function contextOf(actor: SnapshotHolder): ContextView | undefined {
  const context = (actor.getSnapshot() as { context?: Partial<ContextView> } | undefined)?.context;
  const clearance = (context?.dispatcher as { clearance?: Partial<ClearanceView> } | undefined)?.clearance;
  if (typeof context?.now !== 'function' || typeof clearance !== 'object' || clearance === null) return undefined;
  const { pausedUntil, rates, channelRates } = clearance;
  return typeof pausedUntil === 'number' && Array.isArray(rates) && channelRates instanceof Map
    ? (context as ContextView)
    : undefined;
}
