import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { auditThrottler, createThrottler, type ThrottlerInput } from '../../src/index.js';
import { startSettling } from '../support/settle-harness.js';
import { advance, now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** Several dimensions and estimate-then-settle together: an actual cost per dimension. */
function start(input: Partial<ThrottlerInput> = {}) {
  return startSettling({ rate: { requests: '10/1s', tokens: '1000/1s' }, ...input });
}

describe('ACTUAL_COST with rates in dimensions (machine)', () => {
  it('a map naming only tokens: tokens take the actual, requests keep the estimate', () => {
    const { actor, target, send, refused, queue } = start({ rate: { requests: '2/1s', tokens: '1000/1s' } });
    queue(1, { requests: 1, tokens: 900 });
    queue(2, { requests: 1, tokens: 500 });
    expect(target.times()).toEqual([0]);
    send({ type: 'ACTUAL_COST', id: 'm1', cost: { tokens: 300 } });
    expect(refused()).toEqual([]);
    // 300 + 500 tokens fit at once; requests still hold 1 of m1 (its estimate) + 1 of m2 = 2 of 2.
    expect(target.times()).toEqual([0, 0]);
    queue(3, { requests: 1, tokens: 1 });
    advance(999);
    expect(target.received).toHaveLength(2);
    advance(1);
    expect(target.times()).toEqual([0, 0, 1_000]);
    expect(auditThrottler(actor).windowsOver).toBe(0);
  });

  it('a plain number on a dimensioned throttler: that actual cost in every dimension', () => {
    const { actor, target, send, refused, queue } = start({ rate: { requests: '10/1s', tokens: '1000/1s' } });
    queue(1, { requests: 1, tokens: 900 });
    queue(2, { requests: 1, tokens: 800 });
    send({ type: 'ACTUAL_COST', id: 'm1', cost: 5 });
    expect(refused()).toEqual([]);
    // tokens: 5 + 800 fit; requests: 5 (the number, in requests too) + 1.
    expect(target.times()).toEqual([0, 0]);
    for (let n = 3; n <= 7; n += 1) queue(n, { requests: 1, tokens: 1 });
    // 6 requests used: 4 more fit now, the fifth waits for the window.
    expect(target.received).toHaveLength(6);
    advance(1_000);
    expect(target.received).toHaveLength(7);
    expect(auditThrottler(actor).windowsOver).toBe(0);
  });

  it('refuses a map with an unknown dimension, a negative or a non-integer part, naming cost.<dimension> and the value; nothing changes', () => {
    const { target, send, refused, queue } = start();
    queue(1, { requests: 1, tokens: 900 });
    queue(2, { requests: 1, tokens: 500 });
    send({ type: 'ACTUAL_COST', id: 'm1', cost: { images: 3 } });
    send({ type: 'ACTUAL_COST', id: 'm1', cost: { tokens: -1 } });
    send({ type: 'ACTUAL_COST', id: 'm1', cost: { tokens: 2.5 } });
    send({ type: 'ACTUAL_COST', id: 'm1', cost: { tokens: '100' } });
    send({ type: 'ACTUAL_COST', id: 'm1', cost: [100] });
    const messages = refused();
    expect(messages).toHaveLength(5);
    expect(messages[0]).toMatch(/cost\.images .*"requests", "tokens".*got 3/);
    expect(messages[1]).toMatch(/cost\.tokens must be an integer >= 0, got -1/);
    expect(messages[2]).toMatch(/cost\.tokens must be an integer >= 0, got 2\.5/);
    expect(messages[3]).toMatch(/cost\.tokens must be an integer >= 0, got "100"/);
    expect(messages[4]).toMatch(/^cost must be /);
    // Refused settles changed nothing: m1 still holds its estimate of 900, and can still be settled.
    expect(target.received).toHaveLength(1);
    send({ type: 'ACTUAL_COST', id: 'm1', cost: { tokens: 100 } });
    expect(refused()).toHaveLength(5);
    expect(target.times()).toEqual([0, 0]);
  });

  it('__proto__ as a dimension name: an actual map from JSON.parse settles it', () => {
    const rate = JSON.parse('{"requests": "10/1s", "__proto__": "1000/1s"}');
    const { actor, target, send, refused, queue } = start({ rate });
    queue(1, JSON.parse('{"requests": 1, "__proto__": 900}'));
    queue(2, JSON.parse('{"requests": 1, "__proto__": 500}'));
    expect(target.received).toHaveLength(1);
    send({ type: 'ACTUAL_COST', id: 'm1', cost: JSON.parse('{"__proto__": 400}') });
    expect(refused()).toEqual([]);
    expect(target.times()).toEqual([0, 0]);
    send({ type: 'ACTUAL_COST', id: 'm2', cost: JSON.parse('{"__proto__": -4}') });
    expect(refused()).toEqual(['cost.__proto__ must be an integer >= 0, got -4']);
    queue(3, JSON.parse('{"__proto__": 200}'));
    expect(target.received).toHaveLength(2);
    advance(1_000);
    expect(target.times()).toEqual([0, 0, 1_000]);
    expect(auditThrottler(actor).windowsOver).toBe(0);
  });

  it('an actual cost in a dimension the estimate left at 0 is charged at the delivery, not at an older one', () => {
    const { actor, target, send, refused, queue } = start();
    queue(1, { requests: 1, tokens: 10 });
    advance(500);
    // No estimate of tokens at all: the actual cost is the only count of them.
    queue(2, { requests: 1 });
    advance(100);
    send({ type: 'ACTUAL_COST', id: 'm2', cost: { tokens: 900 } });
    expect(refused()).toEqual([]);
    queue(3, { requests: 1, tokens: 500 });
    advance(2_000);
    // 900 went at 500: 500 more fit once it leaves the window, at 1500 (not at 1000, when the 10 of m1 does).
    expect(target.times()).toEqual([0, 500, 1_500]);
    expect(auditThrottler(actor).windowsOver).toBe(0);
  });
  it('the audit sees an overrun in a dimension the estimate left at 0: the window it fills past the limit', () => {
    const { actor, send, refused, queue } = start();
    queue(1, { requests: 1, tokens: 600 });
    advance(100);
    queue(2, { requests: 1 });
    advance(100);
    send({ type: 'ACTUAL_COST', id: 'm2', cost: { tokens: 900 } });
    expect(refused()).toEqual([]);
    const tokens = auditThrottler(actor).rates.find((line) => line.dimension === 'tokens');
    expect(tokens).toMatchObject({ most: 1_500, mostAt: 100, windowsOver: 1 });
  });
});

describe('schedule(fn, { cost, settle }) with rates in dimensions (promise API)', () => {
  const step = (ms: number) => vi.advanceTimersByTimeAsync(ms);
  /** A model call that takes 100 ms and used `tokens`. */
  const call = (tokens: number, starts: number[]) => () => {
    starts.push(now());
    return new Promise<{ usage: { total_tokens: number } }>((resolve) =>
      setTimeout(() => resolve({ usage: { total_tokens: tokens } }), 100),
    );
  };

  it('settle returns { tokens }: the requests estimate stands, the tokens saving is used at once', async () => {
    const throttler = createThrottler({ rate: { requests: '3/1s', tokens: '1000/1s' }, strategy: 'sliding-window' });
    const starts: number[] = [];
    const settle = (result: { usage: { total_tokens: number } }) => ({ tokens: result.usage.total_tokens });
    const cost = { requests: 1, tokens: 800 };
    const done = [100, 100, 100, 100].map((tokens) => throttler.schedule(call(tokens, starts), { cost, settle }));
    await step(0);
    expect(starts).toEqual([0]);
    await step(100);
    // 100 tokens used: the next estimate of 800 fits at once, and so on, until 3 requests fill their window.
    await step(200);
    expect(starts).toEqual([0, 100, 200]);
    await step(1_000);
    expect(starts).toEqual([0, 100, 200, 1_000]);
    await Promise.all(done);
    expect(auditThrottler(throttler.actor).windowsOver).toBe(0);
    await throttler.stop();
  });

  it('settle returns a plain number: that actual cost in every dimension', async () => {
    const throttler = createThrottler({ rate: { requests: '10/1s', tokens: '1000/1s' }, strategy: 'sliding-window' });
    const starts: number[] = [];
    const first = throttler.schedule(call(0, starts), { cost: { requests: 1, tokens: 900 }, settle: () => 8 });
    const second = throttler.schedule(call(0, starts), { cost: { requests: 1, tokens: 900 } });
    await step(100);
    await first;
    expect(starts).toEqual([0, 100]);
    // requests: 8 (the number) + 1; one more fits in this window, the next at 1000.
    const more = [1, 2].map(() => throttler.schedule(call(0, starts), { cost: { requests: 1, tokens: 1 } }));
    await step(0);
    expect(starts).toEqual([0, 100, 100]);
    await step(900);
    expect(starts).toEqual([0, 100, 100, 1_000]);
    await step(100);
    await Promise.all([second, ...more]);
    await throttler.stop();
  });

  it('a settle returning a bad map is reported to onHandlerError naming the field and value; the estimate stands', async () => {
    const reported: Array<[string, string]> = [];
    const throttler = createThrottler({
      rate: { requests: '10/1s', tokens: '1000/1s' },
      strategy: 'sliding-window',
      onHandlerError: (error, event) => reported.push([event, (error as Error).message]),
    });
    const starts: number[] = [];
    const cost = { requests: 1, tokens: 900 };
    const first = throttler.schedule(call(0, starts), { cost, settle: () => ({ images: 2 }) });
    const second = throttler.schedule(call(0, starts), { cost, settle: () => ({ tokens: -3 }) });
    await step(100);
    await expect(first).resolves.toEqual({ usage: { total_tokens: 0 } });
    expect(reported).toEqual([['settle', expect.stringMatching(/^settle\(\)\.images .*got 2$/)]]);
    await step(1_000);
    await second;
    expect(reported[1]).toEqual(['settle', 'settle().tokens must be an integer >= 0, got -3']);
    // Neither settled: the second waited for the first's 900 tokens to leave the window.
    expect(starts).toEqual([0, 1_000]);
    await throttler.stop();
  });
});
