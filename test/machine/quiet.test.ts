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
});
