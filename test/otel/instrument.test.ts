import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  auditThrottler,
  createThrottler,
  type ThrottlerEmitted,
  type ThrottlerInput,
  throttlerMachine,
} from '../../src/index.js';
import { listensTo } from '../../src/machine/xstate-internals.js';
import { instrumentThrottler, THROTTLER_METRICS as M } from '../../src/otel/index.js';
import { runs } from '../support/property-runs.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';
import { inMemoryMetrics, pointValue } from './sdk.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** A throttler actor, and what it emitted, counted by result as the metrics should count it. */
function start(input: Partial<ThrottlerInput>) {
  const target = createRecorder<Numbered>();
  const actor = createActor(throttlerMachine, {
    input: { rate: '2/1s', strategy: 'sliding-window', target: target.ref, ...input },
  });
  const own = { queued: 0, dropped: 0, expired: 0, cancelled: 0, rejected: 0, waits: [] as number[] };
  actor.on('*', (event: ThrottlerEmitted) => {
    if (event.type === 'queued') own.queued += 1;
    if (event.type === 'dequeued') own.waits.push((event.at - event.queuedAt) / 1000);
    if (event.type === 'rejected') own.rejected += 1;
    if (event.type === 'dropped') {
      if (event.reason === 'expired') own.expired += 1;
      else if (event.reason === 'cancelled') own.cancelled += 1;
      else own.dropped += 1;
    }
  });
  actor.start();
  return { actor, target, own };
}

const result = (name: string) => ({ 'throttler.result': name, 'throttler.name': 'api' });

