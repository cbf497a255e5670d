import { TestScheduler } from 'rxjs/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  auditThrottler,
  restoreThrottler,
  type ThrottlerInput,
  ThrottlerOptionError,
  throttlerMachine,
} from '../../src/index.js';
import { instrumentThrottler, THROTTLER_METRICS as M } from '../../src/otel/index.js';
import { throttleQueue } from '../../src/rxjs/index.js';
import { inMemoryMetrics } from '../otel/sdk.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const INPUT = {
  strategy: 'sliding-window',
  rate: { requests: '3/1s', tokens: ['100/1s', '150/2s'] },
  channels: { small: { tokens: '50/1s' } },
  keys: { rate: { requests: '2/1s' } },
} as const satisfies Omit<ThrottlerInput, 'target'>;

function start(input: Omit<ThrottlerInput, 'target'> = INPUT) {
  const target = createRecorder<Numbered>();
  const actor = createActor(throttlerMachine, { input: { ...input, target: target.ref } as ThrottlerInput });
  actor.start();
  return { actor, target };
}

describe('the operator with a cost per dimension', () => {
  it('holds every dimension: a value heavy in tokens waits for the tokens window', () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ cold, expectObservable }) => {
      const tokens: Record<string, number> = { a: 60, b: 60, c: 10 };
      const throttled = cold('abc|').pipe(
        throttleQueue({
          rate: { requests: '5/10ms', tokens: '100/10ms' },
          strategy: 'sliding-window',
          scheduler,
          cost: (value: string) => ({ requests: 1, tokens: tokens[value] as number }),
        }),
      );
      // a at 0; b (60 more tokens) when a leaves the window at 10; c (10 tokens) waits behind b (fifo).
      expectObservable(throttled).toBe('a 9ms (bc|)');
    });
  });
});

describe('the saved snapshot with dimensions', () => {
  it('round-trips: costs by name, each dimension’s policy state, and the windows stay full', () => {
    const { actor, target } = start();
    actor.send({ type: 'QUEUE', message: msg(1), cost: { requests: 1, tokens: 100 } });
    actor.send({ type: 'QUEUE', message: msg(2), cost: { tokens: 40 }, channel: 'small' });
    actor.send({ type: 'QUEUE', message: msg(3), cost: { requests: 1 }, channel: 'k1' });
    actor.send({ type: 'QUEUE', message: msg(4), cost: 2 });
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    expect(saved.context.dispatcher.state.queue.map((entry: { cost: unknown }) => entry.cost)).toEqual([
      { tokens: 40 },
      { requests: 1 },
      2,
    ]);
    expect(saved.context.dispatcher.state.overall.kind).toBe('dimensions');
    expect(target.received.map((received) => received.message.n)).toEqual([1]);
    const after = createRecorder<Numbered>();
    restoreThrottler(saved, { target: after.ref });
    advance(3_000);
    // Tokens stay spent across the restore: 2 waits for message 1 to leave the tokens window (3 and 4 behind it).
    expect(after.received.map((received) => [received.message.n, received.at])).toEqual([
      [2, 1_000],
      [3, 1_000],
      [4, 1_000],
    ]);
  });

  it('refuses damage field by field, naming the path and the value', () => {
    const { actor } = start();
    actor.send({ type: 'QUEUE', message: msg(1), cost: { requests: 1, tokens: 100 } });
    actor.send({ type: 'QUEUE', message: msg(2), cost: { tokens: 40 } });
    const saved = JSON.stringify(actor.getPersistedSnapshot());
    actor.stop();
    const damaged = (damage: (snapshot: any) => void) => {
      const snapshot = JSON.parse(saved);
      damage(snapshot);
      try {
        restoreThrottler(snapshot);
      } catch (error) {
        expect(error).toBeInstanceOf(ThrottlerOptionError);
        return [(error as ThrottlerOptionError).option, (error as ThrottlerOptionError).value];
      }
      return 'restored';
    };
    const state = 'persisted.context.dispatcher.state';
    expect(damaged((s) => (s.context.dispatcher.state.queue[0].cost = { images: 1 }))).toEqual([
      `${state}.queue[0].cost.images`,
      1,
    ]);
    expect(damaged((s) => (s.context.dispatcher.state.queue[0].cost = { tokens: -1 }))).toEqual([
      `${state}.queue[0].cost.tokens`,
      -1,
    ]);
    expect(damaged((s) => (s.context.dispatcher.state.queue[0].cost = { tokens: 0 }))).toEqual([
      `${state}.queue[0].cost`,
      { tokens: 0 },
    ]);
    expect(damaged((s) => (s.context.dispatcher.state.overall.kind = 'all-of'))).toEqual([
      `${state}.overall.kind`,
      'all-of',
    ]);
    expect(damaged((s) => (s.context.dispatcher.state.overall.parts[0][0] = 'tokens'))).toEqual([
      `${state}.overall.parts[0][0]`,
      'tokens',
    ]);
    expect(damaged((s) => s.context.dispatcher.state.overall.parts.pop())[0]).toBe(`${state}.overall.parts`);
    expect(damaged((s) => (s.context.dispatcher.state.overall.parts[1][1].deliveries = 'x'))[0]).toMatch(
      /^persisted\.context\.dispatcher\.state\.overall\.parts\[1\]\[1\]/,
    );
    // The saved options are read as resolveOptions reads a user's: errors name the option.
    expect(damaged((s) => (s.context.dispatcher.options.rates[0].dimension = 7))).toEqual(['rate[0].dimension', 7]);
    expect(damaged((s) => (s.context.dispatcher.options.channels[0][1][0].dimension = 'images'))[0]).toBe(
      'channels.small.images',
    );
  });
});

describe('the audit and the metrics name each rate’s dimension', () => {
  it('reports every rate of every dimension, its windows holding the cost in it', () => {
    const { actor } = start();
    actor.send({ type: 'QUEUE', message: msg(1), cost: { requests: 1, tokens: 70 } });
    actor.send({ type: 'QUEUE', message: msg(2), cost: { requests: 1 } });
    advance(10);
    const report = auditThrottler(actor);
    const overall = report.rates
      .filter((line) => line.scope === 'overall')
      .map(({ dimension, rate, most }) => ({ dimension, rate, most }));
    expect(overall).toEqual([
      { dimension: 'requests', rate: '3/1s', most: 2 },
      { dimension: 'tokens', rate: '100/1s', most: 70 },
      { dimension: 'tokens', rate: '150/2s', most: 70 },
    ]);
    expect(report.windowsOver).toBe(0);
  });

  it('sets throttler.dimension on each rate’s window series', async () => {
    const metrics = inMemoryMetrics();
    const { actor } = start();
    const handle = instrumentThrottler(actor, { meter: metrics.meter, name: 'api' });
    actor.send({ type: 'QUEUE', message: msg(1), cost: { requests: 1, tokens: 50 } });
    const read = await metrics.read();
    const points = (read.get(M.windowUtilization.name) ?? []).map((point) => [
      point.attributes['throttler.dimension'],
      point.attributes['throttler.rate'],
      point.value,
    ]);
    expect(points).toEqual([
      ['requests', '3/1s', 1 / 3],
      ['tokens', '100/1s', 0.5],
      ['tokens', '150/2s', 50 / 150],
    ]);
    handle.stop();
  });
});
