import type { InspectionEvent, Observer } from 'xstate';
import { Dispatcher } from './dispatcher.js';

/**
 * Wraps an inspector (e.g. `createBrowserInspector().inspect` from
 * @statelyai/inspect) so that a throttler's snapshots reach it with the queue
 * summarised: the counts and the first `maxMessages` waiting messages instead of
 * the live queue, which may hold a million entries and would be serialised on
 * every event. Snapshots of other actors pass through untouched.
 *
 * ```ts
 * createActor(throttlerMachine, { input, inspect: summarizeInspection(inspector.inspect) });
 * ```
 */
export function summarizeInspection(
  inspect: Observer<InspectionEvent> | ((event: InspectionEvent) => void),
  { maxMessages = 10 }: { maxMessages?: number } = {},
): (event: InspectionEvent) => void {
  const forward = typeof inspect === 'function' ? inspect : (event: InspectionEvent) => inspect.next?.(event);
  return (event) => {
    if (!('snapshot' in event)) return forward(event);
    const snapshot = event.snapshot as { context?: { dispatcher?: unknown } };
    const dispatcher = snapshot.context?.dispatcher;
    if (!(dispatcher instanceof Dispatcher)) return forward(event);
    // A machine snapshot's toJSON reads `this`, so the copy serialises with the summary.
    const summarised = { ...snapshot, context: { ...snapshot.context, dispatcher: dispatcher.summary(maxMessages) } };
    forward({ ...event, snapshot: summarised } as unknown as InspectionEvent);
  };
}
