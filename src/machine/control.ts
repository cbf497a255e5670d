/**
 * The control events, each checked (event-checks.ts), then applied or refused: SET_TARGET, SET_RATE, CANCEL,
 * PAUSE, RESUME, SETTLED, ACTUAL_COST, TRY_ACQUIRE, and a store's STORE_STATUS, STORE_SLOW and STORE_REWOUND.
 */
import type { StoreConflict } from '../engine/clearance/clearance.js';
import { settleActualCost } from '../engine/clearance/settle-actual.js';
import { featureMissing } from '../engine/options/features-option.js';
import { checkRateDimensions, keepingDimensions, parseRates, ThrottlerOptionError } from '../rate/index.js';
import { answerObjectError } from './answer-object.js';
import { type Effects, emitDiscarded, published, refuse } from './effects.js';
import { checkTarget, pauseUntil, rateScope } from './event-checks.js';
import type { MachineContext, MachineEvent } from './machine-types.js';

/** SET_TARGET: the target every delivery goes to from now on (checked to be a full actor ref). */
export function setTarget(context: MachineContext, event: MachineEvent, effects: Effects): void {
  if (event.type !== 'SET_TARGET') return;
  try {
    checkTarget(event.target);
  } catch (error) {
    refuse(effects, event, error as Error);
    return;
  }
  effects.assign(published(context, event.target, context.wakeAt));
}

/** SET_RATE: new overall rates, a channel's or a key's, or the keys' template; never half-applied. */
export function setRate(context: MachineContext, event: MachineEvent, effects: Effects): void {
  if (event.type !== 'SET_RATE') return;
  try {
    const { channel, keyTemplate, option } = rateScope(event);
    const { clearance, options } = context.dispatcher;
    let rates = parseRates(event.rate, option);
    checkRateDimensions(rates, options.dimensions, option);
    if (options.dimensions !== undefined) {
      // A dimension the new rates do not name keeps its rates in force.
      const scoped = channel === undefined ? clearance.rates : clearance.channelRates.get(channel);
      const current = keyTemplate
        ? clearance.keyRates
        : (scoped ?? clearance.ownRatesOf?.(channel as string) ?? clearance.keyRates);
      rates = keepingDimensions(rates, current);
    }
    if (keyTemplate) context.dispatcher.setKeyTemplate(rates, context.now());
    else context.dispatcher.setRates(rates, channel, context.now());
  } catch (error) {
    // The running actor stays as it was: a bad rate is reported, never half-applied.
    refuse(effects, event, error as Error);
    return;
  }
  effects.assign(published(context, context.target, context.wakeAt));
}

/** CANCEL: takes a waiting message out by its id (the oldest of several), reported as dropped. */
export function cancelMessage(context: MachineContext, event: MachineEvent, effects: Effects): void {
  if (event.type !== 'CANCEL') return;
  if (context.dispatcher.cancel(event.id)) {
    emitDiscarded(context, effects);
    effects.assign(published(context, context.target, context.wakeAt));
  }
}

/** PAUSE: nothing goes until `until` (or for `duration`, or until RESUME). */
export function pause(context: MachineContext, event: MachineEvent, effects: Effects): void {
  if (event.type !== 'PAUSE') return;
  try {
    context.dispatcher.clearance.pause(pauseUntil(event, context.now()));
  } catch (error) {
    refuse(effects, event, error as Error);
    return;
  }
  effects.assign(published(context, context.target, context.wakeAt));
}

/** SETTLED: a delivery in flight is done (with maxConcurrent or countUntil: done). */
export function settle(context: MachineContext, event: MachineEvent, effects: Effects): void {
  if (event.type !== 'SETTLED') return;
  try {
    context.dispatcher.clearance.settle(event.channel, event.cost, context.now());
  } catch (error) {
    // A settle that matches nothing in flight changes nothing: it could open the window.
    refuse(effects, event, error as Error);
    return;
  }
  effects.assign(published(context, context.target, context.wakeAt));
}

/** ACTUAL_COST: a delivered message's actual cost replaces its estimate at the time it went (settle-book.ts). */
export function settleActual(context: MachineContext, event: MachineEvent, effects: Effects): void {
  if (event.type !== 'ACTUAL_COST') return;
  try {
    const { dispatcher } = context;
    if (dispatcher.settleBook === undefined) throw featureMissing('settle', 'ACTUAL_COST', dispatcher.options.features);
    settleActualCost(dispatcher, event.id, event.cost, context.now());
  } catch (error) {
    // Nothing changed: an unknown id or a bad cost could otherwise open a window or hold one shut.
    refuse(effects, event, error as Error);
    return;
  }
  effects.assign(published(context, context.target, context.wakeAt));
}

/** The fields a TRY_ACQUIRE's reply receives: checked writable before a permit is taken. */
const REPLY_FIELDS = ['waitMs', 'error'] as const;

