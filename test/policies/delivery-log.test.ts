import { describe, expect, it } from 'vitest';
import { DeliveryLog } from '../../src/policies/delivery-log.js';
import { runs } from '../support/property-runs.js';
import { seededRandom } from '../support/random.js';

/** The obvious answer: walk back from the newest entry adding costs until they exceed the allowance. */
function bruteForceTimeWhereCostExceeds(entries: Array<[number, number]>, allowance: number): number {
  let cost = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const [time, entryCost] = entries[i] as [number, number];
    cost += entryCost;
    if (cost > allowance) return time;
  }
  return Number.NEGATIVE_INFINITY;
}

function logOf(maxEntries: number, entries: Array<[number, number]>): DeliveryLog {
  const log = new DeliveryLog(maxEntries);
  for (const [time, cost] of entries) log.append(time, cost);
  return log;
}

describe('DeliveryLog', () => {
  it('is empty at first: nothing exceeds any allowance', () => {
    const log = new DeliveryLog(10);
    expect(log.size).toBe(0);
    expect(log.entries()).toEqual([]);
    expect(log.timeWhereCostExceeds(0)).toBe(Number.NEGATIVE_INFINITY);
  });

  it('finds the newest delivery at which the cost counted back from the newest exceeds the allowance', () => {
    const log = logOf(10, [
      [0, 1],
      [100, 2],
      [200, 1],
      [300, 3],
    ]);
    // Counting back from 300: 3, 4, 6, 7.
    expect(log.timeWhereCostExceeds(0)).toBe(300);
    expect(log.timeWhereCostExceeds(2)).toBe(300);
    expect(log.timeWhereCostExceeds(3)).toBe(200);
    expect(log.timeWhereCostExceeds(4)).toBe(100);
    expect(log.timeWhereCostExceeds(5)).toBe(100);
    expect(log.timeWhereCostExceeds(6)).toBe(0);
    expect(log.timeWhereCostExceeds(7)).toBe(Number.NEGATIVE_INFINITY);
  });

  it('grows past its initial 16 slots, keeping every entry in order', () => {
    const appended: Array<[number, number]> = Array.from({ length: 40 }, (_, i) => [i * 10, 1 + (i % 3)]);
    const log = logOf(100, appended);
    expect(log.size).toBe(40);
    expect(log.entries()).toEqual(appended);
    for (const allowance of [0, 1, 17, 50, 79, 80]) {
      expect(log.timeWhereCostExceeds(allowance)).toBe(bruteForceTimeWhereCostExceeds(appended, allowance));
    }
    expect(log.timeWhereCostExceeds(80)).toBe(Number.NEGATIVE_INFINITY);
  });

  it('keeps at most maxEntries, dropping the oldest, and wraps around its ring', () => {
    const log = logOf(5, [
      [0, 1],
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 1],
      [5, 1],
      [6, 1],
      [7, 1],
    ]);
    expect(log.size).toBe(5);
    expect(log.entries().map(([time]) => time)).toEqual([3, 4, 5, 6, 7]);
    expect(log.timeWhereCostExceeds(4)).toBe(3);
    expect(log.timeWhereCostExceeds(5)).toBe(Number.NEGATIVE_INFINITY);
  });

  it('grows correctly when its ring has wrapped (the oldest entry is not in slot 0)', () => {
    const log = new DeliveryLog(64);
    for (let i = 0; i < 16; i++) log.append(i, 1);
    log.forgetUpTo(9);
    // 6 left (10..15); appending 10 more wraps around the 16 slots, the 11th forces growth.
    for (let i = 16; i < 27; i++) log.append(i, 1);
    expect(log.size).toBe(17);
    expect(log.entries().map(([time]) => time)).toEqual(Array.from({ length: 17 }, (_, i) => 10 + i));
    expect(log.timeWhereCostExceeds(16)).toBe(10);
    expect(log.timeWhereCostExceeds(3)).toBe(23);
  });

  it('forgetUpTo drops deliveries at or before the cutoff and keeps the rest', () => {
    const log = logOf(10, [
      [0, 1],
      [100, 1],
      [200, 1],
    ]);
    log.forgetUpTo(100);
    expect(log.entries()).toEqual([[200, 1]]);
    log.forgetUpTo(199.5);
    expect(log.size).toBe(1);
    log.forgetUpTo(200);
    expect(log.size).toBe(0);
    expect(log.timeWhereCostExceeds(0)).toBe(Number.NEGATIVE_INFINITY);
    log.append(300, 2);
    expect(log.entries()).toEqual([[300, 2]]);
    expect(log.timeWhereCostExceeds(1)).toBe(300);
  });

  it('setMaxEntries keeps the newest entries when it shrinks, and lets the log grow again when it widens', () => {
    const log = logOf(
      10,
      Array.from({ length: 10 }, (_, i) => [i, 1] as [number, number]),
    );
    log.setMaxEntries(3);
    expect(log.entries().map(([time]) => time)).toEqual([7, 8, 9]);
    log.append(10, 1);
    expect(log.entries().map(([time]) => time)).toEqual([8, 9, 10]);
    log.setMaxEntries(40);
    for (let i = 11; i < 40; i++) log.append(i, 1);
    expect(log.size).toBe(32);
    expect(log.entries()[0]).toEqual([8, 1]);
  });

  it('widening a log created small lets it grow beyond its first capacity', () => {
    const log = logOf(2, [
      [0, 1],
      [1, 1],
    ]);
    log.setMaxEntries(20);
    for (let i = 2; i < 20; i++) log.append(i, 1);
    expect(log.size).toBe(20);
    expect(log.timeWhereCostExceeds(19)).toBe(0);
  });

  it('agrees with a brute-force walk over random appends, forgets and resizes', () => {
    const random = seededRandom(20240611);
    for (let run = 0; run < runs(200); run++) {
      let maxEntries = 1 + Math.floor(random() * 40);
      const log = new DeliveryLog(maxEntries);
      let model: Array<[number, number]> = [];
      let time = 0;
      // Answers are collected and compared once per run: 60,000 separate expects are slow.
      const answers: Array<[number, number, number]> = [];
      const expected: Array<[number, number, number]> = [];
      for (let step = 0; step < 300; step++) {
        const choice = random();
        if (choice < 0.8) {
          // Times repeat often (several deliveries in one instant) and never go back.
          time += random() < 0.3 ? 0 : Math.floor(random() * 50);
          const cost = 1 + Math.floor(random() * 5);
          log.append(time, cost);
          model.push([time, cost]);
          if (model.length > maxEntries) model = model.slice(model.length - maxEntries);
        } else if (choice < 0.9) {
          const cutoff = time - Math.floor(random() * 200);
          log.forgetUpTo(cutoff);
          model = model.filter(([at]) => at > cutoff);
        } else {
          maxEntries = 1 + Math.floor(random() * 40);
          log.setMaxEntries(maxEntries);
          if (model.length > maxEntries) model = model.slice(model.length - maxEntries);
        }
        const allowance = Math.floor(random() * 60);
        answers.push([step, log.size, log.timeWhereCostExceeds(allowance)]);
        expected.push([step, model.length, bruteForceTimeWhereCostExceeds(model, allowance)]);
      }
      expect(answers).toEqual(expected);
      expect(log.entries()).toEqual(model);
    }
  });
});

