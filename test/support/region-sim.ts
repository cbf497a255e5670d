/**
 * Regions sharing one limit in virtual time (docs/regions.md): one true clock; home and each region read
 * clocks of their own (an offset and a rate within ±δ); asks and grants cross with random latency, lost in
 * a partition or while home is down (a home that comes back starts a fresh book). Each region's store is a
 * strict sliding window on the region's clock over W(1 + δ), deciding grants up to A ahead. Everything the
 * regions granted is returned on the true clock, for the brute force, with home's Σ B_r at every tick.
 */
import {
  RegionShare,
  ShareBook,
  type ShareBookStart,
  type ShareGrant,
  type ShareTerms,
} from '../../src/store/regions/index.js';
import { seededRandom } from './random.js';

export interface SimRegion {
  readonly name: string;
  /** Cost-1 messages arriving per true ms at `t` (the demand the region's processes make). */
  readonly arrivals: (t: number) => number;
  /** What the region tells home it waits for; default: its waiting work plus its use. */
  readonly demand?: ((t: number, waiting: number, use: number) => number) | undefined;
  /** Whether the region reads its use for its bound (else the largest recent limit). */
  readonly readsUse: boolean;
  /** A broken region, for the test's teeth: it reports a use of 0 (gives back all its share above its limit at once). */
  readonly reportsNoUse?: boolean | undefined;
  /** True ms of its first ask (default 0): a region that comes up after home. */
  readonly startsAt?: number | undefined;
}

export interface SimSetup {
  readonly seed: number;
  /** Home's terms; `bookTerms` (default the same) is what home's book uses, to try a broken span. */
  readonly terms: ShareTerms;
  readonly bookTerms?: ShareTerms | undefined;
  /** Home's regions to expect (each book's `regions` and `awaitRegionsMs`). */
  readonly expected?: Pick<ShareBookStart, 'regions' | 'awaitRegionsMs'> | undefined;
  readonly regions: readonly SimRegion[];
  readonly durationMs: number;
  readonly tickMs: number;
  /** One-way latency, uniform in [min, max] ms. */
  readonly latency: readonly [number, number];
  /** True-time stretches in which a region's messages (both ways) are lost. */
  readonly partitions: readonly { region: string; from: number; to: number }[];
  /** True-time stretches in which home is down (it restarts with a fresh book). */
  readonly homeDown: readonly { from: number; to: number }[];
  /** The largest |rate − 1| of any clock (≤ terms.clockDrift to keep the premise). */
  readonly drift: number;
}

export interface SimResult {
  /** Every grant of every region on the true clock, by region. */
  readonly grants: Map<string, number[]>;
  /** Per tick: true time, each region's limit in force, home's Σ B_r. */
  readonly ticks: { t: number; limits: Map<string, number>; heldInAll: number }[];
  readonly asks: number;
}

interface Clock {
  read(t: number): number;
  trueOf(local: number): number;
}

function clockOf(random: () => number, drift: number): Clock {
  const offset = Math.round((random() - 0.5) * 1e6); // whole ms: with a rate of 1, times stay exact
  const rate = 1 + (random() * 2 - 1) * drift;
  return { read: (t) => offset + rate * t, trueOf: (local) => (local - offset) / rate };
}

/** A strict sliding window on one region's clock: grant times (region clock), sorted. */
class RegionWindow {
  readonly times: number[] = [];
  constructor(readonly interval: number) {}

  /** Grants in (x − W, x]: the window [x − W + ε, x + ε). */
  private endingAt(x: number): number {
    return upperBound(this.times, x) - upperBound(this.times, x - this.interval);
  }

  /**
   * The most grants a window [a, a + W) holding `at` holds (`at` itself not yet recorded). As a moves right
   * a window gains grant x as a passes x − W, so the fullest starts just past at − W or just past some x − W
   * with x in (at, at + W): the windows (x − W, x] for x = at and for those grants.
   */
  fullestAround(at: number): number {
    let most = this.endingAt(at);
    for (let i = upperBound(this.times, at); i < this.times.length; i += 1) {
      const x = this.times[i] as number;
      if (x >= at + this.interval) break;
      most = Math.max(most, this.endingAt(x));
    }
    return most;
  }

  /** The use at `now`: the most grants in a window not wholly before now (a > now − W), as above. */
  use(now: number): number {
    let most = this.endingAt(now);
    for (let i = upperBound(this.times, now); i < this.times.length; i += 1) {
      most = Math.max(most, this.endingAt(this.times[i] as number));
    }
    return most;
  }

  record(at: number): void {
    this.times.splice(upperBound(this.times, at), 0, at);
  }
}

function upperBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as number) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface RegionRun {
  readonly spec: SimRegion;
  readonly clock: Clock;
  readonly share: RegionShare;
  readonly window: RegionWindow;
  readonly grants: number[];
  waiting: number;
  owed: number;
  nextAskAt: number;
  askedAt: number;
}

type Message =
  | { kind: 'ask'; at: number; region: RegionRun; ask: ReturnType<RegionShare['ask']> }
  | { kind: 'grant'; at: number; region: RegionRun; grant: ShareGrant };

