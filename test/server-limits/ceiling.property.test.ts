/**
 * Issue 22, item 12, as a property in virtual time: for any configured rates (overall or a channel's)
 * and any policies a server states, at any moments, a throttler that applies them with the default
 * ceiling never delivers more in any window than the configured rates allow. Two oracles: a brute-force
 * count over every window that starts at a delivery, and the rate lists themselves (every configured
 * rate is implied by one the throttler was sent).
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { type Rate, throttlerMachine } from '../../src/index.js';
import { applyServerLimits, readServerLimits } from '../../src/server-limits/index.js';
import { runs } from '../support/property-runs.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const rateArbitrary = fc.record({
  limit: fc.integer({ min: 1, max: 12 }),
  interval: fc.constantFrom(100, 250, 1_000, 2_000, 5_000),
});
/** What servers state: anything from far below to far above the configured rates, windows in whole seconds. */
const statedArbitrary = fc.array(
  fc.record({ limit: fc.integer({ min: 1, max: 10_000 }), seconds: fc.constantFrom(1, 2, 5, 60) }),
  { minLength: 1, maxLength: 3 },
);
const scenarioArbitrary = fc.record({
  configured: fc.array(rateArbitrary, { minLength: 1, maxLength: 3 }),
  onChannel: fc.boolean(),
  messages: fc.integer({ min: 1, max: 60 }),
  answers: fc.array(fc.record({ at: fc.integer({ min: 0, max: 6_000 }), stated: statedArbitrary }), {
    minLength: 1,
    maxLength: 5,
  }),
});

/** The brute-force oracle: the most deliveries in any window of `interval` (one starting at each delivery suffices). */
function mostInAnyWindow(times: readonly number[], interval: number): number {
  let most = 0;
  for (const start of times) most = Math.max(most, times.filter((t) => t >= start && t < start + interval).length);
  return most;
}

/** At most `bound.limit` in any window of `bound.interval` keeps at most `rate.limit` in any shorter one. */
const implies = (bound: Rate, rate: Rate) => bound.limit <= rate.limit && bound.interval >= rate.interval;

describe('applyServerLimits with the default ceiling', () => {
  it('never lets a throttler deliver more in any window than its configured rates allow', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ configured, onChannel, messages, answers }) => {
        useVirtualTime();
        const target = createRecorder<Numbered>();
        const channel = onChannel ? 'api' : undefined;
        const actor = createActor(throttlerMachine, {
          input: {
            strategy: 'sliding-window',
            rate: onChannel ? '100000/1s' : configured,
            ...(onChannel ? { channels: { api: configured } } : {}),
            target: target.ref,
          },
        }).start();
        for (let n = 1; n <= messages; n++) actor.send({ type: 'QUEUE', message: msg(n), channel });
        let clock = 0;
        for (const { at, stated } of [...answers].sort((a, b) => a.at - b.at)) {
          advance(at - clock);
          clock = at;
          const policy = stated.map(({ limit, seconds }, i) => `"p${i}";q=${limit};w=${seconds}`).join(', ');
          const limits = readServerLimits({ 'RateLimit-Policy': policy }, channel === undefined ? {} : { channel });
          for (const event of applyServerLimits(actor, limits)) {
            if (event.type !== 'SET_RATE') continue;
            for (const rate of configured) expect(event.rate.some((sent) => implies(sent, rate))).toBe(true);
          }
        }
        advance(20_000);
        actor.stop();
        const times = target.received.map((received) => received.at);
        for (const rate of configured) expect(mostInAnyWindow(times, rate.interval)).toBeLessThanOrEqual(rate.limit);
      }),
      { numRuns: runs(150) },
    );
  });
});
