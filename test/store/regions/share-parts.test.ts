import { describe, expect, it } from 'vitest';
import {
  createShareHome,
  RegionShare,
  ShareBook,
  shareTerms,
  splitByDemand,
} from '../../../src/store/regions/index.js';

const terms = shareTerms({ rate: '30/1s', leaseMs: 2000, renewEveryMs: 250, reserveAheadMs: 200, clockDrift: 0 });

describe('share terms', () => {
  it('derives the span S = ((D + A)/(1 − δ) + W)(1 + δ) + 1 and the regional window W(1 + δ)', () => {
    expect(terms.spanMs).toEqual([2000 + 200 + 1000 + 1]);
    expect(terms.regionalIntervalMs).toEqual([1000]);
    const drifting = shareTerms({ rate: ['30/1s', '600/1m'], leaseMs: 2000, reserveAheadMs: 200, clockDrift: 1e-3 });
    expect(drifting.renewEveryMs).toBe(500);
    expect(drifting.windowWideningMs).toBe(60);
    expect(drifting.regionalIntervalMs).toEqual([1060, 60_060]);
    expect(drifting.spanMs).toEqual([
      Math.ceil((2200 / 0.999 + 1000) * 1.001) + 1,
      Math.ceil((2200 / 0.999 + 60_000) * 1.001) + 1,
    ]);
  });

  it('refuses every bad field by name and value', () => {
    const base = { rate: '30/1s', leaseMs: 2000, reserveAheadMs: 200 };
    expect(() => shareTerms({ ...base, leaseMs: 0 })).toThrow('leaseMs must be a positive finite number of ms, got 0');
    expect(() => shareTerms({ ...base, renewEveryMs: 2000 })).toThrow(
      'renewEveryMs must be below leaseMs (2000), got 2000',
    );
    expect(() => shareTerms({ ...base, reserveAheadMs: -1 })).toThrow('reserveAheadMs must be');
    expect(() => shareTerms({ ...base, clockDrift: 0.5 })).toThrow(
      'clockDrift must be a fraction in [0, 0.01], got 0.5',
    );
    expect(() => shareTerms({ ...base, rate: 'fast' })).toThrow('rate');
  });
});

describe("home's book", () => {
  it('grants nothing for a span after a start that may have lost a book, then splits by demand', () => {
    const book = new ShareBook(terms, { now: 0 });
    const ask = { region: 'eu', ask: 1, applied: 0, bound: [0], demand: 10 };
    expect(book.answer(ask, 3200)).toEqual({ ask: 1, seq: 0, shares: [0], leaseMs: 2000 });
    expect(book.answer({ ...ask, ask: 2 }, 3201)).toEqual({ ask: 2, seq: 1, shares: [30], leaseMs: 2000 });
    // us asks: the split says 15, but eu's entry holds all 30 until its bound comes down.
    expect(book.answer({ region: 'us', ask: 1, applied: 0, bound: [0], demand: 10 }, 3300).shares).toEqual([0]);
    // eu renews at its target 15 and, after its window, bounds its old grant at 15: us gets 15.
    expect(book.answer({ ...ask, ask: 3, applied: 1, bound: [30] }, 3400).shares).toEqual([15]);
    expect(book.held('eu', 3400)).toEqual([30]);
    expect(book.answer({ ...ask, ask: 4, applied: 2, bound: [15] }, 4700).shares).toEqual([15]);
    expect(book.answer({ region: 'us', ask: 2, applied: 0, bound: [0], demand: 10 }, 4701).shares).toEqual([15]);
    expect(book.heldInAll(4701)).toEqual([30]);
    // eu silent: its entries expire a span after its last grant, then us gets all of it.
    expect(book.answer({ region: 'us', ask: 3, applied: 5, bound: [15], demand: 10 }, 4700 + 3201).shares).toEqual([
      30,
    ]);
  });

  it('refuses a malformed ask by field', () => {
    const book = new ShareBook(terms, { now: 0, fresh: false });
    const ask = { region: 'eu', ask: 1, applied: 0, bound: [0], demand: 1 };
    expect(() => book.answer({ ...ask, region: '' }, 0)).toThrow('ask.region');
    expect(() => book.answer({ ...ask, bound: [0, 0] }, 0)).toThrow('ask.bound must be a list of 1 whole numbers');
    expect(() => book.answer({ ...ask, bound: [-1] }, 0)).toThrow('ask.bound[0]');
    expect(() => book.answer({ ...ask, demand: Number.NaN }, 0)).toThrow('ask.demand');
    expect(() => book.answer({ ...ask, applied: 1.5 }, 0)).toThrow('ask.applied');
  });
});

describe("a region's share", () => {
  it('is in force from its arrival until D after its ask left; an older seq or a lapsed grant is ignored', () => {
    const share = new RegionShare('eu', terms);
    const first = share.ask(100, 5);
    const second = share.ask(150, 5);
    expect(share.hear({ ask: second.ask, seq: 7, shares: [12], leaseMs: 2000 }, 200)).toBe(true);
    expect(share.hear({ ask: first.ask, seq: 6, shares: [30], leaseMs: 2000 }, 210)).toBe(false);
    expect(share.limits(2149)).toEqual([12]);
    expect(share.limits(2150)).toEqual([0]);
    const late = share.ask(3000, 5);
    expect(share.hear({ ask: late.ask, seq: 8, shares: [12], leaseMs: 2000 }, 5000)).toBe(false);
    expect(share.applied).toBe(7);
    expect(() => share.hear({ ask: 1, seq: 9, shares: [1, 2], leaseMs: 2000 }, 5000)).toThrow('grant.shares');
  });

  it('bounds what may still count: the largest limit of the last W + A, or its use where read, never below the limit', () => {
    const share = new RegionShare('eu', terms);
    share.hear({ ask: share.ask(0, 5).ask, seq: 1, shares: [20], leaseMs: 2000 }, 10);
    share.hear({ ask: share.ask(500, 5).ask, seq: 2, shares: [8], leaseMs: 2000 }, 510);
    expect(share.bound(600)).toEqual([20]);
    expect(share.bound(600, [11])).toEqual([11]);
    expect(share.bound(600, [3])).toEqual([8]);
    expect(share.bound(510 + 1200)).toEqual([8]);
    expect(share.ask(2600, 0).bound).toEqual([8]);
    expect(share.bound(2510 + 1200)).toEqual([0]);
  });
});

