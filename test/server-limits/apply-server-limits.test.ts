/**
 * Applying what a response says to a throttler, in virtual time: the machine actor (events sent),
 * the promise API (its pause and setRate), and the listener the promise API's option runs.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { createThrottler, type ThrottlerEmitted, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { applyServerLimits, readServerLimits } from '../../src/server-limits/index.js';
import { serverLimitsListener } from '../../src/server-limits/server-limits-option.js';
import { expectOptionError } from '../support/option-error.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

function startThrottler(input: Omit<ThrottlerInput, 'target'>) {
  const target = createRecorder<Numbered>();
  const actor = createActor(throttlerMachine, { input: { ...input, target: target.ref } }).start();
  const emitted: ThrottlerEmitted[] = [];
  actor.on('*', (event) => emitted.push(event as ThrottlerEmitted));
  const queue = (...numbers: number[]) => {
    for (const n of numbers) actor.send({ type: 'QUEUE', message: msg(n) });
  };
  const deliveries = () => target.received.map((r) => [r.message.n, r.at]);
  return { actor, emitted, queue, deliveries };
}

/** A 429 as a server that allows 2 per second says it, on the virtual wall clock (Date is faked too). */
const tooMany = (retryAfter: string) =>
  readServerLimits({ status: 429, headers: { 'Retry-After': retryAfter, 'RateLimit-Policy': '"default";q=2;w=1' } });

describe('applyServerLimits on a throttler machine, in virtual time', () => {
  it('pauses for Retry-After and follows the stated policy from then on', () => {
    const { actor, emitted, queue, deliveries } = startThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    queue(1, 2);
    const sent = applyServerLimits(actor, tooMany('3'));
    // The configured 10/1s stays beside the server's 2/1s: a server lowers the rates, never raises them.
    expect(sent).toEqual([
      {
        type: 'SET_RATE',
        rate: [
          { limit: 2, interval: 1_000 },
          { limit: 10, interval: 1_000 },
        ],
      },
      { type: 'PAUSE', duration: 3_000 },
    ]);
    queue(3, 4, 5, 6);
    advance(5_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 0],
      [3, 3_000],
      [4, 3_000],
      [5, 4_000],
      [6, 4_000],
    ]);
    expect(emitted.filter((event) => event.type === 'invalidEvent')).toEqual([]);
  });

  it('a later, shorter pause does not cut a longer one short; a later, longer one extends it', () => {
    const { actor, queue, deliveries } = startThrottler({ rate: '10/1s' });
    applyServerLimits(actor, tooMany('10'));
    advance(1_000);
    // An answer to a request sent in parallel, coming back later with an earlier end.
    expect(applyServerLimits(actor, tooMany('2')).map((event) => event.type)).toEqual([]);
    queue(1);
    advance(8_000);
    expect(deliveries()).toEqual([]);
    advance(1_000);
    expect(deliveries()).toEqual([[1, 10_000]]);

    expect(applyServerLimits(actor, tooMany('2')).map((event) => event.type)).toEqual(['PAUSE']);
    advance(1_000);
    expect(applyServerLimits(actor, tooMany('5')).map((event) => event.type)).toEqual(['PAUSE']);
    queue(2);
    advance(4_999);
    expect(deliveries()).toHaveLength(1);
    advance(1);
    expect(deliveries()).toEqual([
      [1, 10_000],
      [2, 16_000],
    ]);
  });

  it('does not send the same rates again (the timer strategy would restart its period), but sends new ones', () => {
    const { actor, queue, deliveries } = startThrottler({ rate: '10/1s' });
    const policy = (quota: number) => readServerLimits({ 'RateLimit-Policy': `"default";q=${quota};w=1` });
    expect(applyServerLimits(actor, policy(2))).toHaveLength(1);
    queue(1, 2, 3);
    advance(500);
    expect(applyServerLimits(actor, policy(2))).toEqual([]);
    advance(499);
    // The period that started with the first SET_RATE ran on: 3 waits for its end, at 1000 ms.
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 0],
    ]);
    advance(1);
    expect(deliveries()).toHaveLength(3);
    expect(applyServerLimits(actor, policy(3))).toEqual([
      {
        type: 'SET_RATE',
        rate: [
          { limit: 3, interval: 1_000 },
          { limit: 10, interval: 1_000 },
        ],
      },
    ]);
  });

  it('remaining 0 pauses until the reset; remaining above 0 sends nothing', () => {
    const { actor, queue, deliveries } = startThrottler({ rate: '10/1s' });
    const left = (remaining: number) =>
      readServerLimits({
        'X-RateLimit-Remaining': String(remaining),
        'X-RateLimit-Reset': String(Date.now() / 1000 + 2),
      });
    expect(applyServerLimits(actor, left(3))).toEqual([]);
    expect(applyServerLimits(actor, left(0))).toEqual([{ type: 'PAUSE', duration: 2_000 }]);
    queue(1);
    advance(2_000);
    expect(deliveries()).toEqual([[1, 2_000]]);
  });

  it('applies a channel rate to that channel', () => {
    const { actor, queue, deliveries } = startThrottler({
      rate: '10/1s',
      channels: { search: '10/1s' },
      ordering: 'per-channel',
    });
    const limits = readServerLimits({ 'RateLimit-Policy': '"default";q=1;w=1' }, { channel: 'search' });
    applyServerLimits(actor, limits);
    for (const n of [1, 2]) actor.send({ type: 'QUEUE', message: msg(n), channel: 'search' });
    queue(3);
    advance(1_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [3, 0],
      [2, 1_000],
    ]);
  });

  it('refuses what is no throttler and what readServerLimits did not return', () => {
    const limits = tooMany('1');
    expectOptionError(() => applyServerLimits({} as never, limits), {
      message: 'throttler must be a throttler actor or the promise API throttler, got {}',
      option: 'throttler',
      value: {},
    });
    const { actor } = startThrottler({ rate: '1/1s' });
    expectOptionError(() => applyServerLimits(actor, {} as never), {
      message: 'limits must be what readServerLimits returned, got {}',
      option: 'limits',
      value: {},
    });
  });
});

