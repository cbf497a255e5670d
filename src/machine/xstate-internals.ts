/**
 * Every use of XState's private members, in one place. Checked against XState
 * 5.33.3 (XSTATE_CHECKED_VERSION); test/machine/xstate-internals.test.ts fails
 * loudly if a newer XState changes any of them. Each has a fallback that keeps
 * the throttler correct (only slower, or less visible to inspectors) if the
 * member is gone.
 */
import type { AnyActorRef, AnyEventObject, EventObject } from 'xstate';

/** The XState version these internals were read from. */
export const XSTATE_CHECKED_VERSION = '5.33.3';

/**
 * Whether anyone listens for an emitted event type (`actor.on(type)` or
 * `actor.on('*')`), read from the actor's private `eventListeners` map.
 * Building, resolving and deferring an emit action per delivery costs more than
 * the delivery itself, and XState would drop it anyway. Without the map: true,
 * so the throttler emits always.
 */
export function listensTo(self: AnyActorRef, type: string): boolean {
  const listeners = (self as unknown as { eventListeners?: unknown }).eventListeners;
  if (!(listeners instanceof Map)) return true;
  return (listeners.get(type)?.size ?? 0) > 0 || (listeners.get('*')?.size ?? 0) > 0;
}

/**
 * Sends an event to `target` the way XState's `sendTo` does, through the
 * system's private `_relay`, so that inspectors see who sent it. Without it: a
 * plain `target.send`, which delivers the same event with no sender shown.
 */
export function relay(self: AnyActorRef, target: AnyActorRef, event: AnyEventObject): void {
  const system = self.system as { _relay?: (source: AnyActorRef, target: AnyActorRef, event: EventObject) => void };
  if (typeof system._relay === 'function') system._relay(self, target, event);
  else target.send(event);
}

/**
 * A machine snapshot in state `idle` with the given context, built by hand for
 * `createActor(machine, { snapshot })`: XState restores a snapshot without
 * calling the context factory, so this is how a live queue gets in. Its shape
 * is XState's private MachineSnapshot layout (status, value, historyValue,
 * children, output, error); idle with no timer and no children is the one
 * state that needs nothing else restored.
 */
export function idleSnapshot<TContext>(context: TContext): never {
  return {
    status: 'active',
    value: 'idle',
    historyValue: {},
    context,
    children: {},
    output: undefined,
    error: undefined,
  } as never;
}

/**
 * Whether an actor ref was created and not started yet, read from the private `_processingStatus`
 * (0: not started, 1: running, 2: stopped). XState keeps what such an actor is sent in its mailbox
 * and hands it all over when it starts, and its snapshot already reads `active`: the throttler would
 * count deliveries the receiver gets later, all at once. Without the field: false (sent as today).
 */
export function hasNotStarted(actor: AnyActorRef): boolean {
  return (actor as unknown as { _processingStatus?: unknown })._processingStatus === 0;
}

/**
 * Whether an actor ref was stopped, by the same private field: one stopped before it ever started
 * still reads `active` from its snapshot, and drops what it is sent. Without the field: false.
 */
export function wasStopped(actor: AnyActorRef): boolean {
  return (actor as unknown as { _processingStatus?: unknown })._processingStatus === 2;
}
