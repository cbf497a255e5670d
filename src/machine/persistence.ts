/**
 * Persistence across process restarts.
 *
 * Saving: `JSON.stringify(actor.getPersistedSnapshot())`. The snapshot's
 * `context.dispatcher` serialises (through its `toJSON`) into the options, the
 * waiting messages in order with their channel, cost and CANCEL id, the window
 * history of every policy (overall and per channel), the pause and the counts,
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
 * `restoreThrottler` rebuilds the queue and the policies, moves every time onto
 * the new process's clock, starts the actor idle and, given a target, sets it,
 * which makes the throttler active and arms its one wake-up timer for the first
 * moment the restored window allows. Deliveries made before the restart still
 * count: no window [t, t + T) across the restart holds more than the limit, as
 * far as the two processes' wall clocks agree (a wall clock stepped forward
 * between save and restore shortens the wait by the step; stepped back, it only
 * lengthens it).
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
 */
import { type Actor, type ActorOptions, type AnyActorRef, type AnyEventObject, createActor } from 'xstate';
import type { PolicyState } from '../policies/index.js';
import { ThrottlerOptionError } from '../rate/index.js';
import { Dispatcher, type DispatcherState, PERSISTED_FORMAT, type PersistedDispatcher } from './dispatcher.js';
import { checkTarget } from './event-checks.js';
import { initialContext } from './initial-context.js';
import { resolveOptions } from './options.js';
import { throttlerMachine } from './throttler-machine.js';
import { idleSnapshot } from './xstate-internals.js';

export type ThrottlerActor = Actor<typeof throttlerMachine>;

/** How to bring a persisted throttler back: its new target and clock, and any other createActor option. */
export interface RestoreOptions extends Omit<ActorOptions<typeof throttlerMachine>, 'snapshot' | 'state' | 'input'> {
  /** Where the restored throttler delivers; without it the queue waits for a SET_TARGET. */
  target?: AnyActorRef | undefined;
  /** The new process's time source, in ms. Default `performance.now()`, as for a new throttler. */
  now?: (() => number) | undefined;
}

/**
 * Rebuilds a throttler from a persisted snapshot (`actor.getPersistedSnapshot()`,
 * as JSON or as the object itself) and returns it started: idle, or active with
 * its timer armed when a target is given. Throws a ThrottlerOptionError when the
 * snapshot holds no throttler state or its options are invalid.
 */
export function restoreThrottler(persisted: unknown, options: RestoreOptions = {}): ThrottlerActor {
  const { target, now, ...actorOptions } = options;
  checkTarget(target);
  const saved = savedDispatcher(persisted);
  const resolved = resolveOptions({
    rate: saved.options.rates,
    strategy: saved.options.strategy,
    channels: Object.fromEntries(saved.options.channels),
    ordering: saved.options.ordering,
    maxBurst: saved.options.strategyOptions.maxBurst ?? undefined,
    warmup: saved.options.strategyOptions.warmup ?? undefined,
    coldFactor: saved.options.strategyOptions.coldFactor ?? undefined,
    capacity: saved.options.capacity ?? undefined,
    overflow: saved.options.overflow,
    countUntil: saved.options.countUntil,
    maxConcurrent: saved.options.maxConcurrent ?? undefined,
    // Absent from snapshots saved before the option existed.
    timerPrecision: saved.options.timerPrecision ?? undefined,
    now,
  });
  const previousVersion = (persisted as { context: { version?: unknown } }).context.version;
  const context = initialContext(resolved, undefined, (typeof previousVersion === 'number' ? previousVersion : 0) + 1);
  // Saved times are wall-clock ms; this moves them onto the new time source.
  context.dispatcher.load(settleInFlight(saved.state, Date.now()), context.now() - Date.now());
  context.counts = { ...context.dispatcher.counts };
  // Idle with no timer and no target is the one state that needs nothing XState cannot restore;
  // SET_TARGET then takes the ordinary path to active, which arms the timer.
  // XState ignores input when restoring a snapshot; the type still asks for one.
  const actor = createActor(throttlerMachine, {
    ...actorOptions,
    snapshot: idleSnapshot(context),
    input: undefined as never,
  });
  actor.start();
  if (target !== undefined) actor.send({ type: 'SET_TARGET', target });
  return actor;
}

/** The saved dispatcher inside a persisted snapshot, whether it went through JSON or not. */
function savedDispatcher(persisted: unknown): PersistedDispatcher<AnyEventObject> {
  const context = (persisted as { context?: { dispatcher?: unknown } } | null | undefined)?.context;
  let dispatcher = typeof context === 'object' && context !== null ? context.dispatcher : undefined;
  if (dispatcher instanceof Dispatcher) dispatcher = dispatcher.toJSON();
  const { format, options, state } = (dispatcher ?? {}) as { format?: unknown; options?: unknown; state?: unknown };
  if (format !== PERSISTED_FORMAT || typeof options !== 'object' || typeof state !== 'object' || !options || !state) {
    throw new ThrottlerOptionError(
      'persisted',
      `a throttler's persisted snapshot (actor.getPersistedSnapshot(), whose context.dispatcher has format "${PERSISTED_FORMAT}")`,
      format === undefined ? persisted : format,
    );
  }
  return dispatcher as PersistedDispatcher<AnyEventObject>;
}

/**
 * Cost that was in flight (countUntil 'done') when the snapshot was taken can
 * never settle here: it is logged as delivered at the restore time `at`, the
 * latest moment the old process could have seen it settle.
 */
function settleInFlight<TMessage>(state: DispatcherState<TMessage>, at: number): DispatcherState<TMessage> {
  const settle = (policy: PolicyState): PolicyState => {
    const inFlightCost = policy.inFlightCost;
    if (policy.kind !== 'sliding-window' || typeof inFlightCost !== 'number' || inFlightCost <= 0) return policy;
    const deliveries = policy.deliveries as Array<[number, number]>;
    const latest = deliveries.at(-1)?.[0] ?? Number.NEGATIVE_INFINITY;
    return { ...policy, inFlightCost: 0, deliveries: [...deliveries, [Math.max(at, latest), inFlightCost]] };
  };
  const channels: Record<string, PolicyState> = {};
  for (const [name, policy] of Object.entries(state.channels)) channels[name] = settle(policy);
  return { ...state, overall: settle(state.overall), channels };
}
