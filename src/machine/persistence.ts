/**
 * Persistence across process restarts.
 *
 * Saving: `JSON.stringify(actor.getPersistedSnapshot())`. The snapshot's
 * `context.dispatcher` serialises (through its `toJSON`, in the format of
 * persisted-format.ts) into the options, the waiting messages in order with
 * their channel, cost and CANCEL id, the window history of every policy
 * (overall and per channel), the pause, the counts and the moment of the save,
 * with every time moved onto the wall clock (Date.now()): the monotonic clock
 * the throttler schedules by starts again from an arbitrary point in every
 * process, so only absolute times mean anything in another one. Stringify at
 * once: the dispatcher is live, and serialises as it is when JSON.stringify runs.
 *
 * Restoring: `restoreThrottler(JSON.parse(saved), { target })`, never
 * `createActor(throttlerMachine, { snapshot })` by itself. XState does not call
 * the context factory on restore (input is ignored), does not re-arm delayed
 * events, and turns actor refs into `{ xstate$$type, id }` placeholders, so a
 * bare restore would have no live queue, no timer and no target.
 * `restoreThrottler` checks every field, rebuilds the queue and the policies
 * (each policy checks its own state), moves every time onto the new process's
 * clock, starts the actor idle and, given a target, sets it, which makes the
 * throttler active and arms its one wake-up timer for the first moment the
 * restored window allows. Deliveries made before the restart still count: no
 * window [t, t + T) across the restart holds more than the limit, as far as the
 * two processes' wall clocks agree (a wall clock stepped forward between save
 * and restore shortens the wait by the step; one that reads earlier than the
 * save counts as the moment of the save, so time never runs backwards).
 *
 * What the caller must know:
 * - Messages (and CANCEL ids) must be serialisable as JSON: they are written
 *   as they are. An actor ref inside a message (a `replyTo`) is written as
 *   XState writes refs, `{ xstate$$type: 1, id }`, and comes back as that
 *   placeholder, not as a live ref.
 * - The target is not restored (a ref cannot outlive its process): pass it as
 *   `target`, or send SET_TARGET later. Until then the throttler holds the queue.
 * - Listeners (`actor.on`) attach to the returned actor; to see the first
 *   deliveries, restore without `target`, attach, then send SET_TARGET.
 * - Deliveries in flight at save time cannot settle in the new process. With
 *   countUntil 'done' they count as settled at the moment of restore, so the
 *   server, which may still be serving them, sees no extra load within the
 *   window; the maxConcurrent count starts again from 0.
 * - Rates changed with SET_RATE are saved as changed.
 * - A damaged snapshot is refused with one ThrottlerOptionError naming the
 *   field's path from the snapshot and the value; so is one that would let
 *   more through than the limits. Nothing is clamped to make it fit.
 */
import { type Actor, type ActorOptions, type AnyActorRef, type AnyEventObject, createActor } from 'xstate';
import type { ThrottleStore } from '../engine/clearance/clearance.js';
import { Dispatcher } from '../engine/dispatcher.js';
import { resolveOptionsKnowing, type ThrottlerFeature } from '../engine/options/options.js';
import { byAnyName, byValueOnly, type StrategyLookup } from '../engine/options/strategy-option.js';
import { refuseMeasuredTransit } from '../engine/options/transit-option.js';
import { readPersisted, readState } from '../engine/saved/persisted-format.js';
import type { Strategy } from '../policies/index.js';
import { STRATEGIES, type StrategyName } from '../policies/policy.js';
import { field, isRecord, readCount } from '../policies/saved-fields.js';
import { ThrottlerOptionError } from '../rate/index.js';
import { checkTarget } from './event-checks.js';
import { checkStore, closeClearanceOnStop, initialContext } from './initial-context.js';
import type { PublicMachine } from './public-machine.js';
import { type InternalMachine, internalThrottlerMachine, leanInternalMachine } from './throttler-machine.js';
import { idleSnapshot } from './xstate-internals.js';

/** The machine a restore starts, as users see it: its context is built here, so it reads no input. */
const throttlerMachine = internalThrottlerMachine as unknown as PublicMachine<InternalMachine>;

export type ThrottlerActor = Actor<typeof throttlerMachine>;

/** How to bring a persisted throttler back: its new target and clock, and any other createActor option. */
export interface RestoreOptions extends Omit<ActorOptions<typeof throttlerMachine>, 'snapshot' | 'state' | 'input'> {
  /** Where the restored throttler delivers; without it the queue waits for a SET_TARGET. */
  target?: AnyActorRef | undefined;
  /** The new process's time source, in ms. Default `performance.now()`, as for a new throttler. */
  now?: (() => number) | undefined;
  /**
   * With `fairness: 'weighted'` saved: the keys' weights (a function is never saved); default 1 for
   * every key. Fair-share tags start afresh on restore, every key even.
   */
  weight?: ((key: string) => number) | undefined;
  /** The shared store the throttler used, if any (a store is a live connection: it is never saved). */
  store?: ThrottleStore | undefined;
  /**
   * The strategy the snapshot was saved with, as a value from xstate-throttler/strategies: required by
   * xstate-throttler/lean's restoreThrottler, which knows no strategy by name, and for a strategy of your own
   * (defineStrategy) by either; the main entry's reads a library strategy's name.
   */
  strategy?: Strategy<string> | undefined;
  /**
   * xstate-throttler/lean: the features the restored throttler loads (`features: [audit]`), as createThrottler's
   * `features`; a snapshot saves none. The main entry's restoreThrottler loads every feature.
   */
  features?: readonly ThrottlerFeature[] | undefined;
}

