import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import { throttlerMachine } from '../../src/index.js';
import { recordTimeline, renderTimeline, type TimelineEvent } from '../../src/timeline/index.js';
import { expectOptionError } from '../support/option-error.js';
import { byClass, descendants, parseSvg, type SvgElement } from '../support/svg-document.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

afterEach(restoreRealTime);

/** Each share strip of one tenant's lane, as [from, cost, total]. */
function sharesOf(root: SvgElement, channel: string): Array<[number, number, number]> {
  const lane = byClass(root, 'lane').find((each) => each.attributes['data-channel'] === channel);
  if (lane === undefined) throw new Error(`no lane for ${channel}`);
  return byClass(lane, 'share').map(({ attributes }) => [
    Number(attributes['data-from']),
    Number(attributes['data-cost']),
    Number(attributes['data-total']),
  ]);
}

describe('the timeline with shares: one lane per tenant', () => {
  it("shows each tenant's share of every window of the overall interval under weighted fairness", () => {
    useVirtualTime();
    const target = createActor(fromCallback(() => {})).start();
    const actor = createActor(throttlerMachine, {
      input: {
        rate: '8/1s',
        strategy: 'sliding-window',
        keys: { rate: '100/1s' },
        fairness: 'weighted',
        weight: (key) => (key === 'big' ? 3 : 1),
        target,
      },
    }).start();
    const recording = recordTimeline(actor, { rate: '8/1s', title: 'two tenants, weights 3 and 1' });
    for (let n = 0; n < 30; n++) {
      actor.send({ type: 'QUEUE', message: { type: 'call', n }, channel: 'big' });
      actor.send({ type: 'QUEUE', message: { type: 'call', n }, channel: 'small' });
    }
    advance(4500);
    recording.stop();
    actor.stop();
    const root = parseSvg(recording.svg({ shares: true }));
    // The first window fills as the messages arrive, in turn; from the second the limit binds: 6 and 2 of 8.
    // (The last window starts as the picture ends: no width, not drawn.)
    expect(sharesOf(root, 'big').slice(1)).toEqual([
      [1000, 6, 8],
      [2000, 6, 8],
      [3000, 6, 8],
    ]);
    expect(sharesOf(root, 'small').slice(1)).toEqual([
      [1000, 2, 8],
      [2000, 2, 8],
      [3000, 2, 8],
    ]);
    const labels = descendants(root)
      .filter((element) => element.name === 'text')
      .map((element) => element.text);
    expect(labels).toContain('75%');
    expect(labels).toContain('25%');
    expect(labels.join(' ')).toContain('share of each window');
  });

  it('draws no shares unless asked, and a bounded number however many windows', () => {
    const events: TimelineEvent[] = Array.from({ length: 20_000 }, (_, index) => ({
      type: 'delivered',
      at: index * 10,
      queuedAt: index * 10,
      cost: 1,
      channel: index % 2 === 0 ? 'a' : 'b',
    }));
    expect(byClass(parseSvg(renderTimeline({ events, rate: '1/10ms' })), 'share')).toEqual([]);
    const width = 600;
    const root = parseSvg(renderTimeline({ events, rate: '1/10ms' }, { width, shares: true }));
    // 20,000 windows of 10 ms, merged so that no strip is narrower than a few pixels.
    expect(sharesOf(root, 'a').length).toBeLessThanOrEqual(width / 6 + 1);
    expect(sharesOf(root, 'a').every(([, cost, total]) => cost * 2 === total)).toBe(true);
  });

  it('refuses a shares option that is not a boolean, naming it', () => {
    expectOptionError(() => renderTimeline({ events: [] }, { shares: 'yes' as never }), {
      message: 'shares must be true or false, got "yes"',
      option: 'shares',
      value: 'yes',
    });
  });
});