describe('instrumentThrottler on the machine actor, read through the real SDK', () => {
  it('counts every result, the queue, the waits and the window as the throttler does', async () => {
    const metrics = inMemoryMetrics();
    const { actor, own } = start({ capacity: 3, overflow: 'drop-oldest' });
    const handle = instrumentThrottler(actor, { meter: metrics.meter, name: 'api' });
    for (let n = 1; n <= 6; n++) actor.send({ type: 'QUEUE', message: msg(n), id: n });
    actor.send({ type: 'QUEUE', message: msg(7), maxWait: 100 });
    actor.send({ type: 'QUEUE', message: { not: 'an event' } as never });
    actor.send({ type: 'CANCEL', id: 6 });
    advance(250);
    let read = await metrics.read();
    const counts = actor.getSnapshot().context.counts;
    expect(pointValue(read.get(M.messages.name), result('delivered'))).toBe(counts.delivered);
    expect(pointValue(read.get(M.queuedMessages.name))).toBe(counts.queued);
    for (const name of ['queued', 'expired', 'cancelled', 'rejected'] as const)
      expect(pointValue(read.get(M.messages.name), result(name))).toBe(own[name]);
    expect(pointValue(read.get(M.messages.name), { ...result('dropped'), 'throttler.reason': 'drop-oldest' })).toBe(
      own.dropped,
    );
    // 3 and 4 displaced by 6 and 7 (the oldest go), 7 expired, 6 cancelled, the non-event refused.
    expect(own).toMatchObject({ queued: 5, dropped: 2, expired: 1, cancelled: 1, rejected: 1 });
    // Two went at t=0: the window of 2/1s is full.
    expect(pointValue(read.get(M.windowUtilization.name), { 'throttler.rate': '2/1s' })).toBe(1);
    advance(5000);
    read = await metrics.read();
    expect(pointValue(read.get(M.messages.name), result('delivered'))).toBe(
      actor.getSnapshot().context.counts.delivered,
    );
    const [histogram] = read.get(M.timeInQueue.name) ?? [];
    expect(histogram).toMatchObject({ count: own.waits.length, unit: 's' });
    expect(histogram?.sum).toBeCloseTo(own.waits.reduce((a, b) => a + b, 0));
    // Only 5 waited and went: 1 s, behind 1 and 2's window.
    expect(own.waits).toEqual([1]);
    expect(pointValue(read.get(M.queuedMessages.name))).toBe(0);
    handle.stop();
    await metrics.shutdown();
  });

  it('stop() removes every listener and callback: the throttler is as before, and nothing more is reported', async () => {
    const metrics = inMemoryMetrics();
    const target = createRecorder<Numbered>();
    const actor = createActor(throttlerMachine, { input: { rate: '1/1s', target: target.ref } }).start();
    const handle = instrumentThrottler(actor, { meter: metrics.meter });
    expect(listensTo(actor, 'dequeued')).toBe(true);
    // Neither a delivery nor a message joining the queue is heard: the promise API's lease and the machine's
    // quiet paths stay as they are without metrics.
    expect(listensTo(actor, 'delivered')).toBe(false);
    expect(listensTo(actor, 'queued')).toBe(false);
    handle.stop();
    handle.stop();
    for (const type of ['queued', 'dequeued', 'dropped', 'rejected', 'delivered', 'storeDown'])
      expect(listensTo(actor, type)).toBe(false);
    actor.send({ type: 'QUEUE', message: msg(1) });
    const read = await metrics.read();
    expect(read.get(M.messages.name) ?? []).toEqual([]);
    await metrics.shutdown();
  });

  it('the promise API keeps starting tasks inside schedule; its counts and waits are read as they are', async () => {
    const metrics = inMemoryMetrics();
    const throttler = createThrottler({ rate: '3/1s', strategy: 'sliding-window' });
    instrumentThrottler(throttler, { meter: metrics.meter, name: 'api' });
    let started = 0;
    const tasks = Array.from({ length: 5 }, () => throttler.schedule(() => started++));
    expect(started).toBe(3);
    let read = await metrics.read();
    expect(pointValue(read.get(M.messages.name), result('delivered'))).toBe(3);
    // Two are in this stretch's batch, not yet handed to the machine: waiting all the same.
    expect(pointValue(read.get(M.queuedMessages.name))).toBe(2);
    await Promise.resolve();
    advance(1000);
    await Promise.all(tasks);
    read = await metrics.read();
    expect(pointValue(read.get(M.messages.name), result('delivered'))).toBe(5);
    expect(pointValue(read.get(M.messages.name), result('queued'))).toBe(2);
    expect(read.get(M.timeInQueue.name)?.[0]).toMatchObject({ count: 2, sum: 2 });
    throttler.stop();
    await metrics.shutdown();
  });

  it('a gauge per rate, and per channel or key asked for; the user attributes on every series', async () => {
    const metrics = inMemoryMetrics();
    const { actor } = start({ rate: ['4/1s', '10/1m'], channels: { a: '2/1s' }, keys: { rate: '1/1s' } });
    instrumentThrottler(actor, {
      meter: metrics.meter,
      channels: ['a', 'k1', '__proto__'],
      attributes: JSON.parse('{"__proto__": "kept", "service.tier": "gold"}'),
    });
    actor.send({ type: 'QUEUE', message: msg(1), channel: 'a' });
    actor.send({ type: 'QUEUE', message: msg(2), channel: 'k1' });
    actor.send({ type: 'QUEUE', message: msg(3), channel: '__proto__' });
    const read = await metrics.read();
    const points = read.get(M.windowUtilization.name) ?? [];
    const gauge = (rate: string, channel?: string) =>
      pointValue(points, {
        'throttler.rate': rate,
        ...(channel === undefined ? {} : { 'throttler.channel': channel }),
      });
    expect(gauge('4/1s')).toBe(0.75);
    expect(gauge('10/1m')).toBeCloseTo(0.3);
    expect(gauge('2/1s', 'a')).toBe(0.5);
    expect(gauge('1/1s', 'k1')).toBe(1);
    expect(gauge('1/1s', '__proto__')).toBe(1);
    for (const point of points) expect(point.attributes).toMatchObject({ 'service.tier': 'gold' });
    expect(Object.getOwnPropertyDescriptor(points[0]?.attributes, '__proto__')?.value).toBe('kept');
    await metrics.shutdown();
  });

  it('two throttlers on one meter: one set of instruments, each throttler its own series by name', async () => {
    const metrics = inMemoryMetrics();
    const first = start({});
    const second = start({ rate: '1/1s' });
    instrumentThrottler(first.actor, { meter: metrics.meter, name: 'first' });
    const handle = instrumentThrottler(second.actor, { meter: metrics.meter, name: 'second' });
    for (let n = 1; n <= 3; n++) {
      first.actor.send({ type: 'QUEUE', message: msg(n) });
      second.actor.send({ type: 'QUEUE', message: msg(n) });
    }
    let read = await metrics.read();
    const delivered = (name: string) =>
      pointValue(read.get(M.messages.name), { 'throttler.name': name, 'throttler.result': 'delivered' });
    expect([delivered('first'), delivered('second')]).toEqual([2, 1]);
    expect(pointValue(read.get(M.queuedMessages.name), { 'throttler.name': 'second' })).toBe(2);
    handle.stop();
    advance(1000);
    first.actor.send({ type: 'QUEUE', message: msg(4) });
    read = await metrics.read();
    // A stopped instrumentation reports nothing more (this SDK keeps exporting a cumulative series' last
    // value); the other goes on.
    expect([delivered('first'), delivered('second')]).toEqual([4, 1]);
    expect(second.actor.getSnapshot().context.counts.delivered).toBe(2);
    await metrics.shutdown();
  });

  it("the audit's fullest window and windows over the limit, as the audit reports them: the timer's 2N shows", async () => {
    const metrics = inMemoryMetrics();
    const { actor } = start({ rate: '2/1s', strategy: 'timer', channels: { a: '5/1s' }, keys: { rate: '1/1s' } });
    instrumentThrottler(actor, { meter: metrics.meter, channels: ['k1'] });
    actor.send({ type: 'QUEUE', message: msg(1), channel: 'a' });
    advance(900);
    actor.send({ type: 'QUEUE', message: msg(2), channel: 'k1' });
    actor.send({ type: 'QUEUE', message: msg(3), channel: 'k2' });
    actor.send({ type: 'QUEUE', message: msg(4) });
    advance(200);
    const report = auditThrottler(actor);
    const read = await metrics.read();
    const lines = report.rates.filter((line) => line.scope !== 'key' || line.name === 'k1');
    expect(lines.map((line) => `${line.scope} ${line.name ?? ''}`)).toEqual([
      'overall ',
      'channel a',
      'key k1',
      'keys ',
    ]);
    for (const line of lines) {
      const match = {
        'throttler.rate': line.rate,
        'throttler.scope': line.scope,
        ...(line.name === undefined ? {} : { 'throttler.channel': line.name }),
      };
      expect(pointValue(read.get(M.windowPeakUtilization.name), match)).toBe(line.most / line.limit);
      expect(pointValue(read.get(M.windowOverruns.name), match)).toBe(line.windowsOver);
    }
    // Two in the period that ended at 1000 and two in the next, within one second: the timer's 2N.
    expect(pointValue(read.get(M.windowOverruns.name), { 'throttler.scope': 'overall' })).toBeGreaterThan(0);
    expect(pointValue(read.get(M.windowPeakUtilization.name), { 'throttler.scope': 'overall' })).toBe(1.5);
    // k2 is not asked for: only in the keys' line.
    expect(read.get(M.windowOverruns.name)?.some((p) => p.attributes['throttler.channel'] === 'k2')).toBe(false);
    await metrics.shutdown();
  });

  it('a pause in force reads 1, and 0 once it ends or is lifted', async () => {
    const metrics = inMemoryMetrics();
    const { actor } = start({});
    instrumentThrottler(actor, { meter: metrics.meter });
    const paused = async () => pointValue((await metrics.read()).get(M.paused.name));
    expect(await paused()).toBe(0);
    actor.send({ type: 'PAUSE', duration: 500 });
    expect(await paused()).toBe(1);
    advance(500);
    expect(await paused()).toBe(0);
    actor.send({ type: 'PAUSE' });
    advance(60_000);
    expect(await paused()).toBe(1);
    actor.send({ type: 'RESUME' });
    expect(await paused()).toBe(0);
    await metrics.shutdown();
  });

  it('refuses a bad option or throttler, naming the field and the value', () => {
    const { meter } = inMemoryMetrics();
    const { actor } = start({});
    const bad: Array<[unknown, unknown, RegExp]> = [
      [{}, { meter }, /^throttler must be a throttler actor .* got/],
      [actor, { meter: {} }, /^meter must be an OpenTelemetry Meter/],
      [actor, undefined, /^options must be an object/],
      [actor, { meter, name: '' }, /^name must be a non-empty string, got ""/],
      [
        actor,
        { meter, attributes: { a: Number.NaN } },
        /^attributes\.a must be a string, a finite number or a boolean, got NaN/,
      ],
      [actor, { meter, attributes: [] }, /^attributes must be an object/],
      [actor, { meter, channels: 'a' }, /^channels must be an array of at most 100/],
      [actor, { meter, channels: Array.from({ length: 101 }, (_, i) => `c${i}`) }, /^channels must be an array/],
      [actor, { meter, channels: ['a', 'a'] }, /^channels\[1\] must be a non-empty name, not given before, got "a"/],
      [actor, { meter, channels: [''] }, /^channels\[0\] must be/],
    ];
    for (const [throttler, options, message] of bad)
      expect(() => instrumentThrottler(throttler, options as never)).toThrow(message);
  });

  it('agrees with the throttler on random traffic (property, virtual time)', async () => {
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('queue' as const),
        cost: fc.integer({ min: 1, max: 3 }),
        maxWait: fc.option(fc.integer({ min: 0, max: 2000 }), { nil: undefined }),
        channel: fc.constantFrom(undefined, 'a'),
      }),
      fc.record({ kind: fc.constant('cancel' as const), id: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 700 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 40 }),
        fc.constantFrom('sliding-window', 'timer', 'token-bucket'),
        async (steps, strategy) => {
          const metrics = inMemoryMetrics();
          const { actor, own } = start({
            rate: '3/1s',
            strategy,
            channels: { a: '2/1s' },
            capacity: 6,
            overflow: 'drop-newest',
          });
          const handle = instrumentThrottler(actor, { meter: metrics.meter, name: 'api' });
          let id = 0;
          for (const s of steps) {
            if (s.kind === 'queue')
              actor.send({
                type: 'QUEUE',
                message: msg(id),
                id: id++,
                cost: s.cost,
                maxWait: s.maxWait,
                channel: s.channel,
              });
            else if (s.kind === 'cancel') actor.send({ type: 'CANCEL', id: s.id });
            else advance(s.ms);
          }
          const read = await metrics.read();
          const counts = actor.getSnapshot().context.counts;
          const messages = read.get(M.messages.name);
          expect(pointValue(messages, result('delivered'))).toBe(counts.delivered);
          expect(pointValue(read.get(M.queuedMessages.name))).toBe(counts.queued);
          for (const name of ['queued', 'expired', 'cancelled', 'rejected'] as const)
            expect(pointValue(messages, result(name))).toBe(own[name]);
          const dropped = (messages ?? [])
            .filter((p) => p.attributes['throttler.result'] === 'dropped')
            .reduce((a, p) => a + p.value, 0);
          expect(dropped).toBe(own.dropped);
          expect(counts.dropped).toBe(own.dropped + own.expired + own.cancelled);
          // Every queued message is waiting, delivered from the queue, or dropped (a message may be dropped without queueing: expired on arrival).
          const dequeued = read.get(M.timeInQueue.name)?.[0]?.count ?? 0;
          expect(dequeued).toBe(own.waits.length);
          expect(own.queued).toBeGreaterThanOrEqual(dequeued + counts.queued);
          handle.stop();
          actor.stop();
          await metrics.shutdown();
        },
      ),
      { numRuns: runs(40) },
    );
  });
});