/**
 * Rebuilds a throttler from a persisted snapshot (`actor.getPersistedSnapshot()`,
 * as JSON or as the object itself) and returns it started: idle, or active with
 * its timer armed when a target is given. Throws one ThrottlerOptionError when
 * the snapshot holds no throttler state, its options are invalid, or any field
 * of its state is damaged (naming the field's path and the value).
 */
export function restoreThrottler(persisted: unknown, options: RestoreOptions = {}): ThrottlerActor {
  return restoreThrottlerKnowing(persisted, options, byAnyName, internalThrottlerMachine);
}

/** xstate-throttler/lean's restoreThrottler: the strategy is given as a value (`strategy`), never read by name. */
export function leanRestoreThrottler(persisted: unknown, options: RestoreOptions = {}): ThrottlerActor {
  return restoreThrottlerKnowing(persisted, options, byValueOnly, leanInternalMachine);
}

/**
 * A restore, the saved strategy's name read by `lookup`, or matched to the `strategy` given; `machine` the
 * entry's chart (with its descriptions or without).
 */
function restoreThrottlerKnowing(
  persisted: unknown,
  options: RestoreOptions,
  lookup: StrategyLookup,
  machine: InternalMachine,
): ThrottlerActor {
  const { target, now, weight, store: storeOption, strategy, features, ...actorOptions } = options;
  checkTarget(target);
  const store = checkStore(storeOption);
  const context = isRecord(persisted) ? field(persisted, 'context') : undefined;
  let saved = isRecord(context) ? field(context, 'dispatcher') : undefined;
  if (saved instanceof Dispatcher) saved = saved.toJSON();
  const parts = readPersisted(saved, persisted);
  const savedName = parts.options.strategy;
  // A strategy value given must be the one saved; anything else given is refused as the options' strategy is.
  const givenName = (strategy as { name?: unknown } | null | undefined)?.name;
  if (strategy !== undefined && givenName !== savedName && typeof givenName === 'string') {
    throw new ThrottlerOptionError('strategy', `the strategy the snapshot was saved with, "${savedName}"`, givenName);
  }
  // A strategy of one's own is known by no entry: its value must come with the snapshot.
  if (strategy === undefined && typeof savedName === 'string' && !STRATEGIES.includes(savedName as StrategyName)) {
    throw new ThrottlerOptionError(
      'strategy',
      `the value of the strategy the snapshot was saved with ("${savedName}", made by defineStrategy)`,
      strategy,
    );
  }
  const given = { ...parts.options, strategy: strategy ?? savedName, now, weight, features };
  const resolved = resolveOptionsKnowing(given, lookup);
  refuseMeasuredTransit(resolved, 'a restored throttler');
  const state = readState<AnyEventObject>(parts, resolved);
  const previousVersion = isRecord(context) ? field(context, 'version') : undefined;
  const version = previousVersion === undefined ? 0 : readCount(previousVersion, 'persisted.context.version');
  let restored: ThrottlerActor | undefined;
  const restoredContext = initialContext(resolved, undefined, {
    version: version + 1,
    store: store && { store, actor: () => restored },
    self: () => restored,
  });
  const restartedAt = restoredContext.now();
  // Saved times are wall-clock ms; the shift moves them onto the new time source. A wall clock that reads
  // earlier than the save (stepped back, or another machine's) counts as the moment of the save: time never
  // runs backwards across a restore, and the saved deliveries stay in the past of every new one.
  const restartedAtWall = Math.max(Date.now(), state.savedAt ?? Number.NEGATIVE_INFINITY);
  restoredContext.dispatcher.load(state, restartedAt - restartedAtWall, restartedAt);
  restoredContext.counts = { ...restoredContext.dispatcher.counts };
  restoredContext.inFlight = restoredContext.dispatcher.inFlightCount;
  // Idle with no timer and no target is the one state that needs nothing XState cannot restore;
  // SET_TARGET then takes the ordinary path to active, which arms the timer.
  // XState ignores input when restoring a snapshot; the type still asks for one.
  const actor = createActor(machine as unknown as typeof throttlerMachine, {
    ...actorOptions,
    snapshot: idleSnapshot(restoredContext),
    input: undefined as never,
  });
  restored = actor;
  closeClearanceOnStop(actor, restoredContext);
  actor.start();
  if (target !== undefined) actor.send({ type: 'SET_TARGET', target });
  return actor;
}
