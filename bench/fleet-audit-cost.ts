/**
 * What the fleet audit's trail costs the reserve script (issue 25 §2): Redis-side µs per reserve call of
 * one keyed grant, with the trail (the keys' index) and without it, alternating in one run (SLOWLOG
 * with a 0 µs threshold reads each call's own execution time). Run: npx tsx bench/fleet-audit-cost.ts
 */
import { Redis } from 'ioredis';
import { createRedisStore } from '../src/redis/index.js';
import { RESERVE_SCRIPT } from '../src/redis/lua/reserve.js';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const without = RESERVE_SCRIPT.replace('    if scopeIsKey(j) then indexKeyGrant(scopeName(j), log.newest) end\n', '');
if (without === RESERVE_SCRIPT) throw new Error('the index line was not found');
const ROUNDS = 10;
const CALLS = 400;
const results: Record<string, number[]> = { with: [], without: [] };
await redis.config('SET', 'slowlog-log-slower-than', '0');
await redis.config('SET', 'slowlog-max-len', String(CALLS * 2));
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [label, lua] of [
    ['with', RESERVE_SCRIPT],
    ['without', without],
  ] as const) {
    const name = `bench-fleet-audit-${process.pid}-${label}-${round}`;
    let now = 0;
    // The store defines its commands by name once per client: a fresh client per variant.
    const client = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    client.defineCommand('xthrottlerReserveV3', { lua });
    const store = createRedisStore({ redis: client, name, testClock: () => now });
    const limiter = store.open({ strategy: 'sliding-window', rates: '100000/1s', keys: '1000/1s', grantGraceMs: 0 });
    await limiter.check();
    await redis.slowlog('RESET');
    for (let i = 0; i < CALLS; i += 1) {
      now += 1;
      await limiter.reserve([{ channel: `key-${i % 50}`, cost: 1 }]);
    }
    const log = (await redis.slowlog('GET', CALLS * 2)) as Array<[number, number, number, string[]]>;
    // Other clients share this Redis: only this limiter's calls count.
    const reserves = log.filter((entry) => entry[3]?.some((arg) => String(arg).includes(name)));
    results[label]?.push(reserves.reduce((sum, entry) => sum + Number(entry[2]), 0) / reserves.length);
    await store.close();
    const keys = await client.keys(`xt:{${name}}:*`);
    if (keys.length > 0) await client.del(...keys);
    client.disconnect();
  }
}
await redis.config('SET', 'slowlog-log-slower-than', '10000');
await redis.config('SET', 'slowlog-max-len', '128');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
console.log(
  `reserve of one keyed grant, Redis-side µs per call, median of ${ROUNDS} alternating rounds of ${CALLS}: with the keys' index ${median(results.with ?? []).toFixed(1)}, without ${median(results.without ?? []).toFixed(1)}`,
);
redis.disconnect();
