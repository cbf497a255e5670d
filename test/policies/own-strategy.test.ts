import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import {
  createThrottler,
  type Rate,
  restoreThrottler,
  type ThrottlerEmitted,
  ThrottlerOptionError,
  throttlerMachine,
} from '../../src/index.js';
import { OwnPolicy, PolicyFaults } from '../../src/policies/own-policy.js';
import { throttleQueue } from '../../src/rxjs/index.js';
import { createMemoryStore } from '../../src/store/index.js';
import { defineStrategy, type StrategyPolicy } from '../../src/strategies/index.js';
import { expectOptionError } from '../support/option-error.js';
import { FixedWindowPolicy, fixedWindow, leakyBucket } from '../support/own-strategies.js';
import { createRecorder } from '../support/recorder.js';
import { advance, now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

const policyOf = (rates: readonly Rate[], now: number) => new FixedWindowPolicy(rates, now);

describe('defineStrategy checks every field where it is called', () => {
  it.each<[string, unknown, string, string, unknown]>([
    ['not an object', 5, 'strategy', 'an object with a name and a createPolicy function', 5],
    ['no name', { createPolicy: policyOf }, 'strategy.name', 'a non-empty string', undefined],
    ['an empty name', { name: '', createPolicy: policyOf }, 'strategy.name', 'a non-empty string', ''],
    ['a number for a name', { name: 7, createPolicy: policyOf }, 'strategy.name', 'a non-empty string', 7],
    [
      "a library strategy's name",
      { name: 'sliding-window', createPolicy: policyOf },
      'strategy.name',
      "a name that is not a library strategy's",
      'sliding-window',
    ],
    ['no createPolicy', { name: 'mine' }, 'strategy.createPolicy', 'a function (rates, now) => policy', undefined],
    [
      'a policy for createPolicy',
      { name: 'mine', createPolicy: {} },
      'strategy.createPolicy',
      'a function (rates, now) => policy',
      {},
    ],
    [
      'a string for leases',
      { name: 'mine', createPolicy: policyOf, leases: 'yes' },
      'strategy.leases',
      'a boolean or absent',
      'yes',
    ],
    [
      'a number for settlesInFlight',
      { name: 'mine', createPolicy: policyOf, settlesInFlight: 1 },
      'strategy.settlesInFlight',
      'a boolean or absent',
      1,
    ],
    [
      'a field it does not take',
      { name: 'mine', createPolicy: policyOf, retimesLateGrants: true },
      'strategy.retimesLateGrants',
      'absent: a strategy takes name, createPolicy, leases, settlesInFlight',
      true,
    ],
  ])('refuses %s', (_case, definition, option, requirement, value) => {
    const error = `${option} must be ${requirement}, got `;
    let thrown: unknown;
    try {
      defineStrategy(definition as never);
    } catch (caught) {
      thrown = caught;
    }
    expect(thrown).toBeInstanceOf(ThrottlerOptionError);
    expect((thrown as ThrottlerOptionError).message.startsWith(error)).toBe(true);
    expect((thrown as ThrottlerOptionError).option).toBe(option);
    expect((thrown as ThrottlerOptionError).value).toEqual(value);
  });

  it('says what it supports, false unless declared, and is frozen', () => {
    expect([fixedWindow.name, fixedWindow.leases, fixedWindow.settlesInFlight, fixedWindow.retimesLateGrants]).toEqual([
      'fixed-window',
      true,
      false,
      false,
    ]);
    expect([leakyBucket.leases, leakyBucket.settlesInFlight]).toEqual([false, false]);
    expect(Object.isFrozen(fixedWindow)).toBe(true);
  });

  it('takes only the value it made: a copy or a look-alike is refused as the strategy option', () => {
    expect(() => createThrottler({ rate: '1/1s', strategy: { ...fixedWindow } })).toThrow(
      /^strategy must be one of .*, or a strategy value from xstate-throttler\/strategies \(one of your own made by defineStrategy\), got \{"name":"fixed-window"/,
    );
  });

  it('a policy of the wrong shape is refused as the throttler is created, naming the method', () => {
    const broken = defineStrategy({ name: 'broken', createPolicy: () => ({ earliestDelivery: () => 0 }) as never });
    expectOptionError(() => createThrottler({ rate: '1/1s', strategy: broken }), {
      message: 'strategy "broken": createPolicy(rate).recordDelivery must be a function, got undefined',
      option: 'strategy "broken": createPolicy(rate).recordDelivery',
      value: undefined,
    });
    const settling = defineStrategy({ name: 'settling', settlesInFlight: true, createPolicy: policyOf });
    expect(() => createThrottler({ rate: '1/1s', strategy: settling, countUntil: 'done' })).toThrow(
      'strategy "settling": createPolicy(rate).holdInFlight must be a function (the strategy declares settlesInFlight), got undefined',
    );
  });

  it("hands createPolicy a frozen copy of the rates: sorting or changing them is refused, never the throttler's", () => {
    const seen: Array<readonly Rate[]> = [];
    const strategy = defineStrategy({
      name: 'keeping',
      createPolicy: (rates, at) => {
        seen.push(rates);
        return new FixedWindowPolicy(rates, at);
      },
    });
    const throttler = createThrottler({ rate: ['10/1m', '2/1s'], strategy });
    expect(Object.isFrozen(seen[0])).toBe(true);
    expect(seen[0]?.every((rate) => Object.isFrozen(rate))).toBe(true);
    throttler.stop();
    // And setRates's, on a SET_RATE.
    const told: Array<readonly Rate[]> = [];
    const telling = defineStrategy({
      name: 'told',
      createPolicy: (rates, at) =>
        Object.assign(new FixedWindowPolicy(rates, at), { setRates: (r: readonly Rate[]) => told.push(r) }),
    });
    const actor = createActor(throttlerMachine, { input: { rate: '2/1s', strategy: telling } }).start();
    actor.send({ type: 'SET_RATE', rate: '5/1s' });
    expect(told.length).toBe(1);
    expect(Object.isFrozen(told[0])).toBe(true);
    expect(Object.isFrozen(told[0]?.[0])).toBe(true);
    actor.stop();
    const sorting = defineStrategy({
      name: 'sorting',
      createPolicy: (rates, at) =>
        new FixedWindowPolicy(
          (rates as Rate[]).sort((a, b) => a.interval - b.interval),
          at,
        ),
    });
    expect(() => createThrottler({ rate: ['10/1m', '2/1s'], strategy: sorting })).toThrow(
      'strategy "sorting": createPolicy(rate) must be a function that returns a policy, not one that throws',
    );
  });

  it('names are data: a strategy named __proto__ throttles as any other', () => {
    const proto = defineStrategy({ name: '__proto__', createPolicy: policyOf });
    const target = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: { rate: '1/100ms', strategy: proto, target: target.ref },
    }).start();
    for (let i = 0; i < 3; i++) actor.send({ type: 'QUEUE', message: { type: 'm' } });
    advance(300);
    expect(target.received.map(({ at }) => at)).toEqual([0, 100, 200]);
    expect(proto.name).toBe('__proto__');
  });
});

