import type { InspectionEvent } from 'xstate';
import { summarizeInspection } from '../../../src/index.js';

/**
 * Opens the Stately inspector (a window on stately.ai) and returns what to pass as an actor's
 * `inspect` option. The inspector package is imported here, on demand, so the page neither loads
 * it nor reaches for stately.ai until the user asks; a throttler's queue may hold millions of
 * messages, so the inspector is handed summarizeInspection's summary instead of the queue.
 */
export async function openStatelyInspector(): Promise<(event: InspectionEvent) => void> {
  const { createBrowserInspector } = await import('@statelyai/inspect');
  const inspector = createBrowserInspector();
  return summarizeInspection(inspector.inspect, { maxMessages: 10 });
}
