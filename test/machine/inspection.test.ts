import { describe, expect, it } from 'vitest';
import { createActor, type InspectionEvent } from 'xstate';
import { summarizeInspection, throttlerMachine } from '../../src/index.js';
import { msg } from '../support/recorder.js';

describe('summarizeInspection', () => {
  it('hands the inspector a summary of a large queue, with readable states and event names', () => {
    const seen: InspectionEvent[] = [];
    const actor = createActor(throttlerMachine, {
      input: { rate: '1/1d' },
      inspect: summarizeInspection((event) => seen.push(event), { maxMessages: 3 }),
    }).start();
    for (let n = 0; n < 10_000; n++) actor.send({ type: 'QUEUE', message: msg(n) });

    const snapshots = seen.filter((e) => e.type === '@xstate.snapshot');
    const last = snapshots.at(-1) as unknown as { snapshot: { value: string; context: { dispatcher: unknown } } };
    expect(last.snapshot.value).toBe('idle');
    expect(last.snapshot.context.dispatcher).toEqual({
      queued: 10_000,
      delivered: 0,
      dropped: 0,
      rejected: 0,
      inFlight: 0,
      pausedUntil: Number.NEGATIVE_INFINITY,
      firstWaiting: [0, 1, 2].map((n) => ({
        message: msg(n),
        channel: undefined,
        cost: 1,
        queuedAt: expect.any(Number),
      })),
    });
    // What an inspector serialises stays small however long the queue is.
    expect(JSON.stringify(last.snapshot).length).toBeLessThan(2_000);
    const eventTypes = new Set(
      seen.filter((e) => e.type === '@xstate.event').map((e) => (e as { event: { type: string } }).event.type),
    );
    expect(eventTypes).toContain('QUEUE');
    // The live actor still holds the real queue.
    expect(actor.getSnapshot().context.counts.queued).toBe(10_000);
  });

  it('passes other actors and non-snapshot events through untouched', () => {
    const seen: InspectionEvent[] = [];
    const forward = summarizeInspection({ next: (event) => seen.push(event) });
    const event = { type: '@xstate.snapshot', snapshot: { context: { n: 1 } } } as unknown as InspectionEvent;
    forward(event);
    expect(seen[0]).toBe(event);
  });
});
