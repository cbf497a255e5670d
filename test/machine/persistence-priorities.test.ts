import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { restoreThrottler, type ThrottlerActor, type ThrottlerEmitted, throttlerMachine } from '../../src/index.js';
import { machineContext } from '../support/machine-context.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/**
 * Priorities and deadlines across a restart: saved with each waiting message (a deadline on the
 * wall clock, like every saved time), written as format 3 only when a message has either, and
 * every older format still read. Virtual time moves Date.now() too; the restored throttler reads a
 * clock that starts elsewhere, as a new process's would.
 */

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const persist = (actor: ThrottlerActor) => JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));

/** Records deliveries and expiries with the wall clock (Date.now()), the one clock two processes share. */
function watch(actor: ThrottlerActor) {
  const log: Array<[string, number, number]> = [];
  actor.on('delivered', (e) => log.push(['delivered', (e.message as Numbered).n, Date.now()]));
  actor.on('dropped', (e) => log.push([e.reason, (e.message as Numbered).n, Date.now()]));
  return log;
}

function savedWithPriorities() {
  const actor = createActor(throttlerMachine, {
    input: { rate: '1/1s', strategy: 'sliding-window', maxPriorityWait: '9s' },
  }).start();
  actor.send({ type: 'QUEUE', message: msg(0), priority: 1 });
  actor.send({ type: 'QUEUE', message: msg(1), priority: 8 });
  actor.send({ type: 'QUEUE', message: msg(2), maxWait: 2_500 });
  actor.send({ type: 'QUEUE', message: msg(3), priority: 9, deadline: 10_000 });
  advance(500);
  const saved = persist(actor);
  actor.stop();
  return saved;
}

describe('persisting priorities and deadlines', () => {
  it('restores the order and every deadline, on the wall clock, in a process whose clock starts elsewhere', () => {
    const saved = savedWithPriorities();
    expect(saved.context.dispatcher.format).toBe('xstate-throttler/3');
    expect(saved.context.dispatcher.options.maxPriorityWait).toBe(9_000);
    expect(
      saved.context.dispatcher.state.queue.map((m: { priority?: number; deadline?: number }) => [
        m.priority,
        m.deadline,
      ]),
    ).toEqual([
      [1, undefined],
      [8, undefined],
      [undefined, 2_500],
      [9, 10_000],
    ]);
    advance(500); // the restart takes half a second
    const target = createRecorder<Numbered>();
    const restored = restoreThrottler(saved, { now: () => performance.now() + 123_456 });
    const log = watch(restored);
    restored.send({ type: 'SET_TARGET', target: target.ref });
    advance(10_000);
    expect(log).toEqual([
      ['delivered', 3, 1000],
      ['delivered', 1, 2000],
      ['expired', 2, 2500],
      ['delivered', 0, 3000],
    ]);
  });

  it('drops a message whose deadline passed while it was saved, never delivering it', () => {
    const saved = savedWithPriorities();
    advance(5_000);
    const restored = restoreThrottler(saved);
    const log = watch(restored);
    restored.send({ type: 'SET_TARGET', target: createRecorder().ref });
    advance(10_000);
    expect(log.filter(([kind]) => kind === 'expired')).toEqual([['expired', 2, 5500]]);
    expect(log.filter(([kind]) => kind === 'delivered').map(([, n]) => n)).toEqual([3, 1, 0]);
  });

  it('writes format 2 when no waiting message has a priority or a deadline, which this version and the last both read', () => {
    const actor = createActor(throttlerMachine, { input: { rate: '1/1s', strategy: 'sliding-window' } }).start();
    for (const n of [0, 1, 2]) actor.send({ type: 'QUEUE', message: msg(n) });
    const saved = persist(actor);
    expect(saved.context.dispatcher.format).toBe('xstate-throttler/2');
    expect(Object.keys(saved.context.dispatcher.state.queue[0]).sort()).toEqual(['cost', 'message', 'queuedAt']);
    const target = createRecorder<Numbered>();
    restoreThrottler(saved, { target: target.ref });
    advance(5_000);
    expect(target.messages().map((m) => m.n)).toEqual([0, 1, 2]);
  });

  it('reads a format 2 snapshot written before priorities (no maxPriorityWait, no fields): defaults', () => {
    const actor = createActor(throttlerMachine, { input: { rate: '1/1s', strategy: 'sliding-window' } }).start();
    for (const n of [0, 1]) actor.send({ type: 'QUEUE', message: msg(n) });
    const saved = persist(actor);
    delete saved.context.dispatcher.options.maxPriorityWait;
    const restored = restoreThrottler(saved);
    expect(machineContext(restored).dispatcher.toJSON().options.maxPriorityWait).toBe(60_000);
    const target = createRecorder<Numbered>();
    restored.send({ type: 'QUEUE', message: msg(2), priority: 9 });
    restored.send({ type: 'SET_TARGET', target: target.ref });
    advance(5_000);
    // Nothing had gone (no target): the newcomer of priority 9 goes before both.
    expect(target.messages().map((m) => m.n)).toEqual([2, 0, 1]);
  });
});

describe('damaged priorities and deadlines in a snapshot', () => {
  it.each([
    ['priority', 10, 'an integer from 0 to 9, got 10'],
    ['priority', 1.5, 'an integer from 0 to 9, got 1.5'],
    ['priority', '5', 'an integer from 0 to 9, got "5"'],
    ['priority', null, 'an integer from 0 to 9, got null'],
    ['deadline', 'soon', 'a wall-clock time in ms (finite), got "soon"'],
    ['deadline', null, 'a wall-clock time in ms (finite), got null'],
    ['deadline', Number.POSITIVE_INFINITY, 'a wall-clock time in ms (finite), got Infinity'],
    ['deadline', Number.NaN, 'a wall-clock time in ms (finite), got NaN'],
  ])('refuses %s %s, naming its path and the value', (field, value, requirement) => {
    const saved = savedWithPriorities();
    saved.context.dispatcher.state.queue[1][field] = value;
    expect(() => restoreThrottler(saved)).toThrow(
      `persisted.context.dispatcher.state.queue[1].${field} must be ${requirement}`,
    );
  });

  it('takes a far deadline as QUEUE took it (1e300 ms away): kept, never expiring early', () => {
    const saved = savedWithPriorities();
    saved.context.dispatcher.state.queue[1].deadline = 1e300;
    const restored = restoreThrottler(saved);
    expect(restored.getSnapshot().context.counts.queued).toBe(4);
    expect(JSON.parse(JSON.stringify(restored.getPersistedSnapshot())).context.dispatcher.state.queue[1].deadline).toBe(
      1e300,
    );
  });

  it('refuses a bad maxPriorityWait as the option it is', () => {
    const saved = savedWithPriorities();
    saved.context.dispatcher.options.maxPriorityWait = -1;
    expect(() => restoreThrottler(saved)).toThrow(/^maxPriorityWait must be /);
  });

  it('a snapshot that restores emits nothing odd: the restored throttler reports drops as any other', () => {
    const saved = savedWithPriorities();
    const restored = restoreThrottler(saved);
    const emitted: ThrottlerEmitted[] = [];
    restored.on('*', (e) => emitted.push(e as ThrottlerEmitted));
    restored.send({ type: 'QUEUE', message: msg(4), priority: 'high' } as never);
    expect(emitted.map((e) => e.type)).toEqual(['rejected']);
    expect(restored.getSnapshot().context.counts.queued).toBe(4);
  });
});
