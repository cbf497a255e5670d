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

/**
 * A target that hands every event sent to it straight to `receive`: no mailbox, transition or snapshot of
 * its own per event, which a callback actor costs for each delivery (about a tenth of a replay's time). It
 * stands for a started actor (`host`: its id, system, snapshot and stop) and offers what the throttler reads
 * of a target: `system._relay` calls its private `_send` (without `_relay`, `send`), and its private
 * `_processingStatus` is the host's, so it is running until the host stops. For a receiver that only
 * listens (the replay's); a newer XState that relays through another member fails
 * test/machine/xstate-internals.test.ts.
 */
export function listeningTarget(host: AnyActorRef, receive: (event: AnyEventObject) => void): AnyActorRef {
  const target = {
    id: host.id,
    sessionId: host.sessionId,
    system: host.system,
    src: host.src,
    send: receive,
    _send: receive,
    getSnapshot: () => host.getSnapshot(),
    getPersistedSnapshot: () => host.getPersistedSnapshot(),
    subscribe: host.subscribe.bind(host),
    on: host.on.bind(host),
    start: () => host.start(),
    stop: () => host.stop(),
    toJSON: () => host.toJSON?.(),
    get _processingStatus(): unknown {
      return (host as unknown as { _processingStatus?: unknown })._processingStatus;
    },
  };
  return target as unknown as AnyActorRef;
}
