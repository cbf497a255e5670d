import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { createThrottler, restoreThrottler, type ThrottlerActor, throttlerMachine } from '../../src/index.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

/**
 * A retry waiting in line keeps its place across a restart (issue 34): saved with `arrivedAt`, its first
 * attempt's arrival on the wall clock, in its place in the queue, and read back, checked, into that place.
 */

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const persist = (actor: ThrottlerActor) => JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));

/** Messages 1 and 2 queued at 1 s, 3 at 3 s; 3 then marked as a retry whose first attempt arrived at 0. */
function savedWithRetry() {
  const actor = createActor(throttlerMachine, {
    input: { rate: '1/10s', strategy: 'sliding-window', maxPriorityWait: '9s' },
  }).start();
  advance(1_000);
  actor.send({ type: 'QUEUE', message: msg(1) });
  actor.send({ type: 'QUEUE', message: msg(2) });
  advance(2_000);
  actor.send({ type: 'QUEUE', message: msg(3), priority: 4 });
  const saved = persist(actor);
  actor.stop();
  const queue = saved.context.dispatcher.state.queue;
  const retry = queue.pop();
  retry.arrivedAt = queue[0].queuedAt - 1_000;
  queue.unshift(retry);
  return saved;
}

describe('a waiting retry across a restart', () => {
  it('the promise API saves a retry with arrivedAt, in its place in line', async () => {
    const throttler = createThrottler({ rate: '1/10s', strategy: 'sliding-window' });
    let calls = 0;
    const retried = throttler
      .schedule(
        () => {
          calls += 1;
          if (calls === 1) throw new Error('once');
        },
        { retry: { retries: 1, backoff: () => 3_000 } },
      )
      .catch(() => undefined);
    const later = [1, 2].map(() => throttler.schedule(() => undefined).catch(() => undefined));
    await vi.advanceTimersByTimeAsync(3_500);
    const queue = persist(throttler.actor).context.dispatcher.state.queue;
    // Its first attempt started inside schedule() at 0, before the two queued then; queued again at 3 s.
    expect(queue).toHaveLength(3);
    expect(queue[0]).toMatchObject({ message: { type: 'task' }, queuedAt: 3_000, arrivedAt: 0 });
    expect(queue.slice(1).map((entry: { arrivedAt?: number }) => entry.arrivedAt)).toEqual([undefined, undefined]);
    await throttler.stop();
    await Promise.all([retried, ...later]);
  });

  it('restores it in its place: before the messages that arrived after its first attempt', () => {
    const saved = savedWithRetry();
    expect(saved.context.dispatcher.format).toBe('xstate-throttler/3');
    const target = createRecorder<Numbered>();
    const restored = restoreThrottler(saved);
    restored.send({ type: 'SET_TARGET', target: target.ref });
    advance(40_000);
    // Its priority 4 counts from its first arrival (0): ranked ahead of 1 and 2 (priority 5, at 1 s).
    expect(target.messages().map((m) => m.n)).toEqual([3, 1, 2]);
  });

  it('saved again, it keeps its arrivedAt', () => {
    const saved = savedWithRetry();
    const again = persist(restoreThrottler(saved));
    expect(again.context.dispatcher.state.queue.map((entry: { arrivedAt?: number }) => entry.arrivedAt)).toEqual(
      saved.context.dispatcher.state.queue.map((entry: { arrivedAt?: number }) => entry.arrivedAt),
    );
  });

  it('without arrivedAt the same message waits from when it was queued (after 1 and 2)', () => {
    const saved = savedWithRetry();
    const queue = saved.context.dispatcher.state.queue;
    delete queue[0].arrivedAt;
    queue.push(queue.shift());
    const target = createRecorder<Numbered>();
    restoreThrottler(saved, { target: target.ref });
    advance(40_000);
    expect(target.messages().map((m) => m.n)).toEqual([1, 2, 3]);
  });

  it.each([
    ['soon', 'got "soon"'],
    [null, 'got null'],
    [Number.POSITIVE_INFINITY, 'got Infinity'],
    [Number.NaN, 'got NaN'],
  ])('refuses arrivedAt %s, naming its path and the value', (value, got) => {
    const saved = savedWithRetry();
    saved.context.dispatcher.state.queue[0].arrivedAt = value;
    expect(() => restoreThrottler(saved)).toThrow(
      /^persisted\.context\.dispatcher\.state\.queue\[0\]\.arrivedAt must be a wall-clock time in ms no later than queuedAt \(\d+\)/,
    );
    expect(() => restoreThrottler(saved)).toThrow(got);
  });

  it('refuses an arrivedAt after the message was queued', () => {
    const saved = savedWithRetry();
    const entry = saved.context.dispatcher.state.queue[0];
    entry.arrivedAt = entry.queuedAt + 1;
    expect(() => restoreThrottler(saved)).toThrow(
      `persisted.context.dispatcher.state.queue[0].arrivedAt must be a wall-clock time in ms no later than queuedAt (${entry.queuedAt}), got ${entry.queuedAt + 1}`,
    );
  });
});
