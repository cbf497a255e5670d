import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ActorOptions, type AnyActorLogic, createActor, createMachine } from 'xstate';
import { type ThrottlerEmitted, type ThrottlerInput, ThrottlerOptionError, throttlerMachine } from '../../src/index.js';
import { MAX_TIMER_DELAY } from '../../src/machine/effects.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, now, pendingTimers, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const DAY = 86_400_000;

/** XState's timer interface (not exported by name). */
type Clock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

function startThrottler(input: ThrottlerInput, clock?: Clock) {
  const actor = createActor(throttlerMachine, { input, ...(clock ? { clock } : {}) }).start();
  const emitted: ThrottlerEmitted[] = [];
  actor.on('*', (event) => emitted.push(event as ThrottlerEmitted));
  return { actor, emitted };
}

function queue(actor: ReturnType<typeof startThrottler>['actor'], from: number, to: number): void {
  for (let n = from; n <= to; n++) actor.send({ type: 'QUEUE', message: msg(n), id: n });
}

const ofType = <T extends ThrottlerEmitted['type']>(emitted: ThrottlerEmitted[], type: T) =>
  emitted.filter((event): event is Extract<ThrottlerEmitted, { type: T }> => event.type === type);

/** The largest number of deliveries in any window [t, t + interval), by brute force. */
function busiestWindow(times: readonly number[], interval: number): number {
  let busiest = 0;
  for (const start of times)
    busiest = Math.max(busiest, times.filter((t) => t >= start && t < start + interval).length);
  return busiest;
}

/** An XState clock on the (fake) global timers that records every delay the throttler asks for. */
function recordingClock(): Clock & { delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    setTimeout: (fn, timeout) => {
      delays.push(timeout);
      return setTimeout(fn, timeout);
    },
    clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
  };
}

describe('bounded queue', () => {
  it('overflow "reject" refuses the new message with an event and keeps the queue as it was', () => {
    const { actor, emitted } = startThrottler({ rate: '1/1s', capacity: 2, overflow: 'reject' });
    queue(actor, 1, 4);
    expect(ofType(emitted, 'rejected').map((e) => [e.message, e.reason, e.error.message])).toEqual([
      [msg(3), 'overflow', 'Message rejected: the queue is full (overflow: "reject")'],
      [msg(4), 'overflow', 'Message rejected: the queue is full (overflow: "reject")'],
    ]);
    expect(ofType(emitted, 'dropped')).toEqual([]);
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 2, delivered: 0, dropped: 0, rejected: 2 });

    const target = createRecorder<Numbered>();
    actor.send({ type: 'SET_TARGET', target: target.ref });
    advance(5_000);
    expect(target.messages()).toEqual([msg(1), msg(2)]);
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 0, delivered: 2, dropped: 0, rejected: 2 });
  });

  it('overflow "drop-oldest" drops the head for the new message, with an event', () => {
    const { actor, emitted } = startThrottler({ rate: '1/1s', capacity: 2, overflow: 'drop-oldest' });
    queue(actor, 1, 4);
    expect(ofType(emitted, 'dropped').map((e) => [e.message, e.reason, e.error.message])).toEqual([
      [
        msg(1),
        'drop-oldest',
        'Message dropped: the queue was full (overflow: "drop-oldest") and a newer message took its place',
      ],
      [
        msg(2),
        'drop-oldest',
        'Message dropped: the queue was full (overflow: "drop-oldest") and a newer message took its place',
      ],
    ]);
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 2, delivered: 0, dropped: 2, rejected: 0 });

    const target = createRecorder<Numbered>();
    actor.send({ type: 'SET_TARGET', target: target.ref });
    advance(5_000);
    expect(target.messages()).toEqual([msg(3), msg(4)]);
  });

  it('overflow "drop-newest" drops the newest waiting message (the tail) for the new one, with an event', () => {
    const { actor, emitted } = startThrottler({ rate: '1/1s', capacity: 2, overflow: 'drop-newest' });
    queue(actor, 1, 4);
    expect(ofType(emitted, 'dropped').map((e) => [e.message, e.reason])).toEqual([
      [msg(2), 'drop-newest'],
      [msg(3), 'drop-newest'],
    ]);
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 2, delivered: 0, dropped: 2, rejected: 0 });

    const target = createRecorder<Numbered>();
    actor.send({ type: 'SET_TARGET', target: target.ref });
    advance(5_000);
    expect(target.messages()).toEqual([msg(1), msg(4)]);
  });

  it('capacity counts waiting messages only: what was delivered frees its place', () => {
    const target = createRecorder<Numbered>();
    const { actor, emitted } = startThrottler({
      rate: '2/1s',
      strategy: 'sliding-window',
      capacity: 3,
      overflow: 'reject',
      target: target.ref,
    });
    queue(actor, 1, 6);
    // 1 and 2 go at once; 3, 4, 5 wait and fill the queue; 6 is refused.
    expect(ofType(emitted, 'rejected').map((e) => e.message)).toEqual([msg(6)]);
    advance(1_000);
    queue(actor, 7, 8);
    expect(ofType(emitted, 'rejected').map((e) => e.message)).toEqual([msg(6)]);
    advance(3_000);
    expect(target.messages().map((m) => m.n)).toEqual([1, 2, 3, 4, 5, 7, 8]);
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 0, delivered: 7, dropped: 0, rejected: 1 });
  });
});

