import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/redis/index.js';
import type { StoreNotice } from '../../src/store/protocol.js';
import { serverDir, startCluster } from '../support/redis-server.js';

/**
 * A 3-master Redis Cluster started by the test on loopback ports: every key of a limiter shares one
 * hash tag, so its scripts run in one slot (no CROSSSLOT), whichever names and channels it has.
 */
let dir: ReturnType<typeof serverDir>;
let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: Cluster;

beforeAll(async () => {
  dir = serverDir('cluster');
  cluster = await startCluster(dir.dir);
  client = new Cluster(
    cluster.ports.map((port) => ({ host: '127.0.0.1', port })),
    { redisOptions: { maxRetriesPerRequest: 1 } },
  );
  client.on('error', () => {});
}, 30_000);

afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
  dir?.remove();
});

describe('Redis Cluster (3 masters)', () => {
  it('reserves, releases, changes rates, pauses and audits across channels with no CROSSSLOT, and notifies peers', async () => {
    // The last with rates in dimensions: one log per scope and dimension, every one in the limiter's slot.
    const names = ['stripe-api', '}odd{name', 'another', 'llm-account'];
    const slots = new Set<number>();
    for (const name of names) {
      const store = createRedisStore({ redis: client, name, commandTimeout: 2000 });
      const dims = name === 'llm-account';
      const shared = store.open(
        dims
          ? {
              strategy: 'sliding-window',
              rates: { requests: ['5/1s', '20/1m'], tokens: '100/1s' },
              channels: { search: { requests: '2/1s' }, upload: { tokens: '50/1s' }, '}': { requests: '1/1s' } },
            }
          : {
              strategy: 'sliding-window',
              rates: ['5/1s', '20/1m'],
              channels: { search: '2/1s', upload: '1/1s', '}': '1/1s' },
            },
      );
      const cost = (requests: number) => (dims ? { requests, tokens: 10 * requests } : requests);
      const heard: StoreNotice[] = [];
      shared.subscribe((notice) => heard.push(notice));
      const outcomes = await shared.reserve([
        { cost: cost(1), channel: 'search' },
        { cost: cost(1), channel: 'upload' },
        { cost: cost(1), channel: '}' },
        { cost: cost(2) },
      ]);
      // Kept (not given back), so that the audit reads every dimension's logs too.
      if (dims) expect((await shared.reserve([{ cost: { tokens: 10 }, channel: 'upload' }]))[0]?.kind).toBe('granted');
      expect(outcomes.map((outcome) => outcome.kind)).toEqual(['granted', 'granted', 'granted', 'granted']);
      await shared.release(outcomes.flatMap((outcome) => (outcome.kind === 'granted' ? [outcome.reservation] : [])));
      await shared.setRate(dims ? { requests: '3/1s' } : '3/1s', 'search');
      await shared.pause(50);
      const giveUpAt = performance.now() + 5000;
      while (heard.length < 2 && performance.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(heard.map((notice) => notice.type)).toEqual(expect.arrayContaining(['rates', 'paused']));
      // The fleet audit's scripts name their keys from the limiter's, in its slot: no CROSSSLOT either.
      const audit = await shared.audit();
      expect(audit.windowsOver).toBe(0);
      await store.close();

      // Every key this limiter wrote lives in one slot.
      const keySlots = new Set<number>();
      for (const node of client.nodes('master')) {
        const keys = await node.keys('xt:*');
        for (const key of keys) keySlots.add(Number(await node.cluster('KEYSLOT', key)));
      }
      slots.add(keySlots.size);
      for (const node of client.nodes('master')) {
        const keys = await node.keys('xt:*');
        if (keys.length > 0) await node.del(...keys);
      }
    }
    expect([...slots]).toEqual([1]);
  });
});
