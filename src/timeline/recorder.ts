import type { AnyActorRef, Subscription } from 'xstate';
import type { TimelineEvent, TimelineRates } from './events.js';
import type { TimelineInput } from './panel-input.js';
import { renderTimeline, type TimelineOptions } from './render.js';

/** A recording in progress: the events so far, and a picture of them at any time. */
export interface TimelineRecording {
  /** Every event recorded, as emitted (a delivery keeps its message); drops carry `at` added here. */
  readonly events: readonly TimelineEvent[];
  /** Stops listening; the events stay. */
  stop(): void;
  /** The picture so far ({@link renderTimeline}); `rate`, `channels` and `title` override the recorder's. */
  svg(options?: TimelineOptions & TimelineRates & { title?: string | undefined }): string;
}

/** What {@link recordTimeline} takes besides the actor. */
export interface RecordTimelineOptions extends TimelineRates {
  title?: string | undefined;
  /** The throttler's time source, for stamping drops. Default: the throttler's own clock. */
  now?: (() => number) | undefined;
}

const RECORDED = ['delivered', 'activated', 'idled'] as const;

/**
 * Records what a throttler actor emits about time (`delivered`, `dropped`, `activated`, `idled`)
 * with `actor.on(...)`, for {@link renderTimeline}. Keeps every event until dropped with the
 * recording; stop() unsubscribes. A `dropped` event carries no time, so it is stamped with the
 * throttler's clock when it arrives. If the actor is already active, the recording starts with an
 * `activated` at the time of the call.
 */
export function recordTimeline(actor: AnyActorRef, options: RecordTimelineOptions = {}): TimelineRecording {
  const events: TimelineEvent[] = [];
  const contextNow: unknown = actor.getSnapshot()?.context?.now;
  const now =
    options.now ?? (typeof contextNow === 'function' ? (contextNow as () => number) : () => performance.now());
  if (actor.getSnapshot()?.value === 'active') events.push({ type: 'activated', at: now() });
  const subscriptions: Subscription[] = RECORDED.map((type) =>
    actor.on(type, (event: TimelineEvent) => {
      events.push(event);
    }),
  );
  subscriptions.push(
    actor.on('dropped', (event: TimelineEvent) => {
      events.push({ ...event, type: 'dropped', at: now() });
    }),
  );
  return {
    events,
    stop() {
      for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
    },
    svg(svgOptions = {}) {
      const input: TimelineInput = {
        events,
        rate: svgOptions.rate ?? options.rate,
        channels: svgOptions.channels ?? options.channels,
        title: svgOptions.title ?? options.title,
        dimension: svgOptions.dimension ?? options.dimension,
      };
      return renderTimeline(input, svgOptions);
    },
  };
}
