import type { ActorRefLike, AnyEventObject, InspectionEvent, Observer } from 'xstate';
import { Dispatcher } from '../engine/dispatcher.js';
import { ThrottlerOptionError } from '../rate/index.js';

/**
 * Wraps an inspector (e.g. `createBrowserInspector().inspect` from
 * @statelyai/inspect) so that a throttler reaches it summarised: the counts and
 * the first `maxMessages` waiting messages instead of the live queue, which may
 * hold a million entries and would be serialised on every event. Three places
 * carry a throttler's queue to an inspector, and all three are summarised:
 * - every snapshot (`@xstate.snapshot`);
 * - the actor's registration (`@xstate.actor`): the inspector reads the actor's
 *   snapshot itself, later, when the queue may have grown, so it is handed a
 *   view of the actor whose `getSnapshot()` returns the summary;
 * - a `QUEUE_BATCH` event (`@xstate.event`, and the snapshot event it caused):
 *   its first `maxMessages` messages and `batchSize`, the count of all of them.
 * Every other inspection event that carries an event or a snapshot (XState's
 * `@xstate.microstep`, one per transition, carries both) is summarised alike.
 * Other actors and events pass through untouched. `maxMessages` (default 10)
 * must be an integer >= 0: anything else throws a ThrottlerOptionError now.
 *
 * ```ts
 * createActor(throttlerMachine, { input, inspect: summarizeInspection(inspector.inspect) });
 * ```
 */
export function summarizeInspection(
  inspect: Observer<InspectionEvent> | ((event: InspectionEvent) => void),
  { maxMessages = 10 }: { maxMessages?: number | undefined } = {},
): (event: InspectionEvent) => void {
  if (typeof maxMessages !== 'number' || !Number.isSafeInteger(maxMessages) || maxMessages < 0) {
    throw new ThrottlerOptionError('maxMessages', 'an integer >= 0 (waiting messages shown)', maxMessages);
  }
  if (typeof inspect !== 'function' && (typeof inspect !== 'object' || inspect === null)) {
    throw new ThrottlerOptionError('inspect', 'an inspector: a function or an observer { next }', inspect);
  }
  const forward = typeof inspect === 'function' ? inspect : (event: InspectionEvent) => inspect.next?.(event);
  const summarizeSnapshot = (snapshot: unknown): unknown => {
    const dispatcher = (snapshot as { context?: { dispatcher?: unknown } } | undefined)?.context?.dispatcher;
    if (!(dispatcher instanceof Dispatcher)) return snapshot;
    const machineSnapshot = snapshot as { context: object };
    // A machine snapshot's toJSON reads `this`, so the copy serialises with the summary.
    return { ...machineSnapshot, context: { ...machineSnapshot.context, dispatcher: dispatcher.summary(maxMessages) } };
  };
  const summarizeEvent = (event: AnyEventObject): AnyEventObject => {
    const { messages } = (event ?? {}) as { messages?: unknown };
    if (event?.type !== 'QUEUE_BATCH' || !Array.isArray(messages) || messages.length <= maxMessages) return event;
    return { ...event, messages: messages.slice(0, maxMessages), batchSize: messages.length };
  };
  return (inspectionEvent) => {
    forward(summarizeOne(inspectionEvent, summarizeSnapshot, summarizeEvent));
  };
}

/** One inspection event with a throttler's queue summarised; anything else returned as it was. */
function summarizeOne(
  inspectionEvent: InspectionEvent,
  summarizeSnapshot: (snapshot: unknown) => unknown,
  summarizeEvent: (event: AnyEventObject) => AnyEventObject,
): InspectionEvent {
  if (inspectionEvent.type === '@xstate.actor') {
    // Its snapshot cannot be read yet (the actor is starting): every actor gets the view, which
    // summarises only what turns out to be a throttler's snapshot when the inspector reads it.
    return { ...inspectionEvent, actorRef: summarizingView(inspectionEvent.actorRef, summarizeSnapshot) };
  }
  // @xstate.event, @xstate.snapshot, @xstate.microstep, and any later kind with an event or a snapshot.
  const carried = inspectionEvent as { event?: AnyEventObject; snapshot?: unknown };
  const event = carried.event === undefined ? undefined : summarizeEvent(carried.event);
  const snapshot = carried.snapshot === undefined ? undefined : summarizeSnapshot(carried.snapshot);
  if (event === carried.event && snapshot === carried.snapshot) return inspectionEvent;
  const summarized: Record<string, unknown> = { ...inspectionEvent };
  if (event !== undefined) summarized.event = event;
  if (snapshot !== undefined) summarized.snapshot = snapshot;
  return summarized as unknown as InspectionEvent;
}

/**
 * The actor as an inspector sees it at registration: the same ref, except that
 * `getSnapshot()` (read by the inspector whenever it gets round to it) returns
 * the summary. Every other member is the actor's own, bound to it.
 */
function summarizingView<TRef extends ActorRefLike>(actorRef: TRef, summarize: (snapshot: unknown) => unknown): TRef {
  return new Proxy(actorRef, {
    get(target, property) {
      if (property === 'getSnapshot') return () => summarize(target.getSnapshot());
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