describe('what a strategy of your own cannot do is refused', () => {
  it('a shared store', () => {
    const store = createMemoryStore({ name: 'own' });
    expectOptionError(() => createThrottler({ rate: '1/1s', strategy: fixedWindow, store }), {
      message:
        'strategy must be "sliding-window" or "token-bucket" with a store, whose scripts run only the library\'s algorithms, got "fixed-window"',
      option: 'strategy',
      value: 'fixed-window',
    });
  });

  it("transit, pace and countUntil 'done' (it does not settle in flight)", () => {
    expect(() => createThrottler({ rate: '1/1s', strategy: fixedWindow, transit: '50ms' })).toThrow(
      /a strategy of your own takes no transit spread \(strategy "fixed-window"\)/,
    );
    expect(() => createThrottler({ rate: '1/1s', strategy: fixedWindow, pace: true })).toThrow(
      /a strategy of your own spaces its deliveries itself/,
    );
    expectOptionError(() => createThrottler({ rate: '1/1s', strategy: leakyBucket, countUntil: 'done' }), {
      message:
        'countUntil must be "start" with strategy "leaky-bucket", which does not settle in flight (settlesInFlight), got "done"',
      option: 'countUntil',
      value: 'done',
    });
  });

  it('saving a snapshot when its policies have no save and load', () => {
    const target = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: { rate: '1/1s', strategy: leakyBucket, target: target.ref },
    }).start();
    actor.send({ type: 'QUEUE', message: { type: 'm' } });
    expect(() => JSON.stringify(actor.getPersistedSnapshot())).toThrow(
      'strategy must be a strategy whose policies have save and load to save a snapshot (strategy "leaky-bucket"\'s have not), got "leaky-bucket"',
    );
  });
});

