import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createMemoryStore,
  createRegionShares,
  createShareHome,
  type RegionShares,
  type SharedLimiterConfig,
  type SharedStore,
  type ShareGrant,
  type ShareHome,
  type StoreNotice,
  watchRegionShares,
} from '../../../src/store/index.js';
import { windowsOver } from '../../support/region-sim.js';
import { restoreRealTime, useVirtualTime } from '../../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const L = 30;
const TERMS = { leaseMs: 2000, renewEveryMs: 250, reserveAheadMs: 200 } as const;
const CONFIG: SharedLimiterConfig = { strategy: 'sliding-window', rates: `${L}/1s`, grantGraceMs: 0 };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Region {
  readonly name: string;
  readonly agent: RegionShares;
  /** Every grant's time on the store's clock (the one virtual clock). */
  readonly sends: number[];
  waiting: number;
  cut: boolean;
}

/** A region: its memory store, its share agent talking to home over `latencyMs` each way, and its processes. */
function region(name: string, home: ShareHome, latencyMs: number, processes: number, done: () => boolean): Region {
  const store = createMemoryStore({ name: `region-${name}`, maxReserveAheadMs: TERMS.reserveAheadMs });
  const link = async (ask: Parameters<ShareHome['answer']>[0]): Promise<ShareGrant> => {
    await sleep(latencyMs);
    if (self.cut) return new Promise<ShareGrant>(() => {});
    const grant = home.answer(ask);
    await sleep(latencyMs);
    return self.cut ? new Promise<ShareGrant>(() => {}) : grant;
  };
  const agent = createRegionShares({
    ...TERMS,
    region: name,
    store,
    config: CONFIG,
    home: link,
    demand: () => self.waiting,
  });
  const self: Region = { name, agent, sends: [], waiting: 0, cut: false };
  for (let i = 0; i < processes; i += 1) void runProcess(store.open(CONFIG), self, done);
  return self;
}

/** One process of a region: reserves a slot for each waiting message as the regional store allows. */
async function runProcess(
  limiter: ReturnType<ReturnType<typeof createMemoryStore>['open']>,
  self: Region,
  done: () => boolean,
) {
  while (!done()) {
    if (self.waiting === 0) {
      await sleep(10);
      continue;
    }
    const [outcome] = await limiter.reserve([{ cost: 1 }]);
    if (outcome?.kind === 'granted') {
      self.waiting -= 1;
      self.sends.push(outcome.redisTime);
    } else if (outcome?.kind === 'later') {
      await sleep(Math.min(outcome.retryAfterMs, 50));
    } else {
      throw new Error(`refused: ${String(outcome)}`);
    }
  }
}

/** Adds each region's arrivals every 10 ms: `perSecond(name, t)` messages a second. */
function arrivals(regions: readonly Region[], perSecond: (name: string, t: number) => number, done: () => boolean) {
  const owed = new Map(regions.map((r) => [r.name, 0]));
  const tick = () => {
    if (done()) return;
    for (const r of regions) {
      const due = (owed.get(r.name) ?? 0) + perSecond(r.name, performance.now()) / 100;
      r.waiting += Math.floor(due);
      owed.set(r.name, due - Math.floor(due));
    }
    setTimeout(tick, 10);
  };
  tick();
}

function inStretch(regions: readonly Region[], from: number, to: number, skip?: string): number {
  return regions
    .filter((r) => r.name !== skip)
    .reduce((sum, r) => sum + r.sends.filter((at) => at >= from && at < to).length, 0);
}