describe('lost target', () => {
  it('keeps the message it could not deliver at the head, unsets the target, goes idle and says so', () => {
    const first = createRecorder<Numbered>();
    const { actor, emitted } = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: first.ref });
    queue(actor, 1, 4);
    advance(500);
    first.ref.stop();
    advance(500);

    expect(ofType(emitted, 'targetLost')).toEqual([
      { type: 'targetLost', target: first.ref, message: msg(2), at: 1_000 },
    ]);
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('idle');
    expect(snapshot.context.target).toBeUndefined();
    expect(snapshot.context.counts).toEqual({ queued: 3, delivered: 1, dropped: 0, rejected: 0 });
    expect(pendingTimers()).toBe(0);
    expect(first.messages()).toEqual([msg(1)]);

    advance(10_000);
    const second = createRecorder<Numbered>();
    actor.send({ type: 'SET_TARGET', target: second.ref });
    advance(3_000);
    expect(second.received.map((r) => [r.message.n, r.at])).toEqual([
      [2, 11_000],
      [3, 12_000],
      [4, 13_000],
    ]);
    expect(ofType(emitted, 'delivered').map((e) => e.message)).toEqual([msg(1), msg(2), msg(3), msg(4)]);
  });

  it('a target that stopped while the throttler was idle is noticed on the next message, which is kept', () => {
    const first = createRecorder<Numbered>();
    const { actor, emitted } = startThrottler({ rate: '5/1s', strategy: 'sliding-window', target: first.ref });
    queue(actor, 1, 1);
    first.ref.stop();
    queue(actor, 2, 2);
    expect(ofType(emitted, 'targetLost').map((e) => [e.message, e.at])).toEqual([[msg(2), 0]]);
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.counts.queued).toBe(1);

    const second = createRecorder<Numbered>();
    actor.send({ type: 'SET_TARGET', target: second.ref });
    expect(second.messages()).toEqual([msg(2)]);
    expect(first.messages()).toEqual([msg(1)]);
  });

  it('a target that reached its final state counts as lost', () => {
    const target = createActor(
      createMachine({ initial: 'open', states: { open: { on: { close: 'closed' } }, closed: { type: 'final' } } }),
    ).start();
    const { actor, emitted } = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target });
    queue(actor, 1, 2);
    target.send({ type: 'close' });
    advance(1_000);
    expect(target.getSnapshot().status).toBe('done');
    expect(ofType(emitted, 'targetLost').map((e) => e.message)).toEqual([msg(2)]);
    expect(actor.getSnapshot().context.counts.queued).toBe(1);
  });

  // KNOWN BUG, reported to the lead (src/machine/throttler-machine.ts, deliverDue): the target's status is
  // checked before each send, but the sends of one pass run after the pass. A target that stops on the first
  // message of a batch loses the rest, which are counted as delivered. Flip to `it` once fixed.
  it('a target that stops on the first message of a batch loses nothing', () => {
    const received: number[] = [];
    const target = createActor(
      createMachine({
        types: {} as { events: Numbered },
        initial: 'open',
        states: {
          open: { on: { msg: { target: 'closed', actions: ({ event }) => received.push(event.n) } } },
          closed: { type: 'final' },
        },
      }),
    ).start();
    const { actor, emitted } = startThrottler({ rate: '5/1s', strategy: 'sliding-window' });
    queue(actor, 1, 3);
    actor.send({ type: 'SET_TARGET', target });
    expect(received).toEqual([1]);
    expect(ofType(emitted, 'targetLost').map((e) => e.message)).toEqual([msg(2)]);
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 2, delivered: 1, dropped: 0, rejected: 0 });
  });
});