describe('a snapshot of a strategy whose policies save and load', () => {
  const saved = () => {
    const target = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: { rate: '2/1s', strategy: fixedWindow, target: target.ref },
    }).start();
    for (let i = 0; i < 3; i++) actor.send({ type: 'QUEUE', message: { type: 'm', i } });
    const json = JSON.stringify(actor.getPersistedSnapshot());
    actor.stop();
    return { json, sent: target.received.length };
  };

  it('a save that throws is refused where the snapshot is saved, naming the strategy and the call', () => {
    const strategy = defineStrategy({
      name: 'unsaving',
      createPolicy: (rates, at) =>
        Object.assign(new FixedWindowPolicy(rates, at), {
          save: () => {
            throw new RangeError('too big');
          },
        }),
    });
    const throttler = createThrottler({ rate: '2/1s', strategy });
    let thrown: unknown;
    try {
      JSON.stringify(throttler.actor.getPersistedSnapshot());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ThrottlerOptionError);
    // The shift: the wall clock's reading less the throttler's.
    expect((thrown as Error).message).toMatch(
      /^strategy "unsaving": save\([\d.]+\) must be a method that does not throw, got "RangeError: too big"$/,
    );
    expect((thrown as Error).cause).toEqual(new RangeError('too big'));
    throttler.stop();
  });

  it('restores with the value given, keeping the window and the queue', () => {
    const { json, sent } = saved();
    expect(sent).toBe(2);
    const target = createRecorder();
    const restored = restoreThrottler(JSON.parse(json), { strategy: fixedWindow, target: target.ref });
    advance(999);
    expect(target.received).toEqual([]);
    advance(1);
    expect(target.received.map(({ message }) => message)).toEqual([{ type: 'm', i: 2 }]);
    restored.stop();
  });

  it('refuses a restore without the value, with another strategy, or of a state its load refuses', () => {
    const { json } = saved();
    expectOptionError(() => restoreThrottler(JSON.parse(json)), {
      message:
        'strategy must be the value of the strategy the snapshot was saved with ("fixed-window", made by defineStrategy), got undefined',
      option: 'strategy',
      value: undefined,
    });
    expect(() => restoreThrottler(JSON.parse(json), { strategy: leakyBucket })).toThrow(
      'strategy must be the strategy the snapshot was saved with, "fixed-window", got "leaky-bucket"',
    );
    const damaged = JSON.parse(json);
    damaged.context.dispatcher.state.overall.state.used = [99];
    let thrown: unknown;
    try {
      restoreThrottler(damaged, { strategy: fixedWindow });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ThrottlerOptionError);
    expect((thrown as ThrottlerOptionError).message).toMatch(
      /^persisted\.context\.dispatcher\.state\.overall\.state must be what strategy "fixed-window" loads \(used\[0\] must be a count within the limit\), got/,
    );
  });
});

/** A strategy whose policy answers `answer` from its `earliestDelivery` once `broken()` says so. */
function breakable(answer: () => unknown) {
  let broken = false;
  const strategy = defineStrategy({
    name: 'breakable',
    createPolicy: (rates, at): StrategyPolicy => {
      const inner = new FixedWindowPolicy(rates, at);
      return {
        earliestDelivery: (at, cost) => (broken ? (answer() as number) : inner.earliestDelivery(at, cost)),
        recordDelivery: (at, cost) => inner.recordDelivery(at, cost),
      };
    },
  });
  return { strategy, breakNow: (is = true) => (broken = is) };
}

