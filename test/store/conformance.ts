import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPolicy } from '../../src/policies/index.js';
import { ThrottlerOptionError } from '../../src/rate/index.js';
import { StoreConflictError } from '../../src/store/index.js';
import type { SharedLimiterConfig, StoreLimiter, StoreNotice } from '../../src/store/protocol.js';
import { type Arrival, type Delivery, expectedSchedule, overfullWindows, type RateConfig } from '../support/oracle.js';
import { seededRandom } from '../support/random.js';
import { driveArrivals, storeConfig, type VirtualLimiter } from '../support/redis-driver.js';
import { arrivalsArbitrary, rateConfigArbitrary, sendAsArbitrary } from '../support/scenarios.js';

/**
 * The conformance suite every backend of the shared store passes (docs/store-protocol.md): the memory
 * store in the quick tier (test/store/memory.conformance.test.ts), Redis in the slow tier
 * (test/redis/redis.conformance.test.ts). Properties in virtual time against brute force (no window
 * over, grants in arrival order at the earliest time allowed, releases, settles, token bucket, keys and
 * channels, per-line reserve, re-times), and each refusal by name.
 */
export interface StoreBackend {
  /** Opens a fresh limiter (a name of its own) on a virtual clock starting at `startAt` ms; no grace unless asked. */
  virtual(config: SharedLimiterConfig, startAt?: number): VirtualLimiter;
  /** Runs per property (the memory store is cheap; Redis pays a round trip per call). */
  readonly runs: number;
}

const grants = (limiter: VirtualLimiter) => limiter.limiter as unknown as StoreLimiter;
const aheadArbitrary = fc.constantFrom(0, 1, 250, 1_000_000);
const scenario = fc
  .tuple(rateConfigArbitrary, sendAsArbitrary, aheadArbitrary)
  .chain(([config, sendAs, ahead]) =>
    arrivalsArbitrary(config).map((arrivals) => ({ config, sendAs, ahead, arrivals })),
  );

/** Reserves each arrival at its time (retrying on later), calling `after` on every grant; the grants kept. */
async function reserveEach(
  virtual: VirtualLimiter,
  arrivals: readonly Arrival[],
  after: (grant: Delivery & { reservation: string; askedAt: number }) => Promise<Delivery | undefined>,
): Promise<Delivery[]> {
  const kept: Delivery[] = [];
  for (const arrival of arrivals) {
    let at = Math.max(arrival.at, virtual.now());
    for (;;) {
      virtual.setTime(at);
      const [outcome] = await virtual.limiter.reserve([{ cost: arrival.cost, channel: arrival.channel }]);
      if (outcome?.kind === 'later') {
        at += outcome.retryAfterMs;
        continue;
      }
      if (outcome?.kind !== 'granted') throw new Error(JSON.stringify(outcome));
      const grant = {
        at: outcome.redisTime,
        cost: arrival.cost,
        channel: arrival.channel,
        reservation: outcome.reservation,
        askedAt: at,
      };
      const delivered = await after(grant);
      if (delivered) kept.push(delivered);
      break;
    }
  }
  return kept;
}

