import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { createThrottler, restoreThrottler, throttlerMachine } from '../../src/index.js';
import {
  createThrottler as createLeanThrottler,
  throttlerMachine as leanThrottlerMachine,
  restoreThrottler as restoreLeanThrottler,
} from '../../src/lean/index.js';
import { CHART_TEXTS } from '../../src/machine/chart-descriptions.js';
import { slidingWindow } from '../../src/strategies/index.js';

/** Every description on a machine, by state and event (the transitions' in order), as the visualizer reads them. */
function descriptionsOf(machine: { root: unknown }) {
  const root = machine.root as {
    description?: string;
    states: Record<string, { description?: string; on: Record<string, { description?: string }[]> }>;
  };
  const states = Object.fromEntries(
    Object.entries(root.states).map(([name, state]) => [
      name,
      {
        description: state.description,
        on: Object.fromEntries(Object.entries(state.on).map(([event, ts]) => [event, ts.map((t) => t.description)])),
      },
    ]),
  );
  return { description: root.description, states };
}

const REFUSAL = "The machine's own event type, sent from outside: reported as invalidEvent.";

/**
 * The chart's descriptions (machine/chart-descriptions.ts) are on the main entry's machines, where the Stately
 * visualizer and inspector show them, and on none of xstate-throttler/lean's (docs/size.md): the same chart else.
 */
describe('the chart descriptions', () => {
  it('the main entry: every state and transition described, as the texts say, the refusal first where it is', () => {
    const chart = descriptionsOf(throttlerMachine);
    expect(chart.description).toBe(CHART_TEXTS.description);
    for (const [name, state] of Object.entries(chart.states)) {
      const texts = CHART_TEXTS.states[name];
      expect(state.description).toBe(texts?.description);
      for (const [event, descriptions] of Object.entries(state.on)) {
        const own = texts?.on[event];
        const expected = typeof own === 'string' ? [own] : own;
        expect(
          descriptions.filter((text) => text !== REFUSAL),
          `${name}.${event}`,
        ).toEqual(expected);
        expect(descriptions.every((text) => typeof text === 'string')).toBe(true);
      }
    }
    expect(chart.states.idle?.on.QUEUE?.[2]).toBe(
      'Queue a message; with a target the throttler becomes active to send it.',
    );
    expect(chart.states.active?.on.DRAINED).toEqual([
      REFUSAL,
      'Raised here when nothing waits, or the target is gone.',
      'Messages still wait for the target: stay active.',
    ]);
  });

  it("the main entry's createThrottler and restoreThrottler run the described chart", () => {
    const throttler = createThrottler({ rate: '2/1s' });
    expect(descriptionsOf(throttler.actor.logic)).toEqual(descriptionsOf(throttlerMachine));
    const restored = restoreThrottler(throttler.actor.getPersistedSnapshot());
    expect(descriptionsOf(restored.logic)).toEqual(descriptionsOf(throttlerMachine));
    restored.stop();
    throttler.stop();
  });

  it("xstate-throttler/lean's machines carry none, and the same transitions", () => {
    const lean = descriptionsOf(leanThrottlerMachine);
    expect(lean.description).toBeUndefined();
    for (const state of Object.values(lean.states)) {
      expect(state.description).toBeUndefined();
      for (const descriptions of Object.values(state.on)) {
        expect(descriptions.filter((text) => text !== REFUSAL).every((text) => text === undefined)).toBe(true);
      }
    }
    const shape = (chart: ReturnType<typeof descriptionsOf>) =>
      Object.fromEntries(
        Object.entries(chart.states).map(([name, { on }]) => [
          name,
          Object.entries(on).map(([e, ts]) => [e, ts.length]),
        ]),
      );
    expect(shape(lean)).toEqual(shape(descriptionsOf(throttlerMachine)));
    const throttler = createLeanThrottler({ rate: '2/1s', strategy: slidingWindow });
    expect(descriptionsOf(throttler.actor.logic).description).toBeUndefined();
    const restored = restoreLeanThrottler(throttler.actor.getPersistedSnapshot(), { strategy: slidingWindow });
    expect(descriptionsOf(restored.logic).description).toBeUndefined();
    restored.stop();
    throttler.stop();
    // The lean chart still runs: a message goes through.
    const actor = createActor(leanThrottlerMachine, { input: { rate: '2/1s', strategy: slidingWindow } }).start();
    actor.send({ type: 'QUEUE', message: { type: 'm' } });
    expect(actor.getSnapshot().context.counts.queued).toBe(1);
    actor.stop();
  });
});
