/**
 * What the Stately inspector would be sent, checked offline: @statelyai/inspect's
 * own createInspector (the one behind createBrowserInspector) with an adapter
 * that captures instead of posting to stately.ai, fed through
 * summarizeInspection by a throttler holding 100,000 waiting messages. The
 * adapter serialises each event as it arrives, as the browser adapter does once
 * the inspector window is connected (it posts JSON-parsed copies).
 */
import { createBrowserInspector, createInspector, type StatelyInspectionEvent } from '@statelyai/inspect';
import { describe, expect, it, vi } from 'vitest';
import { type AnyEventObject, createActor, createEmptyActor, type InspectionEvent } from 'xstate';
import { summarizeInspection, ThrottlerOptionError, throttlerMachine } from '../../src/index.js';
import { createRecorder, msg } from '../support/recorder.js';

const WAITING = 100_000;
/** Each event the inspector would post: a summary, the definition, or one event; never the queue. */
const MAX_EVENT_BYTES = 16_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A throttler inspected through summarizeInspection by the inspector package, and what it would send. */
function inspectedThrottler() {
  const sent: Array<{ event: StatelyInspectionEvent; json: string }> = [];
  const unserialisable: unknown[] = [];
  const inspector = createInspector({
    send(event) {
      try {
        sent.push({ event, json: JSON.stringify(event) });
      } catch (error) {
        unserialisable.push(error);
      }
    },
  });
  const throttler = createActor(throttlerMachine, {
    input: { rate: '1/1d', strategy: 'sliding-window' },
    inspect: summarizeInspection(inspector.inspect, { maxMessages: 10 }),
  }).start();
  const ofType = <T extends StatelyInspectionEvent['type']>(type: T) =>
    sent
      .filter(({ event }) => event.type === type)
      .map(({ json }) => JSON.parse(json) as Extract<StatelyInspectionEvent, { type: T }>);
  // The inspector converts what it is given in an idle callback (a timer in Node): let those run.
  const settle = () => sleep(20);
  return { throttler, sent, unserialisable, ofType, settle };
}

const largestEvent = (sent: ReadonlyArray<{ json: string }>) =>
  sent.reduce((largest, { json }) => Math.max(largest, json.length), 0);

/** Queues WAITING messages in batches of 100 (one QUEUE per message would take the inspector seconds). */
function fillQueue(throttler: ReturnType<typeof inspectedThrottler>['throttler']): void {
  for (let from = 0; from < WAITING; from += 100) {
    const messages = Array.from({ length: 100 }, (_, i) => ({ message: msg(from + i) }));
    throttler.send({ type: 'QUEUE_BATCH', messages });
  }
}