describe('applyServerLimits and serverLimitsListener on the promise API', () => {
  const advanceAsync = (ms: number) => vi.advanceTimersByTimeAsync(ms);

  it('calls pause and setRate, so that tasks wait and then go at the stated rate', async () => {
    const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window' });
    const starts: number[] = [];
    const task = () => starts.push(now());
    await throttler.schedule(task);
    applyServerLimits(throttler, tooMany('2'));
    const rest = [1, 2, 3].map(() => throttler.schedule(task));
    await advanceAsync(3_000);
    await Promise.all(rest);
    expect(starts).toEqual([0, 2_000, 2_000, 3_000]);
    throttler.stop();
  });

  it('the listener picks the response out of a task result (or error), reads and applies it', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    const listen = serverLimitsListener(
      throttler,
      (value: { response?: Response } | undefined, error) =>
        value?.response ?? (error as { response?: Response } | undefined)?.response,
      { maxPause: '1s' },
    );
    expect(listen({ response: undefined })).toBeUndefined();
    const refused = new Response(null, { status: 429, headers: { 'Retry-After': '60' } });
    expect(listen(undefined, { response: refused })).toBeUndefined();
    const starts: number[] = [];
    const done = throttler.schedule(() => starts.push(now()));
    await advanceAsync(1_000);
    await done;
    expect(starts).toEqual([1_000]);
    throttler.stop();
  });

  it('the listener never throws: what would have been thrown, by pick or by the throttler, is returned', () => {
    const throttler = createThrottler({ rate: '10/1s' });
    expect(serverLimitsListener(throttler, (value) => value)(42)).toBeUndefined();
    const broken = serverLimitsListener(throttler, () => {
      throw 'oops';
    });
    expect(broken(1)?.message).toBe('serverLimits threw "oops"');
    const policy = { 'RateLimit-Policy': '"default";q=5;w=1' };
    const unknownChannel = serverLimitsListener(throttler, () => policy, { channel: 'search' })(undefined);
    expect(unknownChannel?.message).toBe('channel must be undefined (no channels are configured), got "search"');
    throttler.stop();
  });

  it('the listener checks its options up front', () => {
    const throttler = createThrottler({ rate: '10/1s' });
    expectOptionError(() => serverLimitsListener(throttler, 'body' as never), {
      message: 'serverLimits must be a function picking the response out of a task result, got "body"',
      option: 'serverLimits',
      value: 'body',
    });
    expectOptionError(() => serverLimitsListener(throttler, () => undefined, { maxPause: 0 }), {
      message: 'maxPause must be a positive, finite duration in milliseconds, got 0',
      option: 'maxPause',
      value: 0,
    });
    throttler.stop();
  });
});
