import { afterEach, describe, expect, it } from 'vitest';
import { redisForFile } from '../support/redis.js';
import { type FleetArrival, type StoreFleet, weightedFleet } from '../support/store-fleet.js';

const file = redisForFile();
const fleets: StoreFleet[] = [];
afterEach(async () => {
  for (const fleet of fleets.splice(0)) await fleet.stop();
});

async function shares(processes: number, weights: number[], limit: number, keyLimit: number, seconds = 6, grace = 0, strategy: 'sliding-window' | 'token-bucket' = 'sliding-window', spread = false, cost = 1) {
  const names = weights.map((_, i) => `t${i}`);
  const fleet = weightedFleet(file.redis, file.fresh(`i33-${processes}-${keyLimit}-${weights.join('')}`), processes, {
    overall: { limit, interval: 1000 },
    key: { limit: keyLimit, interval: 1000 },
    weights: new Map(names.map((n, i) => [n, weights[i] as number])),
  }, { strategy }, { grantGraceMs: grace });
  fleets.push(fleet);
  const arrivals: FleetArrival[] = [];
  let n = 0;
  for (let i = 0; i < limit * seconds; i++)
    for (const [index, channel] of names.entries()) arrivals.push({ at: 0, throttler: spread ? i % processes : index % processes, channel, n: n++, cost: cost === 0 ? index + 1 : cost });
  await fleet.run(arrivals, seconds * 1000, undefined, 100_000);
  const rows: string[] = [];
  for (let s = 0; s < seconds; s++) {
    const w = fleet.deliveries.filter(({ at }) => at >= s * 1000 && at < (s + 1) * 1000);
    rows.push(names.map((name) => w.filter((d) => d.channel === name).reduce((a, d) => a + d.cost, 0)).join('/'));
  }
  if (0) for (const name of names) console.log(name, fleet.deliveries.filter((d) => d.channel === name && d.at < 2100).map((d) => `${d.at}`).join(','));
  console.log(`p=${processes} g=${grace} ${strategy} spread=${spread} cost=${cost} w=${weights} limit=${limit} key=${keyLimit}: ${rows.join('  ')}`);
}

describe('repro', () => {
  it('measures', async () => {
    await shares(2, [2, 2], 53, 32, 6, 0, 'sliding-window', false, 0);
    await shares(2, [2, 2], 23, 15, 6, 0, 'sliding-window', false, 0);
    for (const key of [20, 30, 40]) await shares(1, [1, 4], 40, key);
    for (const key of [40, 45]) await shares(1, [1, 4], 40, key, 6, 200);
    for (const key of [40, 45]) await shares(2, [1, 4], 40, key, 6, 0, 'token-bucket');
    for (const key of [40, 42]) await shares(4, [1, 2, 4], 40, key, 6, 20, 'sliding-window', true);
    for (const key of [30, 42]) await shares(4, [1, 2, 4], 40, key, 6, 20, 'sliding-window', false);
    for (const key of [40, 42]) await shares(3, [1, 2, 4], 40, key, 6, 0, 'sliding-window', true, 2);
  }, 240_000);
});
