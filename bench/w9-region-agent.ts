/**
 * A W9 region's share agent as a process of its own (forked by bench/w9-regions.ts): `createRegionShares` on
 * the region's Redis, its link to home over IPC to the orchestrator (which answers with `createShareHome`),
 * each way delayed by `latencyMs` here, in the agent's process. The region's demand (its processes' waiting
 * counts, summed by the orchestrator) comes in every 100 ms. A cut (`cut` messages) leaves asks unanswered.
 */
import { Redis } from 'ioredis';
import { createRedisStore } from '../src/redis/index.js';
import { createRegionShares, type ShareAsk, type SharedLimiterConfig, type ShareGrant } from '../src/store/index.js';

export interface RegionAgentOpen {
  readonly type: 'open';
  readonly region: string;
  readonly port: number;
  readonly name: string;
  readonly config: SharedLimiterConfig;
  readonly terms: { readonly leaseMs: number; readonly renewEveryMs: number; readonly reserveAheadMs: number };
  readonly latencyMs: number;
}

/** From the orchestrator: home's answer, the region's demand, a cut, or the end. */
export type ToAgent =
  | RegionAgentOpen
  | { readonly type: 'grant'; readonly id: number; readonly grant: ShareGrant }
  | { readonly type: 'demand'; readonly demand: number }
  | { readonly type: 'stop' };

/** To the orchestrator: an ask for home, the share in force, and the last report. */
export type FromAgent =
  | { readonly type: 'ask'; readonly id: number; readonly ask: ShareAsk }
  | { readonly type: 'started' }
  | { readonly type: 'limits'; readonly limits: number[] }
  | { readonly type: 'agent-report'; readonly asks: number; readonly lateActs: number };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const send = (message: FromAgent) => process.send?.(message);

let demand = 0;
const answers = new Map<number, (grant: ShareGrant) => void>();
let next = 0;

async function run(open: RegionAgentOpen): Promise<() => Promise<void>> {
  const redis = new Redis({ port: open.port, host: '127.0.0.1' });
  const store = createRedisStore({ redis, name: open.name, maxReserveAheadMs: open.terms.reserveAheadMs });
  const home = async (ask: ShareAsk): Promise<ShareGrant> => {
    await sleep(open.latencyMs);
    next += 1;
    const id = next;
    const grant = await new Promise<ShareGrant>((resolve) => {
      answers.set(id, resolve);
      send({ type: 'ask', id, ask });
    });
    await sleep(open.latencyMs);
    return grant;
  };
  const agent = createRegionShares({
    ...open.terms,
    region: open.region,
    store,
    config: open.config,
    home,
    demand: () => demand,
  });
  await agent.start();
  send({ type: 'started' });
  const poll = setInterval(() => send({ type: 'limits', limits: agent.limits() }), 100);
  return async () => {
    clearInterval(poll);
    await agent.stop();
    send({ type: 'agent-report', asks: agent.asks, lateActs: agent.lateActs });
    await store.close();
    redis.disconnect();
  };
}

let stop: (() => Promise<void>) | undefined;
process.on('message', (message: ToAgent) => {
  if (message.type === 'open') {
    run(message).then(
      (close) => {
        stop = close;
      },
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  } else if (message.type === 'grant') {
    answers.get(message.id)?.(message.grant);
    answers.delete(message.id);
  } else if (message.type === 'demand') {
    demand = message.demand;
  } else {
    void stop?.().then(() => process.exit(0));
  }
});
