import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WindowFindings } from '../../src/engine/audit/window-audit.js';
import { createRedisStore, type RedisStore } from '../../src/redis/index.js';
import { hashTagOf } from '../../src/redis/keys.js';
import type { RedisSharedLimiter } from '../../src/redis/shared-limiter.js';
import type { FleetAuditReport } from '../../src/store/index.js';
import { runs } from '../support/property-runs.js';
import { redisForFile } from '../support/redis.js';
import { bruteForceFindings } from '../support/window-oracle.js';

/**
 * The fleet audit against the brute force over the grants the fleet kept: three limiters on one name
 * (three processes, as far as Redis can tell) reserve, give back and re-time grants on channels and keys
 * (`__proto__` among them) in virtual Redis time, a rogue writer appends grants past the limit, and the
 * audit is read every step, now through a limiter, now through a store opened afresh (a restarted reader).
 * A grant is kept unless a give-back or re-time took it out of a log before it was one longest interval
 * + grace old, which the brute force sees by looking at the logs before each give-back.
 */
const file = redisForFile();
const SCOPES = [undefined, 'a', '__proto__', 'k1'] as const;

type Op =
  | { kind: 'advance'; ms: number }
  | { kind: 'reserve'; client: number; requests: Array<{ scope: number; cost: number }> }
  | { kind: 'release' | 'retime'; pick: number }
  | { kind: 'rogue'; scope: 0 | 1; cost: number };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 40 }) }), weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant('reserve' as const),
      client: fc.integer({ min: 0, max: 2 }),
      requests: fc.array(fc.record({ scope: fc.integer({ min: 0, max: 3 }), cost: fc.integer({ min: 1, max: 2 }) }), {
        minLength: 1,
        maxLength: 4,
      }),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constantFrom('release' as const, 'retime' as const), pick: fc.nat() }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('rogue' as const),
      scope: fc.constantFrom(0 as const, 1 as const),
      cost: fc.integer({ min: 1, max: 3 }),
    }),
    weight: 1,
  },
);

const configArbitrary = fc.record({
  overall: fc.record({ limit: fc.integer({ min: 2, max: 5 }), interval: fc.integer({ min: 50, max: 200 }) }),
  channel: fc.record({ limit: fc.integer({ min: 2, max: 4 }), interval: fc.integer({ min: 50, max: 300 }) }),
  key: fc.record({ limit: fc.integer({ min: 2, max: 3 }), interval: fc.integer({ min: 50, max: 250 }) }),
  grace: fc.constantFrom(0, 5),
});

interface Kept {
  member: string;
  t: number;
  cost: number;
  seq: number;
  scope: string | undefined;
  reservation: string | undefined;
  removed: boolean;
}

