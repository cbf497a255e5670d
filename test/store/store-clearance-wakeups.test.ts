import { describe, expect, it } from 'vitest';
import { type ClearanceRequest, resolveOptions, type StoreHooks } from '../../src/engine/index.js';
import type { LineOutcome } from '../../src/store/protocol.js';
import { RedisClearance } from '../../src/store/store-clearance.js';

/**
 * A store clearance driven directly, its limiter a stub whose calls the test answers: whenever it
 * answers Infinity ("until the store wakes it"), a call goes out or the throttler is woken within the
 * turn (issue 33: a throttler left with nothing out and no timer waits for good): after an outage on
 * the local window, a head the local window allows while the outage's sends are all reported; and a
 * line held by its own channel (per-channel ordering) while the store is down with onStoreDown 'pause'
 * (no ask takes a held line, so no answer and no failure comes). Also (issue 33): after an outage on the
 * local window, a grant sent late within its grace counts on that window at its Redis time (the window
 * spans the interval plus the grace), so the process's share holds on the grants' times.
 */
interface Call {
  readonly requests: ReadonlyArray<{ channel: string | undefined }>;
  answer(outcomes: LineOutcome[]): void;
  fail(error: Error): void;
}

function stubbed(onStoreDown: 'pause' | 'local' = 'pause') {
  let now = 0;
  let woken = 0;
  const calls: Call[] = [];
  const options = resolveOptions(
    onStoreDown === 'pause'
      ? { rate: '100/1s', strategy: 'sliding-window', ordering: 'per-channel', channels: { a: '2/1s', b: '2/1s' } }
      : { rate: '20/500ms', strategy: 'sliding-window' },
  );
  const never = () => new Promise<never>(() => {});
  const limiter = {
    name: 'stub',
    rates: options.rates,
    channels: options.channels,
    keyRates: undefined,
    grantGraceMs: 20,
    clockDrift: 0,
    roundTrips: 0,
    reserveLines(requests: ReadonlyArray<{ channel: string | undefined }>) {
      return new Promise<LineOutcome[]>((resolve, reject) => calls.push({ requests, answer: resolve, fail: reject }));
    },
    reserve(requests: ReadonlyArray<{ channel: string | undefined }>) {
      return this.reserveLines(requests);
    },
    release: async () => {},
    setRate: async () => {},
    setKeyTemplate: async () => {},
    pause: async () => {},
    resume: async () => {},
    check: never,
    audit: never,
    retime: never,
    settle: never,
    redisNow: never,
    subscribe: () => () => {},
  };
  const hooks: StoreHooks = {
    now: () => now,
    wake: () => {
      woken += 1;
    },
    status: () => {},
    conflict: () => {},
    quarantined: () => {},
    slow: () => {},
    rewound: () => {},
  };
  const clearance = new RedisClearance(limiter as never, options, hooks, {
    onStoreDown,
    localShare: onStoreDown === 'local' ? 0.25 : 1,
    reconnectWithinMs: onStoreDown === 'local' ? 2500 : 0,
  });
  let seq = 0;
  const request = (channel: string | undefined): ClearanceRequest => {
    const admitted = { seq: seq++, channel, cost: 1, scope: undefined } as unknown as ClearanceRequest;
    clearance.admit(admitted);
    return admitted;
  };
  /** The clearance's answer at `at`, and what it set going within the turn (a call out, a wake). */
  const answerAt = async (admitted: ClearanceRequest, at: number) => {
    now = at;
    const [callsBefore, wokenBefore] = [calls.length, woken];
    const answer = clearance.clearAt(admitted, at);
    await new Promise((resolve) => setImmediate(resolve));
    return { answer, asked: calls.length - callsBefore, woken: woken - wokenBefore };
  };
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const setNow = (at: number) => {
    now = at;
  };
  return { clearance, calls, request, answerAt, turn, setNow };
}

/** Infinity only with something under way that brings the next answer. */
function waitsForSomething(step: { answer: number; asked: number; woken: number }): boolean {
  return Number.isFinite(step.answer) || step.asked > 0 || step.woken > 0;
}