describe('the Stately inspector, through summarizeInspection', () => {
  it('would be sent small, serialisable events with readable state and event names for a 100k queue', async () => {
    const { throttler, sent, unserialisable, ofType, settle } = inspectedThrottler();
    await settle(); // the inspector registers the actor
    // No target yet: everything waits, idle. Then a target: active, one delivered, the rest wait a day.
    fillQueue(throttler);
    throttler.send({ type: 'QUEUE', message: msg(WAITING) });
    throttler.send({ type: 'SET_TARGET', target: createRecorder().ref });
    expect(throttler.getSnapshot().value).toBe('active');
    expect(throttler.getSnapshot().context.counts.queued).toBe(WAITING);
    await settle();
    throttler.stop();

    expect(unserialisable).toEqual([]);
    expect(sent.length).toBeGreaterThan(2 * (WAITING / 100)); // an event and a snapshot per batch
    expect(largestEvent(sent)).toBeLessThan(MAX_EVENT_BYTES);

    const [registered] = ofType('@xstate.actor');
    expect(registered?.name).toBe('throttler');
    expect(registered?.definition).toContain('"idle"');
    expect(registered?.definition).toContain('Queues messages and forwards them');
    const states = ofType('@xstate.snapshot').map((event) => (event.snapshot as { value?: unknown }).value);
    expect(new Set(states)).toEqual(new Set(['idle', 'active']));
    const events = new Set(ofType('@xstate.event').map((event) => (event.event as AnyEventObject).type));
    for (const type of ['QUEUE_BATCH', 'QUEUE', 'SET_TARGET']) expect(events).toContain(type);
    const last = ofType('@xstate.snapshot').at(-1)?.snapshot as unknown as {
      context: { dispatcher: Record<string, unknown> };
    };
    expect(last.context.dispatcher).toMatchObject({ queued: WAITING, delivered: 1 });
    expect(last.context.dispatcher.firstWaiting).toHaveLength(10);
  });

  it('the actor registration is summarised even when the inspector reads it after the queue filled', async () => {
    // For @xstate.actor the inspector sends actorRef.getSnapshot(), read in its idle callback (and the
    // browser adapter serialises what it held back only once the inspector window connects): by then
    // the queue has filled. Before summarizeInspection handed it a summarising view, 7.5 MB here.
    const { throttler, sent, settle } = inspectedThrottler();
    fillQueue(throttler);
    await settle();
    throttler.stop();
    const registration = sent.filter(({ event }) => event.type === '@xstate.actor');
    expect(registration).toHaveLength(1);
    expect(largestEvent(registration)).toBeLessThan(MAX_EVENT_BYTES);
    expect(registration[0]?.json).toContain(`"queued":${WAITING}`);
  });

  it('a QUEUE_BATCH event is sent with its first messages and its size, and so is the snapshot event it caused', async () => {
    const { throttler, sent, settle, ofType } = inspectedThrottler();
    await settle();
    const messages = Array.from({ length: WAITING }, (_, n) => ({ message: msg(n) }));
    throttler.send({ type: 'QUEUE_BATCH', messages });
    await settle();
    throttler.stop();
    // Before, over 1 MB each.
    expect(largestEvent(sent)).toBeLessThan(MAX_EVENT_BYTES);
    const batch = ofType('@xstate.event').find((event) => (event.event as AnyEventObject).type === 'QUEUE_BATCH');
    expect(batch?.event).toMatchObject({ batchSize: WAITING });
    expect((batch?.event as unknown as { messages: unknown[] }).messages).toHaveLength(10);
    expect(throttler.getSnapshot().context.counts.queued).toBe(WAITING);
  });

  it('in Node, createBrowserInspector has no inspect, which summarizeInspection refuses by name (docs/observing.md: browser only)', () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const inspector = createBrowserInspector();
      expect(inspector.inspect).toBeUndefined();
      expect([...said.mock.calls, ...warned.mock.calls].flat().join(' ')).toContain('Window does not exist');
      expect(() => summarizeInspection(inspector.inspect)).toThrow(ThrottlerOptionError);
      expect(() => summarizeInspection(inspector.inspect)).toThrow(/inspect/);
    } finally {
      said.mockRestore();
      warned.mockRestore();
    }
  });

  it('in Node, offline, a plain observer is given the events and the summarised snapshots (docs/observing.md)', () => {
    const seen: InspectionEvent[] = [];
    const throttler = createActor(throttlerMachine, {
      input: { rate: '2/1s', strategy: 'sliding-window' },
      inspect: summarizeInspection((event) => seen.push(event), { maxMessages: 3 }),
    }).start();
    const target = createEmptyActor();
    target.start();
    throttler.send({ type: 'SET_TARGET', target });
    for (let n = 1; n <= 6; n++) throttler.send({ type: 'QUEUE', message: { type: 'call', n } });
    const events = seen.flatMap((event) => (event.type === '@xstate.event' ? [event.event.type] : []));
    expect(events.filter((type) => type === 'QUEUE')).toHaveLength(6);
    expect(events.filter((type) => type === 'call')).toHaveLength(2);
    const last = seen.filter((event) => event.type === '@xstate.snapshot').at(-1) as { snapshot: unknown };
    const summary = JSON.parse(JSON.stringify(last.snapshot)) as {
      value: string;
      context: { counts: { queued: number }; dispatcher: { firstWaiting: Array<{ message: { n: number } }> } };
    };
    expect(summary.value).toBe('active');
    expect(summary.context.counts.queued).toBe(4);
    expect(summary.context.dispatcher.firstWaiting.map(({ message }) => message.n)).toEqual([3, 4, 5]);
    throttler.stop();
  });
});