describe('PAUSE and RESUME', () => {
  it('PAUSE { duration } delivers nothing until it ends, and the window still counts what went before', () => {
    const target = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '2/1s', strategy: 'sliding-window', target: target.ref });
    queue(actor, 1, 2);
    advance(100);
    actor.send({ type: 'PAUSE', duration: 3_000 });
    queue(actor, 3, 6);
    advance(2_999);
    expect(target.messages().map((m) => m.n)).toEqual([1, 2]);
    advance(3_000);
    expect(target.received.map((r) => [r.message.n, r.at])).toEqual([
      [1, 0],
      [2, 0],
      [3, 3_100],
      [4, 3_100],
      [5, 4_100],
      [6, 4_100],
    ]);
  });

  it('PAUSE { until } uses the throttler clock; a pause that ends inside the window waits for the window', () => {
    const target = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '2/1s', strategy: 'sliding-window', target: target.ref });
    queue(actor, 1, 2);
    advance(100);
    actor.send({ type: 'PAUSE', until: 600 });
    queue(actor, 3, 4);
    advance(2_000);
    // The pause ends at 600, but the two sent at 0 hold the window until 1000.
    expect(target.times()).toEqual([0, 0, 1_000, 1_000]);
    expect(busiestWindow(target.times(), 1_000)).toBe(2);
  });

  it('PAUSE without a time holds everything, with no timer pending, until RESUME', () => {
    const target = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '2/1s', strategy: 'sliding-window', target: target.ref });
    actor.send({ type: 'PAUSE' });
    queue(actor, 1, 3);
    expect(pendingTimers()).toBe(0);
    advance(7 * DAY);
    expect(target.received).toEqual([]);
    expect(actor.getSnapshot().context.counts.queued).toBe(3);

    actor.send({ type: 'RESUME' });
    advance(1_000);
    expect(target.received.map((r) => [r.message.n, r.at - 7 * DAY])).toEqual([
      [1, 0],
      [2, 0],
      [3, 1_000],
    ]);
  });

  it('RESUME during a pause delivers at once what the window allows, and no more', () => {
    const target = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '2/1s', strategy: 'sliding-window', target: target.ref });
    queue(actor, 1, 1);
    actor.send({ type: 'PAUSE', duration: 60_000 });
    queue(actor, 2, 4);
    advance(400);
    actor.send({ type: 'RESUME' });
    advance(2_000);
    expect(target.times()).toEqual([0, 400, 1_000, 1_400]);
    expect(busiestWindow(target.times(), 1_000)).toBe(2);
  });

  it('a PAUSE with a bad time is refused with invalidEvent naming it, and nothing pauses', () => {
    const target = createRecorder<Numbered>();
    const { actor, emitted } = startThrottler({ rate: '5/1s', strategy: 'sliding-window', target: target.ref });
    actor.send({ type: 'PAUSE', duration: -1 });
    actor.send({ type: 'PAUSE', until: Number.NaN });
    actor.send({ type: 'PAUSE', until: '10s' as never });
    actor.send({ type: 'PAUSE', duration: 'a while' });
    expect(ofType(emitted, 'invalidEvent').map((e) => e.error.message)).toEqual([
      "duration must be a duration >= 0 in ms, or a string such as '5s', got -1",
      'until must be a time in ms on the throttler clock, got NaN',
      'until must be a time in ms on the throttler clock, got "10s"',
      'duration must be a duration such as 500ms, 1s, 1m, 1h or 1d, got "a while"',
    ]);
    queue(actor, 1, 1);
    expect(target.messages()).toEqual([msg(1)]);
  });

  it("a PAUSE's duration may be a string such as '2s'", () => {
    const target = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '5/1s', strategy: 'sliding-window', target: target.ref });
    actor.send({ type: 'PAUSE', duration: '2s' });
    queue(actor, 1, 1);
    advance(1_999);
    expect(target.messages()).toEqual([]);
    advance(1);
    expect(target.messages()).toEqual([msg(1)]);
  });
});

