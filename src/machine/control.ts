import { parseRates, ThrottlerOptionError } from '../rate/index.js';
import { type Effects, emitDiscarded, published, refuse } from './effects.js';
import { checkTarget, pauseUntil, rateScope, replyError } from './event-checks.js';
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
    const rates = parseRates(event.rate, option);
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

/** TRY_ACQUIRE: takes a permit now if one is free, answered in the event's own reply object. */
export function tryAcquire(context: MachineContext, event: MachineEvent, effects: Effects): void {
  if (event.type !== 'TRY_ACQUIRE') return;
  const invalidReply = replyError(event.reply);
  if (invalidReply !== undefined) {
    // No permit is taken for an answer nobody can read.
    refuse(effects, event, invalidReply);
    return;
  }
  // Answered too late: the sender gave up waiting (see TryAcquireEvent), so nobody would hold the permit.
  if (event.reply.cancelled === true) return;
  const { dispatcher } = context;
  try {
    const cost = dispatcher.clearance.checkMessage(event.channel, event.cost);
    event.reply.waitMs = dispatcher.tryAcquire(event.channel, cost, context.now());
  } catch (error) {
    event.reply.error = error as Error;
    return;
  }
  // Asking what waits drops what is past its deadline.
  emitDiscarded(context, effects);
  effects.assign(published(context, context.target, context.wakeAt));
}

/** RESUME: lifts a pause. */
export function resume(context: MachineContext, _event: MachineEvent, effects: Effects): void {
  context.dispatcher.clearance.resume();
  effects.assign(published(context, context.target, context.wakeAt));
}

/** STORE_STATUS (from a store): tells listeners with storeDown / storeUp. */
export function reportStoreStatus(context: MachineContext, event: MachineEvent, effects: Effects): void {
  if (event.type !== 'STORE_STATUS') return;
  if (typeof event.up !== 'boolean' || (event.error !== undefined && !(event.error instanceof Error))) {
    refuse(effects, event, new ThrottlerOptionError('STORE_STATUS', '{ up: boolean, error?: Error }', event));
    return;
  }
  const at = context.now();
  effects.emit(
    event.up ? { type: 'storeUp', at } : { type: 'storeDown', error: event.error ?? new Error('store down'), at },
  );
}