describe('a policy that breaks the contract at run time', () => {
  it.each<[string, () => unknown, string]>([
    ['NaN', () => Number.NaN, 'must be a time >= now (0), or Infinity, got NaN'],
    ['a time before now', () => -5, 'must be a time >= now (0), or Infinity, got -5'],
    ['a string', () => '10', 'must be a time >= now (0), or Infinity, got "10"'],
    [
      'a throw',
      () => {
        throw new Error('boom');
      },
      'must be a time, not a throw, got',
    ],
  ])(
    'answering %s: nothing goes, strategyError is emitted, the queue stays and goes on once it answers again',
    (_case, answer, message) => {
      const { strategy, breakNow } = breakable(answer);
      const target = createRecorder();
      const actor = createActor(throttlerMachine, { input: { rate: '1/100ms', strategy, target: target.ref } });
      const errors: Array<Extract<ThrottlerEmitted, { type: 'strategyError' }>> = [];
      actor.on('strategyError', (event) => errors.push(event));
      actor.start();
      breakNow();
      actor.send({ type: 'QUEUE', message: { type: 'm', i: 1 } });
      actor.send({ type: 'QUEUE', message: { type: 'm', i: 2 } });
      expect(target.received).toEqual([]);
      expect(errors.length).toBeGreaterThan(0);
      const [first] = errors;
      expect(first?.error).toBeInstanceOf(ThrottlerOptionError);
      expect(first?.error.message).toContain(`strategy "breakable": earliestDelivery(0, 1) ${message}`);
      expect(first?.at).toBe(0);
      if (_case === 'a throw') expect((first?.error as Error).cause).toEqual(new Error('boom'));
      expect(actor.getSnapshot().status).toBe('active');
      expect(actor.getSnapshot().context.counts.queued).toBe(2);
      // Answering again, the queue goes on at the next event.
      breakNow(false);
      actor.send({ type: 'RESUME' });
      advance(100);
      expect(target.received.map(({ message: sent, at }) => [sent, at])).toEqual([
        [{ type: 'm', i: 1 }, 0],
        [{ type: 'm', i: 2 }, 100],
      ]);
      actor.stop();
    },
  );

  it('a breach is reported at most once per event, however many steps of it ask the policy again', () => {
    const { strategy, breakNow } = breakable(() => Number.NaN);
    const target = createRecorder();
    const actor = createActor(throttlerMachine, { input: { rate: '1/100ms', strategy, target: target.ref } });
    const errors: Array<Extract<ThrottlerEmitted, { type: 'strategyError' }>> = [];
    actor.on('strategyError', (event) => errors.push(event));
    actor.start();
    breakNow();
    actor.send({ type: 'QUEUE', message: { type: 'm', i: 1 } });
    expect(errors.length).toBe(1);
    actor.send({ type: 'QUEUE', message: { type: 'm', i: 2 } });
    expect(errors.length).toBe(2);
    // Two actions of one transition (resume, then noticeWork); the same object sent twice is two events.
    const resume = { type: 'RESUME' } as const;
    actor.send(resume);
    actor.send(resume);
    expect(errors.length).toBe(4);
    actor.stop();
  });

  it('a throwing recordDelivery is reported; the delivery stands and the throttler goes on', () => {
    const strategy = throwingRecord('throwing-record');
    const target = createRecorder();
    const actor = createActor(throttlerMachine, { input: { rate: '1/100ms', strategy, target: target.ref } });
    const errors: Error[] = [];
    actor.on('strategyError', ({ error }) => errors.push(error));
    actor.start();
    actor.send({ type: 'QUEUE_BATCH', messages: [{ message: { type: 'a' } }, { message: { type: 'b' } }] });
    expect(target.received.length).toBe(2);
    expect(errors.map((error) => error.message)).toEqual([
      'strategy "throwing-record": recordDelivery must be a method that does not throw, got "RangeError: full"',
    ]);
    expect(actor.getSnapshot().status).toBe('active');
  });

  it('a throwing recordDelivery is reported for a single QUEUE that goes at once, idle or active', () => {
    // A message that goes at once may take a quiet path (quiet.ts) that emits nothing: never one of one's own.
    const strategy = throwingRecord('throwing-record-single');
    const target = createRecorder();
    const actor = createActor(throttlerMachine, { input: { rate: '3/100ms', strategy, target: target.ref } });
    const errors: Error[] = [];
    actor.on('strategyError', ({ error }) => errors.push(error));
    actor.start();
    actor.send({ type: 'QUEUE', message: { type: 'a' } });
    expect(target.received.length).toBe(1);
    expect(errors.map((error) => error.message)).toEqual([
      'strategy "throwing-record-single": recordDelivery must be a method that does not throw, got "RangeError: full"',
    ]);
    actor.send({ type: 'QUEUE', message: { type: 'b' } });
    expect(target.received.length).toBe(2);
    expect(errors.length).toBe(2);
    actor.stop();
  });

  it('the promise API rejects its waiting tasks with the error; the RxJS operator errors its stream', async () => {
    const { strategy, breakNow } = breakable(() => Number.NaN);
    const throttler = createThrottler({ rate: '1/100ms', strategy });
    const first = throttler.schedule(() => 'first');
    breakNow();
    const second = throttler.schedule(() => 'second');
    await expect(first).resolves.toBe('first');
    await expect(second).rejects.toThrow('strategy "breakable": earliestDelivery(');
    expect(throttler.size).toBe(0);
    throttler.stop();

    const { strategy: streamStrategy, breakNow: breakStream } = breakable(() => -1);
    const { of } = await import('rxjs');
    breakStream();
    const errors: unknown[] = [];
    of(1, 2)
      .pipe(throttleQueue({ rate: '1/100ms', strategy: streamStrategy }))
      .subscribe({ error: (error) => errors.push(error) });
    await Promise.resolve();
    advance(0);
    expect(String(errors[0])).toContain('strategy "breakable": earliestDelivery(');
    expect(now()).toBe(0);
  });
});

