/**
 * applyServerLimits decides on what the throttler holds, not on what it remembers sending (issue 22,
 * items 11 and 12), in virtual time: a manual resume or pause is seen, and by default a server's policy
 * can lower the rates the throttler was configured with but never raise them.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type AnyEventObject, createActor, fromCallback } from 'xstate';
import { createThrottler, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { applyServerLimits, readServerLimits, serverLimits } from '../../src/server-limits/index.js';
import { expectOptionError } from '../support/option-error.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

function startThrottler(input: Omit<ThrottlerInput, 'target'>) {
  const target = createRecorder<Numbered>();
  const actor = createActor(throttlerMachine, { input: { ...input, target: target.ref } }).start();
  const queue = (...numbers: number[]) => {
    for (const n of numbers) actor.send({ type: 'QUEUE', message: msg(n) });
  };
  const times = () => target.received.map((r) => r.at);
  return { actor, queue, times };
}

const tooMany = (seconds: number) => readServerLimits({ status: 429, headers: { 'Retry-After': String(seconds) } });
const policy = (field: string, options?: Parameters<typeof readServerLimits>[1]) =>
  readServerLimits({ 'RateLimit-Policy': field }, options);
const refused = (seconds: number) => new Response(null, { status: 429, headers: { 'Retry-After': String(seconds) } });

describe('a pause made otherwise is seen (item 11)', () => {
  it('promise API: after a long pause and a manual resume(), a later 429 pauses again; no task starts into it', async () => {
    // The server refuses everything for an hour from 0, and again for 10 s from 1 s, each time saying so.
    // One task at a time (a pass starts every task the rate allows at once, before any answer is back).
    const throttler = createThrottler({ rate: '1/100ms', strategy: 'sliding-window', serverLimits: serverLimits() });
    const first = throttler.schedule(() => refused(3_600));
    await vi.advanceTimersByTimeAsync(1_000);
    await first;
    throttler.resume();
    const answers: Array<{ at: number; status: number }> = [];
    const tasks = Array.from({ length: 20 }, () =>
      throttler.schedule(() => {
        const at = now();
        const status = at < 11_000 ? 429 : 200;
        answers.push({ at, status });
        return status === 429 ? refused(10) : new Response('ok');
      }),
    );
    await vi.advanceTimersByTimeAsync(13_000);
    await Promise.all(tasks);
    // Only the first task after the resume meets the new refusal; the other 19 wait out its 10 s.
    expect(answers.filter((answer) => answer.status === 429)).toEqual([{ at: 1_000, status: 429 }]);
    expect(answers).toHaveLength(20);
    throttler.stop();
  });

  it('machine: a RESUME ends what the helper knew of its own pause', () => {
    const { actor, queue, times } = startThrottler({ rate: '10/1s' });
    expect(applyServerLimits(actor, tooMany(3_600))).toEqual([{ type: 'PAUSE', duration: 3_600_000 }]);
    advance(1_000);
    actor.send({ type: 'RESUME' });
    expect(applyServerLimits(actor, tooMany(10))).toEqual([{ type: 'PAUSE', duration: 10_000 }]);
    queue(1);
    advance(9_999);
    expect(times()).toEqual([]);
    advance(1);
    expect(times()).toEqual([11_000]);
  });

  it('machine: a shorter pause sent by hand replaces the long one; a later 429 beyond it pauses again', () => {
    const { actor, queue, times } = startThrottler({ rate: '10/1s' });
    applyServerLimits(actor, tooMany(3_600));
    actor.send({ type: 'PAUSE', duration: 500 });
    advance(1_000);
    expect(applyServerLimits(actor, tooMany(5)).map((event) => event.type)).toEqual(['PAUSE']);
    queue(1);
    advance(5_000);
    expect(times()).toEqual([6_000]);
  });

  it('machine: a pause until RESUME sent by hand is never cut short by a server pause', () => {
    const { actor, queue, times } = startThrottler({ rate: '10/1s' });
    actor.send({ type: 'PAUSE' });
    expect(applyServerLimits(actor, tooMany(5))).toEqual([]);
    queue(1);
    advance(60_000);
    expect(times()).toEqual([]);
  });

  it('answers heard while the throttler is busy (its mailbox holds the first PAUSE): the shorter one waits', () => {
    // The target applies each answer as the message arrives, inside the throttler's delivery pass.
    const answers = [tooMany(10), tooMany(2)];
    let throttler: { send(event: AnyEventObject): void } | undefined;
    const sent: string[][] = [];
    const target = createActor(
      fromCallback<Numbered>(({ receive }) => {
        receive((message) => {
          const answer = answers[message.n - 1];
          if (answer !== undefined && throttler !== undefined) {
            sent.push(applyServerLimits(throttler as never, answer).map((event) => event.type));
          }
        });
      }),
    ).start();
    const actor = createActor(throttlerMachine, {
      input: { rate: '2/1s', strategy: 'sliding-window', target },
    }).start();
    throttler = actor;
    const delivered: number[] = [];
    actor.on('delivered', (event) => delivered.push(event.at));
    actor.send({ type: 'QUEUE_BATCH', messages: [1, 2, 3].map((n) => ({ message: msg(n) })) });
    expect(sent).toEqual([['PAUSE'], []]);
    advance(10_000);
    expect(delivered).toEqual([0, 0, 10_000]);
  });
});

describe('a server never raises the configured rates unless asked (item 12)', () => {
  it('promise API: after a policy of 100000/1s, tasks still start at the configured 10/1s', async () => {
    let answered = false;
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window', serverLimits: serverLimits() });
    const starts: number[] = [];
    const task = () => {
      starts.push(now());
      if (answered) return new Response('ok');
      answered = true;
      return new Response('ok', { headers: { 'RateLimit-Policy': '"default";q=100000;w=1' } });
    };
    await throttler.schedule(task);
    const rest = Array.from({ length: 5_000 }, () => throttler.schedule(task));
    await vi.advanceTimersByTimeAsync(50);
    expect(starts.length).toBe(10);
    throttler.stop();
    await Promise.allSettled(rest);
  });

  it('machine: a policy above the configured rates sends nothing; one below is sent beside them', () => {
    const { actor, queue, times } = startThrottler({ rate: ['10/1s', '500/1m'], strategy: 'sliding-window' });
    expect(applyServerLimits(actor, policy('"default";q=1000;w=60'))).toEqual([]);
    expect(applyServerLimits(actor, policy('"default";q=2;w=1'))).toEqual([
      {
        type: 'SET_RATE',
        rate: [
          { limit: 2, interval: 1_000 },
          { limit: 10, interval: 1_000 },
          { limit: 500, interval: 60_000 },
        ],
      },
    ]);
    queue(1, 2, 3);
    advance(1_000);
    expect(times()).toEqual([0, 0, 1_000]);
  });

  it('a channel keeps its own configured rates; a key the keys’ template', () => {
    const { actor } = startThrottler({
      rate: '100/1s',
      channels: { search: '5/1s' },
      keys: { rate: '3/1s' },
      ordering: 'per-channel',
    });
    expect(applyServerLimits(actor, policy('"a";q=50;w=1', { channel: 'search' }))).toEqual([]);
    expect(applyServerLimits(actor, policy('"a";q=50;w=1', { channel: 'customer:1' }))).toEqual([]);
    expect(applyServerLimits(actor, policy('"a";q=1;w=1', { channel: 'customer:1' }))).toEqual([
      {
        type: 'SET_RATE',
        channel: 'customer:1',
        rate: [
          { limit: 1, interval: 1_000 },
          { limit: 3, interval: 1_000 },
        ],
      },
    ]);
  });

  it('after lowering, a higher policy lifts the rates back up to the configured ones, no further', () => {
    const { actor, queue, times } = startThrottler({ rate: '4/1s', strategy: 'sliding-window' });
    applyServerLimits(actor, policy('"a";q=1;w=1'));
    expect(applyServerLimits(actor, policy('"a";q=50;w=1'))).toEqual([
      { type: 'SET_RATE', rate: [{ limit: 4, interval: 1_000 }] },
    ]);
    queue(1, 2, 3, 4, 5);
    advance(1_000);
    expect(times()).toEqual([0, 0, 0, 0, 1_000]);
  });

  it('rates the user sets later are the new ceiling', () => {
    const { actor } = startThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    applyServerLimits(actor, policy('"a";q=5;w=1'));
    actor.send({ type: 'SET_RATE', rate: '3/1s' });
    expect(applyServerLimits(actor, policy('"a";q=5;w=1'))).toEqual([]);
    expect(applyServerLimits(actor, policy('"a";q=2;w=1'))).toEqual([
      {
        type: 'SET_RATE',
        rate: [
          { limit: 2, interval: 1_000 },
          { limit: 3, interval: 1_000 },
        ],
      },
    ]);
  });

  it("ceiling 'none' lets the server's policy replace the rates, up or down (the opt-in)", () => {
    const { actor, queue, times } = startThrottler({ rate: '1/1s', strategy: 'sliding-window' });
    expect(applyServerLimits(actor, policy('"a";q=3;w=1', { ceiling: 'none' }))).toEqual([
      { type: 'SET_RATE', rate: [{ limit: 3, interval: 1_000 }] },
    ]);
    queue(1, 2, 3);
    expect(times()).toEqual([0, 0, 0]);
  });

  it('explicit ceiling rates replace the configured ones as the ceiling', () => {
    const { actor } = startThrottler({ rate: '1/1s' });
    expect(applyServerLimits(actor, policy('"a";q=3;w=1', { ceiling: '5/1s' }))).toEqual([
      {
        type: 'SET_RATE',
        rate: [
          { limit: 3, interval: 1_000 },
          { limit: 5, interval: 1_000 },
        ],
      },
    ]);
  });

  it("a target whose rates cannot be read needs ceiling rates or 'none'", () => {
    const events: AnyEventObject[] = [];
    const ref = { send: (event: AnyEventObject) => events.push(event) };
    expectOptionError(() => applyServerLimits(ref, policy('"a";q=3;w=1')), {
      message:
        "ceiling must be rates or 'none' for a target whose rates cannot be read (not a throttler actor nor createThrottler's throttler), got \"configured\"",
      option: 'ceiling',
      value: 'configured',
    });
    expect(events).toEqual([]);
    expect(applyServerLimits(ref, policy('"a";q=3;w=1', { ceiling: 'none' }))).toHaveLength(1);
    // A pause needs no rates.
    expect(applyServerLimits(ref, tooMany(1))).toEqual([{ type: 'PAUSE', duration: 1_000 }]);
  });

  it('the listener checks that up front, when it is bound', () => {
    const own = { pause: () => {}, setRate: () => {} };
    expectOptionError(() => serverLimits().bind(own), {
      message:
        "ceiling must be rates or 'none' for a target whose rates cannot be read (not a throttler actor nor createThrottler's throttler), got \"configured\"",
      option: 'ceiling',
      value: 'configured',
    });
    expect(() => serverLimits(undefined, { ceiling: 'none' }).bind(own)).not.toThrow();
    expect(() => serverLimits(undefined, { followPolicy: false }).bind(own)).not.toThrow();
  });
});
