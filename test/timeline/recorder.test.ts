import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { type StrategyName, throttlerMachine } from '../../src/index.js';
import { busiestWindows, recordTimeline } from '../../src/timeline/index.js';
import { createRecorder, msg } from '../support/recorder.js';
import { byClass, parseSvg } from '../support/svg-document.js';
import { advance, now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** The demo's load (`npm start`) through a 3/1s throttler: 1 job at 0 ms, 5 at 990 ms, 3 at 2500 ms. */
function runDemo(strategy: StrategyName) {
  // Each run from virtual time 0.
  restoreRealTime();
  useVirtualTime();
  const target = createRecorder();
  const throttler = createActor(throttlerMachine, { input: { rate: '3/1s', strategy, target: target.ref } });
  const recording = recordTimeline(throttler, { rate: '3/1s', title: strategy });
  throttler.start();
  let n = 0;
  const queue = (count: number) => {
    for (let i = 0; i < count; i++) throttler.send({ type: 'QUEUE', message: msg(++n) });
  };
  queue(1);
  advance(990);
  queue(5);
  advance(1510);
  queue(3);
  advance(5000);
  recording.stop();
  throttler.stop();
  return { recording, target };
}

describe('recordTimeline', () => {
  it('records each delivery as emitted, with the state changes around them', () => {
    const { recording, target } = runDemo('sliding-window');
    const delivered = recording.events.filter((event) => event.type === 'delivered');
    expect(delivered.map((event) => event.at)).toEqual(target.times());
    expect(delivered.map((event) => event.message)).toEqual(target.messages());
    expect(recording.events.filter((event) => event.type !== 'delivered').map((event) => event.type)).toEqual([
      'activated',
      'idled',
      'activated',
      'idled',
    ]);
  });

  it('shows the strict window at its limit and the timer past it, on the same load', () => {
    const timer = runDemo('timer').recording;
    const strict = runDemo('sliding-window').recording;
    expect(busiestWindows({ events: timer.events, rate: '3/1s' })[0]).toMatchObject({ count: 5, start: 990 });
    expect(busiestWindows({ events: strict.events, rate: '3/1s' })[0]).toMatchObject({ count: 3, start: 0 });
    const drawn = (svg: string) => byClass(parseSvg(svg), 'busiest-window')[0]?.attributes['data-count'];
    expect(drawn(timer.svg())).toBe('5');
    expect(drawn(strict.svg())).toBe('3');
    expect(timer.svg()).toContain('5 of 3 (over the limit)');
    expect(strict.svg({ rate: '2/1s' })).toContain('3 of 2 (over the limit)');
  });

  it('stamps drops with the throttler clock, since the dropped event carries no time', () => {
    const throttler = createActor(throttlerMachine, {
      input: { rate: '1/1s', strategy: 'sliding-window', capacity: 1, overflow: 'drop-oldest' },
    }).start();
    const recording = recordTimeline(throttler);
    advance(250);
    throttler.send({ type: 'QUEUE', message: msg(1) });
    throttler.send({ type: 'QUEUE', message: msg(2) });
    expect(recording.events).toEqual([
      { type: 'dropped', message: msg(1), reason: 'drop-oldest', error: expect.any(Error), at: 250 },
    ]);
    throttler.stop();
  });

  it('starts with an activated event when the throttler is already active, and stops listening on stop()', () => {
    const target = createRecorder();
    const throttler = createActor(throttlerMachine, { input: { rate: '1/1s', target: target.ref } }).start();
    for (let n = 1; n <= 3; n++) throttler.send({ type: 'QUEUE', message: msg(n) });
    advance(100);
    const recording = recordTimeline(throttler);
    expect(recording.events).toEqual([{ type: 'activated', at: now() }]);
    advance(1000);
    expect(recording.events.map((event) => event.type)).toEqual(['activated', 'delivered']);
    recording.stop();
    advance(5000);
    expect(target.received.length).toBe(3);
    expect(recording.events.length).toBe(2);
    throttler.stop();
  });

  it('draws a lane per channel, with each channel rate measured', () => {
    const target = createRecorder();
    const channels = { search: '1/1s', __proto__: '2/1s' };
    Object.defineProperty(channels, '__proto__', { value: '2/1s', enumerable: true });
    const throttler = createActor(throttlerMachine, {
      input: { rate: '3/1s', strategy: 'sliding-window', channels, target: target.ref },
    }).start();
    const recording = recordTimeline(throttler, { rate: '3/1s', channels });
    for (const channel of ['search', '__proto__', '__proto__', 'search', undefined]) {
      throttler.send({ type: 'QUEUE', message: msg(1), channel });
    }
    advance(3000);
    const root = parseSvg(recording.svg());
    expect(byClass(root, 'lane').map((lane) => lane.attributes['data-channel'])).toEqual([
      undefined,
      'search',
      '__proto__',
    ]);
    expect(
      byClass(root, 'busiest-window').map((window) => [
        window.attributes['data-channel'],
        window.attributes['data-count'],
      ]),
    ).toEqual([
      [undefined, '3'],
      ['search', '1'],
      ['__proto__', '2'],
    ]);
    throttler.stop();
  });
});