/**
 * A strategy whose policy, once `drift()` says so, answers one ms after whenever it is asked: an answer that
 * keeps moving later with no delivery between (the one rule broken). `asked` counts its questions.
 */
function drifting() {
  let drifts = false;
  const counter = { asked: 0 };
  const strategy = defineStrategy({
    name: 'drifting',
    createPolicy: (rates, at): StrategyPolicy => {
      const inner = new FixedWindowPolicy(rates, at);
      return {
        earliestDelivery: (at, cost) => {
          counter.asked++;
          return drifts ? at + 1 : inner.earliestDelivery(at, cost);
        },
        recordDelivery: (at, cost) => inner.recordDelivery(at, cost),
      };
    },
  });
  return { strategy, counter, drift: (is = true) => (drifts = is) };
}

describe('an answer moved later with no delivery recorded between (the one rule broken)', () => {
  it('is reported once with the facts; the throttler stops waking, the queue stays and goes on after', () => {
    const { strategy, counter, drift } = drifting();
    const target = createRecorder();
    const actor = createActor(throttlerMachine, { input: { rate: '1/100ms', strategy, target: target.ref } });
    const errors: Array<Extract<ThrottlerEmitted, { type: 'strategyError' }>> = [];
    actor.on('strategyError', (event) => errors.push(event));
    actor.start();
    drift();
    actor.send({ type: 'QUEUE', message: { type: 'm', i: 1 } });
    const askedAfterQueue = counter.asked;
    advance(10_000);
    // One wake-up at the first answer (1), which answers 2: no wake-up after it (without the check, one a ms).
    expect(counter.asked - askedAfterQueue).toBeLessThanOrEqual(2);
    expect(errors.map(({ error, at }) => [error.message, at])).toEqual([
      [
        'strategy "drifting": earliestDelivery(1, 1) must be an answer not moved later with no delivery recorded ' +
          'between (earliestDelivery(0, 1) answered 1, so cost 1 stays allowed from 1 on: the one rule), got 2',
        1,
      ],
    ]);
    expect(errors[0]?.error).toBeInstanceOf(ThrottlerOptionError);
    expect(target.received).toEqual([]);
    expect(actor.getSnapshot().status).toBe('active');
    expect(actor.getSnapshot().context.counts.queued).toBe(1);
    drift(false);
    actor.send({ type: 'RESUME' });
    expect(target.received.map(({ message, at }) => [message, at])).toEqual([[{ type: 'm', i: 1 }, 10_000]]);
    expect(errors.length).toBe(1);
    actor.stop();
  });

  it('the promise API rejects the waiting task with it, in a bounded number of wake-ups', async () => {
    const { strategy, counter, drift } = drifting();
    const throttler = createThrottler({ rate: '1/100ms', strategy });
    drift();
    const task = throttler.schedule(() => 'never');
    const rejected = expect(task).rejects.toThrow('moved later with no delivery recorded between');
    await vi.advanceTimersByTimeAsync(10_000);
    await rejected;
    // A few questions in all (one a ms, 10,000, without the check).
    expect(counter.asked).toBeLessThanOrEqual(10);
    throttler.stop();
  });

  /** An OwnPolicy whose user policy answers `answer.at` (or now, if later), its breaches kept in `faults`. */
  const toldPolicy = () => {
    const answer = { at: 5 };
    const faults = new PolicyFaults();
    const create = (): StrategyPolicy => ({
      earliestDelivery: (at) => Math.max(at, answer.at),
      recordDelivery: () => {},
      setRates: () => {},
    });
    const setup = { name: 'told', leases: false, settlesInFlight: false, faults, create };
    return { policy: new OwnPolicy(setup, [{ limit: 1, interval: 100 }], 0), answer, faults };
  };

  it('the rule is per cost, and says nothing of a question asked before the answer it gave', () => {
    const { policy, answer, faults } = toldPolicy();
    expect(policy.earliestDelivery(0, 1)).toBe(5);
    answer.at = 9;
    expect(policy.earliestDelivery(3, 1)).toBe(9);
    expect(policy.earliestDelivery(9, 2)).toBe(9);
    answer.at = 12;
    expect(policy.earliestDelivery(10, 3)).toBe(12);
    expect(faults.take(false)).toBeUndefined();
    expect(policy.earliestDelivery(12, 3)).toBe(12);
    answer.at = 13;
    expect(policy.earliestDelivery(12, 3)).toBe(Number.POSITIVE_INFINITY);
    expect(faults.take(false)?.message).toContain('(earliestDelivery(12, 3) answered 12, so cost 3');
  });

  it.each<[string, (policy: OwnPolicy) => void]>([
    ['recordDelivery', (policy) => policy.recordDelivery(5, 1)],
    ['settleDelivery', (policy) => policy.settleDelivery(5, 1, 2, 5)],
    ['setRates', (policy) => policy.setRates([{ limit: 2, interval: 100 }], 5)],
    ['activate', (policy) => policy.activate(5)],
    ['holdInFlight', (policy) => policy.holdInFlight(1)],
    ['releaseInFlight', (policy) => policy.releaseInFlight(5, 1)],
    ['settleAllInFlight', (policy) => policy.settleAllInFlight(5)],
  ])('%s forgets the last answer: the policy may answer later after it', (_method, told) => {
    const { policy, answer, faults } = toldPolicy();
    expect(policy.earliestDelivery(5, 1)).toBe(5);
    answer.at = 8;
    told(policy);
    expect(policy.earliestDelivery(5, 1)).toBe(8);
    expect(faults.take(false)).toBeUndefined();
  });
});