describe('the fleet audit (real Redis, virtual Redis time) against the brute force over the grants kept', () => {
  it('agrees exactly, per rate, overall, per channel and over the keys, and survives a new reader', async () => {
    await fc.assert(
      fc.asyncProperty(configArbitrary, fc.array(opArbitrary, { minLength: 5, maxLength: 60 }), async (config, ops) => {
        const redis = file.redis;
        const name = file.fresh('fleet-audit');
        let now = 1000;
        const clock = () => now;
        const limiterConfig = {
          strategy: 'sliding-window' as const,
          rates: [config.overall],
          channels: { a: [config.channel] },
          keys: [config.key],
          grantGraceMs: config.grace,
          maxReserveAheadMs: 1_000_000,
        };
        const stores: RedisStore[] = [0, 1, 2].map(() => createRedisStore({ redis, name, testClock: clock }));
        const limiters = stores.map((store) => store.open(limiterConfig));
        const base = `xt:{${hashTagOf(name)}}:`;
        const logOf = (scope: string | undefined) =>
          scope === undefined ? `${base}all` : scope === 'a' ? `${base}c:a` : `${base}k:${scope}`;
        const grants: Kept[] = [];
        let reports = 0;
        const audit = async (): Promise<FleetAuditReport> => {
          reports += 1;
          if (reports % 3 !== 0) return (limiters[reports % 2] as RedisSharedLimiter).audit();
          const reader = createRedisStore({ redis, name, testClock: clock });
          const report = await reader.audit();
          await reader.close();
          return report;
        };
        await audit();
        const longestMicros = async () => Number(await redis.hget(`${base}cfg`, 'L'));
        const present = async (grant: Kept) =>
          (await redis.zscore(`${base}all`, grant.member)) !== null ||
          (grant.scope !== undefined && (await redis.zscore(logOf(grant.scope), grant.member)) !== null);
        let rogueSeq = 1_000_000;
        for (const op of ops) {
          if (op.kind === 'advance') {
            now += op.ms;
            await audit();
          } else if (op.kind === 'reserve') {
            const requests = op.requests.map(({ scope, cost }) => ({ channel: SCOPES[scope], cost }));
            const outcomes = await (limiters[op.client] as RedisSharedLimiter).reserve(requests);
            for (const [index, outcome] of outcomes.entries()) {
              if (outcome.kind !== 'granted') continue;
              const member = outcome.reservation.split(' ')[1] as string;
              const [t, cost, seq] = member.split(':').map(Number) as [number, number, number];
              const scope = (requests[index] as { channel: string | undefined }).channel;
              grants.push({ member, t, cost, seq, scope, reservation: outcome.reservation, removed: false });
            }
          } else if (op.kind === 'rogue') {
            // Before the first reservation there is no limiter (no configuration) to audit, and its creation
            // trims what such a writer left: a broken peer writes into a limiter that exists.
            if (!(await redis.exists(`${base}cfg`))) continue;
            // A writer that ignores the limit (a broken peer): appended after the newest grant, running totals kept.
            const scope = op.scope === 0 ? undefined : 'a';
            const logs = scope === undefined ? [logOf(undefined)] : [logOf(undefined), logOf(scope)];
            let t = now * 1000;
            for (const log of logs) {
              const top = await redis.zrange(log, '-1', '-1');
              if (top[0] !== undefined) t = Math.max(t, Number(top[0].split(':')[0]));
            }
            rogueSeq += 1;
            const member = `${t}:${op.cost}:${rogueSeq}:rogue`;
            for (const log of logs) {
              const top = await redis.zrange(log, '-1', '-1', 'WITHSCORES');
              await redis.zadd(log, String(Number(top[1] ?? 0) + op.cost), member);
            }
            grants.push({ member, t, cost: op.cost, seq: rogueSeq, scope, reservation: undefined, removed: false });
          } else {
            const candidates = grants.filter((grant) => !grant.removed && grant.reservation !== undefined);
            const grant = candidates[op.pick % Math.max(1, candidates.length)];
            if (grant === undefined) continue;
            const takenOut = (await present(grant)) && now * 1000 < grant.t + (await longestMicros());
            const limiter = limiters[op.pick % 3] as RedisSharedLimiter;
            if (op.kind === 'release') {
              await limiter.release([grant.reservation as string]);
              if (takenOut) grant.removed = true;
              continue;
            }
            const [outcome] = await limiter.retime([grant.reservation as string]);
            const moved = outcome?.kind === 'granted' ? outcome.reservation.split(' ')[1] : undefined;
            if (moved === grant.member) continue;
            if (takenOut) grant.removed = true;
            if (moved !== undefined && outcome?.kind === 'granted') {
              const [t, cost, seq] = moved.split(':').map(Number) as [number, number, number];
              grants.push({ ...grant, member: moved, t, cost, seq, reservation: outcome.reservation, removed: false });
            }
          }
        }
        // Every grant settles: time passes in steps shorter than any window, read at each.
        const until = now + (await longestMicros()) / 1000 + 1_000_001 / 1000;
        let report = await audit();
        while (now < until + 1000) {
          now += 40;
          report = await audit();
        }
        expect(report.gaps).toBe(0);
        const counted = grants
          .filter((grant) => !grant.removed && grant.t <= report.settledUntil * 1000)
          .sort((a, b) => a.t - b.t || a.seq - b.seq);
        expect(report.deliveries).toBe(counted.reduce((sum, grant) => sum + grant.cost, 0));
        const expected = new Map<string, WindowFindings>();
        const lineOf = (label: string, rate: { limit: number; interval: number }, of: Kept[]) => {
          if (of.length === 0) return;
          const found = bruteForceFindings(
            of.map((grant) => ({ at: grant.t, cost: grant.cost })),
            rate.limit,
            rate.interval * 1000,
          );
          const id = `${label} ${rate.limit}/${rate.interval}`;
          const kept = expected.get(id);
          if (
            kept === undefined ||
            found.most > kept.most ||
            (found.most === kept.most && (found.mostAt ?? 0) < (kept.mostAt ?? 0))
          ) {
            expected.set(id, { ...found, windowsOver: found.windowsOver + (kept?.windowsOver ?? 0) });
          } else kept.windowsOver += found.windowsOver;
        };
        lineOf('overall', config.overall, counted);
        lineOf(
          'channel',
          config.channel,
          counted.filter((grant) => grant.scope === 'a'),
        );
        for (const key of ['__proto__', 'k1'])
          lineOf(
            'keys',
            config.key,
            counted.filter((grant) => grant.scope === key),
          );
        const actual = new Map<string, WindowFindings>();
        for (const line of report.rates) {
          if (line.scope === 'key') continue;
          actual.set(`${line.scope} ${line.limit}/${line.interval}`, {
            most: line.most,
            mostAt: line.mostAt === undefined ? undefined : line.mostAt * 1000,
            windowsOver: line.windowsOver,
          });
        }
        expect(actual).toEqual(expected);
        for (const store of stores) await store.close();
      }),
      {
        numRuns: runs(Number(process.env.FLEET_AUDIT_RUNS ?? 30)),
        // FC_SEED (and FC_PATH) replay a run a report named.
        ...(process.env.FC_SEED === undefined
          ? {}
          : { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH, endOnFailure: true }),
      },
    );
  });
});
