import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor, type EventObject } from 'xstate';
import type { CommonOptions } from '../../src/engine/options/options.js';
import { restoreThrottler, type ThrottlerActor, type ThrottlerEmitted, throttlerMachine } from '../../src/index.js';
import { expectOptionError } from '../support/option-error.js';
import { type Delivery, overfullWindows, type RateConfig } from '../support/oracle.js';
import { createRecorder, type Received } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** Channel names that are also names on Object.prototype: a name used as an object key would read or set those. */
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'] as const;

interface Job extends EventObject {
  type: 'job';
  n: number;
  channel: string;
}

/** Every message once, in the order each channel queued them. */
function queueJobs(actor: ThrottlerActor, name: string, count: number, from: number): Job[] {
  const jobs: Job[] = [];
  for (let n = from; n < from + count; n++) {
    const message: Job = { type: 'job', n, channel: name };
    jobs.push(message);
    actor.send({ type: 'QUEUE', message, channel: name, id: `job-${n}` });
  }
  return jobs;
}

const toDeliveries = (received: Received<Job>[]): Delivery[] =>
  received.map(({ message, at }) => ({ at, cost: 1, channel: message.channel }));

describe.each(PROTOTYPE_NAMES)('a channel named "%s"', (name) => {
  it('is configured, queued, rate-limited and has its rate changed like any other', () => {
    const recorder = createRecorder<Job>();
    // A computed key is an own key, `__proto__` included (`{ __proto__: x }` would set the prototype).
    const channels = { [name]: '1/1s', other: '3/1s' };
    expect(Object.keys(channels)).toEqual([name, 'other']);
    const actor = createActor(throttlerMachine, {
      input: { rate: '10/1s', strategy: 'sliding-window', channels, target: recorder.ref },
    }).start();
    const invalid: unknown[] = [];
    actor.on('invalidEvent', (event) => invalid.push(event.error.message));
    actor.send({ type: 'SET_RATE', rate: '2/1s', channel: name });
    queueJobs(actor, name, 5, 1);
    advance(2_500);
    expect(invalid).toEqual([]);
    expect(recorder.times()).toEqual([0, 0, 1_000, 1_000, 2_000]);
  });

  describe.each(['fifo', 'per-channel'] as const)('persisted and restored (%s ordering)', (ordering) => {
    it('keeps its window across the restart: no burst, nothing lost, nothing twice', () => {
      const config: RateConfig = {
        overall: [{ limit: 10, interval: 1_000 }],
        channels: { [name]: [{ limit: 2, interval: 1_000 }], other: [{ limit: 3, interval: 1_000 }] },
      };
      const options: CommonOptions = {
        rate: '10/1s',
        strategy: 'sliding-window',
        channels: { [name]: '1/1s', other: '3/1s' },
        ordering,
      };
      const before = createRecorder<Job>();
      const actor = createActor(throttlerMachine, { input: { ...options, target: before.ref } }).start();
      actor.send({ type: 'SET_RATE', rate: '2/1s', channel: name });
      const jobs = [...queueJobs(actor, name, 6, 1), ...queueJobs(actor, 'other', 4, 100)];
      advance(300);
      expect(before.received.filter((d) => d.message.channel === name)).toHaveLength(2);
      const saved = JSON.stringify(actor.getPersistedSnapshot());
      actor.stop();
      advance(100);

      const after = createRecorder<Job>();
      const restored = restoreThrottler(JSON.parse(saved), { target: after.ref });
      advance(5_000);
      const all = [...before.received, ...after.received];
      expect(all.map((d) => d.message.n).sort((a, b) => a - b)).toEqual(jobs.map((job) => job.n));
      expect(overfullWindows(config, toDeliveries(all))).toEqual([]);
      // The channel's two deliveries at 0 fill its window until 1000, and the restore knows it.
      const firstAfter = after.received.find((d) => d.message.channel === name);
      expect(firstAfter?.at).toBe(1_000);
      expect(restored.getSnapshot().context.counts).toEqual({ queued: 0, delivered: 10, dropped: 0, rejected: 0 });
    });
  });

  it.each(['timer', 'token-bucket', 'warming-up'] as const)('keeps its %s state across the restart', (strategy) => {
    const options: CommonOptions = {
      rate: '10/1s',
      strategy,
      warmup: strategy === 'warming-up' ? '2s' : undefined,
      channels: { [name]: '2/1s' },
    };
    const run = (restart: boolean): number[] => {
      restoreRealTime();
      useVirtualTime();
      const before = createRecorder<Job>();
      let actor: ThrottlerActor = createActor(throttlerMachine, { input: { ...options, target: before.ref } }).start();
      queueJobs(actor, name, 8, 1);
      advance(1_200);
      const after = createRecorder<Job>();
      if (restart) {
        const saved = JSON.stringify(actor.getPersistedSnapshot());
        actor.stop();
        advance(100);
        actor = restoreThrottler(JSON.parse(saved), { target: after.ref });
      } else {
        actor.send({ type: 'SET_TARGET', target: undefined });
        advance(100);
        actor.send({ type: 'SET_TARGET', target: after.ref });
      }
      advance(10_000);
      actor.stop();
      return [...before.times(), ...after.times()];
    };
    const withoutRestart = run(false);
    expect(withoutRestart).toHaveLength(8);
    expect(run(true)).toEqual(withoutRestart);
  });

  it('can be given in a Map of channel rates, and survives a restart from one', () => {
    const before = createRecorder<Job>();
    const channels = new Map([[name, '2/1s']]);
    const actor = createActor(throttlerMachine, {
      input: { rate: '10/1s', strategy: 'sliding-window', channels, target: before.ref },
    }).start();
    queueJobs(actor, name, 4, 1);
    const saved = JSON.stringify(actor.getPersistedSnapshot());
    actor.stop();
    const after = createRecorder<Job>();
    restoreThrottler(JSON.parse(saved), { target: after.ref });
    advance(1_000);
    expect([...before.times(), ...after.times()]).toEqual([0, 0, 1_000, 1_000]);
  });

  it('is refused with a clear error when no such channel is configured', () => {
    const emitted: ThrottlerEmitted[] = [];
    const withOthers = createActor(throttlerMachine, { input: { rate: '1/1s', channels: { search: '1/1s' } } }).start();
    withOthers.on('*', (event) => emitted.push(event));
    withOthers.send({ type: 'QUEUE', message: { type: 'job' }, channel: name });
    withOthers.send({ type: 'SET_RATE', rate: '5/1s', channel: name });
    const bare = createActor(throttlerMachine, { input: { rate: '1/1s' } }).start();
    bare.on('*', (event) => emitted.push(event));
    bare.send({ type: 'QUEUE', message: { type: 'job' }, channel: name });
    expect(emitted.map((event) => ('error' in event ? event.error.message : event.type))).toEqual([
      `channel must be one of "search", got "${name}"`,
      `channel must be one of "search", got "${name}"`,
      `channel must be undefined (no channels are configured), got "${name}"`,
    ]);
    expect(withOthers.getSnapshot().context.counts).toEqual({ queued: 0, delivered: 0, dropped: 0, rejected: 1 });
  });

  it('is refused in a restored queue when no such channel is configured', () => {
    const actor = createActor(throttlerMachine, { input: { rate: '1/1s', channels: { search: '1/1s' } } }).start();
    actor.send({ type: 'QUEUE', message: { type: 'job' }, channel: 'search' });
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    saved.context.dispatcher.state.queue[0].channel = name;
    expectOptionError(() => restoreThrottler(saved), {
      message: `persisted.context.dispatcher.state.queue[0].channel must be absent or a configured channel (one of "search"), got "${name}"`,
      option: 'persisted.context.dispatcher.state.queue[0].channel',
      value: name,
    });
  });
});

