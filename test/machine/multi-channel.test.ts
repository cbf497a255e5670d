import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { overfullWindows } from '../support/oracle.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/**
 * The scenarios of the Java ChannelThrottler design (an overall rate, and
 * per-channel rates a message must obey as well), ported to the strict
 * sliding window under virtual time: overall 2/1s, channel 1 at 3/1s,
 * channel 2 at 1/1s.
 */
const CHANNEL_1 = 'channel-1';
const CHANNEL_2 = 'channel-2';

const CHANNEL_RATES = { [CHANNEL_1]: '3/1s', [CHANNEL_2]: '1/1s' };

function startChannelThrottler(options: Partial<ThrottlerInput> = {}) {
  const target = createRecorder<Numbered>();
  const throttler = createActor(throttlerMachine, {
    input: { strategy: 'sliding-window', rate: '2/1s', channels: CHANNEL_RATES, target: target.ref, ...options },
  }).start();
  const queue = (n: number, channel?: string) => throttler.send({ type: 'QUEUE', message: msg(n), channel });
  /** [message number, delivery time] in the order the target received them. */
  const deliveries = () => target.received.map((r) => [r.message.n, r.at]);
  return { throttler, queue, deliveries, target };
}

/**
 * Two messages for channel 2 (1/1s, so the second must wait a second), then two
 * for channel 1, all at 0; what the target received by 3 s, with `ordering`.
 */
function saturatedChannel2ThenChannel1(ordering: ThrottlerInput['ordering']) {
  const { queue, deliveries } = startChannelThrottler({ ordering });
  queue(1, CHANNEL_2);
  queue(2, CHANNEL_2);
  queue(3, CHANNEL_1);
  queue(4, CHANNEL_1);
  advance(3_000);
  return deliveries();
}

describe('multi-channel throttling (the ChannelThrottler scenarios), sliding window', () => {
  it('total only: messages with no channel obey the overall 2/1s, each as soon as the window allows', () => {
    const { queue, deliveries } = startChannelThrottler();
    queue(1);
    advance(300);
    queue(2);
    advance(300);
    queue(3);
    advance(100);
    queue(4);
    advance(800);
    queue(5);
    advance(2_000);
    // 3 waits for 1 to leave the window (1000), 4 for 2 (1300), 5 for 3 (2000): no fixed spacing.
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 300],
      [3, 1000],
      [4, 1300],
      [5, 2000],
    ]);
  });

  it('channel only: with a non-binding overall rate, channel 1 goes 3 per second and channel 2 one per second', () => {
    const { queue, deliveries } = startChannelThrottler({ rate: '1000/1s', ordering: 'per-channel' });
    for (let n = 1; n <= 7; n++) queue(n, CHANNEL_1);
    for (let n = 8; n <= 10; n++) queue(n, CHANNEL_2);
    advance(3_000);
    // Equal times go in arrival order, so channel 1's batch leads each second.
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [8, 0],
      [4, 1000],
      [5, 1000],
      [6, 1000],
      [9, 1000],
      [7, 2000],
      [10, 2000],
    ]);
  });

  it('channel plus total: channel 1 allows 3/1s but the overall 2/1s is stricter and wins', () => {
    const { queue, deliveries } = startChannelThrottler();
    for (let n = 1; n <= 5; n++) queue(n, CHANNEL_1);
    advance(3_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 0],
      [3, 1000],
      [4, 1000],
      [5, 2000],
    ]);
  });

  it('channel affects total: channel messages use up the overall allowance, so a later message with no channel waits', () => {
    const { queue, deliveries } = startChannelThrottler();
    queue(1, CHANNEL_1);
    queue(2, CHANNEL_2);
    advance(400);
    queue(3);
    advance(1_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 0],
      [3, 1000],
    ]);
  });

  it("ordered calls across channels ('fifo'): a saturated channel 2 holds back a later channel-1 message", () => {
    // 3 could go at 0 on its own rates, but it stays behind 2, which waits for channel 2's window.
    expect(saturatedChannel2ThenChannel1('fifo')).toEqual([
      [1, 0],
      [2, 1000],
      [3, 1000],
      [4, 2000],
    ]);
  });

  it("ordered calls across channels ('per-channel'): the free channel 1 goes past the waiting channel 2", () => {
    // 3 takes the overall window's second place at 0; at 1000 both 2 and 4 may go, 2 first as it came first.
    expect(saturatedChannel2ThenChannel1('per-channel')).toEqual([
      [1, 0],
      [3, 0],
      [2, 1000],
      [4, 1000],
    ]);
  });

  it('multi-channel with total: both channels and unchannelled messages, every rate holding at once', () => {
    const { queue, deliveries, target } = startChannelThrottler();
    queue(1, CHANNEL_1);
    queue(2, CHANNEL_2);
    queue(3);
    advance(100);
    queue(4, CHANNEL_1);
    queue(5, CHANNEL_1);
    advance(1_100);
    queue(6, CHANNEL_2);
    queue(7);
    advance(3_000);
    expect(deliveries()).toEqual([
      [1, 0],
      [2, 0],
      [3, 1000],
      [4, 1000],
      [5, 2000],
      [6, 2000],
      [7, 3000],
    ]);
    const channelOf: Record<number, string | undefined> = {
      1: CHANNEL_1,
      2: CHANNEL_2,
      4: CHANNEL_1,
      5: CHANNEL_1,
      6: CHANNEL_2,
    };
    const asDeliveries = target.received.map((r) => ({ at: r.at, cost: 1, channel: channelOf[r.message.n] }));
    const rates = {
      overall: [{ limit: 2, interval: 1000 }],
      channels: { [CHANNEL_1]: [{ limit: 3, interval: 1000 }], [CHANNEL_2]: [{ limit: 1, interval: 1000 }] },
    };
    expect(overfullWindows(rates, asDeliveries)).toEqual([]);
  });
});