describe('SET_RATE with an invalid rate', () => {
  it.each([
    ['limit 0', { rate: { limit: 0, interval: 1_000 } }, 'rate.limit must be a positive integer, got 0'],
    [
      'unparsable',
      { rate: 'lots' },
      'rate must be a rate such as "10/1s", "100/1m" or { limit, interval }, got "lots"',
    ],
    ['empty list', { rate: [] }, 'rate must be a rate or a non-empty list of rates, got an array of 0'],
    [
      'bad channel rate',
      { rate: '1/0s', channel: 'search' },
      'channels.search.interval must be a positive, finite duration in milliseconds, got "0s"',
    ],
    ['unknown channel', { rate: '1/1s', channel: 'nope' }, 'channel must be one of "search", got "nope"'],
  ])('%s: emits invalidEvent and the running actor goes on exactly as before', (_, change, message) => {
    const input: ThrottlerInput = { rate: '2/1s', strategy: 'sliding-window', channels: { search: '1/1s' } };
    const reference = createRecorder<Numbered>();
    const untouched = startThrottler({ ...input, target: reference.ref });
    const target = createRecorder<Numbered>();
    const { actor, emitted } = startThrottler({ ...input, target: target.ref });
    for (const throttler of [untouched.actor, actor]) {
      queue(throttler, 1, 3);
      throttler.send({ type: 'QUEUE', message: msg(4), channel: 'search' });
      throttler.send({ type: 'QUEUE', message: msg(5), channel: 'search' });
    }
    advance(300);
    actor.send({ type: 'SET_RATE', ...change } as never);
    expect(ofType(emitted, 'invalidEvent').map((e) => [e.event, e.error.message, e.error.name])).toEqual([
      [{ type: 'SET_RATE', ...change }, message, 'ThrottlerOptionError'],
    ]);
    expect(actor.getSnapshot().status).toBe('active');
    advance(5_000);
    expect(target.received).toEqual(reference.received);
    expect(target.messages().map((m) => m.n)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('CANCEL', () => {
  it('takes a waiting message out with a dropped event; the ones behind it move up', () => {
    const target = createRecorder<Numbered>();
    const { actor, emitted } = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: target.ref });
    queue(actor, 1, 4);
    actor.send({ type: 'CANCEL', id: 2 });
    expect(ofType(emitted, 'dropped').map((e) => [e.message, e.reason, e.error.message])).toEqual([
      [msg(2), 'cancelled', 'Message dropped: it was cancelled before it was delivered'],
    ]);
    advance(3_000);
    expect(target.received.map((r) => [r.message.n, r.at])).toEqual([
      [1, 0],
      [3, 1_000],
      [4, 2_000],
    ]);
    expect(actor.getSnapshot().context.counts).toEqual({ queued: 0, delivered: 3, dropped: 1, rejected: 0 });
  });

  it('an id that is not waiting (unknown, delivered, already cancelled) changes nothing', () => {
    const target = createRecorder<Numbered>();
    const { actor, emitted } = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: target.ref });
    queue(actor, 1, 2);
    actor.send({ type: 'CANCEL', id: 2 });
    const before = actor.getSnapshot();
    for (const id of [1, 2, 99, undefined]) actor.send({ type: 'CANCEL', id });
    expect(actor.getSnapshot().context).toEqual(before.context);
    expect(ofType(emitted, 'dropped')).toHaveLength(1);
  });

  it('cancelling everything that waits goes idle with no timer pending', () => {
    const target = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: target.ref });
    queue(actor, 1, 3);
    expect(pendingTimers()).toBe(1);
    actor.send({ type: 'CANCEL', id: 2 });
    actor.send({ type: 'CANCEL', id: 3 });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
  });
});