/** A policy that records what it is told, over a fixed window. */
function recording(calls: string[], extra: Partial<StrategyPolicy> = {}) {
  return (rates: readonly Rate[], at: number): StrategyPolicy => {
    const inner = new FixedWindowPolicy(rates, at);
    calls.push(`create ${rates.map((rate) => `${rate.limit}/${rate.interval}`).join(',')} at ${at}`);
    return {
      earliestDelivery: (now, cost) => inner.earliestDelivery(now, cost),
      recordDelivery: (sentAt, cost) => {
        calls.push(`record ${cost} at ${sentAt}`);
        inner.recordDelivery(sentAt, cost);
      },
      ...extra,
    };
  };
}

describe('the optional parts of the contract', () => {
  it('channels and keys each get a policy of their own, made as they are first used', () => {
    const calls: string[] = [];
    const strategy = defineStrategy({ name: 'per-scope', createPolicy: recording(calls) });
    const target = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: {
        rate: '10/1s',
        channels: { search: '1/1s' },
        keys: { rate: '2/1s' },
        ordering: 'per-channel',
        strategy,
        target: target.ref,
      },
    }).start();
    actor.send({ type: 'QUEUE', message: { type: 's1' }, channel: 'search' });
    actor.send({ type: 'QUEUE', message: { type: 's2' }, channel: 'search' });
    advance(10);
    actor.send({ type: 'QUEUE', message: { type: 'k1' }, channel: 'customer-7' });
    advance(990);
    expect(target.received.map(({ message, at }) => [message.type, at])).toEqual([
      ['s1', 0],
      ['k1', 10],
      ['s2', 1000],
    ]);
    // One for each configured list as the options are checked, so that a bad policy throws at the call; then
    // the throttler's own, each channel's, and a key's as it is first used.
    expect(calls.filter((call) => call.startsWith('create'))).toEqual([
      'create 10/1000 at 0',
      'create 1/1000 at 0',
      'create 2/1000 at 0',
      'create 10/1000 at 0',
      'create 1/1000 at 0',
      'create 2/1000 at 10',
    ]);
  });

  it('without setRates a SET_RATE makes a new policy for the new rates; with it, the policy is told', () => {
    const calls: string[] = [];
    const fresh = defineStrategy({ name: 'fresh', createPolicy: recording(calls) });
    const target = createRecorder();
    const actor = createActor(throttlerMachine, { input: { rate: '1/1s', strategy: fresh, target: target.ref } });
    actor.start();
    actor.send({ type: 'SET_RATE', rate: '5/1s' });
    expect(calls).toEqual(['create 1/1000 at 0', 'create 1/1000 at 0', 'create 5/1000 at 0']);
    const told: string[] = [];
    const keeping = defineStrategy({
      name: 'keeping',
      createPolicy: recording([], { setRates: (rates, at) => told.push(`${rates[0]?.limit} at ${at}`) }),
    });
    const other = createActor(throttlerMachine, { input: { rate: '1/1s', strategy: keeping, target: target.ref } });
    other.start();
    advance(5);
    other.send({ type: 'SET_RATE', rate: '3/1s' });
    expect(told).toEqual(['3 at 5']);
  });

  it('without settleDelivery an overrun is recorded at the time it is told; with it, the policy is told', () => {
    const calls: string[] = [];
    const strategy = defineStrategy({ name: 'overrun', createPolicy: recording(calls) });
    const target = createRecorder();
    const actor = createActor(throttlerMachine, { input: { rate: '5/1s', strategy, target: target.ref } }).start();
    actor.send({ type: 'QUEUE', message: { type: 'm' }, id: 'a', cost: 1 });
    advance(20);
    actor.send({ type: 'ACTUAL_COST', id: 'a', cost: 4 });
    actor.send({ type: 'ACTUAL_COST', id: 'a', cost: 1 });
    expect(calls.filter((call) => call.startsWith('record'))).toEqual(['record 1 at 0', 'record 3 at 20']);
    const settled: number[][] = [];
    const told = defineStrategy({
      name: 'told',
      createPolicy: recording([], { settleDelivery: (...args) => settled.push(args) }),
    });
    const other = createActor(throttlerMachine, { input: { rate: '5/1s', strategy: told, target: target.ref } });
    other.start();
    other.send({ type: 'QUEUE', message: { type: 'm' }, id: 'b', cost: 2 });
    advance(7);
    other.send({ type: 'ACTUAL_COST', id: 'b', cost: 1 });
    expect(settled).toEqual([[20, 2, 1, 27]]);
  });

  it('activate is called as the throttler becomes active, and a message goes only after it', () => {
    const calls: string[] = [];
    const strategy = defineStrategy({
      name: 'activating',
      createPolicy: recording(calls, { activate: (at) => calls.push(`activate at ${at}`) }),
    });
    const target = createRecorder();
    const actor = createActor(throttlerMachine, { input: { rate: '5/1s', strategy, target: target.ref } }).start();
    actor.send({ type: 'QUEUE', message: { type: 'm' } });
    expect(calls.slice(2)).toEqual(['activate at 0', 'record 1 at 0']);
  });

  it("settlesInFlight: countUntil 'done' holds the cost until SETTLED, then releases it at that time", () => {
    const calls: string[] = [];
    const strategy = defineStrategy({
      name: 'holding',
      settlesInFlight: true,
      createPolicy: recording(calls, {
        holdInFlight: (cost) => calls.push(`hold ${cost}`),
        releaseInFlight: (at, cost) => calls.push(`release ${cost} at ${at}`),
      }),
    });
    const target = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: { rate: '5/1s', strategy, countUntil: 'done', target: target.ref },
    }).start();
    actor.send({ type: 'QUEUE', message: { type: 'm' }, cost: 2 });
    advance(30);
    actor.send({ type: 'SETTLED', cost: 2 });
    expect(calls.slice(2)).toEqual(['hold 2', 'release 2 at 30']);
  });
});