describe('regions over memory stores, each agent asking home per lease (docs/regions.md)', () => {
  it('keeps every window of all regions under L while demand 80/20 swaps, and uses ≥ 90% of L', async () => {
    let finished = false;
    const done = () => finished;
    const home = createShareHome({ ...TERMS, rate: CONFIG.rates, fresh: false });
    const regions = ['eu', 'us', 'ap'].map((name) => region(name, home, 40, 4, done));
    const heavy = (t: number) => Math.floor(t / 10_000) % 3;
    arrivals(regions, (name, t) => (['eu', 'us', 'ap'][heavy(t)] === name ? 0.8 : 0.1) * 2 * L, done);
    const started = Promise.all(regions.map((r) => r.agent.start()));
    await vi.advanceTimersByTimeAsync(30_000);
    await started;
    finished = true;
    await Promise.all(regions.map((r) => r.agent.stop()));
    const grants = new Map(regions.map((r) => [r.name, r.sends]));
    expect(windowsOver(grants, L, 1000)).toEqual([]);
    for (const from of [3000, 13_000, 23_000]) {
      expect(inStretch(regions, from, from + 7000)).toBeGreaterThanOrEqual(0.9 * L * 7);
    }
    expect(regions.map((r) => r.agent.lateActs)).toEqual([0, 0, 0]);
    // Per lease, not per message: an ask every 250 ms per region.
    expect(Math.max(...regions.map((r) => r.agent.asks))).toBeLessThanOrEqual(30_000 / 250 + 2);
  });

  it('a region cut off from home stops at its lease end; the others use at least L − its share', async () => {
    let finished = false;
    const done = () => finished;
    const home = createShareHome({ ...TERMS, rate: CONFIG.rates, fresh: false });
    const regions = ['eu', 'us', 'ap'].map((name) => region(name, home, 40, 2, done));
    arrivals(regions, () => L, done);
    const started = Promise.all(regions.map((r) => r.agent.start()));
    await vi.advanceTimersByTimeAsync(5000);
    await started;
    const [cut] = regions as [Region];
    const share = cut.agent.limits()[0] as number;
    expect(share).toBeGreaterThan(0);
    cut.cut = true;
    const cutAt = performance.now();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(cut.agent.limits()).toEqual([0]);
    const leaseEnd = cutAt + TERMS.leaseMs + TERMS.reserveAheadMs;
    expect(cut.sends.filter((at) => at > leaseEnd)).toEqual([]);
    // While home still counts its share (until a span after its last grant), the others keep L − share.
    const span = home.terms.spanMs[0] as number;
    expect(inStretch(regions, cutAt + 2000, cutAt + span, 'eu')).toBeGreaterThanOrEqual(
      0.9 * (L - share) * ((span - 2000) / 1000),
    );
    // Past it, all of L.
    expect(inStretch(regions, cutAt + span + 3000, cutAt + 20_000, 'eu')).toBeGreaterThanOrEqual(
      0.9 * L * ((17_000 - span) / 1000),
    );
    finished = true;
    await Promise.all(regions.map((r) => r.agent.stop()));
    expect(windowsOver(new Map(regions.map((r) => [r.name, r.sends])), L, 1000)).toEqual([]);
  });
});

/** The store as a dying agent sees it: once `dead`, every call it makes hangs (its process is gone). */
function dyingStore(store: SharedStore, state: { dead: boolean }): SharedStore {
  const hang = () => new Promise<never>(() => {});
  return {
    ...store,
    open(config) {
      const limiter = store.open(config);
      return {
        ...limiter,
        setRate: (rates, channel) => (state.dead ? hang() : limiter.setRate(rates, channel)),
        pause: (ms) => (state.dead ? hang() : limiter.pause(ms)),
        resume: () => (state.dead ? hang() : limiter.resume()),
      };
    },
  };
}

async function agentDies(watching: boolean) {
  let finished = false;
  const home = createShareHome({ ...TERMS, rate: CONFIG.rates, fresh: false });
  const store = createMemoryStore({ name: `dying-${watching}`, maxReserveAheadMs: TERMS.reserveAheadMs });
  const state = { dead: false };
  const self: Region = { name: 'eu', agent: undefined as unknown as RegionShares, sends: [], waiting: 0, cut: false };
  const agent = createRegionShares({
    ...TERMS,
    region: 'eu',
    store: dyingStore(store, state),
    config: CONFIG,
    home: async (ask) => home.answer(ask),
    // Waiting plus its use (about its share): never 0, so the region is never held for want of demand.
    demand: () => self.waiting + 30,
  });
  const watches = watching ? [1, 2].map(() => watchRegionShares({ ...TERMS, store, config: CONFIG })) : [];
  for (let i = 0; i < 2; i += 1) void runProcess(store.open(CONFIG), self, () => finished);
  arrivals(
    [self],
    () => L,
    () => finished,
  );
  const started = agent.start();
  await vi.advanceTimersByTimeAsync(5000);
  await started;
  const pausesWhileAlive = watches.map((watch) => watch.pauses);
  state.dead = true;
  const diedAt = performance.now();
  await vi.advanceTimersByTimeAsync(10_000);
  finished = true;
  for (const watch of watches) watch.stop();
  return { pausesWhileAlive, after: self.sends.filter((at) => at > diedAt + TERMS.leaseMs + TERMS.reserveAheadMs) };
}

