import { afterEach, describe, expect, it } from 'vitest';
import { type AnyActorRef, createActor, createEmptyActor, SimulatedClock } from 'xstate';
import { throttlerMachine } from '../../src/machine/named-machine.js';
import { createMemoryStore, type SharedStore } from '../../src/store/index.js';
import type { SharedLimiterConfig } from '../../src/store/protocol.js';
import { overfullWindows } from '../support/oracle.js';

/**
 * Issue 33 (W6 on a loaded host: our store throttler started 2 of 600 tasks in 20 s), in virtual time on the
 * memory store with a 20 ms grace: every timer of the throttler fires `TIMER_LATE_MS` late, and every reply
 * of the store is read `REPLY_READ_MS` after its call (the store decides at once). A grant due at a timer is
 * past its grace by then, so it is moved to Redis' now (late-grants.ts). Before the fix it was moved a round
 * trip ahead: its reply came before that time (and this process's clock bounds put Redis' clock another round
 * trip behind), so it waited for the one timer, which came late again, past the grace; moved twice, given
 * back, asked for again, late again: nothing went. Now it is moved by what the last replies took to come
 * back, so it is due when its reply is read, and goes then, at once.
 */
const TIMER_LATE_MS = 30;
const REPLY_READ_MS = 8;
const GRACE_MS = 20;

const started: Array<{ stop(): void }> = [];
afterEach(() => {
  for (const actor of started.splice(0)) actor.stop();
});

/** The memory store whose replies are read `REPLY_READ_MS` after each call, released by `readDue`. */
function slowReadStore(clock: SimulatedClock) {
  const store = createMemoryStore({ name: 'late-read', clock: () => clock.now(), grantGraceMs: GRACE_MS });
  const pending: Array<{ at: number; read: () => void }> = [];
  const open = store.open.bind(store);
  store.open = (config: SharedLimiterConfig) => {
    const inner = open(config);
    return new Proxy(inner, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== 'function' || property === 'subscribe') return value;
        return (...args: unknown[]) => {
          const answer = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!(answer instanceof Promise)) return answer;
          const at = clock.now() + REPLY_READ_MS;
          return answer.then((result) => new Promise((resolve) => pending.push({ at, read: () => resolve(result) })));
        };
      },
    });
  };
  return {
    store: store as SharedStore,
    nextRead: () => Math.min(...pending.map((p) => p.at)),
    readDue() {
      const due = pending.filter((p) => p.at <= clock.now());
      for (const p of due) pending.splice(pending.indexOf(p), 1);
      for (const p of due) p.read();
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('a throttler whose timers fire late, past the grace, on a store whose replies are read late', () => {
  it('still sends on its grants, re-timed to when their replies are read, within the limit', async () => {
    const clock = new SimulatedClock();
    const slow = slowReadStore(clock);
    const target = createEmptyActor() as AnyActorRef;
    target.start();
    const actor = createActor(throttlerMachine, {
      input: { rate: '10/1s', strategy: 'sliding-window', store: slow.store, now: () => clock.now(), target },
      clock,
    });
    const deliveries: Array<{ at: number; cost: number; channel: undefined }> = [];
    const rewound: Array<{ given: number; moved: number }> = [];
    actor.on('*', (event) => {
      if (event.type === 'delivered') deliveries.push({ at: event.at, cost: 1, channel: undefined });
      if (event.type === 'storeGrantsRewound') rewound.push(event as unknown as { given: number; moved: number });
    });
    actor.start();
    started.push(actor);
    actor.send({
      type: 'QUEUE_BATCH',
      messages: Array.from({ length: 40 }, (_, n) => ({ message: { type: 'job', n } })),
    });
    // The next event: a reply to read, or the one timer, which fires TIMER_LATE_MS after it is due.
    for (;;) {
      for (let i = 0; i < 3; i++) await turn();
      if (clock.now() >= 10_000 || deliveries.length === 40) break;
      const wakeAt = actor.getSnapshot().context.wakeAt;
      const next = Math.min(slow.nextRead(), Number.isFinite(wakeAt) ? wakeAt + TIMER_LATE_MS : Infinity, 10_000);
      clock.increment(Math.max(0, next - clock.now()));
      slow.readDue();
    }
    // 40 at 10 a second: four seconds' worth, each window of grants spaced by the interval + grace.
    expect(deliveries.length).toBe(40);
    // Each window's grants moved once and sent as the move's reply was read (before: moved twice, given back,
    // asked for again, 3458 ms for the last ten).
    // Each window after the first: its timer (late), the move's reply read, the sends (3182 ms for the last).
    expect(clock.now()).toBeLessThanOrEqual(REPLY_READ_MS + 3 * (1000 + GRACE_MS + TIMER_LATE_MS + REPLY_READ_MS));
    expect(overfullWindows({ overall: [{ limit: 10, interval: 1000 }], channels: {} }, deliveries)).toEqual([]);
    // Every late grant was moved and used, none given back for lack of time.
    expect(rewound.reduce((sum, r) => sum + r.given, 0)).toBe(0);
  }, 30_000);
});