describe('DeliveryLog.adjust (a settled cost, changed in place)', () => {
  it('answers as the obvious walk over the same entries with their costs changed, through wraps, drops and zeros', () => {
    const random = seededRandom(26);
    for (let run = 0; run < runs(200); run++) {
      const maxEntries = 1 + Math.floor(random() * 12);
      const log = new DeliveryLog(maxEntries);
      let entries: Array<[number, number]> = [];
      let time = 0;
      for (let step = 0; step < 80; step++) {
        const roll = random();
        if (roll < 0.5) {
          time += Math.floor(random() * 3);
          const cost = 1 + Math.floor(random() * 5);
          log.append(time, cost);
          entries.push([time, cost]);
          // Entries of cost 0 do not count against maxEntries; the oldest others go.
          while (entries.filter(([, c]) => c > 0).length > maxEntries) entries.shift();
        } else if (roll < 0.8 && entries.length > 0) {
          const [at] = entries[Math.floor(random() * entries.length)] as [number, number];
          const delta = Math.floor(random() * 9) - 5;
          expect(log.adjust(at, delta)).toBe(true);
          let remaining = delta;
          for (let i = entries.length - 1; i >= 0 && remaining !== 0; i--) {
            const entry = entries[i] as [number, number];
            if (entry[0] !== at) continue;
            const after = Math.max(0, entry[1] + remaining);
            remaining -= after - entry[1];
            entry[1] = after;
          }
        } else if (roll < 0.85) {
          const cutoff = time - 1 - Math.floor(random() * 4);
          log.forgetUpTo(cutoff);
          entries = entries.filter(([t]) => t > cutoff);
        }
        expect(log.entries()).toEqual(entries);
        for (const allowance of [0, 1, 3, 7, 15, 40]) {
          expect(log.timeWhereCostExceeds(allowance)).toBe(bruteForceTimeWhereCostExceeds(entries, allowance));
        }
        for (const cutoff of [time - 3, time - 1, time]) {
          const expected = entries.filter(([t]) => t > cutoff).reduce((sum, [, c]) => sum + c, 0);
          expect(log.costAfter(cutoff)).toBe(expected);
        }
      }
    }
  });
});
