import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor, type InspectionEvent } from 'xstate';
import { type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/**
 * The quiet paths (src/machine/quiet.ts): a QUEUE with nothing to emit, raise or
 * cancel runs as a plain assign. What it does must be what the ordinary path does;
 * these tests see which path ran through the inspector, and compare the two.
 */
function start(input: Partial<ThrottlerInput>, options: { hearDeliveries?: boolean } = {}) {
  const target = createRecorder<Numbered>();
  const actions: string[] = [];
  // The transitions each event took, by their actions' names.
  const inspect = (event: InspectionEvent) => {
    if (event.type !== '@xstate.microstep') return;
    for (const transition of event._transitions)
      for (const action of transition.actions) actions.push(typeof action === 'string' ? action : String(action));
  };
  const actor = createActor(throttlerMachine, {
    input: { rate: '2/1s', strategy: 'sliding-window', target: target.ref, ...input },
    inspect,
  });
  const delivered: number[] = [];
  if (options.hearDeliveries) actor.on('delivered', (event) => delivered.push((event.message as Numbered).n));
  actor.start();
  const queue = (n: number, fields: Record<string, unknown> = {}) => {
    actions.length = 0;
    actor.send({ type: 'QUEUE', message: msg(n), ...fields });
    return [...actions];
  };
  return { actor, target, queue, delivered };
}

describe('quiet paths: a QUEUE with nothing to tell is a plain assign, and does what the ordinary path does', () => {
  it('in idle, a message the rate allows passes straight through quietly; queued ones join quietly behind the head', () => {
    const { actor, target, queue } = start({});
    expect(queue(1)).toEqual(['passThroughQuietly']);
    expect(queue(2)).toEqual(['passThroughQuietly']);
    // The window is full: the first to wait takes the ordinary path (it arms the timer, goes active).
    expect(queue(3)).toContain('queueMessage');
    expect(queue(4)).toEqual(['queueQuietly']);
    expect(queue(5)).toEqual(['queueQuietly']);
    expect(actor.getSnapshot().context.counts).toMatchObject({ queued: 3, delivered: 2 });
    advance(1000);
    expect(target.messages().map((m) => m.n)).toEqual([1, 2, 3, 4]);
    advance(1000);
    expect(target.times()).toEqual([0, 0, 1000, 1000, 2000]);
    expect(actor.getSnapshot().context.counts).toMatchObject({ queued: 0, delivered: 5 });
  });

  it('the same arrivals deliver at the same times whether or not anyone hears the deliveries', () => {
    const arrivals = [0, 0, 0, 10, 10, 250, 600, 600, 600, 1500, 1500, 1700];
    const run = (hearDeliveries: boolean) => {
      const { target, queue, delivered } = start({ rate: ['3/1s', '2/300ms'] }, { hearDeliveries });
      const startedAt = now();
      let clock = 0;
      const paths = new Set<string>();
      arrivals.forEach((at, n) => {
        advance(at - clock);
        clock = at;
        for (const action of queue(n)) paths.add(action);
      });
      advance(10_000);
      return {
        times: target.times().map((at) => at - startedAt),
        order: target.messages().map((m) => m.n),
        paths,
        delivered,
      };
    };
    const quiet = run(false);
    const heard = run(true);
    expect(quiet.times).toEqual(heard.times);
    expect(quiet.order).toEqual(heard.order);
    expect(heard.delivered).toEqual(heard.order);
    expect(quiet.paths).toContain('queueQuietly');
    expect(quiet.paths).toContain('passThroughQuietly');
    expect(heard.paths).not.toContain('queueQuietly');
    expect(heard.paths).not.toContain('passThroughQuietly');
  });

  it('a message that would outrank, carries a deadline or a channel, or is invalid takes the ordinary path', () => {
    const { target, queue, actor } = start({ channels: { a: '5/1s' } });
    const invalid: string[] = [];
    actor.on('rejected', (event) => invalid.push(event.error.message));
    queue(1);
    queue(2);
    queue(3, { priority: 2 });
    // Default priority (5) outranks the waiting 2: it becomes the head, so the pass must look at it.
    expect(queue(4)).toContain('queueAndDeliver');
    expect(queue(5)).toContain('queueAndDeliver');
    expect(queue(6, { maxWait: 5000 })).toContain('queueAndDeliver');
    expect(queue(7, { channel: 'a' })).toContain('queueAndDeliver');
    expect(queue(8, { cost: 0 })).toContain('queueAndDeliver');
    expect(invalid).toEqual(['cost must be a positive integer, got 0']);
    advance(10_000);
    expect(target.messages().map((m) => m.n)).toEqual([1, 2, 4, 5, 6, 7, 3]);
  });

  it('in active and FIFO order, a message on a channel or with a deadline no sooner than the wake-up joins quietly', () => {
    const { target, queue, actor } = start({ channels: { a: '5/1s' } });
    const dropped: Array<[number, string]> = [];
    actor.on('dropped', (event) => dropped.push([(event.message as Numbered).n, event.reason]));
    const startedAt = now();
    queue(1);
    queue(2);
    expect(queue(3)).toContain('queueMessage');
    expect(actor.getSnapshot().context.wakeAt).toBe(startedAt + 1000);
    expect(queue(4, { channel: 'a' })).toEqual(['queueQuietly']);
    expect(queue(5, { maxWait: 5000 })).toEqual(['queueQuietly']);
    expect(queue(6, { deadline: startedAt + 3000 })).toEqual(['queueQuietly']);
    // Due to be dropped before the wake-up: the ordinary path arms the timer for it.
    expect(queue(7, { maxWait: 500 })).toContain('queueAndDeliver');
    expect(actor.getSnapshot().context.wakeAt).toBe(startedAt + 500);
    // Refused (no such channel): the ordinary path says so.
    expect(queue(8, { channel: 'nope' })).toContain('queueAndDeliver');
    expect(actor.getSnapshot().context.counts).toMatchObject({ queued: 5, rejected: 1 });
    advance(10_000);
    expect(target.messages().map((m) => m.n)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(target.times().map((at) => at - startedAt)).toEqual([0, 0, 1000, 1000, 2000, 2000]);
    expect(dropped).toEqual([[7, 'expired']]);
  });

  it('in active and per-channel order, a message its channel lets go now goes ahead quietly, as the ordinary path sends it', () => {
    const input: Partial<ThrottlerInput> = {
      rate: '3/1s',
      channels: { a: '1/1s', b: '5/1s' },
      ordering: 'per-channel',
    };
    const arrivals: Array<[number, Record<string, unknown>]> = [
      [0, { channel: 'a' }],
      [0, { channel: 'a' }],
      [10, { channel: 'b' }],
      [20, { channel: 'b', maxWait: 100 }],
      [30, { channel: 'b' }],
      [400, { channel: 'a', maxWait: 300 }],
      [1100, { channel: 'b' }],
      [1100, {}],
      [1200, { channel: 'b' }],
      [2500, { channel: 'b' }],
    ];
    const run = (hearDeliveries: boolean) => {
      const { target, queue, actor } = start(input, { hearDeliveries });
      const dropped: number[] = [];
      actor.on('dropped', (event) => dropped.push((event.message as Numbered).n));
      const startedAt = now();
      let clock = 0;
      const paths = new Set<string>();
      arrivals.forEach(([at, fields], n) => {
        advance(at - clock);
        clock = at;
        for (const action of queue(n, fields)) paths.add(action);
      });
      advance(10_000);
      const { queuedTotal } = (actor.getSnapshot().context as unknown as { dispatcher: { queuedTotal: number } })
        .dispatcher;
      return {
        times: target.times().map((at) => at - startedAt),
        order: target.messages().map((m) => m.n),
        dropped,
        paths,
        counts: actor.getSnapshot().context.counts,
        queuedTotal,
      };
    };
    const quiet = run(false);
    const heard = run(true);
    expect(quiet.paths).toContain('passAheadQuietly');
    expect(heard.paths).not.toContain('passAheadQuietly');
    expect({ ...quiet, paths: undefined }).toEqual({ ...heard, paths: undefined });
    // 1 waits for its channel, 4 for the overall limit: both go as the first second ends, 1 first (it came first).
    expect(quiet.order).toEqual([0, 2, 3, 1, 4, 6, 7, 8, 9]);
    expect(quiet.dropped).toEqual([5]);
  });
});