describe('an agent that dies (docs/regions.md, "Costs")', () => {
  it('with its processes watching, the region grants nothing past the last lease; none watching, it goes on', async () => {
    const watched = await agentDies(true);
    expect(watched.pausesWhileAlive).toEqual([0, 0]);
    expect(watched.after).toEqual([]);
    const unwatched = await agentDies(false);
    expect(unwatched.after.length).toBeGreaterThan(100);
  });
});

/** A process starting `startAt` ms in, the agent dying at 5 s: through the raw store, or its watch's gated one. */
async function lateProcess(startAt: number, gated: boolean) {
  let finished = false;
  const t0 = performance.now();
  const home = createShareHome({ ...TERMS, rate: CONFIG.rates, fresh: false });
  const store = createMemoryStore({ name: `late-${startAt}-${gated}`, maxReserveAheadMs: TERMS.reserveAheadMs });
  const state = { dead: false };
  const self: Region = { name: 'eu', agent: undefined as unknown as RegionShares, sends: [], waiting: 0, cut: false };
  const agent = createRegionShares({
    ...TERMS,
    region: 'eu',
    store: dyingStore(store, state),
    config: CONFIG,
    home: async (ask) => home.answer(ask),
    demand: () => self.waiting + 30,
  });
  arrivals(
    [self],
    () => L,
    () => finished,
  );
  void agent.start();
  setTimeout(() => (state.dead = true), 5000);
  await vi.advanceTimersByTimeAsync(startAt);
  const watch = watchRegionShares({ ...TERMS, store, config: CONFIG });
  let opened = false;
  let refusal: unknown;
  void watch.ready.then(() => {
    opened = true;
    void runProcess(watch.store.open(CONFIG), self, () => finished);
  });
  if (!gated) void runProcess(store.open(CONFIG), self, () => finished);
  else {
    try {
      watch.store.open(CONFIG);
    } catch (error) {
      refusal = error;
    }
  }
  await vi.advanceTimersByTimeAsync(15_000 - startAt);
  finished = true;
  watch.stop();
  const leaseOver = t0 + 5000 + TERMS.leaseMs + TERMS.reserveAheadMs;
  const before = self.sends.filter((at) => at <= t0 + 5000);
  return { opened, refusal, before, after: self.sends.filter((at) => at > leaseOver) };
}

describe('a process that starts after the agent died, none watching (docs/regions.md, "Costs")', () => {
  it("grants nothing through its watch's store, which opens only once a renewal is heard; the raw store goes on", async () => {
    const raw = await lateProcess(8000, false);
    // The gap: it grants at the stale share until its own watch's first silence (about 1.45 s here).
    expect(raw.after.length).toBeGreaterThan(20);
    const gated = await lateProcess(8000, true);
    expect(gated.opened).toBe(false);
    expect(String(gated.refusal)).toMatch(/await watch\.ready/);
    expect(gated.after).toEqual([]);
    const whileAlive = await lateProcess(1000, true);
    expect(whileAlive.opened).toBe(true);
    expect(whileAlive.before.length).toBeGreaterThan(50);
    expect(whileAlive.after).toEqual([]);
  });
});

describe('the agent refuses and reports', () => {
  it('refuses a bad option by name and value', () => {
    const store = createMemoryStore({ name: 'refusals' });
    const base = {
      ...TERMS,
      region: 'eu',
      store,
      config: CONFIG,
      home: async () => ({}) as ShareGrant,
      demand: () => 0,
    };
    expect(() => createRegionShares({ ...base, config: { ...CONFIG, strategy: 'token-bucket' } })).toThrow(
      /config\.strategy must be 'sliding-window' \(shares across regions\), got .token-bucket./,
    );
    expect(() => createRegionShares({ ...base, config: { ...CONFIG, transit: 5 } })).toThrow('config.transit');
    expect(() => createRegionShares({ ...base, storeLagMs: 5000 })).toThrow('storeLagMs');
    expect(() => createRegionShares({ ...base, demand: 3 as unknown as () => number })).toThrow(
      'demand must be a function',
    );
    expect(() => watchRegionShares({ store, config: CONFIG, leaseMs: 1000, renewEveryMs: 900 })).toThrow(
      'renewEveryMs',
    );
  });

  it('keeps the last failure (a bad demand, home refusing) and holds the region meanwhile', async () => {
    const store = createMemoryStore({ name: 'failures', maxReserveAheadMs: TERMS.reserveAheadMs });
    let demand = Number.NaN;
    const agent = createRegionShares({
      ...TERMS,
      region: 'eu',
      store,
      config: CONFIG,
      home: async () => Promise.reject(new Error('home says no')),
      demand: () => demand,
    });
    const started = agent.start();
    await vi.advanceTimersByTimeAsync(10);
    await started;
    expect(String(agent.lastError)).toContain('demand must be a finite number, 0 or more');
    demand = 5;
    await vi.advanceTimersByTimeAsync(TERMS.renewEveryMs);
    expect(String(agent.lastError)).toContain('home says no');
    expect(agent.limits()).toEqual([0]);
    const [outcome] = await store.open(CONFIG).reserve([{ cost: 1 }]);
    expect(outcome).toMatchObject({ kind: 'later', reason: 'paused' });
    await agent.stop();
  });
});

