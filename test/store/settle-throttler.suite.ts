import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { auditThrottler } from '../../src/index.js';
import { seededDraw } from '../support/random.js';
import { type StoreFile, type StoreThrottler, stoppedAfterEach, storeThrottler } from '../support/store-throttler.js';

/** ACTUAL_COST through a throttler on the store, in virtual time: one store call per settle (every backend). */

export function describeSettleThrottler(label: string, file: StoreFile): void {
  const running = stoppedAfterEach();

  /** 'a', estimated at 8 of the 10 a second, goes at once; 'b', at 8 too, does not fit beside it and waits (Redis has answered). */
  async function twoEstimatesOfEight(t: StoreThrottler): Promise<void> {
    t.actor.send({ type: 'QUEUE', message: { type: 'job', n: 0 } as never, id: 'a', cost: 8 });
    await t.runUntil(1);
    t.actor.send({ type: 'QUEUE', message: { type: 'job', n: 1 } as never, id: 'b', cost: 8 });
    await t.quiet();
  }

  describe(`ACTUAL_COST with ${label}`, () => {
    it('a saving is free for the next message once Redis has it; an unknown id is refused', async () => {
      const t = storeThrottler(file.backend, file.fresh('settle-throttler'), {
        rate: '10/1s',
        strategy: 'sliding-window',
      });
      running.push(t);
      await twoEstimatesOfEight(t);
      t.actor.send({ type: 'ACTUAL_COST', id: 'a', cost: 2 });
      t.actor.send({ type: 'ACTUAL_COST', id: 'nope', cost: 2 });
      await t.quiet();
      // The second waited for its turn: granted at the next reservation once the saving is in Redis, not a window later.
      const at = await t.runUntil(2);
      expect(t.deliveries).toHaveLength(2);
      expect(at).toBeLessThan(1_000);
      expect(t.emitted.filter((event) => event.type === 'invalidEvent')).toHaveLength(1);
      expect(auditThrottler(t.actor).windowsOver).toBe(0);
      const fleet = await t.store.audit();
      expect(fleet.windowsOver).toBe(0);
    });

    it('a message told to wait for room is asked for again as soon as a settle frees it, not when the wait told on the estimate ends', async () => {
      const t = storeThrottler(
        file.backend,
        file.fresh('settle-wakes'),
        { rate: '10/1s', strategy: 'sliding-window' },
        { maxReserveAheadMs: 0 },
      );
      running.push(t);
      await twoEstimatesOfEight(t);
      // Told to ask again in a second (the window holds 8 of 10); 300 ms later, the first costs 2 after all.
      t.clock.increment(300);
      t.actor.send({ type: 'ACTUAL_COST', id: 'a', cost: 2 });
      await t.quiet();
      expect(t.deliveries.map((delivery) => delivery.at)).toEqual([0, 300]);
      expect(t.emitted.filter((event) => event.type === 'invalidEvent')).toEqual([]);
      // An overrun frees nothing: the third waits for the window that holds both.
      t.actor.send({ type: 'QUEUE', message: { type: 'job', n: 2 } as never, id: 'c', cost: 2 });
      await t.quiet();
      t.actor.send({ type: 'ACTUAL_COST', id: 'b', cost: 8 });
      expect(await t.runUntil(3)).toBeGreaterThanOrEqual(1_000);
      expect(auditThrottler(t.actor).windowsOver).toBe(0);
      expect((await t.store.audit()).windowsOver).toBe(0);
    });

    it('a grant reserved ahead on the estimates is given back and asked for again when a settle frees room before it', async () => {
      const t = storeThrottler(file.backend, file.fresh('settle-ahead'), { rate: '10/1s', strategy: 'sliding-window' });
      running.push(t);
      await twoEstimatesOfEight(t);
      // At 250 ms (a second less the 750 ms reserve-ahead bound) the second is granted for 1 s, and held.
      t.clock.increment(300);
      await t.quiet();
      expect(t.deliveries).toHaveLength(1);
      t.actor.send({ type: 'ACTUAL_COST', id: 'a', cost: 2 });
      await t.quiet();
      expect(t.deliveries.map((delivery) => delivery.at)).toEqual([0, 300]);
      expect(t.emitted.filter((event) => event.type === 'invalidEvent' || event.type === 'storeGrantsRewound')).toEqual(
        [],
      );
      expect(auditThrottler(t.actor).windowsOver).toBe(0);
      expect((await t.store.audit()).windowsOver).toBe(0);
    });

    it("['10/1s', '100/1m']: an overrun settled 2.5 s late is judged in the 1 s window it was in, by the local audit and the fleet's", async () => {
      const t = storeThrottler(file.backend, file.fresh('settle-late-audit'), {
        rate: ['10/1s', '100/1m'],
        strategy: 'sliding-window',
      });
      running.push(t);
      const queue = (n: number) =>
        t.actor.send({ type: 'QUEUE', message: { type: 'job', n } as never, id: n, cost: 1 });
      // Ten in [0, 1000), 100 ms apart; one at 2000, when every 1 s window of the ten has closed.
      for (let n = 0; n < 10; n += 1) {
        queue(n);
        await t.runUntil(n + 1);
        await t.quiet();
        t.clock.increment(100);
      }
      t.clock.increment(2_000 - t.clock.now());
      queue(10);
      await t.runUntil(11);
      t.clock.increment(500);
      t.actor.send({ type: 'ACTUAL_COST', id: 0, cost: 2 });
      await t.quiet();
      expect(t.emitted.filter((event) => event.type === 'invalidEvent')).toEqual([]);
      const times = t.deliveries.map((delivery) => delivery.at);
      expect(times.slice(0, 10).every((at) => at < 1_000)).toBe(true);
      // The window closed by the tenth holds 11 (the first now costs 2): over the 10 a second, once.
      const second = auditThrottler(t.actor).rates.find((line) => line.rate === '10/1s');
      expect({ most: second?.most, windowsOver: second?.windowsOver }).toEqual({ most: 11, windowsOver: 1 });
      // The fleet's counts a grant once it is a longest interval (+ grace) old: the settle is in Redis' log.
      // Read once a second (the shortest interval), so that it is exact: gaps 0.
      for (let second = 0; second < 62; second += 1) {
        await t.store.audit();
        t.clock.increment(1_000);
      }
      const fleet = await t.store.audit();
      const fleetSecond = fleet.rates.find((line) => line.scope === 'overall' && line.rate === '10/1s');
      expect({ most: fleetSecond?.most, windowsOver: fleetSecond?.windowsOver, gaps: fleet.gaps }).toEqual({
        most: 11,
        windowsOver: 1,
        gaps: 0,
      });
    });

    it('two throttlers of a fleet, settling 0 to 50 ms after each delivery: no window over the limit on actual costs', async () => {
      const clock = new SimulatedClock();
      const name = file.fresh('settle-fleet');
      const fleet = [0, 1].map(() =>
        storeThrottler(file.backend, name, { rate: '100/1s', strategy: 'sliding-window' }, {}, clock),
      );
      running.push(...fleet);
      const draw = seededDraw(7);
      const actual = new Map<number, number>();
      const due: Array<{ at: number; n: number; t: StoreThrottler }> = [];
      for (const [index, t] of fleet.entries()) {
        t.actor.on('delivered', (event) => due.push({ at: event.at + draw(51), n: event.message.n as number, t }));
        const messages = Array.from({ length: 300 }, (_, i) => {
          const n = index * 1_000 + i;
          actual.set(n, 1 + draw(5));
          return { message: { type: 'job', n }, id: n, cost: 2 * (actual.get(n) as number) };
        });
        t.actor.send({ type: 'QUEUE_BATCH', messages } as never);
      }
      const quiet = () => Promise.all(fleet.map((t) => t.quiet()));
      while (clock.now() < 5_000) {
        await quiet();
        due.sort((a, b) => a.at - b.at);
        while (due.length > 0 && (due[0] as { at: number }).at <= clock.now()) {
          const { n, t } = due.shift() as { n: number; t: StoreThrottler };
          t.actor.send({ type: 'ACTUAL_COST', id: n, cost: actual.get(n) as number });
        }
        await quiet();
        const wakes = fleet.map((t) => t.actor.getSnapshot().context.wakeAt);
        const next = Math.min(...wakes, due[0]?.at ?? Number.POSITIVE_INFINITY);
        if (!Number.isFinite(next)) break;
        clock.increment(Math.max(0, next - clock.now()));
      }
      const sent = fleet.flatMap((t) => t.deliveries).sort((a, b) => a.at - b.at);
      expect(sent.length).toBeGreaterThan(100);
      for (const delivery of sent) {
        let held = 0;
        for (const other of sent)
          if (other.at > delivery.at - 1_000 && other.at <= delivery.at) held += actual.get(other.n) as number;
        expect(held).toBeLessThanOrEqual(100);
      }
      for (const t of fleet) expect(t.emitted.filter((event) => event.type === 'invalidEvent')).toEqual([]);
      expect((await fleet[0]?.store.audit())?.windowsOver).toBe(0);
    });
  });
}