describe('long intervals', () => {
  it.each([
    ['sliding-window', [0, 0, 30, 30]],
    ['timer', [0, 0, 30, 30]],
    // One permit every 15 days, and a new bucket starts empty.
    ['token-bucket', [0, 15, 30, 45]],
  ] as const)('%s at 2/30d: on the day, never early, no throw, every timer below 2^31 ms', (strategy, days) => {
    const clock = recordingClock();
    const target = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '2/30d', strategy, target: target.ref }, clock);
    queue(actor, 1, 4);
    for (const day of new Set(days)) {
      if (day > 0) {
        advance(day * DAY - now() - 1);
        expect(target.received).toHaveLength(days.filter((d) => d < day).length);
        advance(1);
      }
      expect(target.received).toHaveLength(days.filter((d) => d <= day).length);
    }
    expect(target.received.map((r) => r.at)).toEqual(days.map((day) => day * DAY));
    expect(actor.getSnapshot().status).toBe('active');
    expect(30 * DAY).toBeGreaterThan(MAX_TIMER_DELAY);
    expect(Math.max(...clock.delays)).toBeLessThanOrEqual(MAX_TIMER_DELAY);
    expect(Math.min(...clock.delays)).toBeGreaterThan(0);
  });

  it('1/1000d (over 40 chunks) delivers on the day, not a millisecond before', () => {
    const clock = recordingClock();
    const target = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '1/1000d', strategy: 'sliding-window', target: target.ref }, clock);
    queue(actor, 1, 2);
    advance(1_000 * DAY - 1);
    expect(target.messages()).toEqual([msg(1)]);
    advance(1);
    expect(target.received.map((r) => [r.message.n, r.at])).toEqual([
      [1, 0],
      [2, 1_000 * DAY],
    ]);
    expect(clock.delays.length).toBeGreaterThanOrEqual(Math.ceil((1_000 * DAY) / MAX_TIMER_DELAY));
    expect(Math.max(...clock.delays)).toBeLessThanOrEqual(MAX_TIMER_DELAY);
    expect(actor.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
  });
});

describe('stop()', () => {
  it.each(['timer', 'sliding-window', 'token-bucket'] as const)(
    '%s: no timer is left pending after stop(), mid-run',
    (strategy) => {
      const target = createRecorder<Numbered>();
      const { actor } = startThrottler({ rate: '1/1h', strategy, target: target.ref });
      queue(actor, 1, 5);
      expect(pendingTimers()).toBe(1);
      actor.stop();
      expect(pendingTimers()).toBe(0);
      advance(10 * 3_600_000);
      expect(target.messages()).toEqual([msg(1)]);
    },
  );

  it('no timer is left after stop() while paused until a time', () => {
    const target = createRecorder<Numbered>();
    const { actor } = startThrottler({ rate: '1/1s', strategy: 'sliding-window', target: target.ref });
    actor.send({ type: 'PAUSE', duration: 60_000 });
    queue(actor, 1, 2);
    expect(pendingTimers()).toBe(1);
    actor.stop();
    expect(pendingTimers()).toBe(0);
  });
});

describe('wall-clock steps', () => {
  it.each(['sliding-window', 'timer'] as const)(
    '%s: Date.now() jumping forward and back changes no delivery time (scheduling is monotonic)',
    (strategy) => {
      const steadyTarget = createRecorder<Numbered>();
      const steady = startThrottler({ rate: '2/1s', strategy, target: steadyTarget.ref });
      const target = createRecorder<Numbered>();
      const { actor } = startThrottler({ rate: '2/1s', strategy, target: target.ref });
      queue(steady.actor, 1, 8);
      queue(actor, 1, 8);
      advance(300);
      vi.setSystemTime(Date.now() + 3 * DAY);
      advance(900);
      vi.setSystemTime(Date.now() - 2 * 3_600_000);
      expect(Date.now() - now()).toBe(3 * DAY - 2 * 3_600_000);
      advance(5_000);
      expect(target.received.map((r) => r.at)).toEqual([0, 0, 1_000, 1_000, 2_000, 2_000, 3_000, 3_000]);
      expect(target.received).toEqual(steadyTarget.received);
    },
  );
});