describe("windowUse's numbers (metrics)", () => {
  const rates: Rate[] = [
    { limit: 5, interval: 1000 },
    { limit: 50, interval: 60_000 },
  ];
  const policyAnswering = (appended: unknown[]) => {
    const faults = new PolicyFaults();
    const setup = {
      name: 'metered',
      leases: false,
      settlesInFlight: false,
      faults,
      create: (): StrategyPolicy => ({
        earliestDelivery: (at) => at,
        recordDelivery: () => {},
        windowUse: (_now, into) => into.push(...(appended as number[])),
      }),
    };
    return { policy: new OwnPolicy(setup, rates, 0), faults };
  };

  it('one finite number >= 0 per rate is taken as it is, after what the other policies put', () => {
    const { policy, faults } = policyAnswering([2, 7]);
    const into = [9];
    policy.windowUse(10, into);
    expect(into).toEqual([9, 2, 7]);
    expect(faults.take(false)).toBeUndefined();
  });

  it.each<[string, unknown[], number[]]>([
    ['NaN', [Number.NaN, 1], [0, 1]],
    ['a string', ['3', 1], [0, 1]],
    ['a negative number', [-1, 1], [0, 1]],
    ['Infinity', [1, Number.POSITIVE_INFINITY], [1, 0]],
    ['too few', [1], [1, 0]],
    ['too many', [1, 2, 3], [1, 2]],
  ])('%s is a breach, reported naming the call; the bad numbers read 0', (_case, appended, read) => {
    const { policy, faults } = policyAnswering(appended);
    const into = [9];
    policy.windowUse(10, into);
    expect(into).toEqual([9, ...read]);
    expect(faults.take(false)?.message).toMatch(
      /^strategy "metered": windowUse\(10\) must be one finite number >= 0 per rate \(2\), appended, got /,
    );
  });
});