/** The part of a saved dispatcher that format 1 wrote differently. */
interface FirstFormatDispatcher {
  format: string;
  state: { channels: Array<[string, unknown]> | Record<string, unknown>; savedAt?: number };
}

describe('snapshots of format "xstate-throttler/1" (channel states in an object keyed by name)', () => {
  /** What the previous version wrote: the same, with channel states assigned by name into a plain object. */
  function asFirstFormat(saved: { context: { dispatcher: FirstFormatDispatcher } }): unknown {
    const dispatcher = saved.context.dispatcher;
    const byName: Record<string, unknown> = {};
    for (const [channel, state] of dispatcher.state.channels as Array<[string, unknown]>) byName[channel] = state;
    dispatcher.format = 'xstate-throttler/1';
    dispatcher.state.channels = JSON.parse(JSON.stringify(byName));
    delete dispatcher.state.savedAt;
    return saved;
  }

  it('are still restored, windows included', () => {
    const before = createRecorder<Job>();
    const actor = createActor(throttlerMachine, {
      input: { rate: '10/1s', strategy: 'sliding-window', channels: { search: '2/1s' }, target: before.ref },
    }).start();
    queueJobs(actor, 'search', 4, 1);
    const saved = asFirstFormat(JSON.parse(JSON.stringify(actor.getPersistedSnapshot())));
    actor.stop();
    const after = createRecorder<Job>();
    restoreThrottler(saved, { target: after.ref });
    advance(2_000);
    expect(before.times()).toEqual([0, 0]);
    expect(after.times()).toEqual([1_000, 1_000]);
  });

  it('are refused when they lost a channel\'s state (the "__proto__" channel, which the previous version lost)', () => {
    const actor = createActor(throttlerMachine, {
      input: { rate: '10/1s', strategy: 'sliding-window', channels: { ['__proto__']: '2/1s' } },
    }).start();
    const saved = asFirstFormat(JSON.parse(JSON.stringify(actor.getPersistedSnapshot())));
    expect(
      (saved as { context: { dispatcher: { state: { channels: object } } } }).context.dispatcher.state.channels,
    ).toEqual({});
    expectOptionError(() => restoreThrottler(saved), {
      message:
        'persisted.context.dispatcher.state.channels must be a state for every configured channel, "__proto__" included, got {}',
      option: 'persisted.context.dispatcher.state.channels',
      value: {},
    });
  });
});
