import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { createThrottler, throttlerMachine } from '../../src/index.js';
import { throttleQueue } from '../../src/rxjs/index.js';
import { expectOptionError } from '../support/option-error.js';

/**
 * Plain JavaScript: an option name the call does not know is an error naming it and its value, with
 * what was meant: another library's name for one of ours (computed from the value), or a typo's
 * nearest known name. TypeScript callers meet the same names as compile errors.
 */
const create = (options: object) => () => createThrottler(options as never);

describe('unknown option names', () => {
  it.each([
    [{ rate: '10/1s', concurrency: 4 }, 'concurrency', 4, "maxConcurrent: 4 (p-queue's concurrency)"],
    [{ minTime: 100 }, 'minTime', 100, "rate: '1/100ms' (Bottleneck's minTime: at most one start every 100 ms)"],
    [
      { minTime: 250, maxConcurrent: 1 },
      'minTime',
      250,
      "rate: '1/250ms' (Bottleneck's minTime: at most one start every 250 ms)",
    ],
    [{ intervalCap: 10, interval: 1000 }, 'intervalCap', 10, "rate: '10/1000ms' (p-queue's intervalCap per interval)"],
    [{ intervalCap: 10 }, 'intervalCap', 10, "rate: '10/<interval>' (p-queue's intervalCap per interval)"],
    [{ interval: 1000, limit: 5 }, 'interval', 1000, "rate: '5/1000ms' (the limit per interval in one string)"],
    [{ rate: '1/1s', highWater: 50 }, 'highWater', 50, "capacity: 50 (Bottleneck's highWater)"],
    [
      { rate: '1/1s', timeout: 500 },
      'timeout',
      500,
      'the per-task option: schedule(fn, { timeout }), or for every task taskDefaults: { timeout }',
    ],
  ])('%j: refused, naming %s and its value, with what was meant', (options, name, value, meant) => {
    expectOptionError(create(options), {
      message: `${name} is not an option of createThrottler (got ${value}): did you mean ${meant}?`,
      option: name,
      value,
    });
  });

  it.each([
    ['maxConcurent', 'maxConcurrent'],
    ['maxconcurrent', 'maxConcurrent'],
    ['stratgey', 'strategy'],
    ['chanels', 'channels'],
    ['capcity', 'capacity'],
    ['serverLimit', 'serverLimits'],
  ])('a typo, %s, suggests %s', (typo, meant) => {
    expect(create({ rate: '1/1s', [typo]: 1 })).toThrow(
      `${typo} is not an option of createThrottler (got 1): did you mean ${meant}?`,
    );
  });

  it('a name nowhere near a real one lists the options; __proto__ is a name like any other', () => {
    expect(create({ rate: '1/1s', colour: 'blue' })).toThrow(
      /^colour is not an option of createThrottler \(got "blue"\); the options are rate, strategy, .*serverLimits, onHandlerError, taskDefaults$/,
    );
    const hostile = JSON.parse('{"rate":"1/1s","__proto__":{"x":1}}');
    expect(create(hostile)).toThrow(/^__proto__ is not an option of createThrottler \(got \{"x":1\}\)/);
  });

  it('an unknown name whose value is undefined is left alone (a spread of optional settings)', () => {
    const throttler = createThrottler({ rate: '1/1s', concurrency: undefined } as never);
    void throttler.stop();
  });

  it('throttleQueue and the machine input check their own names', () => {
    expect(() => throttleQueue({ rate: '1/1s', onDrop: () => {} } as never)).toThrow(
      'onDrop is not an option of throttleQueue (got a function): did you mean onDropped?',
    );
    const actor = createActor(throttlerMachine, { input: { rate: '1/1s', concurrency: 2 } as never });
    expect(actor.getSnapshot().status).toBe('error');
    expect((actor.getSnapshot() as { error?: Error }).error?.message).toBe(
      "concurrency is not an option of the throttler input (got 2): did you mean maxConcurrent: 2 (p-queue's concurrency)?",
    );
  });
});

describe("a task's option names", () => {
  it('a typo or another library name in schedule(task, options) rejects the task, naming it', async () => {
    const throttler = createThrottler({ rate: '10/1s' });
    await expect(throttler.schedule(() => 1, { timout: 5_000 } as never)).rejects.toThrow(
      'timout is not an option of schedule(task, options) (got 5000): did you mean timeout?',
    );
    await expect(throttler.schedule(() => 1, { weight: 2 } as never)).rejects.toThrow(
      "weight is not an option of schedule(task, options) (got 2): did you mean cost: 2 (Bottleneck's weight)?",
    );
    await expect(throttler.schedule(() => 1, { expiration: 500 } as never)).rejects.toThrow(
      "expiration is not an option of schedule(task, options) (got 500): did you mean timeout: 500 (Bottleneck's expiration)?",
    );
    await expect(throttler.schedule(() => 'ok', { priority: 7, id: 'a' })).resolves.toBe('ok');
    expect(throttler.size).toBe(0);
    await throttler.stop();
  });
});

describe('options that are no object at all', () => {
  it('are refused as options, not as a list of unknown names', () => {
    expect(create('10/1s' as never)).toThrow(
      'options must be an object with at least a rate, e.g. { rate: "10/1s" }, got "10/1s"',
    );
    expect(() => throttleQueue('10/1s' as never)).toThrow('options must be an object with at least a rate');
  });
});