describe('a createPolicy that throws', () => {
  const throwingFor = (limit: number) =>
    defineStrategy({
      name: 'picky',
      createPolicy: (rates, at) => {
        if (rates.some((rate) => rate.limit === limit)) throw new RangeError(`no limit of ${limit}`);
        return new FixedWindowPolicy(rates, at);
      },
    });

  it('for a configured list: refused as the throttler is created, naming the option', () => {
    expect(() => createThrottler({ rate: '5/1s', channels: { search: '3/1s' }, strategy: throwingFor(3) })).toThrow(
      'strategy "picky": createPolicy(channels.search) must be a function that returns a policy, not one that throws, got',
    );
  });

  it('at run time (a SET_RATE): reported, and that scope lets nothing go; the actor runs on', () => {
    const target = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: { rate: '5/1s', strategy: throwingFor(3), target: target.ref },
    });
    const errors: string[] = [];
    actor.on('strategyError', ({ error }) => errors.push(error.message));
    actor.start();
    actor.send({ type: 'SET_RATE', rate: '3/1s' });
    actor.send({ type: 'QUEUE', message: { type: 'm' } });
    expect(errors[0]).toMatch(/^strategy "picky": createPolicy must be a method that does not throw, got /);
    expect(target.received).toEqual([]);
    expect(actor.getSnapshot().status).toBe('active');
  });

  it('for a key at run time: reported at every event that asks, and made once it can be; the queue goes on', () => {
    let failing = false;
    const strategy = defineStrategy({
      name: 'flaky',
      createPolicy: (rates, at) => {
        if (failing && rates.length === 1 && rates[0]?.limit === 2) throw new RangeError('not now');
        return new FixedWindowPolicy(rates, at);
      },
    });
    const target = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: { rate: '10/1s', keys: { rate: '2/1s' }, strategy, target: target.ref },
    });
    const errors: string[] = [];
    actor.on('strategyError', ({ error }) => errors.push(error.message));
    actor.start();
    failing = true;
    actor.send({ type: 'QUEUE', channel: 'k', message: { type: 'a' } });
    actor.send({ type: 'QUEUE', channel: 'other', message: { type: 'b' } });
    expect(target.received).toEqual([]);
    // Each event asks again, and says so: nothing waits on a missing policy unheard.
    expect(errors.length).toBe(2);
    failing = false;
    actor.send({ type: 'RESUME' });
    expect(target.received.map(({ message }) => message)).toEqual([{ type: 'a' }, { type: 'b' }]);
    expect(errors.length).toBe(2);
    actor.stop();
  });
});

describe('a new key of a strategy of your own', () => {
  it('is asked before its first message goes: a fresh policy may not allow it at once', () => {
    // Nothing in its first 100 ms: a cold start the library's strategies do not have.
    const cold = defineStrategy({
      name: 'cold',
      createPolicy: (rates, made) => {
        const inner = new FixedWindowPolicy(rates, made);
        return {
          earliestDelivery: (at: number, cost: number) => Math.max(made + 100, inner.earliestDelivery(at, cost)),
          recordDelivery: (at: number, cost: number) => inner.recordDelivery(at, cost),
        };
      },
    });
    const target = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: { rate: '10/1s', keys: { rate: '5/1s' }, strategy: cold, target: target.ref },
    });
    actor.start();
    advance(200);
    actor.send({ type: 'QUEUE', channel: 'k', message: { type: 'a' } });
    expect(target.received).toEqual([]);
    advance(100);
    expect(target.received.map(({ message: sent, at }) => [sent, at])).toEqual([[{ type: 'a' }, 300]]);
    actor.stop();
  });
});

/** A fixed window whose recordDelivery always throws (the delivery stands; the breach is reported). */
function throwingRecord(name: string) {
  return defineStrategy({
    name,
    createPolicy: (rates, at) => {
      const inner = new FixedWindowPolicy(rates, at);
      return {
        earliestDelivery: (now: number, cost: number) => inner.earliestDelivery(now, cost),
        recordDelivery: () => {
          throw new RangeError('full');
        },
      };
    },
  });
}
