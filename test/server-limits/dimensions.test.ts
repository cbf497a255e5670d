/**
 * Server limits on a throttler with rates in dimensions (`rate: { requests, tokens }`): the SET_RATE carries
 * the rates of the dimension the listener counts (`dimension`), labelled with it, so the throttler keeps its
 * other dimensions' rates; a plain SET_RATE it would refuse (invalidEvent).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { createThrottler, type ThrottlerEmitted, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { applyServerLimits, readServerLimits, serverLimits } from '../../src/server-limits/index.js';
import { throttlerInForce } from '../../src/server-limits/throttler-in-force.js';
import { createRecorder } from '../support/recorder.js';
import { restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** OpenAI's headers for a quota of `requests` and `tokens` per window, with some left. */
const openAi = (requests: number, tokens: number) => ({
  'x-ratelimit-limit-requests': String(requests),
  'x-ratelimit-limit-tokens': String(tokens),
  'x-ratelimit-remaining-requests': String(requests - 1),
  'x-ratelimit-remaining-tokens': String(tokens - 100),
  'x-ratelimit-reset-requests': '1s',
  'x-ratelimit-reset-tokens': '1s',
});

function start(rate: unknown) {
  const target = createRecorder();
  const input = { rate, strategy: 'sliding-window', target: target.ref } as unknown as ThrottlerInput;
  const actor = createActor(throttlerMachine, { input }).start();
  const emitted: ThrottlerEmitted[] = [];
  actor.on('invalidEvent', (event) => emitted.push(event));
  const rates = () => (throttlerInForce(actor)?.rates(undefined) ?? []).map((one) => ({ ...one }));
  return { actor, emitted, rates };
}

describe('serverLimits on a throttler with rates in dimensions', () => {
  it("follows the tokens quota as the tokens dimension's rate, keeping the requests rate", () => {
    const { actor, emitted, rates } = start({ requests: '30/1s', tokens: '6000/1s' });
    const limits = readServerLimits(
      { status: 200, headers: openAi(30, 4_000) },
      { dimension: 'tokens', providerWindow: '1s' },
    );
    expect(limits.dimension).toBe('tokens');
    const sent = applyServerLimits(actor, limits);
    // The configured 6000/1s stays beside the server's 4000/1s (the ceiling), both labelled tokens.
    const tokens = [
      { limit: 4_000, interval: 1_000, dimension: 'tokens' },
      { limit: 6_000, interval: 1_000, dimension: 'tokens' },
    ];
    expect(sent).toEqual([{ type: 'SET_RATE', rate: tokens }]);
    expect(emitted).toEqual([]);
    expect(rates()).toEqual([{ limit: 30, interval: 1_000, dimension: 'requests' }, ...tokens]);
    // The same answer again changes nothing: not sent.
    expect(applyServerLimits(actor, limits)).toEqual([]);
  });

  it('the requests dimension by default; nothing to a throttler that does not limit the dimension', () => {
    const both = start({ requests: '30/1s', tokens: '6000/1s' });
    const limits = readServerLimits({ status: 200, headers: openAi(20, 4_000) }, { providerWindow: '1s' });
    const requests = [
      { limit: 20, interval: 1_000, dimension: 'requests' },
      { limit: 30, interval: 1_000, dimension: 'requests' },
    ];
    expect(applyServerLimits(both.actor, limits)).toEqual([{ type: 'SET_RATE', rate: requests }]);
    expect(both.rates()).toEqual([...requests, { limit: 6_000, interval: 1_000, dimension: 'tokens' }]);
    const tokensOnly = start({ tokens: '6000/1s' });
    expect(applyServerLimits(tokensOnly.actor, limits)).toEqual([]);
    expect(tokensOnly.emitted).toEqual([]);
    // A 429's pause still goes, whatever the dimensions.
    const refused = readServerLimits({ status: 429, headers: { ...openAi(20, 4_000), 'retry-after': '2' } });
    expect(applyServerLimits(tokensOnly.actor, refused)).toEqual([{ type: 'PAUSE', duration: 2_000 }]);
  });

  it('two listeners on one throttler, one per dimension, each keep their own ceiling', () => {
    const { actor, emitted, rates } = start({ requests: '30/1s', tokens: '6000/1s' });
    const headers = { status: 200, headers: openAi(20, 4_000) };
    applyServerLimits(actor, readServerLimits(headers, { dimension: 'requests', providerWindow: '1s' }));
    applyServerLimits(actor, readServerLimits(headers, { dimension: 'tokens', providerWindow: '1s' }));
    // The server raises both: each dimension goes back to its configured rate, never above.
    const raised = { status: 200, headers: openAi(100, 9_000) };
    applyServerLimits(actor, readServerLimits(raised, { dimension: 'requests', providerWindow: '1s' }));
    applyServerLimits(actor, readServerLimits(raised, { dimension: 'tokens', providerWindow: '1s' }));
    expect(emitted).toEqual([]);
    expect(rates()).toEqual([
      { limit: 30, interval: 1_000, dimension: 'requests' },
      { limit: 6_000, interval: 1_000, dimension: 'tokens' },
    ]);
  });

  it("the promise API's serverLimits option: a task's answer sets the tokens rate, no error", async () => {
    const reported: unknown[] = [];
    const throttler = createThrottler({
      rate: { requests: '30/1s', tokens: '6000/1s' },
      strategy: 'sliding-window',
      serverLimits: serverLimits((answer: { headers: Record<string, string> }) => answer, {
        dimension: 'tokens',
        providerWindow: '1s',
      }),
      onHandlerError: (error) => reported.push(error),
    });
    const answer = { status: 200, headers: openAi(30, 3_000) };
    await throttler.schedule(() => answer, { cost: { requests: 1, tokens: 100 } });
    await vi.advanceTimersByTimeAsync(0);
    expect(reported).toEqual([]);
    expect((throttlerInForce(throttler)?.rates(undefined) ?? []).map((one) => ({ ...one }))).toEqual([
      { limit: 30, interval: 1_000, dimension: 'requests' },
      { limit: 3_000, interval: 1_000, dimension: 'tokens' },
      { limit: 6_000, interval: 1_000, dimension: 'tokens' },
    ]);
    await throttler.stop();
  });
});
