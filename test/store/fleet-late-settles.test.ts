import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import type { StoreTraffic } from '../../src/engine/index.js';
import { seededRandom } from '../support/random.js';
import { memoryForFile, type StoreThrottler, stoppedAfterEach, storeThrottler } from '../support/store-throttler.js';

/**
 * Issue 36, the store: three throttlers on one memory store (as three processes on one Redis), in virtual
 * time, sharing { requests, tokens }; each call's tokens settled 0.4-0.8 s after it went, at 30-110% of the
 * estimate. Measured: the share of the binding (token) quota the actual tokens used over the steady part,
 * the store's round trips and the grants given back per task.
 */

const file = memoryForFile();
const running = stoppedAfterEach();

const INTERVAL = 6_000;
const TOKENS = 6_000;
const ESTIMATE = 200;

interface Fleet {
  readonly throttlers: StoreThrottler[];
  /** Actual tokens by the virtual time their call went. */
  readonly spent: Array<{ at: number; tokens: number }>;
  readonly tasks: number;
}

async function runFleet(settleFrom: number, settleTo: number, runMs: number, seed = 7): Promise<Fleet> {
  const clock = new SimulatedClock();
  const name = file.fresh('fleet-late-settles');
  const random = seededRandom(seed);
  const throttlers = [0, 1, 2].map(() =>
    storeThrottler(
      file.backend,
      name,
      { rate: { requests: `60/${INTERVAL}ms`, tokens: `${TOKENS}/${INTERVAL}ms` }, strategy: 'sliding-window' },
      {},
      clock,
    ),
  );
  running.push(...throttlers);
  const spent: Fleet['spent'] = [];
  /** Settles due, by virtual time. */
  const due: Array<{ at: number; run: () => void }> = [];
  for (const [index, t] of throttlers.entries()) {
    t.actor.on('delivered', (event) => {
      const id = `${index}-${(event.message as unknown as { n: number }).n}`;
      const tokens = Math.round(ESTIMATE * (0.3 + 0.8 * random()));
      spent.push({ at: event.at, tokens });
      const at = event.at + settleFrom + (settleTo - settleFrom) * random();
      due.push({ at, run: () => t.actor.send({ type: 'ACTUAL_COST', id, cost: { tokens } as never }) });
    });
    // A backlog well beyond the run: every throttler saturated all along.
    for (let n = 0; n < 400; n += 1) {
      t.actor.send({
        type: 'QUEUE',
        message: { type: 'job', n } as never,
        id: `${index}-${n}`,
        cost: { requests: 1, tokens: ESTIMATE } as never,
      });
    }
  }
  const quiet = () => throttlers[0]?.quiet() ?? Promise.resolve();
  while (clock.now() < runMs) {
    await quiet();
    due.sort((a, b) => a.at - b.at);
    while (due.length > 0 && (due[0]?.at ?? Number.POSITIVE_INFINITY) <= clock.now()) due.shift()?.run();
    await quiet();
    const wakes = throttlers.map((t) => t.actor.getSnapshot().context.wakeAt);
    const next = Math.min(...wakes, due[0]?.at ?? Number.POSITIVE_INFINITY, runMs);
    // At least a millisecond: a timer armed for a fraction of one rounds up (deliver.ts).
    clock.increment(Math.max(1, next - clock.now()));
  }
  return { throttlers, spent, tasks: spent.length };
}

/** The fleet's actual tokens per whole interval from `from` to `to`, as a share of the quota. */
function quotaUsed(fleet: Fleet, from: number, to: number): number {
  const tokens = fleet.spent.filter(({ at }) => at >= from && at < to).reduce((sum, { tokens }) => sum + tokens, 0);
  return tokens / ((TOKENS * (to - from)) / INTERVAL);
}

function traffic(fleet: Fleet): { roundTrips: number; returned: number } {
  let roundTrips = 0;
  let returned = 0;
  for (const t of fleet.throttlers) {
    // The store's counts, as the metrics read them (src/otel/throttler-view.ts).
    const context = t.actor.getSnapshot().context as unknown as {
      dispatcher: { clearance: { traffic?: StoreTraffic } };
    };
    const counts = context.dispatcher.clearance.traffic;
    roundTrips += counts?.roundTrips ?? 0;
    returned += counts?.grantsReturned ?? 0;
  }
  return { roundTrips: roundTrips / fleet.tasks, returned: returned / fleet.tasks };
}

describe('a fleet on one store settling late (issue 36)', () => {
  // Before (grants up to 4.5 s ahead on the estimates): 10-50 ms 97.9% used, 2.63 round trips and 3.14 grants
  // given back per task; 0.4-0.8 s 88.9%, 2.99 and 3.08. After (at most 375 ms ahead once a call settled below
  // its estimate): 97.9%, 2.42, 2.92; 97.1%, 2.97, 0.62. A settle is one of the round trips; a grant held
  // ahead is still given back at each saving (settle-room.ts), which a throttler alone needs.
  it.each([
    [10, 50, 3.5],
    [400, 800, 1],
  ])(
    'settles %i-%i ms after the start: the fleet uses at least 95% of the token quota',
    async (from, to, mostReturned) => {
      const fleet = await runFleet(from, to, 60_000);
      const used = quotaUsed(fleet, 12_000, 60_000);
      const { roundTrips, returned } = traffic(fleet);
      const refused = fleet.throttlers.flatMap((t) => t.emitted.filter((event) => event.type === 'invalidEvent'));
      expect(refused).toEqual([]);
      expect(used).toBeGreaterThanOrEqual(0.95);
      expect(used).toBeLessThanOrEqual(1);
      expect(roundTrips).toBeLessThan(3.2);
      expect(returned).toBeLessThan(mostReturned);
      // No window over the limit on the actual tokens, as the fleet's audit judges them.
      expect((await fleet.throttlers[0]?.store.audit())?.windowsOver).toBe(0);
    },
    120_000,
  );
});
