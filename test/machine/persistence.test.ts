import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type AnyActorRef, createActor, createMachine, type EventObject, fromCallback } from 'xstate';
import {
  restoreThrottler,
  type ThrottlerActor,
  type ThrottlerInput,
  ThrottlerOptionError,
  throttlerMachine,
} from '../../src/index.js';
import { machineContext } from '../support/machine-context.js';
import { advance, now, pendingTimers, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** A message that says where it belongs, so the target's log can be checked per channel. */
interface Job extends EventObject {
  type: 'job';
  n: number;
  channel?: string | undefined;
  cost: number;
}

const job = (n: number, channel?: string, cost = 1): Job => ({ type: 'job', n, channel, cost });

/** A delivery as the target saw it, on the WALL clock: the only clock two processes share. */
interface WallClockDelivery {
  readonly message: Job;
  readonly wallAt: number;
}

/** A target that logs each message with Date.now() (virtual, and moving with virtual time). */
function createWallClockTarget(log: WallClockDelivery[]): AnyActorRef {
  return createActor(
    fromCallback<Job>(({ receive }) => {
      receive((message) => log.push({ message, wallAt: Date.now() }));
    }),
  ).start();
}

function queueAll(actor: ThrottlerActor, jobs: Job[]): void {
  for (const message of jobs) {
    actor.send({ type: 'QUEUE', message, channel: message.channel, cost: message.cost, id: `job-${message.n}` });
  }
}

/** What survives a restart: the persisted snapshot as text, as an application would store it. */
function persist(actor: ThrottlerActor): string {
  return JSON.stringify(actor.getPersistedSnapshot());
}

/** The largest total cost in any window [t, t + interval), by brute force (windows start at a delivery). */
function busiestWindow(deliveries: readonly WallClockDelivery[], interval: number): number {
  let busiest = 0;
  for (const start of deliveries) {
    let cost = 0;
    for (const other of deliveries) {
      if (other.wallAt >= start.wallAt && other.wallAt < start.wallAt + interval) cost += other.message.cost;
    }
    busiest = Math.max(busiest, cost);
  }
  return busiest;
}

const numbers = (deliveries: readonly WallClockDelivery[]) => deliveries.map((d) => d.message.n);
const wallTimes = (deliveries: readonly WallClockDelivery[]) => deliveries.map((d) => d.wallAt);

/**
 * One run with a restart in the middle, and a reference run that stays in one
 * process and only loses its target for the same gap: a restore is correct
 * when nobody can tell the two apart.
 */
interface Scenario {
  input: ThrottlerInput;
  jobs: Job[];
  /** Virtual ms from the start to the snapshot. */
  persistAt: number;
  /** Virtual ms the process is down. */
  gap: number;
  /** Virtual ms after the restart to let it finish. */
  finishWithin: number;
  /** The restarted process's clock: 'continues' (same monotonic clock) or 'restarts' (reads 0 at the restart). */
  clock: 'continues' | 'restarts';
}

function runWithRestart(scenario: Scenario): {
  before: WallClockDelivery[];
  after: WallClockDelivery[];
  saved: string;
  restored: ThrottlerActor;
} {
  const before: WallClockDelivery[] = [];
  const after: WallClockDelivery[] = [];
  const first = createActor(throttlerMachine, {
    input: { ...scenario.input, target: createWallClockTarget(before) },
  }).start();
  queueAll(first, scenario.jobs);
  advance(scenario.persistAt);
  const saved = persist(first);
  first.stop();

  advance(scenario.gap);
  const restartedAt = now();
  const restored = restoreThrottler(JSON.parse(saved), {
    target: createWallClockTarget(after),
    now: scenario.clock === 'restarts' ? () => performance.now() - restartedAt : undefined,
  });
  advance(scenario.finishWithin);
  return { before, after, saved, restored };
}

/** The reference run, on a clock of its own that starts at 0 like the run under test. */
function runWithoutRestart(scenario: Scenario): WallClockDelivery[] {
  restoreRealTime();
  useVirtualTime();
  const log: WallClockDelivery[] = [];
  const target = createWallClockTarget(log);
  const actor = createActor(throttlerMachine, { input: { ...scenario.input, target } }).start();
  queueAll(actor, scenario.jobs);
  advance(scenario.persistAt);
  actor.send({ type: 'SET_TARGET', target: undefined });
  advance(scenario.gap);
  actor.send({ type: 'SET_TARGET', target });
  advance(scenario.finishWithin);
  actor.stop();
  return log;
}

const range = <T>(count: number, make: (n: number) => T): T[] => Array.from({ length: count }, (_, i) => make(i + 1));

describe('persisting and restoring a throttler across a process restart', () => {
  describe.each(['continues', 'restarts'] as const)('the monotonic clock %s in the new process', (clock) => {
    it('sliding window: the window holds across the restart; nothing lost, nothing twice, FIFO', () => {
      // 40 jobs at 5/1s go in batches at 0, 1000, 2000, ...; the snapshot is taken with 20 delivered,
      // and the restart comes 300 ms later, while the batch of 3000 still fills the window.
      const scenario: Scenario = {
        input: { rate: '5/1s', strategy: 'sliding-window' },
        jobs: range(40, (n) => job(n)),
        persistAt: 3_500,
        gap: 300,
        finishWithin: 5_000,
        clock,
      };
      const { before, after, restored } = runWithRestart(scenario);
      expect(numbers(before)).toEqual(range(20, (n) => n));

      const all = [...before, ...after];
      expect(numbers(all)).toEqual(range(40, (n) => n));
      expect(busiestWindow(all, 1_000)).toBeLessThanOrEqual(5);
      // Work-conserving after the restart too: the first restored batch goes the moment the window opens.
      expect(after[0]?.wallAt).toBe(4_000);
      expect(wallTimes(all)).toEqual(wallTimes(runWithoutRestart(scenario)));
      expect(restored.getSnapshot().context.counts).toEqual({ queued: 0, delivered: 40, dropped: 0, rejected: 0 });
    });

    it.each(['fifo', 'per-channel'] as const)(
      'sliding window with channels and costs, %s ordering: every window, overall and per channel, holds',
      (ordering) => {
        const jobs = range(60, (n) => job(n, n % 3 === 0 ? 'search' : 'upload', (n % 2) + 1));
        const scenario: Scenario = {
          input: {
            rate: '6/1s',
            strategy: 'sliding-window',
            channels: { search: '2/1s', upload: '4/500ms' },
            ordering,
          },
          jobs,
          persistAt: 4_250,
          gap: 120,
          finishWithin: 30_000,
          clock,
        };
        const { before, after, restored } = runWithRestart(scenario);
        expect(before.length).toBeGreaterThan(10);
        expect(after.length).toBeGreaterThan(10);

        const all = [...before, ...after];
        const inChannel = (name: string) => all.filter((d) => d.message.channel === name);
        const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
        // Each message exactly once; in order overall (fifo) or within each channel (per-channel).
        expect(sorted(numbers(all))).toEqual(range(60, (n) => n));
        if (ordering === 'fifo') expect(numbers(all)).toEqual(range(60, (n) => n));
        for (const name of ['search', 'upload']) {
          expect(numbers(inChannel(name))).toEqual(sorted(numbers(inChannel(name))));
        }
        expect(busiestWindow(all, 1_000)).toBeLessThanOrEqual(6);
        expect(busiestWindow(inChannel('search'), 1_000)).toBeLessThanOrEqual(2);
        expect(busiestWindow(inChannel('upload'), 500)).toBeLessThanOrEqual(4);
        expect(wallTimes(all)).toEqual(wallTimes(runWithoutRestart(scenario)));
        expect(restored.getSnapshot().context.counts.delivered).toBe(60);
      },
    );

    it('timer: the voucher period running at the snapshot goes on after the restart', () => {
      // 3/1s: jobs 1-3 at 0, 4-6 at 1000; the snapshot at 1500 holds no vouchers until 2000.
      const scenario: Scenario = {
        input: { rate: '3/1s' },
        jobs: range(10, (n) => job(n)),
        persistAt: 1_500,
        gap: 100,
        finishWithin: 3_000,
        clock,
      };
      const { before, after } = runWithRestart(scenario);
      expect(wallTimes(before)).toEqual([0, 0, 0, 1_000, 1_000, 1_000]);
      expect(wallTimes(after)).toEqual([2_000, 2_000, 2_000, 3_000]);
      expect(numbers([...before, ...after])).toEqual(range(10, (n) => n));
      expect(wallTimes([...before, ...after])).toEqual(wallTimes(runWithoutRestart(scenario)));
    });

    it('token bucket: the next free permit and the stored permits carry over', () => {
      const scenario: Scenario = {
        input: { rate: '2/1s', strategy: 'token-bucket', maxBurst: 3 },
        jobs: range(12, (n) => job(n)),
        persistAt: 1_200,
        gap: 2_700,
        finishWithin: 10_000,
        clock,
      };
      const { before, after } = runWithRestart(scenario);
      // One permit per 500 ms: 0, 500, 1000 before the snapshot; the next was due at 1500.
      expect(wallTimes(before)).toEqual([0, 500, 1_000]);
      // Down from 1200 to 3900: the idle time since 1500 stored the full burst of 3 permits.
      expect(wallTimes(after).slice(0, 4)).toEqual([3_900, 3_900, 3_900, 3_900]);
      expect(numbers([...before, ...after])).toEqual(range(12, (n) => n));
      expect(wallTimes([...before, ...after])).toEqual(wallTimes(runWithoutRestart(scenario)));
    });

    it('warming-up: the warm-up state carries over', () => {
      const scenario: Scenario = {
        input: { rate: '4/1s', strategy: 'warming-up', warmup: '2s' },
        jobs: range(20, (n) => job(n)),
        persistAt: 1_300,
        gap: 50,
        finishWithin: 10_000,
        clock,
      };
      const { before, after } = runWithRestart(scenario);
      expect(after.length).toBeGreaterThan(0);
      expect(numbers([...before, ...after])).toEqual(range(20, (n) => n));
      expect(wallTimes([...before, ...after])).toEqual(wallTimes(runWithoutRestart(scenario)));
    });
  });

  it('writes absolute wall-clock times, whatever the monotonic clock reads', () => {
    vi.setSystemTime(1_700_000_000_000);
    const log: WallClockDelivery[] = [];
    const actor = createActor(throttlerMachine, {
      input: { rate: '2/1s', strategy: 'sliding-window', target: createWallClockTarget(log) },
    }).start();
    queueAll(
      actor,
      range(3, (n) => job(n)),
    );
    advance(250);
    expect(now()).toBe(250);

    const saved = JSON.parse(persist(actor));
    const { state } = saved.context.dispatcher;
    expect(state.overall.deliveries).toEqual([
      [1_700_000_000_000, 1],
      [1_700_000_000_000, 1],
    ]);
    expect(state.queue).toEqual([{ message: job(3), cost: 1, queuedAt: 1_700_000_000_000, id: 'job-3' }]);
    expect(wallTimes(log)).toEqual([1_700_000_000_000, 1_700_000_000_000]);
  });

  it('without a target the restored throttler is idle with no timer and keeps the queue; SET_TARGET re-arms it', () => {
    const before: WallClockDelivery[] = [];
    const actor = createActor(throttlerMachine, {
      input: { rate: '1/1s', strategy: 'sliding-window', target: createWallClockTarget(before) },
    }).start();
    queueAll(
      actor,
      range(4, (n) => job(n)),
    );
    advance(1_500);
    const saved = persist(actor);
    actor.stop();
    expect(pendingTimers()).toBe(0);

    const restored = restoreThrottler(JSON.parse(saved));
    expect(restored.getSnapshot().value).toBe('idle');
    expect(restored.getSnapshot().context.counts).toEqual({ queued: 2, delivered: 2, dropped: 0, rejected: 0 });
    expect(pendingTimers()).toBe(0);

    const after: WallClockDelivery[] = [];
    const delivered: number[] = [];
    restored.on('delivered', (event) => delivered.push((event.message as Job).n));
    restored.send({ type: 'SET_TARGET', target: createWallClockTarget(after) });
    expect(restored.getSnapshot().value).toBe('active');
    expect(pendingTimers()).toBe(1);
    advance(1_500);
    expect(after.map((d) => [d.message.n, d.wallAt])).toEqual([
      [3, 2_000],
      [4, 3_000],
    ]);
    expect(delivered).toEqual([3, 4]);
    advance(1);
    expect(restored.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
  });

  it('rates changed with SET_RATE are the rates restored, overall and per channel', () => {
    const actor = createActor(throttlerMachine, {
      input: { rate: '1/1s', strategy: 'sliding-window', channels: { search: '1/1s' } },
    }).start();
    actor.send({ type: 'SET_RATE', rate: '3/1s' });
    actor.send({ type: 'SET_RATE', rate: ['2/1s', '10/1m'], channel: 'search' });
    queueAll(actor, [...range(3, (n) => job(n)), ...range(3, (n) => job(10 + n, 'search'))]);
    const saved = JSON.parse(persist(actor));
    actor.stop();

    const after: WallClockDelivery[] = [];
    restoreThrottler(saved, { target: createWallClockTarget(after) });
    advance(2_000);
    expect(after.map((d) => [d.message.n, d.wallAt])).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [11, 1_000],
      [12, 1_000],
      [13, 2_000],
    ]);
  });

  it('a snapshot taken after stop() (a shutdown hook) restores too', () => {
    const actor = createActor(throttlerMachine, { input: { rate: '1/1s', strategy: 'sliding-window' } }).start();
    queueAll(
      actor,
      range(2, (n) => job(n)),
    );
    actor.stop();
    const saved = JSON.parse(persist(actor));
    expect(saved.status).toBe('stopped');
    const after: WallClockDelivery[] = [];
    const restored = restoreThrottler(saved, { target: createWallClockTarget(after) });
    expect(restored.getSnapshot().status).toBe('active');
    advance(1_000);
    expect(after.map((d) => [d.message.n, d.wallAt])).toEqual([
      [1, 0],
      [2, 1_000],
    ]);
  });

  it.each([
    [50, 50],
    [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY],
    [undefined, 1_000],
  ])('maxDeliveriesPerTurn %s survives the restart (JSON writes Infinity as null)', (given, restored) => {
    const actor = createActor(throttlerMachine, {
      input: {
        rate: '1/1s',
        strategy: 'sliding-window',
        ...(given === undefined ? {} : { maxDeliveriesPerTurn: given }),
      },
    }).start();
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    const back = restoreThrottler(saved);
    expect(machineContext(back).dispatcher.maxDeliveriesPerTurn).toBe(restored);
    back.stop();
  });

  it('CANCEL ids survive the restart', () => {
    const actor = createActor(throttlerMachine, { input: { rate: '1/1s', strategy: 'sliding-window' } }).start();
    queueAll(
      actor,
      range(3, (n) => job(n)),
    );
    const restored = restoreThrottler(JSON.parse(persist(actor)));
    actor.stop();
    const dropped: unknown[] = [];
    restored.on('dropped', (event) => dropped.push([event.message, event.reason]));
    restored.send({ type: 'CANCEL', id: 'job-2' });
    expect(dropped).toEqual([[job(2), 'cancelled']]);

    const after: WallClockDelivery[] = [];
    restored.send({ type: 'SET_TARGET', target: createWallClockTarget(after) });
    advance(2_000);
    expect(numbers(after)).toEqual([1, 3]);
  });

  it('a pause until a wall-clock moment outlives the restart', () => {
    const actor = createActor(throttlerMachine, { input: { rate: '5/1s', strategy: 'sliding-window' } }).start();
    advance(100);
    actor.send({ type: 'PAUSE', duration: 5_000 });
    queueAll(
      actor,
      range(2, (n) => job(n)),
    );
    const saved = persist(actor);
    actor.stop();
    advance(1_000);
    const restartedAt = now();
    const after: WallClockDelivery[] = [];
    restoreThrottler(JSON.parse(saved), {
      target: createWallClockTarget(after),
      now: () => performance.now() - restartedAt,
    });
    advance(3_999);
    expect(after).toEqual([]);
    advance(1);
    expect(wallTimes(after)).toEqual([5_100, 5_100]);
  });

  it('a message holding an actor ref (replyTo) does not break the snapshot: the ref comes back as a placeholder', () => {
    const replyTo = createActor(
      fromCallback(() => {}),
      { id: 'replies' },
    ).start();
    const actor = createActor(throttlerMachine, {
      input: { rate: '1/1s', strategy: 'sliding-window', target: createWallClockTarget([]) },
    }).start();
    for (let n = 1; n <= 3; n++) actor.send({ type: 'QUEUE', message: { type: 'ask', n, replyTo } });
    const restored = restoreThrottler(JSON.parse(persist(actor)));
    expect(restored.getSnapshot().context.counts.queued).toBe(2);

    const received: unknown[] = [];
    const target = createActor(fromCallback(({ receive }) => receive((message) => received.push(message)))).start();
    restored.send({ type: 'SET_TARGET', target });
    advance(2_000);
    expect(received).toEqual([
      { type: 'ask', n: 2, replyTo: { xstate$$type: 1, id: 'replies' } },
      { type: 'ask', n: 3, replyTo: { xstate$$type: 1, id: 'replies' } },
    ]);
  });

  it('deliveries in flight at the snapshot (countUntil "done") count as settled at the restore', () => {
    const actor = createActor(throttlerMachine, {
      input: { rate: '2/1s', strategy: 'sliding-window', countUntil: 'done', target: createWallClockTarget([]) },
    }).start();
    queueAll(
      actor,
      range(3, (n) => job(n)),
    );
    expect(actor.getSnapshot().context.inFlight).toBe(2);
    advance(100);
    const saved = persist(actor);
    actor.stop();
    advance(100);

    const after: WallClockDelivery[] = [];
    const restored = restoreThrottler(JSON.parse(saved), { target: createWallClockTarget(after) });
    expect(restored.getSnapshot().context.inFlight).toBe(0);
    advance(999);
    expect(after).toEqual([]);
    advance(1);
    // The two that never settled hold the window from the restart (200) for one interval.
    expect(after.map((d) => [d.message.n, d.wallAt])).toEqual([[3, 1_200]]);
  });

  it('can restore from the snapshot object without JSON, into an actor that shares nothing with the old one', () => {
    const actor = createActor(throttlerMachine, { input: { rate: '1/1s', strategy: 'sliding-window' } }).start();
    queueAll(
      actor,
      range(2, (n) => job(n)),
    );
    const restored = restoreThrottler(actor.getPersistedSnapshot());
    actor.send({ type: 'CANCEL', id: 'job-1' });
    expect(actor.getSnapshot().context.counts.queued).toBe(1);
    expect(restored.getSnapshot().context.counts.queued).toBe(2);
    expect(machineContext(restored).dispatcher).not.toBe(machineContext(actor).dispatcher);
  });

  it('refuses a snapshot that holds no throttler, naming what it expected', () => {
    const other = createActor(createMachine({ context: { count: 0 } })).start();
    expect(() => restoreThrottler(other.getPersistedSnapshot())).toThrow(ThrottlerOptionError);
    expect(() => restoreThrottler({ context: { dispatcher: { format: 'xstate-throttler/0' } } })).toThrow(
      'persisted must be a throttler\'s persisted snapshot (actor.getPersistedSnapshot(), whose context.dispatcher has format "xstate-throttler/3", "xstate-throttler/2" or "xstate-throttler/1"), got "xstate-throttler/0"',
    );
    expect(() => restoreThrottler(undefined)).toThrow(/^persisted must be .*, got undefined$/);
  });

  it('refuses a target that is not an actor, and a time source that is not a function', () => {
    const saved = JSON.parse(persist(createActor(throttlerMachine, { input: { rate: '1/1s' } }).start()));
    expect(() => restoreThrottler(saved, { target: 'queue-worker' as never })).toThrow(
      'target must be an actor ref or undefined, got "queue-worker"',
    );
    expect(() => restoreThrottler(saved, { now: Date.now() as never })).toThrow(
      /^now must be a function returning the time in milliseconds, got \d+$/,
    );
  });

  it('refuses persisted options that do not validate, naming the option and the value', () => {
    const actor = createActor(throttlerMachine, { input: { rate: '1/1s' } }).start();
    const saved = JSON.parse(persist(actor));
    saved.context.dispatcher.options.rates = [{ limit: 0, interval: 1000 }];
    expect(() => restoreThrottler(saved)).toThrow('rate[0].limit must be a positive integer, got 0');
  });
});