export function describeConformance(label: string, backend: StoreBackend): void {
  const numRuns = backend.runs;

  describe(`${label}: the sliding window against the brute-force oracle`, () => {
    it('never holds more than the limit in any window, grants in arrival order at the earliest time allowed, never past the reserve-ahead bound', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async ({ config, sendAs, ahead, arrivals }) => {
          const virtual = backend.virtual(storeConfig(config, 'sliding-window', { maxReserveAheadMs: ahead }));
          const granted = await driveArrivals(virtual, arrivals, sendAs);
          await virtual.store.close();
          expect(overfullWindows(config, granted)).toEqual([]);
          const expected = expectedSchedule(config, arrivals, 'fifo');
          expect(granted.map(({ id, at }) => [id, at])).toEqual(expected.map(({ id, at }) => [id, at]));
          for (const grant of granted) expect(grant.at - grant.askedAt).toBeLessThanOrEqual(ahead);
        }),
        { numRuns },
      );
    });

    it('reserveNear: no grant past its own bound, a later told the wait to that bound, the windows kept', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, fc.constantFrom(0, 1, 250), async ({ config, arrivals }, near) => {
          const virtual = backend.virtual(storeConfig(config, 'sliding-window', { maxReserveAheadMs: 1_000_000 }));
          const kept: Delivery[] = [];
          for (const arrival of arrivals) {
            let at = Math.max(arrival.at, virtual.now());
            let toldLater = false;
            for (;;) {
              virtual.setTime(at);
              const request = { cost: arrival.cost, channel: arrival.channel };
              const [outcome] = await grants(virtual).reserveNear([request], near);
              if (outcome?.kind === 'later') {
                // Told the wait to its own bound: asked again then, it is granted (nothing else changed).
                expect(toldLater).toBe(false);
                expect(outcome.reason).toBe('reserve-ahead');
                toldLater = true;
                at += outcome.retryAfterMs;
                continue;
              }
              if (outcome?.kind !== 'granted') throw new Error(JSON.stringify(outcome));
              expect(outcome.redisTime - at).toBeLessThanOrEqual(near);
              kept.push({ at: outcome.redisTime, cost: arrival.cost, channel: arrival.channel });
              break;
            }
          }
          await virtual.store.close();
          expect(overfullWindows(config, kept)).toEqual([]);
        }),
        { numRuns },
      );
    });

    it('stays safe when unused grants are given back at random', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, fc.integer(), async ({ config, ahead, arrivals }, seed) => {
          const virtual = backend.virtual(storeConfig(config, 'sliding-window', { maxReserveAheadMs: ahead }));
          const random = seededRandom(seed);
          const kept = await reserveEach(virtual, arrivals, async (grant) => {
            if (grant.at > grant.askedAt && random() < 0.35) {
              await virtual.limiter.release([grant.reservation]);
              return undefined;
            }
            return grant;
          });
          await virtual.store.close();
          expect(overfullWindows(config, kept)).toEqual([]);
        }),
        { numRuns },
      );
    });

    it('counts a settled grant at its actual cost: no window over on the actual costs, and a saving is free at once', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, fc.integer(), async ({ config, arrivals }, seed) => {
          const virtual = backend.virtual(storeConfig(config, 'sliding-window', { maxReserveAheadMs: 1_000_000 }));
          const random = seededRandom(seed);
          const kept = await reserveEach(virtual, arrivals, async (grant) => {
            const actual = Math.floor(random() * (grant.cost + 1));
            await grants(virtual).settle(grant.reservation, actual);
            return actual > 0 ? { ...grant, cost: actual } : undefined;
          });
          await virtual.store.close();
          expect(overfullWindows(config, kept)).toEqual([]);
        }),
        { numRuns },
      );
      const virtual = backend.virtual({ strategy: 'sliding-window', rates: '2/1s' });
      const [first] = await virtual.limiter.reserve([{ cost: 2 }]);
      if (first?.kind !== 'granted') throw new Error(JSON.stringify(first));
      expect((await virtual.limiter.reserve([{ cost: 1 }]))[0]).toMatchObject({
        kind: 'later',
        reason: 'reserve-ahead',
      });
      await grants(virtual).settle(first.reservation, 1);
      expect((await virtual.limiter.reserve([{ cost: 1 }]))[0]).toMatchObject({ kind: 'granted', waitMs: 0 });
      await virtual.store.close();
    });

    it('keeps every key within its template and the overall rate, and a key of its own rates within those', async () => {
      const keyed = fc.record({
        overall: fc.integer({ min: 2, max: 8 }),
        template: fc.integer({ min: 1, max: 3 }),
        own: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
        requests: fc.array(
          fc.record({ key: fc.constantFrom('a', 'b', '__proto__'), gap: fc.constantFrom(0, 0, 50, 400) }),
          {
            minLength: 1,
            maxLength: 30,
          },
        ),
      });
      await fc.assert(
        fc.asyncProperty(keyed, async ({ overall, template, own, requests }) => {
          const virtual = backend.virtual({
            strategy: 'sliding-window',
            rates: `${overall}/1s`,
            keys: `${template}/500ms`,
          });
          if (own !== undefined) await virtual.limiter.setRate(`${own}/300ms`, 'b');
          let at = 0;
          const arrivals = requests.map(({ key, gap }, id) => ({ id, at: (at += gap), cost: 1, channel: key }));
          const kept = await reserveEach(virtual, arrivals, async (grant) => grant);
          await virtual.store.close();
          const config: RateConfig = {
            overall: [{ limit: overall, interval: 1000 }],
            channels: {
              a: [{ limit: template, interval: 500 }],
              b: [own === undefined ? { limit: template, interval: 500 } : { limit: own, interval: 300 }],
              ['__proto__']: [{ limit: template, interval: 500 }],
            },
          };
          expect(overfullWindows(config, kept)).toEqual([]);
        }),
        { numRuns },
      );
    });

    it('per line: no window over, and a line its own channel holds back is told when without holding the others', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async ({ config, arrivals }) => {
          const virtual = backend.virtual(storeConfig(config, 'sliding-window', { maxReserveAheadMs: 1_000_000 }));
          const kept: Delivery[] = [];
          for (const arrival of arrivals) {
            let at = Math.max(arrival.at, virtual.now());
            for (;;) {
              virtual.setTime(at);
              const [outcome] = await (grants(virtual).reserveLines?.([
                { cost: arrival.cost, channel: arrival.channel },
              ]) ?? []);
              if (outcome?.kind === 'later' || outcome?.kind === 'line-later') {
                at += outcome.retryAfterMs;
                continue;
              }
              if (outcome?.kind !== 'granted') throw new Error(JSON.stringify(outcome));
              kept.push({ at: outcome.redisTime, cost: arrival.cost, channel: arrival.channel });
              break;
            }
          }
          await virtual.store.close();
          expect(overfullWindows(config, kept)).toEqual([]);
        }),
        { numRuns },
      );
      const virtual = backend.virtual({
        strategy: 'sliding-window',
        rates: '10/1s',
        channels: { slow: '1/1s', fast: '5/1s' },
      });
      const outcomes = await grants(virtual).reserveLines?.([
        { channel: 'slow', cost: 1 },
        { channel: 'slow', cost: 1 },
        { channel: 'fast', cost: 1 },
      ]);
      expect(outcomes?.map((outcome) => outcome.kind)).toEqual(['granted', 'line-later', 'granted']);
      expect(outcomes?.[1]).toMatchObject({ retryAfterMs: 1000 });
      await virtual.store.close();
    });

    it('moves a late grant to now when it still fits every window, else gives it back; the windows hold either way', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, fc.integer({ min: 0, max: 3000 }), async ({ config, arrivals }, late) => {
          const virtual = backend.virtual(storeConfig(config, 'sliding-window', { maxReserveAheadMs: 1_000_000 }));
          const held = await reserveEach(virtual, arrivals, async (grant) => grant);
          const last = Math.max(virtual.now(), ...held.map((grant) => grant.at));
          virtual.setTime(last + late);
          const reservations = held.map((grant) => (grant as Delivery & { reservation: string }).reservation);
          const moved = await grants(virtual).retime(reservations, 0);
          await virtual.store.close();
          const kept = held.flatMap((grant, index) => {
            const outcome = moved[index];
            if (outcome?.kind !== 'granted') return [];
            return [{ ...grant, at: outcome.redisTime }];
          });
          for (const grant of kept) expect(grant.at).toBeGreaterThanOrEqual(Math.min(...held.map((one) => one.at)));
          expect(overfullWindows(config, kept)).toEqual([]);
        }),
        { numRuns },
      );
    });
  });

  describe(`${label}: the token bucket against the local Guava arithmetic`, () => {
    const bucketScenario = fc
      .tuple(rateConfigArbitrary, sendAsArbitrary, fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }))
      .chain(([config, sendAs, maxBurst]) =>
        arrivalsArbitrary(config).map((arrivals) => ({ config, sendAs, maxBurst, arrivals })),
      );

    it('grants each request when the local TokenBucketPolicy (one per rate, overall and channel) would, in arrival order', async () => {
      await fc.assert(
        fc.asyncProperty(bucketScenario, async ({ config, sendAs, maxBurst, arrivals }) => {
          const start = (arrivals[0] as Arrival).at;
          const virtual = backend.virtual(
            storeConfig(config, 'token-bucket', { maxBurst, maxReserveAheadMs: 1e9 }),
            start,
          );
          const granted = await driveArrivals(virtual, arrivals, sendAs);
          await virtual.store.close();
          const overall = createPolicy('token-bucket', config.overall, { maxBurst }, start);
          const channels = new Map(
            Object.entries(config.channels).map(([channel, rates]) => [
              channel,
              createPolicy('token-bucket', rates, { maxBurst }, start),
            ]),
          );
          let last = Number.NEGATIVE_INFINITY;
          expect(granted.map((grant) => grant.id)).toEqual(arrivals.map((arrival) => arrival.id));
          for (const grant of granted) {
            const parts = [overall, ...(grant.channel === undefined ? [] : [channels.get(grant.channel)!])];
            let at = Math.max(grant.askedAt, last);
            for (const part of parts) at = Math.max(at, part.earliestDelivery(at, grant.cost));
            for (const part of parts) part.recordDelivery(at, grant.cost);
            last = at;
            // The store keeps microseconds and rounds waits up to the next one.
            expect(grant.at).toBeGreaterThanOrEqual(at - 1e-9);
            expect(grant.at - at).toBeLessThan(0.002);
          }
        }),
        { numRuns },
      );
    });
  });

  describe(`${label}: control and notices`, () => {
    it('pauses every handle (later, paused), tells it, and resumes', async () => {
      const virtual = backend.virtual({ strategy: 'sliding-window', rates: '5/1s', maxReserveAheadMs: 0 });
      const heard = noticesHeard(virtual, 2);
      await virtual.limiter.pause(300);
      expect((await virtual.limiter.reserve([{ cost: 1 }]))[0]).toMatchObject({
        kind: 'later',
        reason: 'paused',
        retryAfterMs: 300,
      });
      await virtual.limiter.resume();
      expect((await virtual.limiter.reserve([{ cost: 1 }]))[0]).toMatchObject({ kind: 'granted', waitMs: 0 });
      expect(await heard).toEqual([{ type: 'paused', forMs: 300 }, { type: 'resumed' }]);
      await virtual.store.close();
    });

    it('sets the rates for every handle, tells them, and decides by the new ones', async () => {
      const virtual = backend.virtual({ strategy: 'sliding-window', rates: '5/1s', channels: { a: '3/1s' } });
      const heard = noticesHeard(virtual, 1);
      await virtual.limiter.setRate('1/1s');
      expect((await heard)[0]).toMatchObject({ type: 'rates', rates: [{ limit: 1, interval: 1000 }] });
      expect(virtual.limiter.rates).toEqual([{ limit: 1, interval: 1000 }]);
      const outcomes = await virtual.limiter.reserve([{ cost: 1 }, { cost: 1 }]);
      expect(outcomes.map((outcome) => outcome.kind)).toEqual(['granted', 'later']);
      await virtual.store.close();
    });
  });

  describe(`${label}: refusals, each by name`, () => {
    it('refuses a request that can never be granted, and a malformed call, naming the option and the value', async () => {
      const virtual = backend.virtual({ strategy: 'sliding-window', rates: '3/1s', channels: { a: '2/1s' } });
      const outcomes = await virtual.limiter.reserve([
        { cost: 4 },
        { cost: 3, channel: 'a' },
        { cost: 1, channel: 'nope' },
        { cost: 0 },
        { cost: 1.5 },
        { cost: 1 },
      ]);
      const refusal = (index: number) => {
        const outcome = outcomes[index];
        return outcome?.kind === 'refused' ? [outcome.error.option, outcome.error.value] : outcome?.kind;
      };
      expect([0, 1, 2, 3, 4].map(refusal)).toEqual([
        ['cost', 4],
        ['cost', 3],
        ['channel', 'nope'],
        ['cost', 0],
        ['cost', 1.5],
      ]);
      expect(outcomes[5]?.kind).toBe('granted');
      await expect(virtual.limiter.reserve('x' as never)).rejects.toMatchObject({ option: 'requests' });
      await expect(virtual.limiter.release(['garbage'])).rejects.toMatchObject({ option: 'reservation' });
      await expect(virtual.limiter.pause(0)).rejects.toMatchObject({ option: 'pause' });
      await expect(virtual.limiter.setRate('1/1s', 'nope')).rejects.toMatchObject({ option: 'channel' });
      const before = virtual.limiter.roundTrips;
      expect(await virtual.limiter.reserve([])).toEqual([]);
      expect(virtual.limiter.roundTrips).toBe(before);
      await virtual.store.close();
    });

    it('refuses a second configuration under one name with a StoreConflictError naming the option', async () => {
      const virtual = backend.virtual({ strategy: 'sliding-window', rates: '3/1s' });
      await virtual.limiter.check();
      const other = virtual.store.open({ strategy: 'sliding-window', rates: '4/1s', grantGraceMs: 0 });
      const error = await other.reserve([{ cost: 1 }]).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreConflictError);
      expect(error).toBeInstanceOf(ThrottlerOptionError);
      expect(error).toMatchObject({ option: 'rate', value: '4/1s', stored: '3/1s' });
      await virtual.store.close();
    });
  });
}

/** The first `count` notices a listener hears (told asynchronously: pub/sub for Redis, a microtask for memory). */
function noticesHeard(virtual: VirtualLimiter, count: number): Promise<StoreNotice[]> {
  return new Promise((resolve) => {
    const heard: StoreNotice[] = [];
    const stop = virtual.limiter.subscribe((notice) => {
      heard.push(notice);
      if (heard.length === count) {
        stop();
        resolve(heard);
      }
    });
  });
}
