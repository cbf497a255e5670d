import { describe, expect, it } from 'vitest';
import { createActor, type InspectionEvent } from 'xstate';
import { summarizeInspection, ThrottlerOptionError, throttlerMachine } from '../../src/index.js';
import { WAKE_EVENT } from '../../src/machine/own-events.js';
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

  it('summarises every event that carries a batch or a snapshot, microsteps too: a 100k batch stays small', () => {
    const seen: InspectionEvent[] = [];
    const actor = createActor(throttlerMachine, {
      input: { rate: '1/1d' },
      inspect: summarizeInspection((event) => seen.push(event), { maxMessages: 5 }),
    }).start();
    actor.send({ type: 'SET_TARGET', target: createActor(throttlerMachine, { input: { rate: '1/1s' } }).start() });
    const messages = Array.from({ length: 100_000 }, (_, n) => ({ message: msg(n) }));
    actor.send({ type: 'QUEUE_BATCH', messages });
    // The machine's own wake-up (marked as the library marks it): a transition with microsteps.
    actor.send(WAKE_EVENT as never);
    const types = new Set(seen.map((event) => event.type));
    expect(types).toContain('@xstate.microstep');
    for (const event of seen) {
      const { event: carried, snapshot } = event as { event?: unknown; snapshot?: unknown };
      // What an inspector would serialise of it: the event and the snapshot, each kept small.
      expect(JSON.stringify({ event: carried, snapshot }).length, event.type).toBeLessThan(4_000);
    }
    const batches = seen.flatMap((event) => {
      const carried = (event as { event?: { type?: string; batchSize?: number; messages?: unknown[] } }).event;
      return carried?.type === 'QUEUE_BATCH' ? [[event.type, carried.batchSize, carried.messages?.length]] : [];
    });
    expect(batches).toContainEqual(['@xstate.microstep', 100_000, 5]);
    expect(actor.getSnapshot().context.counts.queued).toBe(99_999);
  });

  it.each([[-1], [1.5], ['10'], [Number.NaN]])('refuses maxMessages %s, naming it', (maxMessages) => {
    expect(() => summarizeInspection(() => {}, { maxMessages: maxMessages as number })).toThrow(ThrottlerOptionError);
    expect(() => summarizeInspection(() => {}, { maxMessages: maxMessages as number })).toThrow(
      /^maxMessages must be an integer >= 0/,
    );
  });
});