export function simulateRegions(setup: SimSetup): SimResult {
  const random = seededRandom(setup.seed);
  const homeClock = clockOf(random, setup.drift);
  const bookTerms = setup.bookTerms ?? setup.terms;
  let book: ShareBook | undefined = new ShareBook(bookTerms, {
    ...setup.expected,
    now: homeClock.read(0),
    fresh: false,
  });
  let lastSeq = 0;
  const runs: RegionRun[] = setup.regions.map((spec) => {
    const clock = clockOf(random, setup.drift);
    return {
      spec,
      clock,
      share: new RegionShare(spec.name, setup.terms),
      window: new RegionWindow(setup.terms.regionalIntervalMs[0] as number),
      grants: [],
      waiting: 0,
      owed: 0,
      nextAskAt: clock.read(spec.startsAt ?? 0),
      askedAt: Number.NEGATIVE_INFINITY,
    };
  });
  const messages: Message[] = [];
  const ticks: SimResult['ticks'] = [];
  let asks = 0;
  const lost = (region: RegionRun, t: number) =>
    setup.partitions.some((cut) => cut.region === region.spec.name && t >= cut.from && t < cut.to);
  const homeUp = (t: number) => !setup.homeDown.some((down) => t >= down.from && t < down.to);
  const send = (message: Message, t: number) => {
    const [min, max] = setup.latency;
    if (lost(message.region, t)) return;
    messages.push({ ...message, at: t + min + random() * (max - min) });
  };
  for (let t = 0; t <= setup.durationMs; t += setup.tickMs) {
    if (book === undefined && homeUp(t)) {
      book = new ShareBook(bookTerms, { ...setup.expected, now: homeClock.read(t), lastSeq, fresh: true });
    }
    if (book !== undefined && !homeUp(t)) {
      lastSeq = Math.max(lastSeq, ...runs.map((run) => run.share.applied)) + 1000;
      book = undefined;
    }
    messages.sort((a, b) => a.at - b.at);
    while (messages.length > 0 && (messages[0] as Message).at <= t) {
      const message = messages.shift() as Message;
      if (lost(message.region, t)) continue;
      if (message.kind === 'ask') {
        if (book === undefined) continue;
        send({ kind: 'grant', at: t, region: message.region, grant: book.answer(message.ask, homeClock.read(t)) }, t);
      } else {
        message.region.share.hear(message.grant, message.region.clock.read(t));
      }
    }
    for (const run of runs) asks += stepRegion(run, t, setup, random, send);
    const limits = new Map(runs.map((run) => [run.spec.name, run.share.limits(run.clock.read(t))[0] as number]));
    ticks.push({ t, limits, heldInAll: book === undefined ? 0 : (book.heldInAll(homeClock.read(t))[0] as number) });
  }
  return { grants: new Map(runs.map((run) => [run.spec.name, run.grants])), ticks, asks };
}

/** One tick of a region: arrivals, grants on its window, and an ask when one is due. Returns asks sent. */
function stepRegion(
  run: RegionRun,
  t: number,
  setup: SimSetup,
  random: () => number,
  send: (message: Message, t: number) => void,
): number {
  if (t < (run.spec.startsAt ?? 0)) return 0;
  run.owed += run.spec.arrivals(t) * setup.tickMs;
  const whole = Math.floor(run.owed);
  run.owed -= whole;
  run.waiting += whole;
  const now = run.clock.read(t);
  const limit = run.share.limits(now)[0] as number;
  const ahead = setup.terms.reserveAheadMs;
  while (run.waiting > 0) {
    const candidates = [now + Math.floor(random() * ahead), now];
    const at = candidates.find((time) => run.window.fullestAround(time) + 1 <= limit);
    if (at === undefined) break;
    run.window.record(at);
    run.grants.push(run.clock.trueOf(at));
    run.waiting -= 1;
  }
  const starving = run.waiting > 0 && limit === 0 && now - run.askedAt >= 2 * setup.latency[1] + setup.tickMs;
  if (now < run.nextAskAt && !starving) return 0;
  const use = run.window.use(now);
  const demand = run.spec.demand?.(t, run.waiting, use) ?? run.waiting + use;
  const reported = run.spec.reportsNoUse === true ? 0 : use;
  const ask = run.share.ask(now, demand, run.spec.readsUse ? [reported] : undefined);
  send({ kind: 'ask', at: t, region: run, ask }, t);
  run.nextAskAt = now + setup.terms.renewEveryMs;
  run.askedAt = now;
  return 1;
}

/** The brute force: every window [s, s + W) starting at a grant, over all regions' grants on the true clock. */
export function windowsOver(grants: Map<string, number[]>, limit: number, interval: number): number[] {
  const all = [...grants.values()].flat().sort((a, b) => a - b);
  const over: number[] = [];
  let end = 0;
  for (let start = 0; start < all.length; start += 1) {
    while (end < all.length && (all[end] as number) < (all[start] as number) + interval) end += 1;
    if (end - start > limit) over.push(all[start] as number);
  }
  return over;
}