const THROTTLERS: SharedLimiterConfig = { strategy: 'sliding-window', rates: CONFIG.rates };

describe("a region's throttlers over its store (createThrottler, as a single-region fleet)", () => {
  it('open the same configuration as the agent and keep to the share it sets', async () => {
    const { createThrottler } = await import('../../../src/index.js');
    const home = createShareHome({ ...TERMS, rate: CONFIG.rates, fresh: false });
    const stores = ['eu', 'us'].map((name) =>
      createMemoryStore({ name: `throttlers-${name}`, maxReserveAheadMs: TERMS.reserveAheadMs }),
    );
    const agents = stores.map((store, i) =>
      // The throttlers' own configuration (a grace of 20 ms, the default), which the agent must open alike.
      createRegionShares({
        ...TERMS,
        region: `r${i}`,
        store,
        config: THROTTLERS,
        home: async (ask) => home.answer(ask),
        demand: () => 50,
      }),
    );
    const started = Promise.all(agents.map((agent) => agent.start()));
    await vi.advanceTimersByTimeAsync(10);
    await started;
    // The first to ask held all 30; as its grants leave the window (W + A), the split by demand takes over.
    await vi.advanceTimersByTimeAsync(3000);
    expect(agents.map((agent) => agent.limits())).toEqual([[15], [15]]);
    const sends = new Map<string, number[]>([
      ['eu', []],
      ['us', []],
    ]);
    const throttlers = stores.flatMap((store, i) =>
      [0, 1].map(() => ({
        region: ['eu', 'us'][i] as string,
        throttler: createThrottler({ rate: CONFIG.rates, store }),
      })),
    );
    const tasks = throttlers.flatMap(({ region, throttler }) =>
      Array.from({ length: 40 }, () => throttler.schedule(async () => void sends.get(region)?.push(performance.now()))),
    );
    await vi.advanceTimersByTimeAsync(8000);
    await Promise.all(tasks);
    expect([...sends.values()].map((times) => times.length)).toEqual([80, 80]);
    expect(windowsOver(sends, L, 1000)).toEqual([]);
    // Each region kept its share of 15: 80 sends take at least 5 windows of the region's 1001 ms.
    for (const times of sends.values()) expect(windowsOver(new Map([['one', times]]), 15, 1000)).toEqual([]);
    for (const { throttler } of throttlers) throttler.stop();
    await Promise.all(agents.map((agent) => agent.stop()));
  });
});

describe('what a watch counts as a renewal (docs/regions.md, "Costs")', () => {
  it("not a rates notice its own call's reply teaches (the store's state, a dead agent's stale share too)", async () => {
    let listener: ((notice: StoreNotice) => void) | undefined;
    const stale: StoreNotice = { type: 'rates', rates: [], channels: new Map(), keys: undefined };
    const limiter = {
      subscribe: (heard: (notice: StoreNotice) => void) => {
        listener = heard;
        return () => {};
      },
      // Each reply teaches the stored rates before it resolves, as a store's reply does.
      check: async () => listener?.(stale),
      pause: async () => listener?.(stale),
    };
    const store = { name: 'fake', open: () => limiter } as unknown as SharedStore;
    const watch = watchRegionShares({ ...TERMS, store, config: CONFIG });
    let ready = false;
    void watch.ready.then(() => (ready = true));
    await vi.advanceTimersByTimeAsync(5000);
    expect(watch.pauses).toBeGreaterThan(0);
    expect(ready).toBe(false);
    listener?.(stale);
    await vi.advanceTimersByTimeAsync(0);
    expect(ready).toBe(true);
    watch.stop();
  });
});
