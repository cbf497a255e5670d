import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import { byAnyName } from '../../src/engine/options/strategy-option.js';
import { type ThrottlerInput, throttlerMachine, turnClock } from '../../src/index.js';
import { DELIVERY_GATE, type MachineInput } from '../../src/machine/machine-types.js';
import { machineKnowing } from '../../src/machine/throttler-machine.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, pendingTimers, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/** The machine with the library's own types, its input naming strategies as the main entry's does. */
const internalThrottlerMachine = machineKnowing(byAnyName);

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** The most deliveries in any window [t, t + interval), by brute force over sorted times. */
function mostInAnyWindow(times: number[], interval: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while ((times[last] as number) - (times[first] as number) >= interval) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/**
 * An XState clock whose zero-delay wake-ups run at `nextTurn()`, as setImmediate callbacks run at
 * the next turn of the event loop, while virtual time stands still; longer delays go on the fake
 * setTimeout. (Fake timers move a zero delay armed inside a timer to 1 ms later, as Node does for
 * setTimeout, but not for setImmediate.)
 */
function turnsClock() {
  const turns = new Map<number, () => void>();
  let nextId = 0;
  const clock = {
    setTimeout(callback: () => void, timeout: number) {
      if (timeout > 0) return { timer: setTimeout(callback, timeout) };
      nextId += 1;
      turns.set(nextId, callback);
      return { turn: nextId };
    },
    clearTimeout(pending: { timer?: ReturnType<typeof setTimeout>; turn?: number }) {
      if (pending.timer !== undefined) clearTimeout(pending.timer);
      if (pending.turn !== undefined) turns.delete(pending.turn);
    },
  };
  const nextTurn = (): void => {
    const due = [...turns.values()];
    turns.clear();
    for (const callback of due) callback();
  };
  return { clock, nextTurn, pendingTurns: () => turns.size };
}

function batchOf(count: number) {
  return { type: 'QUEUE_BATCH' as const, messages: Array.from({ length: count }, (_, n) => ({ message: msg(n) })) };
}

describe('maxDeliveriesPerTurn: a backlog goes out in slices, one turn of the loop apart', () => {
  it('a 10k batch at 5000/1s: its first 5000 at once (as 5000 QUEUEs would), the release at 1000 in slices of 1000', () => {
    const target = createRecorder<Numbered>();
    const { clock, nextTurn, pendingTurns } = turnsClock();
    const input: ThrottlerInput = { rate: '5000/1s', strategy: 'sliding-window', target: target.ref };
    const actor = createActor(throttlerMachine, { input, clock }).start();
    actor.send(batchOf(10_000));
    // What a sender hands over goes in its own turn as far as the rate allows: the slice is on top of it.
    expect(target.received).toHaveLength(5000);
    expect(pendingTurns()).toBe(0);
    // The window is full: the one timer now waits for it to move on.
    expect(actor.getSnapshot().context.wakeAt).toBe(1000);
    expect(pendingTimers()).toBe(1);
    advance(1_000);
    // What the throttler releases by itself goes in slices, a turn of the loop apart.
    const later = [target.received.length];
    while (pendingTurns() > 0) {
      nextTurn();
      later.push(target.received.length);
    }
    expect(later).toEqual([6000, 7000, 8000, 9000, 10_000]);
    const times = target.times();
    expect(times.slice(0, 5000).every((at) => at === 0)).toBe(true);
    expect(times.slice(5000).every((at) => at === 1000)).toBe(true);
    expect(mostInAnyWindow(times, 1000)).toBe(5000);
    expect(target.messages().map((m) => m.n)).toEqual(Array.from({ length: 10_000 }, (_, n) => n));
    expect(actor.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
  });

  it('a batch that arrives while a backlog is being sliced waits its turn behind it', () => {
    const target = createRecorder<Numbered>();
    const { clock, nextTurn, pendingTurns } = turnsClock();
    const input: ThrottlerInput = { rate: '1000000/1s', strategy: 'sliding-window', maxDeliveriesPerTurn: 100 };
    const actor = createActor(throttlerMachine, { input, clock }).start();
    actor.send(batchOf(250));
    actor.send({ type: 'SET_TARGET', target: target.ref });
    expect(target.received).toHaveLength(100);
    actor.send({ type: 'QUEUE_BATCH', messages: [{ message: msg(250) }, { message: msg(251) }] });
    expect(target.received).toHaveLength(100);
    while (pendingTurns() > 0) nextTurn();
    expect(target.messages().map((m) => m.n)).toEqual(Array.from({ length: 252 }, (_, n) => n));
  });

  it('a backlog released by RESUME goes in slices of maxDeliveriesPerTurn; every message once, in order', () => {
    const target = createRecorder<Numbered>();
    const { clock, nextTurn, pendingTurns } = turnsClock();
    const input: ThrottlerInput = { rate: '1000000/1s', strategy: 'sliding-window', maxDeliveriesPerTurn: 300 };
    const actor = createActor(throttlerMachine, { input, clock }).start();
    actor.send({ type: 'PAUSE' });
    for (let n = 0; n < 1_000; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    actor.send({ type: 'SET_TARGET', target: target.ref });
    advance(7);
    expect(target.received).toHaveLength(0);
    actor.send({ type: 'RESUME' });
    const sizes = [target.received.length];
    while (pendingTurns() > 0) {
      nextTurn();
      sizes.push(target.received.length);
    }
    expect(sizes).toEqual([300, 600, 900, 1000]);
    expect(target.times().every((at) => at === 7)).toBe(true);
    expect(target.messages().map((m) => m.n)).toEqual(Array.from({ length: 1_000 }, (_, n) => n));
    expect(actor.getSnapshot().context.counts).toMatchObject({ queued: 0, delivered: 1_000 });
  });

  it('events that arrive between slices wait their turn behind the backlog, and count in it', () => {
    const target = createRecorder<Numbered>();
    const input: ThrottlerInput = { rate: '1000000/1s', strategy: 'sliding-window', maxDeliveriesPerTurn: 100 };
    const { clock, nextTurn, pendingTurns } = turnsClock();
    const actor = createActor(throttlerMachine, { input, clock }).start();
    actor.send(batchOf(250));
    // Setting the target releases the backlog: the throttler's own release, in slices.
    actor.send({ type: 'SET_TARGET', target: target.ref });
    expect(target.received).toHaveLength(100);
    // Arrives while the rest of the backlog waits for the wake-up: it queues behind it.
    actor.send({ type: 'QUEUE', message: msg(250) });
    actor.send({ type: 'SETTLED' });
    expect(target.received).toHaveLength(100);
    nextTurn();
    expect(target.received).toHaveLength(200);
    nextTurn();
    expect(target.messages().map((m) => m.n)).toEqual(Array.from({ length: 251 }, (_, n) => n));
    expect(pendingTurns()).toBe(0);
    expect(pendingTimers()).toBe(0);
  });

  it("with XState's default clock (setTimeout) each slice waits for a setTimeout(0): the window still holds", () => {
    const target = createRecorder<Numbered>();
    const input: ThrottlerInput = { rate: '5000/1s', strategy: 'sliding-window', target: target.ref };
    const actor = createActor(throttlerMachine, { input }).start();
    actor.send(batchOf(10_000));
    expect(target.received).toHaveLength(5000);
    advance(1_100);
    expect(target.received).toHaveLength(10_000);
    const times = target.times();
    // Node (and fake timers) run a setTimeout(0) armed inside a timer 1 ms later at the soonest.
    expect(Math.max(...times.slice(5000))).toBeLessThanOrEqual(1005);
    expect(new Set(times.slice(5000)).size).toBeGreaterThan(1);
    expect(mostInAnyWindow(times, 1000)).toBe(5000);
    expect(target.messages().map((m) => m.n)).toEqual(Array.from({ length: 10_000 }, (_, n) => n));
    expect(pendingTimers()).toBe(0);
  });

  it('Infinity: the whole backlog in one go', () => {
    const target = createRecorder<Numbered>();
    const input: ThrottlerInput = {
      rate: '1000000/1s',
      strategy: 'sliding-window',
      maxDeliveriesPerTurn: Number.POSITIVE_INFINITY,
      target: target.ref,
    };
    const actor = createActor(throttlerMachine, { input }).start();
    actor.send(batchOf(5_000));
    expect(target.received).toHaveLength(5_000);
    expect(pendingTimers()).toBe(0);
  });

  it('a slice that ends with nothing more due leaves a full slice for the next event', () => {
    const target = createRecorder<Numbered>();
    const input: ThrottlerInput = {
      rate: '1000000/1s',
      strategy: 'sliding-window',
      maxDeliveriesPerTurn: 10,
      target: target.ref,
    };
    const actor = createActor(throttlerMachine, { input }).start();
    actor.send(batchOf(8));
    actor.send(batchOf(8));
    actor.send(batchOf(10));
    expect(target.received).toHaveLength(26);
    expect(pendingTimers()).toBe(0);
  });
});

describe('deliveryGate (for adapters)', () => {
  it('asked before each due delivery; false holds the rest until a zero-delay wake-up', () => {
    const target = createRecorder<Numbered>();
    let open = true;
    const asked: number[] = [];
    const deliveryGate = () => {
      asked.push(target.received.length);
      return open;
    };
    const input: MachineInput = {
      rate: '10/1s',
      strategy: 'sliding-window',
      target: target.ref,
      [DELIVERY_GATE]: deliveryGate,
    };
    const { clock, nextTurn, pendingTurns } = turnsClock();
    const actor = createActor(internalThrottlerMachine, { input, clock }).start();
    actor.send({ type: 'PAUSE' });
    actor.send(batchOf(3));
    // Nothing was due: the gate was not asked.
    expect(asked).toEqual([]);
    open = false;
    actor.send({ type: 'RESUME' });
    expect(target.received).toHaveLength(0);
    expect(asked).toEqual([0]);
    expect(pendingTurns()).toBe(1);
    // Still closed at the wake-up: held again, for another zero-delay wake-up.
    nextTurn();
    expect(target.received).toHaveLength(0);
    open = true;
    nextTurn();
    expect(target.received.map((r) => [r.message.n, r.at])).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
    ]);
    expect(pendingTurns()).toBe(0);
    expect(pendingTimers()).toBe(0);
  });

  it('must be a function', () => {
    const input = { rate: '1/s', [DELIVERY_GATE]: 'open' as never };
    const actor = createActor(internalThrottlerMachine, { input });
    expect(actor.getSnapshot().status).toBe('error');
    expect((actor.getSnapshot().error as Error).message).toBe('deliveryGate must be a function, got "open"');
  });

  it('is no user option: a `deliveryGate` in the input is an unknown name, refused by name (option-names.ts)', () => {
    const target = createRecorder<Numbered>();
    const input = { rate: '10/1s', strategy: 'sliding-window', target: target.ref, deliveryGate: () => false } as const;
    const actor = createActor(throttlerMachine, { input: input as ThrottlerInput });
    expect(actor.getSnapshot().status).toBe('error');
    expect((actor.getSnapshot().error as Error).message).toMatch(
      /^deliveryGate is not an option of the throttler input \(got a function\); the options are rate, /,
    );
  });

  it('without it (the machine API), an event a target sends back during a delivery takes effect after the pass', () => {
    const received: number[] = [];
    const throttler = createActor(throttlerMachine, { input: { rate: '10/1s', strategy: 'sliding-window' } }).start();
    const target = createActor(
      fromCallback<Numbered>(({ receive }) => {
        receive((message) => {
          received.push(message.n);
          if (message.n === 0) throttler.send({ type: 'PAUSE', duration: 1_000 });
        });
      }),
    ).start();
    throttler.send({ type: 'PAUSE' });
    throttler.send(batchOf(5));
    throttler.send({ type: 'SET_TARGET', target });
    throttler.send({ type: 'RESUME' });
    // The PAUSE waited in the mailbox while the pass went on: all five went at 0.
    expect(received).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('turnClock', () => {
  it('arms a zero delay on setImmediate (a turn of the loop, no 1 ms floor), any other on setTimeout; both clear', () => {
    const clock = turnClock();
    const immediate = vi.spyOn(globalThis, 'setImmediate');
    const timeout = vi.spyOn(globalThis, 'setTimeout');
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('zero'), 0);
    clock.setTimeout(() => fired.push('five'), 5);
    clock.clearTimeout(clock.setTimeout(() => fired.push('cleared zero'), 0));
    clock.clearTimeout(clock.setTimeout(() => fired.push('cleared five'), 5));
    expect(immediate).toHaveBeenCalledTimes(2);
    expect(timeout).toHaveBeenCalledTimes(2);
    advance(5);
    expect(fired).toEqual(['zero', 'five']);
    expect(pendingTimers()).toBe(0);
  });
});