describe('options are validated, each error naming the option and the value', () => {
  const notAnActor = { send: 'no' };
  const cases: Array<[string, unknown, string]> = [
    [
      'input missing',
      undefined,
      'options must be an object with at least a rate, e.g. { rate: "10/1s" }, got undefined',
    ],
    ['rate list empty', { rate: [] }, 'rate must be a rate or a non-empty list of rates, got an array of 0'],
    ['rate in a list', { rate: ['1/s', '0/m'] }, 'rate[1].limit must be a positive integer, got "0"'],
    ['interval 0', { rate: '1/0s' }, 'rate.interval must be a positive, finite duration in milliseconds, got "0s"'],
    [
      'strategy',
      { rate: '1/s', strategy: 'fixed-window' },
      'strategy must be one of "timer", "sliding-window", "token-bucket", "warming-up", got "fixed-window"',
    ],
    [
      'channels not an object',
      { rate: '1/s', channels: ['a'] },
      'channels must be an object of channel name to rate, got an array of 1',
    ],
    [
      'a channel rate',
      { rate: '1/s', channels: { search: '-1/s' } },
      'channels.search.limit must be a positive integer, got "-1"',
    ],
    ['ordering', { rate: '1/s', ordering: 'lifo' }, 'ordering must be "fifo" or "per-channel", got "lifo"'],
    [
      'overflow',
      { rate: '1/s', overflow: 'drop' },
      'overflow must be "reject", "drop-oldest" or "drop-newest", got "drop"',
    ],
    ['capacity 0', { rate: '1/s', capacity: 0 }, 'capacity must be a positive integer, got 0'],
    ['capacity 1.5', { rate: '1/s', capacity: 1.5 }, 'capacity must be a positive integer, got 1.5'],
    ['capacity NaN', { rate: '1/s', capacity: Number.NaN }, 'capacity must be a positive integer, got NaN'],
    ['capacity a string', { rate: '1/s', capacity: '10' }, 'capacity must be a positive integer, got "10"'],
    ['countUntil', { rate: '1/s', countUntil: 'end' }, 'countUntil must be "start" or "done", got "end"'],
    [
      'countUntil "done" with the timer',
      { rate: '1/s', countUntil: 'done' },
      'countUntil must be "start" unless strategy is "sliding-window", got "done"',
    ],
    ['maxConcurrent 0', { rate: '1/s', maxConcurrent: 0 }, 'maxConcurrent must be a positive integer, got 0'],
    ['maxConcurrent -2', { rate: '1/s', maxConcurrent: -2 }, 'maxConcurrent must be a positive integer, got -2'],
    ['now', { rate: '1/s', now: 5 }, 'now must be a function returning the time in milliseconds, got 5'],
    [
      'maxBurst',
      { rate: '1/s', strategy: 'token-bucket', maxBurst: 0 },
      'maxBurst must be a positive number of permits, got 0',
    ],
    [
      'coldFactor',
      { rate: '1/s', strategy: 'warming-up', warmup: '1s', coldFactor: 0.5 },
      'coldFactor must be a finite number >= 1, got 0.5',
    ],
    [
      'warmup missing',
      { rate: '1/s', strategy: 'warming-up' },
      'warmup must be a positive duration for the warming-up strategy, e.g. "3s", got undefined',
    ],
    [
      'warmup unparsable',
      { rate: '1/s', strategy: 'warming-up', warmup: 'soon' },
      'warmup must be a duration such as 500ms, 1s, 1m, 1h or 1d, got "soon"',
    ],
    ['target', { rate: '1/s', target: notAnActor }, 'target must be an actor ref or undefined, got {"send":"no"}'],
  ];

  it.each(cases)('%s: the actor is in status "error" with the message', (_, input, message) => {
    const actor = createActor(throttlerMachine, { input: input as never });
    const snapshot = actor.getSnapshot();
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toBeInstanceOf(ThrottlerOptionError);
    expect((snapshot.error as Error).message).toBe(message);
  });

  it('start() hands the error to an error observer and arms nothing', () => {
    const actor = createActor(throttlerMachine, { input: { rate: '1/s', capacity: -1 } });
    const errors: unknown[] = [];
    actor.subscribe({ error: (error) => errors.push(error) });
    actor.start();
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('capacity must be a positive integer, got -1');
    expect(pendingTimers()).toBe(0);
  });

  it('valid edge values are accepted', () => {
    const inputs: ThrottlerInput[] = [
      { rate: '1/1ms', capacity: 1, maxConcurrent: 1 },
      { rate: '1/s', capacity: Number.POSITIVE_INFINITY, maxConcurrent: Number.POSITIVE_INFINITY },
      { rate: '1/s', strategy: 'warming-up', warmup: 1, coldFactor: 1 },
      { rate: '1/s', strategy: 'sliding-window', countUntil: 'done' },
    ];
    for (const input of inputs) expect(createActor(throttlerMachine, { input }).getSnapshot().status).toBe('active');
  });
});
