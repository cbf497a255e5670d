import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  type Rate,
  type ThrottlerEmitted,
  type ThrottlerInput,
  type ThrottlerOptionError,
  throttlerMachine,
} from '../../src/index.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

type Cost = number | Record<string, number>;

function start(input: Partial<ThrottlerInput> = {}) {
  const target = createRecorder<Numbered>();
  const actor = createActor(throttlerMachine, {
    input: {
      strategy: 'sliding-window',
      rate: { requests: '3/1s', tokens: ['100/1s', '150/2s'] },
      target: target.ref,
      ...input,
    } as ThrottlerInput,
  });
  const emitted: ThrottlerEmitted[] = [];
  actor.on('*', (event) => emitted.push(event as ThrottlerEmitted));
  actor.start();
  return {
    actor,
    emitted,
    queue: (n: number, cost?: Cost, channel?: string) => actor.send({ type: 'QUEUE', message: msg(n), cost, channel }),
    deliveries: () => target.received.map((received) => [received.message.n, received.at]),
    errors: (type: 'rejected' | 'invalidEvent') =>
      emitted
        .filter((event) => event.type === type)
        .map((event) => (event as unknown as { error: ThrottlerOptionError }).error),
  };
}

describe('several dimensions at once', () => {
  it('holds every rate of every dimension: tokens hold back what requests would let go', () => {
    const { queue, deliveries } = start();
    queue(1, { requests: 1, tokens: 60 });
    queue(2, { requests: 1, tokens: 60 }); // tokens: 120 > 100 in 1s
    queue(3, { requests: 1, tokens: 30 });
    advance(5_000);
    // 2 waits until 1 leaves the 1s window; 150/2s then holds 3 (60 + 60 + 30 = 150 fits) .
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 1_000],
      [3, 1_000],
    ]);
  });

  it('counts a plain number in every dimension, and a dimension a map leaves out as 0', () => {
    const { queue, deliveries } = start();
    queue(1, 2); // 2 requests and 2 tokens
    queue(2, { tokens: 90 }); // no request
    queue(3, { requests: 1 }); // no token
    queue(4, { requests: 1 });
    advance(3_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 1_000],
    ]);
  });

  it('emits the cost as it was given, by dimension', () => {
    const { queue, emitted } = start();
    queue(1, { requests: 1, tokens: 60 });
    queue(2, { tokens: 60 });
    advance(2_000);
    const delivered = emitted.filter((event) => event.type === 'delivered').map((event) => event.cost);
    expect(delivered).toEqual([{ requests: 1, tokens: 60 }, { tokens: 60 }]);
    const queued = emitted.filter((event) => event.type === 'queued').map((event) => event.cost);
    expect(queued).toEqual([{ tokens: 60 }]);
  });

  it('obeys a channel that names some of the dimensions, on top of the overall rates', () => {
    const { queue, deliveries } = start({ channels: { small: { tokens: '50/1s' } }, ordering: 'per-channel' });
    queue(1, { requests: 1, tokens: 40 }, 'small');
    queue(2, { requests: 1, tokens: 40 }, 'small');
    queue(3, { requests: 1, tokens: 40 });
    advance(3_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [3, 0],
      [2, 1_000],
    ]);
  });

  it('gives each key the template’s rates in the dimensions it names, under the overall rates', () => {
    // Each key 60 tokens a second; overall 3 requests and 100 tokens a second.
    const { queue, deliveries } = start({ keys: { rate: { tokens: '60/1s' } }, ordering: 'per-channel' });
    queue(1, { requests: 1, tokens: 40 }, 'a');
    queue(2, { requests: 1, tokens: 40 }, 'a'); // a's tokens: 80 > 60, waits for 1 to leave a's window
    queue(3, { requests: 1, tokens: 50 }, 'b'); // b's own 60 hold it; overall 90 of 100
    queue(4, { tokens: 10 }, 'b'); // overall 100 of 100, b's 60 of 60; no request
    queue(5, { requests: 1, tokens: 1 }, 'c'); // requests 2 of 3, but the overall tokens are full
    advance(3_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [3, 0],
      [4, 0],
      [2, 1_000],
      [5, 1_000],
    ]);
  });

  it('refuses a bad cost naming the field and the value, the throttler running', () => {
    const { queue, errors, deliveries } = start();
    queue(1, { requests: 1, images: 2 });
    queue(2, { requests: -1, tokens: 1 });
    queue(3, { requests: 0 });
    queue(4, { tokens: 101 });
    queue(5, [1, 2] as never);
    queue(6, { requests: 4 });
    queue(7, { requests: 1 });
    const messages = errors('rejected').map((error) => [error.option, error.value]);
    expect(messages).toEqual([
      ['cost.images', 2],
      ['cost.requests', -1],
      ['cost', { requests: 0 }],
      ['cost.tokens', 101],
      ['cost', [1, 2]],
      ['cost.requests', 4],
    ]);
    expect(deliveries()).toEqual([[7, 0]]);
  });

  it('refuses a cost per dimension on a throttler whose rate names none', () => {
    const { queue, errors } = start({ rate: '10/1s' });
    queue(1, { requests: 1 });
    expect(errors('rejected')[0]?.option).toBe('cost');
  });

  it('takes __proto__ as a dimension name', () => {
    const rate = JSON.parse('{"__proto__": "2/1s", "tokens": "10/1s"}');
    const { queue, deliveries, emitted } = start({ rate });
    const cost = JSON.parse('{"__proto__": 1}');
    queue(1, cost);
    queue(2, cost);
    queue(3, cost);
    advance(2_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 0],
      [3, 1_000],
    ]);
    const shown = emitted.find((event) => event.type === 'delivered')?.cost as Record<string, number>;
    expect(Object.keys(shown)).toEqual(['__proto__']);
  });

  it('SET_RATE: a dimension map replaces the dimensions it names, the others keep their rates', () => {
    const { actor, queue, deliveries, errors } = start({ channels: { a: { tokens: '100/1s' } } });
    actor.send({ type: 'SET_RATE', rate: '5/1s' });
    actor.send({ type: 'SET_RATE', rate: { images: '50/1s' }, channel: 'a' });
    expect(errors('invalidEvent').map((error) => error.option)).toEqual(['rate', 'channels.a.images']);
    actor.send({ type: 'SET_RATE', rate: { requests: '1/1s' } });
    actor.send({ type: 'SET_RATE', rate: { tokens: '10/1s' }, channel: 'a' });
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())).context.dispatcher.options;
    expect(saved.rates.map((rate: Rate) => [rate.dimension, rate.limit])).toEqual([
      ['requests', 1],
      ['tokens', 100],
      ['tokens', 150],
    ]);
    queue(1, { requests: 1 });
    queue(2, { requests: 1 });
    queue(3, { tokens: 80 }); // the overall tokens rates kept: 100/1s and 150/2s
    queue(4, { tokens: 10 }, 'a');
    advance(1_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 1_000],
      [3, 1_000],
      [4, 1_000],
    ]);
  });

  it('QUEUE_BATCH entries take costs per dimension: what fits goes at once, the rest waits, a bad one is refused', () => {
    const { actor, deliveries, errors } = start();
    actor.send({
      type: 'QUEUE_BATCH',
      messages: [
        { message: msg(1), cost: { requests: 1, tokens: 90 } },
        { message: msg(2), cost: { tokens: 500 } },
        { message: msg(3), cost: { tokens: 20 } },
        { message: msg(4), cost: { requests: 1 } },
      ],
    });
    expect(errors('rejected').map((error) => [error.option, error.value])).toEqual([['cost.tokens', 500]]);
    advance(2_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [3, 1_000],
      [4, 1_000],
    ]);
  });

  it('TRY_ACQUIRE takes a cost per dimension', () => {
    const { actor } = start();
    const reply: { waitMs?: number; error?: Error } = {};
    actor.send({ type: 'TRY_ACQUIRE', cost: { tokens: 100 }, reply });
    expect(reply.waitMs).toBe(0);
    const again: { waitMs?: number; error?: Error } = {};
    actor.send({ type: 'TRY_ACQUIRE', cost: { tokens: 1 }, reply: again });
    expect(again.waitMs).toBe(1_000);
    const free: { waitMs?: number; error?: Error } = {};
    actor.send({ type: 'TRY_ACQUIRE', cost: { requests: 1 }, reply: free });
    expect(free.waitMs).toBe(0);
  });

  it('countUntil "done": SETTLED names the cost as queued', () => {
    const { actor, queue, deliveries, errors } = start({
      countUntil: 'done',
      rate: { requests: '2/1s', tokens: '10/1s' },
    });
    queue(1, { requests: 1, tokens: 10 });
    queue(2, { tokens: 1 });
    advance(5_000);
    expect(deliveries()).toEqual([[1, 0]]);
    actor.send({ type: 'SETTLED', cost: { requests: 1, tokens: 9 } });
    expect(errors('invalidEvent')).toHaveLength(1);
    actor.send({ type: 'SETTLED', cost: { tokens: 10, requests: 1 } });
    advance(1_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 6_000],
    ]);
  });
});
