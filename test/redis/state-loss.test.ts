import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReserveOutcome, SharedLimiterConfig, StoreNotice } from '../../src/store/protocol.js';
import type { Delivery } from '../support/oracle.js';
import { overfullWindows } from '../support/oracle.js';
import { connectRedis, deleteLimiters, grantTimeOf, limiterKeysIn, uniqueName } from '../support/redis.js';
import { type VirtualLimiter, virtualLimiter } from '../support/redis-driver.js';

/**
 * Lost state (FLUSHALL, eviction, a failover that lost writes), simulated on this limiter's own keys
 * so that other tests sharing the Redis are untouched (the outage test restarts a real server).
 * A process that saw the state recently enough knows it cannot have expired: it quarantines the
 * limiter for the reserve-ahead span plus one longest interval, so forgotten grants never add up.
 */
let redis: Redis;
const names: string[] = [];
const opened: VirtualLimiter[] = [];

beforeAll(async () => {
  redis = await connectRedis();
});
afterEach(async () => {
  for (const virtual of opened.splice(0)) await virtual.store.close();
});
afterAll(async () => {
  if (!redis) return;
  await deleteLimiters(redis, names);
  redis.disconnect();
});

const CONFIG: SharedLimiterConfig = {
  strategy: 'sliding-window',
  rates: ['3/1s', '5/3s'],
  channels: { a: '2/500ms' },
  maxReserveAheadMs: 1000,
};

function limiter(name: string): VirtualLimiter {
  const virtual = virtualLimiter(redis, name, CONFIG);
  opened.push(virtual);
  return virtual;
}

/** Grants at the times of `outcomes`, as deliveries for the oracle. */
function granted(outcomes: ReserveOutcome[], channel?: string): Delivery[] {
  return outcomes.flatMap((outcome) =>
    outcome.kind === 'granted' ? [{ at: grantTimeOf(outcome.reservation), cost: 1, channel }] : [],
  );
}

const oracleConfig = {
  overall: [
    { limit: 3, interval: 1000 },
    { limit: 5, interval: 3000 },
  ],
  channels: { a: [{ limit: 2, interval: 500 }] },
};

async function wipe(name: string): Promise<void> {
  const keys = await limiterKeysIn(redis, name);
  if (keys.length > 0) await redis.del(...keys);
}

describe('state loss', () => {
  it('quarantines after a loss for the reserve-ahead span plus one longest interval; no window overfills across the gap', async () => {
    const name = uniqueName('loss');
    names.push(name);
    const { limiter: shared, setTime } = limiter(name);
    const heard: StoreNotice[] = [];
    shared.subscribe((notice) => heard.push(notice));
    const before = granted(await shared.reserve([{ cost: 1 }, { cost: 1 }, { cost: 1 }, { cost: 1 }]));
    expect(before.map((grant) => grant.at)).toEqual([0, 0, 0, 1000]);
    setTime(100);
    await wipe(name);
    const [told] = await shared.reserve([{ cost: 1 }]);
    // 100 + 1000 (ahead) + 3000 (longest interval) = 4100, told as the wait beyond the reserve-ahead span.
    expect(told).toEqual({ kind: 'later', retryAfterMs: 3000, reason: 'quarantine' });
    expect(heard).toContainEqual({ type: 'quarantined', forMs: 4000 });
    const after: Delivery[] = [];
    for (let t = 200; t <= 9000; t += 100) {
      setTime(t);
      after.push(...granted(await shared.reserve([{ cost: 1 }, { cost: 1, channel: 'a' }]), undefined));
    }
    expect(Math.min(...after.map((grant) => grant.at))).toBe(4100);
    expect(overfullWindows(oracleConfig, [...before, ...after])).toEqual([]);
  });

  it('does not mistake an expiry for a loss: a limiter idle past its horizon starts afresh at once', async () => {
    const name = uniqueName('expiry');
    names.push(name);
    const { limiter: shared, setTime } = limiter(name);
    await shared.reserve([{ cost: 1 }]);
    setTime(3000 + 200);
    await wipe(name);
    expect(await shared.reserve([{ cost: 1 }])).toMatchObject([{ kind: 'granted', waitMs: 0 }]);
  });

  it('detects an evicted channel log that still held a grant inside its windows', async () => {
    const name = uniqueName('evicted');
    names.push(name);
    const { limiter: shared, setTime } = limiter(name);
    await shared.reserve([{ cost: 1, channel: 'a' }]);
    setTime(10);
    await redis.del(`xt:{${name}}:c:a`);
    expect(await shared.reserve([{ cost: 1, channel: 'a' }])).toMatchObject([{ kind: 'later', reason: 'quarantine' }]);
  });

  it('detects a failover that lost writes this process saw (the sequence went back)', async () => {
    const name = uniqueName('rollback');
    names.push(name);
    const { limiter: shared, setTime } = limiter(name);
    await shared.reserve([{ cost: 1 }, { cost: 1 }]);
    setTime(10);
    await redis.hset(`xt:{${name}}:cfg`, 'q', '1');
    expect(await shared.reserve([{ cost: 1 }])).toMatchObject([{ kind: 'later', reason: 'quarantine' }]);
  });

  it('quarantines once per loss: a second process that saw the same lost state does not extend it', async () => {
    const name = uniqueName('once');
    names.push(name);
    const first = limiter(name);
    const second = limiter(name);
    await first.limiter.reserve([{ cost: 1 }]);
    await second.limiter.reserve([{ cost: 1 }]);
    first.setTime(100);
    second.setTime(100);
    await wipe(name);
    expect(await first.limiter.reserve([{ cost: 1 }])).toEqual([
      { kind: 'later', retryAfterMs: 3000, reason: 'quarantine' },
    ]);
    first.setTime(600);
    second.setTime(600);
    expect(await second.limiter.reserve([{ cost: 1 }])).toEqual([
      { kind: 'later', retryAfterMs: 2500, reason: 'quarantine' },
    ]);
  });

  it('cannot be detected by a process that never saw the state (documented): it starts afresh, and the next process that did see it quarantines', async () => {
    const name = uniqueName('unseen');
    names.push(name);
    const seen = limiter(name);
    await seen.limiter.reserve([{ cost: 1 }]);
    await wipe(name);
    const fresh = limiter(name);
    expect(await fresh.limiter.reserve([{ cost: 1 }])).toMatchObject([{ kind: 'granted', waitMs: 0 }]);
    expect(await seen.limiter.reserve([{ cost: 1 }])).toMatchObject([{ kind: 'later', reason: 'quarantine' }]);
  });
});
