import { afterEach, describe, expect, it } from 'vitest';
import { redisForFile } from '../support/redis.js';
import { type StoreThrottler, storeThrottler } from '../support/store-throttler.js';

/**
 * How much of the limit a throttler on the store spends with estimates twice too high (real Redis,
 * virtual time): 200/1s, actual costs 1 to 5 (estimates 2 to 10), each settled as it is delivered, a
 * queue that never empties, over 20 windows. A message the store told to wait for room is asked for again
 * as soon as a settle of this throttler's frees some (the wait was reckoned on the estimates): without
 * that, it waited out the estimate's wait and 79% was used (85–87% with maxReserveAheadMs 50–200).
 */
const file = redisForFile();
const running: StoreThrottler[] = [];
afterEach(async () => {
  for (const t of running.splice(0)) {
    t.actor.stop();
    await t.store.close();
  }
});

async function usedShare(settled: boolean): Promise<number> {
  const t = storeThrottler(
    file.redis,
    file.fresh('settle-use'),
    { rate: '200/1s', strategy: 'sliding-window' },
    { commandTimeout: 10_000 },
  );
  running.push(t);
  let seed = 11;
  const draw = (below: number) => {
    seed = (seed * 48_271) % 2_147_483_647;
    return seed % below;
  };
  const actual = new Map<number, number>();
  t.actor.on('delivered', (event) => {
    const n = event.message.n as number;
    if (settled) t.actor.send({ type: 'ACTUAL_COST', id: n, cost: actual.get(n) as number });
  });
  const messages = Array.from({ length: 1_600 }, (_, n) => {
    const cost = 1 + draw(5);
    actual.set(n, cost);
    return { message: { type: 'job', n }, id: n, cost: 2 * cost };
  });
  t.actor.send({ type: 'QUEUE_BATCH', messages } as never);
  const giveUpAt = performance.now() + 120_000;
  while (t.clock.now() < 20_000 && performance.now() < giveUpAt) if (!(await t.step())) break;
  let used = 0;
  for (const delivery of t.deliveries) if (delivery.at < 20_000) used += actual.get(delivery.n) as number;
  expect(t.emitted.filter((event) => event.type === 'invalidEvent')).toEqual([]);
  // No window (x - 1 s, x] holds more than the limit in what was counted: actual costs once settled.
  const counted = t.deliveries.map(({ n, at }) => ({
    at,
    cost: settled ? (actual.get(n) as number) : 2 * (actual.get(n) as number),
  }));
  let held = 0;
  let oldest = 0;
  for (const delivery of counted) {
    held += delivery.cost;
    for (; (counted[oldest] as { at: number }).at <= delivery.at - 1_000; oldest += 1)
      held -= (counted[oldest] as { cost: number }).cost;
    expect(held).toBeLessThanOrEqual(200);
  }
  expect((await t.store.audit()).windowsOver).toBe(0);
  return used / (20 * 200);
}

describe('ACTUAL_COST on the store: the use of the limit with estimates twice too high', () => {
  it('settled, at least 95% of the limit is spent on actual cost (97.5% measured); estimates alone, at most 50%', async () => {
    expect(await usedShare(true)).toBeGreaterThanOrEqual(0.95);
    expect(await usedShare(false)).toBeLessThanOrEqual(0.5);
  }, 300_000);
});
