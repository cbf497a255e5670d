import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/index.js';
import type { LineOutcome, RetimeOutcome, SharedLimiterConfig, StoreLimiter } from '../../src/store/protocol.js';
import { redisForFile } from '../support/redis.js';
import { virtualLimiter } from '../support/redis-driver.js';

/**
 * The memory store decides as the Redis scripts do, call for call: one random script of calls (reserve
 * in FIFO or per line, release, settle, re-time, rates, pause, resume) run against both on one virtual
 * clock answers the same (kinds, waits, grant times, retries, refusals by option; the fleet's audit). Slow tier: Redis.
 */
const file = redisForFile();

const channelArbitrary = fc.constantFrom(undefined, 'a', 'b', 'k1', 'k2');
const opArbitrary = fc.record({
  gap: fc.constantFrom(0, 0, 1, 7, 60, 333, 1200),
  op: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('reserve' as const),
        lines: fc.boolean(),
        requests: fc.array(fc.record({ channel: channelArbitrary, cost: fc.integer({ min: 1, max: 4 }) }), {
          minLength: 1,
          maxLength: 5,
        }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('settle' as const),
        pick: fc.nat(),
        actual: fc.integer({ min: 0, max: 4 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('retime' as const),
        picks: fc.array(fc.nat(), { maxLength: 4 }),
        lead: fc.constantFrom(0, 3),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('rate' as const),
        channel: channelArbitrary,
        limit: fc.integer({ min: 1, max: 6 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('pause' as const), ms: fc.constantFrom(50, 400) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('resume' as const) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('audit' as const) }) },
  ),
});

const configArbitrary = fc.record({
  strategy: fc.constantFrom('sliding-window' as const, 'token-bucket' as const),
  limit: fc.integer({ min: 2, max: 6 }),
  ahead: fc.constantFrom(0, 300, 5000),
  grace: fc.constantFrom(0, 20),
  maxBurst: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
});

/** An outcome without what names the backend (the reservation's epoch and nonce). */
function comparable(outcome: LineOutcome | RetimeOutcome): unknown {
  if (outcome.kind === 'granted') return ['granted', outcome.waitMs, outcome.redisTime];
  if (outcome.kind === 'refused') return ['refused', outcome.error.option, outcome.error.value];
  if (outcome.kind === 'later') return ['later', outcome.retryAfterMs, outcome.reason];
  if (outcome.kind === 'line-later') return ['line-later', outcome.retryAfterMs];
  return [outcome.kind];
}

describe('the memory store against the Redis scripts', () => {
  it('answers every call of a random script as Redis does', async () => {
    await fc.assert(
      fc.asyncProperty(configArbitrary, fc.array(opArbitrary, { minLength: 1, maxLength: 25 }), async (setup, ops) => {
        const config: SharedLimiterConfig = {
          strategy: setup.strategy,
          rates: [`${setup.limit}/1s`, `${setup.limit * 2}/3s`],
          channels: { a: '2/500ms', b: `${setup.limit}/2s` },
          keys: '2/700ms',
          maxReserveAheadMs: setup.ahead,
          grantGraceMs: setup.strategy === 'sliding-window' ? setup.grace : 0,
          maxBurst: setup.strategy === 'token-bucket' ? setup.maxBurst : undefined,
        };
        const redis = virtualLimiter(file.redis, file.fresh('differential'), config, 1000);
        let now = 1000;
        const memoryStore = createMemoryStore({ name: 'differential', clock: () => now });
        const sides = [redis.limiter, memoryStore.open(config)] as unknown as StoreLimiter[];
        const held: string[][] = [[], []];
        const log: unknown[] = [];
        for (const { gap, op } of ops) {
          now += gap;
          redis.setTime(now);
          const answers: unknown[] = [];
          for (const [side, limiter] of sides.entries()) {
            const mine = held[side] as string[];
            const at = (pick: number) => mine[pick % Math.max(1, mine.length)];
            let answer: unknown;
            if (op.kind === 'reserve') {
              const outcomes = op.lines
                ? await (limiter.reserveLines as NonNullable<StoreLimiter['reserveLines']>)(op.requests)
                : await limiter.reserve(op.requests);
              for (const outcome of outcomes) if (outcome.kind === 'granted') mine.push(outcome.reservation);
              answer = outcomes.map(comparable);
            } else if (op.kind === 'release' || op.kind === 'settle') {
              const reservation = at(op.pick);
              if (reservation !== undefined) {
                if (op.kind === 'release') await limiter.release([reservation]);
                else await limiter.settle(reservation, op.actual);
              }
            } else if (op.kind === 'retime') {
              const picked = [...new Set(op.picks.map(at).filter((one): one is string => one !== undefined))];
              const outcomes = await limiter.retime(picked, op.lead);
              for (const [n, outcome] of outcomes.entries()) {
                mine.splice(mine.indexOf(picked[n] as string), 1);
                if (outcome.kind === 'granted') mine.push(outcome.reservation);
              }
              answer = outcomes.map(comparable);
            } else if (op.kind === 'rate') {
              await limiter.setRate(`${op.limit}/1s`, op.channel);
            } else if (op.kind === 'pause') {
              await limiter.pause(op.ms);
            } else if (op.kind === 'audit') {
              answer = await limiter.audit().catch((error: { option?: string }) => ['refused', error.option]);
            } else {
              await limiter.resume();
            }
            answers.push(answer);
          }
          log.push([now, op, answers[0]]);
          expect(answers[1], JSON.stringify(log)).toEqual(answers[0]);
        }
        await redis.store.close();
        await memoryStore.close();
      }),
      {
        numRuns: 80,
        examples: [
          // A key's token bucket starts at its first grant, not at an ask it refused (the memory store
          // started it at the refused ask, so its later wait was 300 ms where the scripts' was 350).
          [
            { strategy: 'token-bucket', limit: 2, ahead: 0, grace: 0, maxBurst: undefined },
            [
              {
                gap: 0,
                op: {
                  kind: 'reserve',
                  lines: false,
                  requests: [
                    { channel: undefined, cost: 1 },
                    { channel: 'k1', cost: 1 },
                    { channel: undefined, cost: 1 },
                  ],
                },
              },
              { gap: 1200, op: { kind: 'reserve', lines: false, requests: [{ channel: 'k1', cost: 1 }] } },
              {
                gap: 0,
                op: {
                  kind: 'reserve',
                  lines: false,
                  requests: [
                    { channel: 'k1', cost: 1 },
                    { channel: undefined, cost: 1 },
                  ],
                },
              },
            ],
          ],
        ],
      },
    );
  });
});