/** TRY_ACQUIRE: takes a permit now if one is free, answered in the event's own reply object. */
export function tryAcquire(context: MachineContext, event: MachineEvent, effects: Effects): void {
  if (event.type !== 'TRY_ACQUIRE') return;
  const { reply } = event;
  // No permit is taken for an answer nobody can read: everything about the reply is decided first.
  const invalidReply = answerObjectError(reply, 'reply', '{ waitMs } or { error }', REPLY_FIELDS);
  if (invalidReply !== undefined) {
    refuse(effects, event, invalidReply);
    return;
  }
  let cancelled: unknown;
  try {
    cancelled = reply.cancelled;
  } catch {
    refuse(effects, event, new ThrottlerOptionError('reply.cancelled', 'a field that can be read', reply));
    return;
  }
  // Answered too late: the sender gave up waiting (see TryAcquireEvent), so nobody would hold the permit.
  if (cancelled === true) return;
  const { dispatcher } = context;
  let answer: { waitMs: number } | { error: Error };
  try {
    const cost = dispatcher.clearance.checkMessage(event.channel, event.cost);
    answer = { waitMs: dispatcher.tryAcquire(event.channel, cost, context.now()) };
  } catch (error) {
    answer = { error: error as Error };
  }
  try {
    if ('error' in answer) reply.error = answer.error;
    else reply.waitMs = answer.waitMs;
  } catch {
    // Only a Proxy that passed the checks and then threw: a permit it took stays taken (the safe side).
    refuse(
      effects,
      event,
      new ThrottlerOptionError('reply', 'a writable object that receives { waitMs } or { error }', reply),
    );
  }
  if ('error' in answer) return;
  // Asking what waits drops what is past its deadline.
  emitDiscarded(context, effects);
  effects.assign(published(context, context.target, context.wakeAt));
}

/** RESUME: lifts a pause. */
export function resume(context: MachineContext, _event: MachineEvent, effects: Effects): void {
  context.dispatcher.clearance.resume();
  effects.assign(published(context, context.target, context.wakeAt));
}

/** STORE_SLOW (from a store): tells listeners with storeSlow. */
export function reportStoreSlow(context: MachineContext, event: MachineEvent, effects: Effects): void {
  if (event.type !== 'STORE_SLOW') return;
  const { roundTripMs, graceMs } = event;
  if (!Number.isFinite(roundTripMs) || !Number.isFinite(graceMs) || !(roundTripMs >= 0) || !(graceMs >= 0)) {
    refuse(effects, event, new ThrottlerOptionError('STORE_SLOW', '{ roundTripMs, graceMs } (finite, >= 0)', event));
    return;
  }
  effects.emit({ type: 'storeSlow', roundTripMs, graceMs, at: context.now() });
}

const REWOUND_REASONS: ReadonlySet<unknown> = new Set(['late', 'pause', 'quarantine', 'rates', 'priority', 'outage']);

/** STORE_REWOUND (from a store): tells listeners with storeGrantsRewound. */
export function reportStoreRewound(context: MachineContext, event: MachineEvent, effects: Effects): void {
  if (event.type !== 'STORE_REWOUND') return;
  const { given, retimed, reason } = event;
  if (
    !Number.isSafeInteger(given) ||
    !Number.isSafeInteger(retimed) ||
    given < 0 ||
    retimed < 0 ||
    !REWOUND_REASONS.has(reason)
  ) {
    refuse(effects, event, new ThrottlerOptionError('STORE_REWOUND', '{ given, retimed (counts), reason }', event));
    return;
  }
  effects.emit({ type: 'storeGrantsRewound', given, retimed, reason, at: context.now() });
}

/** STORE_STATUS (from a store): tells listeners with storeDown / storeUp, storeConflict or storeQuarantined. */
export function reportStoreStatus(context: MachineContext, event: MachineEvent, effects: Effects): void {
  if (event.type !== 'STORE_STATUS') return;
  const at = context.now();
  const emitted = storeEmitted(event, at);
  if (emitted === undefined) {
    refuse(
      effects,
      event,
      new ThrottlerOptionError(
        'STORE_STATUS',
        '{ up: boolean, error?: Error }, { conflict: { error, option, ours, stored } } or { quarantinedUntil: number }',
        event,
      ),
    );
    return;
  }
  effects.emit(emitted);
}

/** What a well-formed STORE_STATUS tells listeners; undefined for a malformed one. */
function storeEmitted(event: Extract<MachineEvent, { type: 'STORE_STATUS' }>, at: number) {
  if ('conflict' in event) {
    const conflict = event.conflict as Partial<StoreConflict> | undefined;
    if (typeof conflict !== 'object' || conflict === null) return undefined;
    if (!(conflict.error instanceof Error) || typeof conflict.option !== 'string') return undefined;
    const { error, option, ours, stored } = conflict;
    return { type: 'storeConflict' as const, error, option, ours, stored, at };
  }
  if ('quarantinedUntil' in event) {
    const until = event.quarantinedUntil;
    return typeof until === 'number' && !Number.isNaN(until)
      ? { type: 'storeQuarantined' as const, until, at }
      : undefined;
  }
  if (typeof event.up !== 'boolean' || (event.error !== undefined && !(event.error instanceof Error))) return undefined;
  return event.up
    ? { type: 'storeUp' as const, at }
    : { type: 'storeDown' as const, error: event.error ?? new Error('store down'), at };
}
