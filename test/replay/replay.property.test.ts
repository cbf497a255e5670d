import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import { throttlerMachine } from '../../src/index.js';
import {
  type RecordedArrival,
  type ReplayConfiguration,
  readRecording,
  recordActor,
  replay,
} from '../../src/replay/index.js';
import { runs } from '../support/property-runs.js';
import { advance, now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/**
 * A machine run in virtual time, recorded (recordActor), then replayed through the same configuration,
 * delivers every arrival at exactly its recorded time and drops or refuses the same ones: the replay's
 * virtual clock fires timers as fake timers do, on time, timers before arrivals at one instant.
 */

const configuration = fc.record({
  rate: fc
    .tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 10, max: 100 }))
    .map(([limit, ms]) => `${limit}/${ms}ms`),
  strategy: fc.constantFrom('sliding-window', 'token-bucket', 'timer'),
  keys: fc.option(
    fc.integer({ min: 1, max: 3 }).map((limit) => ({ rate: `${limit}/50ms` })),
    { nil: undefined },
  ),
  capacity: fc.option(fc.integer({ min: 3, max: 20 }), { nil: undefined }),
  overflow: fc.constantFrom('reject', 'drop-oldest', 'drop-newest'),
});

const arrival = fc.record({
  gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40 })),
  channel: fc.constantFrom('a', 'b', 'c'),
  priority: fc.integer({ min: 0, max: 9 }),
  maxWait: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
  cost: fc.integer({ min: 1, max: 2 }),
});

interface Arrival {
  gap: number;
  channel: string;
  priority: number;
  maxWait: number | undefined;
  cost: number;
}

function recordRun(options: ReplayConfiguration, arrivals: readonly Arrival[]) {
  let text = '';
  const target = createActor(fromCallback(() => undefined)).start();
  const throttler = createActor(throttlerMachine, { input: { ...options, target } });
  const recording = recordActor(throttler, { to: (line) => (text += line), configuration: options });
  throttler.start();
  for (const { gap, channel, priority, maxWait, cost } of arrivals) {
    advance(gap);
    const key = options.keys === undefined ? undefined : channel;
    throttler.send({ type: 'QUEUE', message: { type: 'job' }, channel: key, priority, maxWait, cost });
  }
  advance(60_000);
  recording.close();
  throttler.stop();
  return text;
}

describe('a replay through the recorded configuration (property)', () => {
  afterEach(restoreRealTime);

  it('reproduces every recorded delivery time exactly, and every drop and refusal', async () => {
    await fc.assert(
      fc.asyncProperty(configuration, fc.array(arrival, { minLength: 1, maxLength: 60 }), async (options, arrivals) => {
        useVirtualTime();
        expect(now()).toBe(0);
        const text = recordRun(options, arrivals);
        restoreRealTime();
        const recorded: RecordedArrival[] = [];
        for await (const item of readRecording(text)) if (item.kind === 'arrival') recorded.push(item.arrival);
        expect(recorded).toHaveLength(arrivals.length);
        const fates: (string | number | undefined)[] = new Array(arrivals.length);
        await replay(text, undefined, {
          onDecision: (decision) => (fates[decision.arrival] = decision.sent ?? decision.dropped ?? decision.rejected),
        });
        expect(fates).toEqual(recorded.map((each) => each.sent ?? each.dropped ?? each.rejected));
      }),
      { numRuns: runs(60) },
    );
  });
});
