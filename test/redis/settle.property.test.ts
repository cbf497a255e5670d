import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/redis/index.js';
import type { RedisSharedLimiter } from '../../src/redis/shared-limiter.js';
import { runs } from '../support/property-runs.js';
import { redisForFile } from '../support/redis.js';

/** FC_SEED (and FC_PATH) replay a run a report named. */
const REPLAY =
  process.env.FC_SEED === undefined
    ? {}
    : { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH, endOnFailure: true };

/**
 * Estimate, then settle on the store (real Redis, virtual Redis time): grants reserved with estimates, each
 * settled (one script call) a while after its time with its actual cost, or never. Against a brute-force
 * count of every window over the final costs, and the fleet audit (store.audit()) over the same grants.
 */
const file = redisForFile();
const LIMIT = 10;
const INTERVAL = 100;

type Op =
  | { kind: 'advance'; ms: number }
  | { kind: 'reserve'; estimate: number; share: number; settleAfter: number | null; client: number };

function opArbitrary(overrun: boolean): fc.Arbitrary<Op> {
  return fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 30 }) }), weight: 2 },
    {
      arbitrary: fc.record({
        kind: fc.constant('reserve' as const),
        estimate: fc.integer({ min: 1, max: LIMIT }),
        share: fc.double({ min: 0, max: overrun ? 2 : 1, noNaN: true }),
        settleAfter: fc.option(fc.integer({ min: 0, max: INTERVAL - 1 }), { freq: 5 }),
        client: fc.integer({ min: 0, max: 1 }),
      }),
      weight: 3,
    },
  );
}

interface Sent {
  t: number;
  cost: number;
  overrun: number;
  settleAt: number | null;
  actual: number;
  reservation: string;
  /** The client's clock when the grant was decided (reserve called), and when it was settled. */
  decidedAt: number;
  settledAt: number | undefined;
}

async function run(ops: readonly Op[], overrun: boolean) {
  const name = file.fresh('settle');
  let now = 1000;
  const clock = () => now;
  const config = {
    strategy: 'sliding-window' as const,
    rates: [{ limit: LIMIT, interval: INTERVAL }],
    maxReserveAheadMs: 1_000,
  };
  const stores = [0, 1].map(() =>
    createRedisStore({ redis: file.redis, name, testClock: clock, commandTimeout: 10_000 }),
  );
  const limiters = stores.map((store) => store.open(config) as RedisSharedLimiter);
  const sent: Sent[] = [];
  const settleDue = async () => {
    for (const grant of sent) {
      if (grant.settleAt === null || grant.settleAt > now) continue;
      grant.settleAt = null;
      await (limiters[0] as RedisSharedLimiter).settle(grant.reservation, grant.actual);
      grant.overrun = Math.max(0, grant.actual - grant.cost);
      grant.cost = grant.actual;
      grant.settledAt = now;
    }
  };
  await limiters[0]?.audit();
  for (const op of ops) {
    if (op.kind === 'advance') {
      for (let step = 0; step < op.ms; step += 5) {
        now += Math.min(5, op.ms - step);
        await settleDue();
      }
      await limiters[1]?.audit();
      continue;
    }
    const actual = overrun ? Math.round(op.estimate * op.share) : Math.floor(op.estimate * op.share);
    const [outcome] = await (limiters[op.client] as RedisSharedLimiter).reserve([{ cost: op.estimate }]);
    if (outcome?.kind !== 'granted') continue;
    const t = Number((outcome.reservation.split(' ')[1] as string).split(':')[0]) / 1000;
    const settleAt = op.settleAfter === null ? null : Math.max(now, t) + op.settleAfter;
    sent.push({
      t,
      cost: op.estimate,
      overrun: 0,
      settleAt,
      actual,
      reservation: outcome.reservation,
      decidedAt: now,
      settledAt: undefined,
    });
  }
  // Every settle made, then every grant counted by the audit: read in steps shorter than a window.
  const until = now + 2 * INTERVAL + 1_100;
  while (now < until) {
    now += 20;
    await settleDue();
    await limiters[1]?.audit();
  }
  const report = await (limiters[0] as RedisSharedLimiter).audit();
  for (const store of stores) await store.close();
  return { sent, report };
}

/**
 * Every window [t, t + INTERVAL) starting at a grant: its sum, the overruns it holds, and `lateOverrun`, those
 * settled only after the window's last grant was decided (at or after it: a tie counts as late). The script
 * decided that grant on the costs known then, so only these may take the window over its limit.
 */
function windows(sent: readonly Sent[]): Array<{ sum: number; overrun: number; lateOverrun: number }> {
  return sent.map(({ t: start }) => {
    const inside = sent.filter((grant) => grant.t >= start && grant.t < start + INTERVAL);
    const lastDecided = Math.max(...inside.map((grant) => grant.decidedAt));
    let sum = 0;
    let overrun = 0;
    let lateOverrun = 0;
    for (const grant of inside) {
      sum += grant.cost;
      overrun += grant.overrun;
      if (grant.overrun > 0 && (grant.settledAt as number) >= lastDecided) lateOverrun += grant.overrun;
    }
    return { sum, overrun, lateOverrun };
  });
}

describe('ACTUAL_COST on the store (real Redis, virtual Redis time)', () => {
  it('actual <= estimate: no window over the limit, by the brute force and by the fleet audit, which counts actual costs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArbitrary(false), { minLength: 1, maxLength: 40 }), async (ops) => {
        const { sent, report } = await run(ops, false);
        for (const window of windows(sent)) expect(window.sum).toBeLessThanOrEqual(LIMIT);
        expect(report.gaps).toBe(0);
        expect(report.windowsOver).toBe(0);
        expect(report.deliveries).toBe(sent.reduce((sum, grant) => sum + grant.cost, 0));
      }),
      { numRuns: runs(40), ...REPLAY },
    );
  });

  it('actual above the estimate: a window exceeds by at most the overruns settled after its last grant was decided; the fleet audit agrees', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArbitrary(true), { minLength: 1, maxLength: 40 }), async (ops) => {
        const { sent, report } = await run(ops, true);
        const found = windows(sent);
        // An overrun holds its windows: a grant decided after the settle waits for room ("none after").
        for (const window of found)
          expect(window.sum, JSON.stringify(window)).toBeLessThanOrEqual(LIMIT + window.lateOverrun);
        expect(report.windowsOver > 0).toBe(found.some((window) => window.sum > LIMIT));
        expect(report.deliveries).toBe(sent.reduce((sum, grant) => sum + grant.cost, 0));
      }),
      { numRuns: runs(40), ...REPLAY },
    );
  });
});