describe('a store clearance never answers Infinity with nothing under way', () => {
  it("a line held by its own channel while the store is down ('pause'): answered with the hold's end", async () => {
    const { clearance, calls, request, answerAt, turn } = stubbed();
    // Channel a's line is held for a second by its own rate.
    const first = request('a');
    expect(waitsForSomething(await answerAt(first, 0))).toBe(true);
    calls[0]?.answer([{ kind: 'line-later', retryAfterMs: 1000 }]);
    await turn();
    // Channel b's ask fails: the store is down, asked again in 50 ms; b's message is then cancelled.
    const other = request('b');
    expect(waitsForSomething(await answerAt(other, 1))).toBe(true);
    expect(calls[1]?.requests.map((r) => r.channel)).toEqual(['b']);
    calls[1]?.fail(new Error('connect ECONNREFUSED'));
    await turn();
    clearance.withdraw(other);
    // Past the retry, a's head is held still: no ask can take it, so only its timer can bring it on.
    const held = await answerAt(first, 60);
    expect(waitsForSomething(held)).toBe(true);
    expect(held.answer).toBe(1000);
    // At the hold's end it is asked for (the call then tells the store is back, or fails again).
    const freed = await answerAt(first, 1000);
    expect(freed.asked).toBe(1);
    expect(calls[2]?.requests.map((r) => r.channel)).toEqual(['a']);
    clearance.close();
  });

  it("after an outage on the local window ('local'), the sends all reported: a head the local window allows is asked for", async () => {
    const { clearance, calls, request, answerAt, turn, setNow } = stubbed('local');
    const first = request(undefined);
    expect(waitsForSomething(await answerAt(first, 0))).toBe(true);
    calls[0]?.fail(new Error('connect ECONNREFUSED'));
    await turn();
    // Down: it goes on the local window (a quarter of 20 a 500 ms), which stays in force for 520 ms.
    expect(await answerAt(first, 1)).toMatchObject({ answer: 1 });
    setNow(1);
    clearance.recordDelivery(first, 1, 1);
    // Back: the send is reported and counted, the next message told to wait 100 ms for room.
    const second = request(undefined);
    const probe = await answerAt(second, 50);
    expect(probe.asked).toBe(1);
    calls[1]?.answer([
      { kind: 'granted', waitMs: 0, redisTime: 50, reservation: 'e 50000:1:0:n -' },
      { kind: 'later', retryAfterMs: 100, reason: 'reserve-ahead' },
    ]);
    await turn();
    // The local window allows it, nothing is left to report: it must be asked for (a flush for reports only went, empty).
    const step = await answerAt(second, 150);
    expect(waitsForSomething(step)).toBe(true);
    expect(calls.at(-1)?.requests.length).toBe(1);
    clearance.close();
  });
});

describe("after an outage on the local window ('local'), a grant sent late within its grace", () => {
  it('counts on the local window at its Redis time: it does not go where that would put one over the share', async () => {
    const { clearance, calls, request, answerAt, turn, setNow } = stubbed('local');
    const first = request(undefined);
    expect(waitsForSomething(await answerAt(first, 0))).toBe(true);
    calls[0]?.fail(new Error('connect ECONNREFUSED'));
    await turn();
    // Down: its whole share (5 of 20 a 500 ms) on the local window, at 0, 100, ..., 400.
    let sending = first;
    for (const at of [0, 100, 200, 300, 400]) {
      expect((await answerAt(sending, at)).answer).toBe(at);
      setNow(at);
      clearance.recordDelivery(sending, at, at);
      sending = request(undefined);
    }
    // Back at 450: the call out since the first retry is answered (what it reported, and a message that
    // went locally since, given back), then the next message is asked for with the rest of the reports and
    // granted at 490 on Redis' clock (the host's here).
    setNow(450);
    const granted = (at: number, i: number, waitMs = 0) => ({
      kind: 'granted' as const,
      waitMs,
      redisTime: at,
      reservation: `e ${at * 1000 + i}:1:0:n -`,
    });
    const out = calls.at(-1);
    out?.answer(out.requests.map((_, i) => granted(450, i)));
    await turn();
    // The answer asked for it at once, with the reports left first.
    expect(calls.length).toBe(3);
    const ask = calls.at(-1);
    const reports = (ask?.requests.length ?? 1) - 1;
    ask?.answer([...Array.from({ length: reports }, (_, i) => granted(450, 10 + i)), granted(490, 0, 40)]);
    await turn();
    // At 505, within the grace (20 ms), the local window of 500 ms alone would let it go: counted at 490, it
    // would be the sixth in [0, 500). It waits for the window, or goes back to be asked for again.
    const late = await answerAt(sending, 505);
    expect(late.answer).toBeGreaterThan(505);
    clearance.close();
  });
});
