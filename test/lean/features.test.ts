import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { auditThrottler, createThrottler, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import {
  audit,
  createThrottler as createLeanThrottler,
  dimensions,
  fairness,
  throttlerMachine as leanThrottlerMachine,
  optionHints,
  restoreThrottler as restoreLeanThrottler,
  retry,
  settle,
  transit,
} from '../../src/lean/index.js';
import { serverLimits } from '../../src/server-limits/index.js';
import { slidingWindow } from '../../src/strategies/index.js';
import { machineContext } from '../support/machine-context.js';
import { expectOptionError } from '../support/option-error.js';
import { advance, now, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/**
 * Features as values (engine/options/features-option.ts): xstate-throttler/lean loads a feature only when the
 * app passes it, the main entry every one by itself. A question that needs a feature not given is refused
 * with what to import; given, the feature answers as the main entry's does.
 */
const AUDIT_MISSING =
  'features must be a list holding audit for auditThrottler: import { audit } from "xstate-throttler/lean" and ' +
  'pass features: [audit] (the main entry, "xstate-throttler", loads every feature), got an array of 0';

/** Ten tasks through a throttler of 3 per second, run to the end in virtual time: the audit's report. */
async function auditAfterTen(create: typeof createThrottler, features?: readonly (typeof audit)[]) {
  const throttler = create({ rate: '3/1s', strategy: slidingWindow, ...(features && { features }) });
  const startedAt = now();
  const tasks = Array.from({ length: 10 }, () => throttler.schedule(() => now() - startedAt));
  for (let step = 0; step < 40; step += 1) {
    advance(100);
    await Promise.resolve();
  }
  const starts = await Promise.all(tasks);
  const { since, rates, ...report } = auditThrottler(throttler);
  throttler.stop();
  // Times on the run's own clock, so that two runs one after the other compare.
  const relative = rates.map((rate) => ({ ...rate, mostAt: (rate.mostAt ?? 0) - startedAt }));
  return { starts, report: { ...report, since: since - startedAt, rates: relative } };
}

describe('the audit as a feature', () => {
  it('the lean throttler without it runs as before, and auditThrottler says what to import', async () => {
    const throttler = createLeanThrottler({ rate: '3/1s', strategy: slidingWindow });
    const started = throttler.schedule(() => 'ran');
    advance(0);
    expect(await started).toBe('ran');
    expectOptionError(() => auditThrottler(throttler), { message: AUDIT_MISSING, option: 'features', value: [] });
    throttler.stop();
  });

  it('given, the lean throttler reports the audit the main entry reports (which loads it by itself)', async () => {
    const main = await auditAfterTen(createThrottler);
    const lean = await auditAfterTen(createLeanThrottler, [audit]);
    expect(main.report.deliveries).toBe(10);
    expect(main.report.rates).toHaveLength(1);
    expect(main.report.rates[0]).toMatchObject({ scope: 'overall', most: 3, windowsOver: 0 });
    expect(lean).toEqual(main);
  });

  it('the lean machine and the lean restore take it in their own options; a snapshot saves none', () => {
    const input = { rate: '2/1s', strategy: slidingWindow, features: [audit] } as ThrottlerInput;
    const actor = createActor(leanThrottlerMachine, { input }).start();
    actor.send({ type: 'QUEUE', message: { type: 'one' } });
    expect(auditThrottler(actor).since).toBeTypeOf('number');
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    expect(saved.context.dispatcher.options).not.toHaveProperty('features');
    const without = restoreLeanThrottler(saved, { strategy: slidingWindow });
    expectOptionError(() => auditThrottler(without), { message: AUDIT_MISSING, option: 'features', value: [] });
    without.stop();
    const withAudit = restoreLeanThrottler(saved, { strategy: slidingWindow, features: [audit] });
    expect(auditThrottler(withAudit).deliveries).toBe(0);
    withAudit.stop();
  });

  it('the main entry audits with no features given, and takes the lean values too', () => {
    for (const features of [undefined, [audit]]) {
      const actor = createActor(throttlerMachine, { input: { rate: '2/1s', ...(features && { features }) } }).start();
      expect(auditThrottler(actor).deliveries).toBe(0);
      actor.stop();
    }
  });
});

describe('rates in dimensions as a feature', () => {
  const rate = { requests: '2/1s', tokens: '100/1s' };
  const missing = (option: string) =>
    `features must be a list holding dimensions for ${option}: import { dimensions } from "xstate-throttler/lean" ` +
    'and pass features: [dimensions] (the main entry, "xstate-throttler", loads every feature), got ';

  it('the lean throttler refuses a rate in dimensions without it, naming the first dimension', () => {
    expectOptionError(() => createLeanThrottler({ rate, strategy: slidingWindow }), {
      message: `${missing('rate.requests')}an array of 0`,
      option: 'features',
      value: [],
    });
    expectOptionError(() => createLeanThrottler({ rate, strategy: slidingWindow, features: [audit] }), {
      message: `${missing('rate.requests')}an array of 1`,
      option: 'features',
      value: ['audit'],
    });
  });

  /** Tasks costing tokens, each start's time after the first: the tokens bind before the requests do. */
  async function startsOf(create: typeof createThrottler, features?: readonly (typeof dimensions)[]) {
    const throttler = create({ rate, strategy: slidingWindow, ...(features && { features }) });
    const startedAt = now();
    const tasks = [60, 60, 30, 50].map((tokens) =>
      throttler.schedule(() => now() - startedAt, { cost: { requests: 1, tokens } }),
    );
    for (let step = 0; step < 40; step += 1) {
      advance(100);
      await Promise.resolve();
    }
    const starts = await Promise.all(tasks);
    throttler.stop();
    return starts;
  }

  it('given, the lean throttler counts every dimension as the main entry does', async () => {
    const main = await startsOf(createThrottler);
    // 60 + 60 tokens exceed 100 in one second: the second waits a window, though requests allow two.
    expect(main[1]).toBeGreaterThanOrEqual(1_000);
    expect(await startsOf(createLeanThrottler, [dimensions])).toEqual(main);
  });
});

describe('option-name hints as a feature', () => {
  /** The error a lean machine's input puts its actor in (XState's error status: nothing throws). */
  const inputError = (input: ThrottlerInput) =>
    (createActor(leanThrottlerMachine, { input }).getSnapshot() as { error?: Error }).error?.message;
  const plain = (where: string, got: string) =>
    new RegExp(`^concurrency is not an option of ${where} \\(got ${got}\\); the options are rate, strategy, `);
  const meant = (where: string) =>
    `concurrency is not an option of ${where} (got 2): did you mean maxConcurrent: 2 (p-queue's concurrency)?`;

  it('the lean throttler without it refuses an unknown name all the same, listing the options', async () => {
    expect(() => createLeanThrottler({ rate: '1/1s', strategy: slidingWindow, concurrency: 2 } as never)).toThrow(
      plain('createThrottler', '2'),
    );
    const input = { rate: '1/1s', strategy: slidingWindow, concurrency: 2 } as ThrottlerInput;
    expect(inputError(input)).toMatch(plain('the throttler input', '2'));
    const throttler = createLeanThrottler({ rate: '1/1s', strategy: slidingWindow, features: [retry] });
    await expect(throttler.schedule(() => 1, { timout: 5 } as never)).rejects.toThrow(
      /^timout is not an option of schedule\(task, options\) \(got 5\); the options are channel, cost, /,
    );
    await expect(throttler.schedule(() => 1, { retry: { retries: 1, retyrOn: () => true } } as never)).rejects.toThrow(
      /^retry\.retyrOn is not an option of retry \(got a function\); the options are retries, backoff, /,
    );
    await expect(throttler.stop({ drian: true } as never)).rejects.toThrow(
      'drian is not an option of stop(options) (got true); the options are drain, dropWaitingJobs',
    );
  });

  it('given, the lean throttler says what was meant, as the main entry does', async () => {
    for (const create of [createThrottler, createLeanThrottler]) {
      const options = { rate: '1/1s', strategy: slidingWindow, features: [optionHints], concurrency: 2 };
      expect(() => create(options as never)).toThrow(meant('createThrottler'));
      const throttler = create({ rate: '1/1s', strategy: slidingWindow, features: [optionHints, retry] });
      await expect(throttler.schedule(() => 1, { timout: 5 } as never)).rejects.toThrow(
        'timout is not an option of schedule(task, options) (got 5): did you mean timeout?',
      );
      await expect(
        throttler.schedule(() => 1, { retry: { retries: 1, retyrOn: () => true } } as never),
      ).rejects.toThrow('retry.retyrOn is not an option of retry (got a function): did you mean retryOn?');
      await expect(throttler.stop({ drian: true } as never)).rejects.toThrow(
        'drian is not an option of stop(options) (got true): did you mean drain?',
      );
    }
    const input = { rate: '1/1s', strategy: slidingWindow, features: [optionHints], concurrency: 2 } as ThrottlerInput;
    expect(inputError(input)).toBe(meant('the throttler input'));
  });
});

describe('retries as a feature', () => {
  const missing =
    'features must be a list holding retry for a task\'s retry option: import { retry } from "xstate-throttler/lean" ' +
    'and pass features: [retry] (the main entry, "xstate-throttler", loads every feature), got ';

  it('the lean throttler refuses a retry without it, in schedule and in taskDefaults', async () => {
    const throttler = createLeanThrottler({ rate: '10/1s', strategy: slidingWindow, features: [audit] });
    await expect(throttler.schedule(() => 1, { retry: { retries: 2 } })).rejects.toThrow(`${missing}an array of 1`);
    expect(await throttler.schedule(() => 'no retry asked')).toBe('no retry asked');
    throttler.stop();
    expect(() =>
      createLeanThrottler({ rate: '10/1s', strategy: slidingWindow, taskDefaults: { retry: { retries: 2 } } }),
    ).toThrow(`taskDefaults.${missing}`);
  });

  /** A task failing twice, then succeeding: its attempts' times after the first, and its outcome. */
  async function twoFailures(create: typeof createThrottler, features?: readonly (typeof retry)[]) {
    const throttler = create({ rate: '10/1s', strategy: slidingWindow, ...(features && { features }) });
    const startedAt = now();
    const attempts: number[] = [];
    const outcome = throttler.schedule(
      () => {
        attempts.push(now() - startedAt);
        if (attempts.length < 3) throw new Error(`attempt ${attempts.length}`);
        return 'third time';
      },
      { retry: { retries: 3, backoff: { initial: 200, random: () => 1 } } },
    );
    for (let step = 0; step < 20; step += 1) {
      advance(100);
      await Promise.resolve();
    }
    const result = await outcome;
    throttler.stop();
    return { attempts, result };
  }

  it('given, the lean throttler retries as the main entry does', async () => {
    const main = await twoFailures(createThrottler);
    expect(main).toEqual({ attempts: [0, 200, 600], result: 'third time' });
    expect(await twoFailures(createLeanThrottler, [retry])).toEqual(main);
  });
});

describe('estimate-then-settle as a feature', () => {
  const missing = (need: string) =>
    `features must be a list holding settle for ${need}: import { settle } from "xstate-throttler/lean" ` +
    'and pass features: [settle] (the main entry, "xstate-throttler", loads every feature), got an array of 0';

  it("the lean throttler refuses a task's settle and ACTUAL_COST without it", async () => {
    const throttler = createLeanThrottler({ rate: '10/1s', strategy: slidingWindow });
    await expect(throttler.schedule(() => 1, { settle: () => 2 })).rejects.toThrow(missing("a task's settle option"));
    throttler.stop();
    const refused: string[] = [];
    const input = { rate: '10/1s', strategy: slidingWindow } as ThrottlerInput;
    const actor = createActor(leanThrottlerMachine, { input });
    actor.on('invalidEvent', (event) => refused.push(event.error.message));
    actor.start();
    actor.send({ type: 'ACTUAL_COST', id: 'm1', cost: 2 });
    expect(refused).toEqual([missing('ACTUAL_COST')]);
    actor.stop();
  });

  /** Three tasks of estimate 1 each settling at 4, under 5 per second: when each starts. */
  async function settledStarts(create: typeof createThrottler, features?: readonly (typeof settle)[]) {
    const throttler = create({ rate: '5/1s', strategy: slidingWindow, ...(features && { features }) });
    const startedAt = now();
    const tasks = [0, 1, 2].map(() => throttler.schedule(() => now() - startedAt, { settle: () => 4 }));
    for (let step = 0; step < 40; step += 1) {
      advance(100);
      await Promise.resolve();
    }
    const starts = await Promise.all(tasks);
    throttler.stop();
    return starts;
  }

  it('given, the lean throttler charges the actual costs as the main entry does', async () => {
    const main = await settledStarts(createThrottler);
    expect(main[2]).toBeGreaterThanOrEqual(1_000);
    expect(await settledStarts(createLeanThrottler, [settle])).toEqual(main);
  });
});

describe('weighted fairness as a feature', () => {
  it('the lean throttler refuses fairness "weighted" without it', () => {
    expectOptionError(() => createLeanThrottler({ rate: '2/1s', strategy: slidingWindow, fairness: 'weighted' }), {
      message:
        'features must be a list holding fairness for fairness "weighted": import { fairness } from ' +
        '"xstate-throttler/lean" and pass features: [fairness] (the main entry, "xstate-throttler", loads every ' +
        'feature), got an array of 0',
      option: 'features',
      value: [],
    });
  });

  /** A backlog of key a (weight 3) and key b (weight 1) under 4 per second: the keys in the order they start. */
  async function fairOrder(create: typeof createThrottler, features?: readonly (typeof fairness)[]) {
    const throttler = create({
      rate: '4/1s',
      strategy: slidingWindow,
      keys: { rate: '100/1s' },
      fairness: 'weighted',
      weight: (key) => (key === 'a' ? 3 : 1),
      ...(features && { features }),
    });
    const order: string[] = [];
    const tasks = ['a', 'a', 'a', 'a', 'a', 'a', 'b', 'b', 'b', 'b'].map((key) =>
      throttler.schedule(() => order.push(key), { channel: key }),
    );
    for (let step = 0; step < 40; step += 1) {
      advance(100);
      await Promise.resolve();
    }
    await Promise.all(tasks);
    throttler.stop();
    return order;
  }

  it('given, the lean throttler shares the limit by weight as the main entry does', async () => {
    const main = await fairOrder(createThrottler);
    expect(main.slice(0, 8).filter((key) => key === 'a')).toHaveLength(6);
    expect(await fairOrder(createLeanThrottler, [fairness])).toEqual(main);
  });
});

describe('transit as a feature', () => {
  it('the lean throttler refuses a transit other than 0 without it, and serverLimits measures none', () => {
    expectOptionError(() => createLeanThrottler({ rate: '2/1s', strategy: slidingWindow, transit: '150ms' }), {
      message:
        'features must be a list holding transit for a transit other than 0: import { transit } from ' +
        '"xstate-throttler/lean" and pass features: [transit] (the main entry, "xstate-throttler", loads every ' +
        'feature), got an array of 0',
      option: 'features',
      value: [],
    });
    for (const given of [0, undefined]) {
      const throttler = createLeanThrottler({ rate: '2/1s', strategy: slidingWindow, transit: given });
      expect(machineContext(throttler.actor).dispatcher.options.transit).toBe(0);
      throttler.stop();
    }
    // serverLimits measures the transit by default where the feature is loaded, none without it.
    for (const [features, measured] of [
      [[], 0],
      [[transit], { measure: true }],
    ] as const) {
      const throttler = createLeanThrottler({
        rate: '2/1s',
        strategy: slidingWindow,
        serverLimits: serverLimits(),
        features,
      });
      expect(machineContext(throttler.actor).dispatcher.options.transit).toEqual(measured);
      throttler.stop();
    }
  });

  // That the windows then widen by J, on the lean machine as on the main one: test/machine/transit.test.ts.
  it('given, the lean machine reads the transit', () => {
    const input = { rate: '2/1s', strategy: slidingWindow, transit: '250ms', features: [transit] } as ThrottlerInput;
    const lean = createActor(leanThrottlerMachine, { input }).start();
    expect(machineContext(lean).dispatcher.options.transit).toBe(250);
    lean.stop();
  });
});

describe('the features option', () => {
  /** A Proxy whose every read throws, as a hostile caller could pass. */
  const throwing = new Proxy(
    {},
    {
      get: () => {
        throw new Error('read');
      },
    },
  );
  const requirement =
    'a feature value (audit, dimensions, exactTimers, fairness, optionHints, overflow, rateLimitWatch, retry, settle, timeout, transit) imported from "xstate-throttler/lean"';

  it.each<[string, unknown, string, unknown, string]>([
    ['not an array', audit, 'features', audit, 'an array of feature values, e.g. [audit]'],
    ['a name', ['audit'], 'features[0]', 'audit', requirement],
    ['an object that is no feature', [audit, { feature: 'audits' }], 'features[1]', { feature: 'audits' }, requirement],
    ['null', [null], 'features[0]', null, requirement],
    [
      "a look-alike without the feature's code",
      [{ feature: 'audit' }],
      'features[0]',
      { feature: 'audit' },
      requirement,
    ],
  ])('refuses %s, naming the index', (_, features, option, value, must) => {
    for (const create of [createThrottler, createLeanThrottler]) {
      let thrown: unknown;
      try {
        create({ rate: '1/1s', strategy: slidingWindow, features: features as never });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ name: 'ThrottlerOptionError', option, value });
      expect((thrown as Error).message).toContain(`${option} must be ${must}, got`);
    }
  });

  it('refuses one whose fields throw when read, as a feature value, naming the index', () => {
    for (const create of [createThrottler, createLeanThrottler]) {
      expect(() => create({ rate: '1/1s', strategy: slidingWindow, features: [audit, throwing] as never })).toThrow(
        `features[1] must be ${requirement}, got an object that throws when read`,
      );
    }
  });
});