describe('the demand rule', () => {
  it('splits the limit in proportion to demand, by largest remainder, summing to the limit', () => {
    expect(
      splitByDemand(
        30,
        new Map([
          ['a', 80],
          ['b', 20],
        ]),
      ),
    ).toEqual(
      new Map([
        ['a', 24],
        ['b', 6],
      ]),
    );
    const three = splitByDemand(
      10,
      new Map([
        ['a', 1],
        ['b', 1],
        ['c', 1],
      ]),
    );
    expect([...three.values()].reduce((a, b) => a + b)).toBe(10);
    expect(three).toEqual(
      new Map([
        ['a', 4],
        ['b', 3],
        ['c', 3],
      ]),
    );
    expect(splitByDemand(10, new Map([['a', 0]]))).toEqual(new Map([['a', 0]]));
  });
});

describe("home's regions to expect", () => {
  const terms = { leaseMs: 2000, renewEveryMs: 250, reserveAheadMs: 200, clockDrift: 0 };
  const ask = (region: string, n: number, demand = 10) => ({ region, ask: n, applied: 0, bound: [0], demand });

  it('counts a listed region not heard yet at the largest demand heard, until it asks or the span passes', () => {
    let now = 0;
    const home = createShareHome({
      ...terms,
      rate: '30/1s',
      clock: () => now,
      fresh: false,
      regions: ['eu', 'us', '__proto__'],
    });
    expect(home.answer(ask('eu', 1, 40)).shares).toEqual([10]);
    now = 100;
    expect(home.answer(ask('__proto__', 1, 20)).shares).toEqual([6]); // 30 × 20 / (40 + 20 + 40), us still unheard
    now = 200;
    expect(home.answer(ask('us', 1, 40)).shares).toEqual([12]);
    // A region not listed is served all the same: it joins the split.
    expect(home.answer(ask('ap', 1, 0)).shares).toEqual([0]);
    expect(home.answer(ask('ap', 2, 100)).shares).toEqual([2]); // its target, 15, but the others hold 28
  });

  it('keeps waiting for a listed region whose asks carry no demand yet (its agent asks before its processes have work)', () => {
    let now = 0;
    const home = createShareHome({ ...terms, rate: '30/1s', clock: () => now, fresh: false, regions: ['eu', 'us'] });
    expect(home.answer(ask('us', 1, 0)).shares).toEqual([0]);
    now = 10;
    expect(home.answer(ask('eu', 1, 40)).shares).toEqual([15]); // us asked, but with nothing to send: still awaited
    now = 20;
    expect(home.answer(ask('us', 2, 10)).shares).toEqual([6]); // heard now: 30 × 10 / (40 + 10)
  });

  it('stops waiting W(1 + δ) + A after the start by default, or after awaitRegionsMs; an empty list changes nothing', () => {
    let now = 0;
    const home = createShareHome({ ...terms, rate: '30/1s', clock: () => now, fresh: false, regions: ['eu', 'us'] });
    now = 1199;
    expect(home.answer(ask('eu', 1)).shares).toEqual([15]);
    now = 1200;
    expect(home.answer(ask('eu', 2)).shares).toEqual([30]);
    const waiting = createShareHome({
      ...terms,
      rate: '30/1s',
      clock: () => 0,
      fresh: false,
      regions: ['eu', 'us'],
      awaitRegionsMs: 0,
    });
    expect(waiting.answer(ask('eu', 1)).shares).toEqual([30]);
    const fresh = createShareHome({ ...terms, rate: '30/1s', clock: () => now, regions: ['eu', 'us'] });
    now += 3201 + 1199; // a fresh home waits S = 3201, then W + A
    expect(fresh.answer(ask('eu', 1)).shares).toEqual([15]);
    now += 1;
    expect(fresh.answer(ask('eu', 2)).shares).toEqual([30]);
    const none = createShareHome({ ...terms, rate: '30/1s', clock: () => 0, fresh: false, regions: [] });
    expect(none.answer(ask('eu', 1)).shares).toEqual([30]);
  });

  it('refuses a bad list or span by field and value', () => {
    const base = { ...terms, rate: '30/1s' };
    expect(() => createShareHome({ ...base, regions: 'eu' as unknown as string[] })).toThrow(
      "regions must be a list of regions' names, got",
    );
    expect(() => createShareHome({ ...base, regions: ['eu', 'eu'] })).toThrow(
      'regions[1] must be a name not listed before, got',
    );
    expect(() => createShareHome({ ...base, regions: ['eu', 3 as unknown as string] })).toThrow('regions[1]');
    expect(() => createShareHome({ ...base, regions: [''] })).toThrow('regions[0]');
    expect(() => createShareHome({ ...base, awaitRegionsMs: -1 })).toThrow(
      'awaitRegionsMs must be a finite number of ms, 0 or more, got -1',
    );
    expect(() => createShareHome({ ...base, awaitRegionsMs: Number.NaN })).toThrow('awaitRegionsMs');
  });
});
