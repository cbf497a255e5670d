import { describe, expect, it } from 'vitest';
import { ReserveLine } from '../../src/store/reserve-line.js';

/**
 * The line of messages a store clearance has yet to ask for (reserve-line.ts): arrival order, a
 * promoted head first, and nothing asked for a message taken out, however often it came and went.
 */
const request = (seq: number) => ({ seq, channel: undefined, cost: 1, scope: undefined });

describe('the reserve line', () => {
  it('asks in arrival order, a promoted message first, and never for one taken out', () => {
    const line = new ReserveLine();
    const [a, b, c] = [request(0), request(1), request(2)];
    line.push(a);
    line.push(b);
    line.push(c);
    line.withdraw(b.seq);
    line.promote(c);
    expect(line.length).toBe(2);
    expect(line.takeBatch(10).map(({ seq }) => seq)).toEqual([2, 0]);
    expect(line.length).toBe(0);
  });

  // A high-priority message took a grant from the one behind it (taken out of the line: it had a
  // grant), the other took it back (the first put back, the same object), then the first expired.
  // Skipping by the request object took its new entry for the old one: the old one was then asked
  // for, a grant for a message long gone, which a later arrival sent on 1 ms late (three sends in a
  // window of two with grantGraceMs 0; test/redis/throttler-store-priorities.property.test.ts).
  it('asks nothing for a message put back and taken out again while its old entry still waits', () => {
    const line = new ReserveLine();
    const urgent = request(3);
    line.push(urgent);
    line.withdraw(urgent.seq);
    line.putBack([urgent]);
    line.withdraw(urgent.seq);
    expect(line.length).toBe(0);
    expect(line.takeBatch(10)).toEqual([]);
    line.push(request(4));
    expect(line.takeBatch(10).map(({ seq }) => seq)).toEqual([4]);
  });

  it('keeps one live entry per message: a message put back twice is asked for once', () => {
    const line = new ReserveLine();
    const a = request(0);
    line.push(a);
    line.putBack([a]);
    line.putBack([a, request(1)]);
    expect(line.length).toBe(2);
    expect(line.takeBatch(10).map(({ seq }) => seq)).toEqual([0, 1]);
  });

  it('tells which messages of the call out were withdrawn meanwhile, once each', () => {
    const line = new ReserveLine();
    line.push(request(0));
    line.push(request(1));
    expect(line.takeBatch(10).length).toBe(2);
    line.withdraw(1);
    expect(line.withdrawnMeanwhile(0)).toBe(false);
    expect(line.withdrawnMeanwhile(1)).toBe(true);
    expect(line.withdrawnMeanwhile(1)).toBe(false);
    line.withdraw(0);
    line.callEnded();
    expect(line.withdrawnMeanwhile(0)).toBe(false);
  });
});
