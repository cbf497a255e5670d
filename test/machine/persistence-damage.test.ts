import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { restoreThrottler, type ThrottlerInput, ThrottlerOptionError, throttlerMachine } from '../../src/index.js';
import { createRecorder } from '../support/recorder.js';
import { advance, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

beforeEach(useVirtualTime);
afterEach(restoreRealTime);

/** A JSON value as a test reaches into it. */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Key = string | number;

const MISSING = Symbol('missing');
type Damage = unknown | typeof MISSING;

/** The snapshots to damage: every strategy, several rates, channels (one named "__proto__"), a queue, a pause. */
const INPUTS = {
  'sliding-window': {
    rate: ['3/1s', '10/1m'],
    strategy: 'sliding-window',
    channels: { search: '2/1s', ['__proto__']: '2/1s' },
    capacity: 10,
  },
  timer: { rate: ['3/1s', '5/1m'], channels: { search: '2/1s' } },
  'token-bucket': { rate: '2/1s', strategy: 'token-bucket', maxBurst: 3 },
  'warming-up': { rate: '4/1s', strategy: 'warming-up', warmup: '2s' },
} as const satisfies Record<string, Omit<ThrottlerInput, 'target'>>;
type SnapshotName = keyof typeof INPUTS;

function savedSnapshot(name: SnapshotName): { [key: string]: Json } {
  const actor = createActor(throttlerMachine, {
    input: { ...INPUTS[name], target: createRecorder().ref } as ThrottlerInput,
  }).start();
  const input: Omit<ThrottlerInput, 'target'> = INPUTS[name];
  const configured = Object.keys(input.channels ?? {});
  const channels = ['search', undefined, '__proto__', 'search', undefined, '__proto__', undefined];
  for (const [index, channel] of channels.entries()) {
    actor.send({
      type: 'QUEUE',
      message: { type: 'job', n: index },
      channel: channel !== undefined && configured.includes(channel) ? channel : undefined,
      cost: index === 3 ? 2 : 1,
      id: `job-${index}`,
    });
  }
  advance(100);
  actor.send({ type: 'PAUSE', duration: 5_000 });
  const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
  actor.stop();
  return saved;
}

const D = 'persisted.context.dispatcher';
const S = `${D}.state`;

/** The snapshot's key path for an option path such as `persisted.context.dispatcher.state.queue[0].cost`. */
function keysOf(option: string): Key[] {
  const keys: Key[] = [];
  for (const match of option.replace(/^persisted\.?/, '').matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    keys.push(match[2] === undefined ? (match[1] as string) : Number(match[2]));
  }
  return keys;
}

function damage(saved: { [key: string]: Json }, keys: readonly Key[], value: Damage): void {
  let node: Json = saved;
  for (const key of keys.slice(0, -1)) node = (node as Record<Key, Json>)[key] as Json;
  const last = keys.at(-1) as Key;
  if (value === MISSING) {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else delete (node as Record<Key, Json>)[last];
  } else {
    (node as Record<Key, unknown>)[last] = value;
  }
}

function read(saved: { [key: string]: Json }, option: string): unknown {
  let node: unknown = saved;
  for (const key of keysOf(option)) node = (node as Record<Key, unknown>)[key];
  return node;
}

/** Bad values by what the field holds. */
const BAD_TIMES: Damage[] = [MISSING, 'x', '1000', null, true, Number.NaN, Number.POSITIVE_INFINITY, -Infinity, 1e300];
const BAD_COUNTS: Damage[] = [MISSING, 'x', null, Number.NaN, Number.POSITIVE_INFINITY, -1, 1.5, 2 ** 53];
const BAD_COSTS: Damage[] = [...BAD_COUNTS, 0];
const NOT_OBJECTS: Damage[] = [MISSING, 'x', 5, null, []];
const NOT_ARRAYS: Damage[] = [MISSING, 'x', 5, null, {}];

interface Row {
  snapshot: SnapshotName;
  /** The option path the error must name; the field damaged, unless `damaged` says which. */
  option: string;
  values: Damage[];
  /** Another field to damage instead, computed from the snapshot (e.g. out of order relative to a neighbour). */
  damaged?: string;
  /** The value the error must show, when it is not the damaged value itself. */
  shown?: (saved: { [key: string]: Json }) => unknown;
}

const SW = 'sliding-window' as const;
const overall = `${S}.overall`;
const timerPart = `${S}.overall.parts[0]`;
const bucketPart = `${S}.overall.parts[0]`;

const ROWS: Row[] = [
  // The dispatcher's own fields.
  { snapshot: SW, option: `${D}.options`, values: NOT_OBJECTS },
  { snapshot: SW, option: `${D}.options.channels`, values: NOT_ARRAYS },
  { snapshot: SW, option: `${D}.options.channels[0]`, values: ['x', 5, null, {}] },
  { snapshot: SW, option: `${D}.options.channels[0][0]`, values: [5, null] },
  { snapshot: SW, option: `${D}.options.channels[1][0]`, values: ['search'] },
  { snapshot: SW, option: `${D}.options.strategyOptions`, values: NOT_OBJECTS },
  { snapshot: SW, option: S, values: NOT_OBJECTS },
  { snapshot: SW, option: `${S}.queue`, values: NOT_ARRAYS },
  {
    snapshot: SW,
    option: `${S}.queue`,
    values: [Array.from({ length: 11 }, (_, n) => ({ message: { type: 'job', n }, cost: 1, queuedAt: 0 }))],
  },
  { snapshot: SW, option: `${S}.queue[0]`, values: ['x', 5, null, []] },
  { snapshot: SW, option: `${S}.queue[0].message`, values: [MISSING, 'x', 5, null] },
  { snapshot: SW, option: `${S}.queue[0].channel`, values: ['nope', 5, null, '', 'toString'] },
  { snapshot: SW, option: `${S}.queue[0].cost`, values: BAD_COSTS },
  { snapshot: SW, option: `${S}.savedAt`, values: BAD_TIMES },
  { snapshot: SW, option: `${S}.queue[1].queuedAt`, values: BAD_TIMES },
  // Later than the save (at 100).
  { snapshot: SW, option: `${S}.queue[1].queuedAt`, values: [101, 1e12] },
  { snapshot: SW, option: `${S}.overall.deliveries[2][0]`, values: [101, 1e12] },
  { snapshot: 'timer', option: `${S}.overall.parts[1].periodStart`, values: [101, 1e12] },
  {
    snapshot: SW,
    option: `${S}.channels`,
    values: [...NOT_ARRAYS, []],
    shown: (saved) => read(saved, `${S}.channels`),
  },
  { snapshot: SW, option: `${S}.channels[0]`, values: ['x', 5, null, {}] },
  { snapshot: SW, option: `${S}.channels[0][0]`, values: [5, null, 'nope', 'constructor'] },
  { snapshot: SW, option: `${S}.channels[1][0]`, values: ['search'] },
  { snapshot: SW, option: `${S}.channels[1][1]`, values: NOT_OBJECTS },
  { snapshot: SW, option: `${S}.channels[1][1].deliveries[0][0]`, values: BAD_TIMES.slice(1) },
  { snapshot: SW, option: `${S}.pausedUntil`, values: [MISSING, 'x', 'never', true, Number.NaN, Infinity, 1e300] },
  { snapshot: SW, option: `${S}.counts`, values: NOT_OBJECTS },
  { snapshot: SW, option: `${S}.counts.delivered`, values: BAD_COUNTS },
  { snapshot: SW, option: `${S}.counts.dropped`, values: BAD_COUNTS },
  { snapshot: SW, option: `${S}.counts.rejected`, values: BAD_COUNTS },
  { snapshot: SW, option: `${S}.counts.queued`, values: [...BAD_COUNTS, 0, 5, 100] },
  { snapshot: SW, option: 'persisted.context.version', values: ['x', null, Number.NaN, -1, 1.5] },
  // The sliding window's state.
  { snapshot: SW, option: overall, values: NOT_OBJECTS },
  { snapshot: SW, option: `${overall}.kind`, values: [MISSING, 'all-of', 'timer', 5] },
  { snapshot: SW, option: `${overall}.deliveries`, values: NOT_ARRAYS },
  { snapshot: SW, option: `${overall}.deliveries[1]`, values: ['x', null, {}, [], [1], [1, 1, 1]] },
  { snapshot: SW, option: `${overall}.deliveries[1][0]`, values: BAD_TIMES.slice(1) },
  { snapshot: SW, option: `${overall}.deliveries[1][1]`, values: BAD_COSTS.slice(1) },
  // Out of order: the second delivery before the first.
  { snapshot: SW, option: `${overall}.deliveries[1][0]`, values: [-1] },
  // A total past 2^52 would stop the log counting unit costs.
  { snapshot: SW, option: `${overall}.deliveries[1][1]`, values: [2 ** 52] },
  { snapshot: SW, option: `${overall}.inFlightCost`, values: [...BAD_COUNTS, 2 ** 52 + 1] },
  // The voucher timer's, one part per rate.
  { snapshot: 'timer', option: `${overall}.kind`, values: ['sliding-window', MISSING] },
  {
    snapshot: 'timer',
    option: `${overall}.parts`,
    values: [...NOT_ARRAYS, []],
    shown: (saved) => read(saved, `${overall}.parts`),
  },
  { snapshot: 'timer', option: timerPart, values: ['x', 5, null, []] },
  { snapshot: 'timer', option: `${timerPart}.kind`, values: [MISSING, 'token-bucket', 'all-of'] },
  { snapshot: 'timer', option: `${timerPart}.periodStart`, values: BAD_TIMES.filter((value) => value !== null) },
  { snapshot: 'timer', option: `${timerPart}.vouchers`, values: [...BAD_COUNTS, 4] },
  {
    snapshot: 'timer',
    option: `${timerPart}.latestDeliveryPeriodEnd`,
    values: [...BAD_TIMES.filter((value) => value !== null), 5_000],
  },
  { snapshot: 'timer', option: `${S}.channels[0][1].parts[0].vouchers`, values: [3] },
  // A period end without a period.
  {
    snapshot: 'timer',
    option: `${timerPart}.latestDeliveryPeriodEnd`,
    damaged: `${timerPart}.periodStart`,
    values: [null],
    shown: (saved) => read(saved, `${timerPart}.latestDeliveryPeriodEnd`),
  },
  // The token bucket's and the warm-up's.
  { snapshot: 'token-bucket', option: `${bucketPart}.kind`, values: [MISSING, 'warming-up', 'timer'] },
  {
    snapshot: 'token-bucket',
    option: `${bucketPart}.storedPermits`,
    values: [MISSING, 'x', null, Number.NaN, -1, Infinity, 3.5],
  },
  {
    snapshot: 'token-bucket',
    option: `${bucketPart}.maxPermits`,
    values: [MISSING, 'x', null, Number.NaN, -1, Infinity],
  },
  { snapshot: 'token-bucket', option: `${bucketPart}.nextFree`, values: BAD_TIMES },
  { snapshot: 'warming-up', option: `${bucketPart}.kind`, values: ['token-bucket'] },
  { snapshot: 'warming-up', option: `${bucketPart}.storedPermits`, values: [Number.NaN, -0.5, 1e9] },
  { snapshot: 'warming-up', option: `${bucketPart}.nextFree`, values: [Number.NaN, 'x', 1e300] },
];

const describeDamage = (value: Damage): string =>
  value === MISSING ? 'missing' : typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));

describe('restoreThrottler refuses a damaged snapshot with one error naming the field and the value', () => {
  const cases = ROWS.flatMap((row) => row.values.map((value) => ({ ...row, value, label: describeDamage(value) })));

  it.each(cases)('$snapshot: $option $label', ({ snapshot, option, damaged, value, shown }) => {
    const saved = savedSnapshot(snapshot);
    // Untouched, it restores.
    restoreThrottler(structuredClone(saved)).stop();
    damage(saved, keysOf(damaged ?? option), value);
    let thrown: unknown;
    try {
      restoreThrottler(saved);
    } catch (error) {
      thrown = error;
    }
    expect(thrown, `expected a ThrottlerOptionError naming ${option}`).toBeInstanceOf(ThrottlerOptionError);
    const error = thrown as ThrottlerOptionError;
    expect(error.option).toBe(option);
    expect(error.message.startsWith(`${option} must be `)).toBe(true);
    const expectedValue = shown ? shown(saved) : value === MISSING ? undefined : value;
    expect(error.value).toEqual(expectedValue);
  });

  it('names the field and the value in words', () => {
    const saved = savedSnapshot(SW);
    damage(saved, keysOf(`${overall}.deliveries[2][0]`), 'x');
    expect(() => restoreThrottler(saved)).toThrow(
      `${overall}.deliveries[2][0] must be a wall-clock time in ms (finite, within the range of a Date), got "x"`,
    );
    const outOfOrder = savedSnapshot(SW);
    const first = read(outOfOrder, `${overall}.deliveries[0][0]`) as number;
    damage(outOfOrder, keysOf(`${overall}.deliveries[1][0]`), first - 1);
    expect(() => restoreThrottler(outOfOrder)).toThrow(
      `${overall}.deliveries[1][0] must be a time no earlier than the delivery before it (${first}), got ${first - 1}`,
    );
    const vouchers = savedSnapshot('timer');
    damage(vouchers, keysOf(`${timerPart}.vouchers`), 4);
    expect(() => restoreThrottler(vouchers)).toThrow(`${timerPart}.vouchers must be at most 3 (the limit), got 4`);
    const permits = savedSnapshot('token-bucket');
    damage(permits, keysOf(`${bucketPart}.storedPermits`), 3.5);
    expect(() => restoreThrottler(permits)).toThrow(
      `${bucketPart}.storedPermits must be a number of permits from 0 to maxPermits (3), got 3.5`,
    );
    const queued = savedSnapshot(SW);
    damage(queued, keysOf(`${S}.counts.queued`), 100);
    expect(() => restoreThrottler(queued)).toThrow(`${S}.counts.queued must be 4 (the messages in the queue), got 100`);
  });
});

describe('a wall clock that reads earlier than the save at the restore', () => {
  it('counts as the moment of the save: the window waits out only what is left of it', () => {
    vi.setSystemTime(10_000);
    const before = createRecorder();
    const actor = createActor(throttlerMachine, {
      input: { rate: '2/1s', strategy: 'sliding-window', target: before.ref },
    }).start();
    for (let n = 1; n <= 4; n++) actor.send({ type: 'QUEUE', message: { type: 'job', n } });
    advance(300);
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    expect(saved.context.dispatcher.state.savedAt).toBe(10_300);
    expect(before.times()).toEqual([0, 0]);
    // Stepped back 5.3 s (or another machine's clock): read as is, the two deliveries at 10000 would lie
    // 5 s in the future of the new process and hold the window for 6 s.
    vi.setSystemTime(5_000);
    const after = createRecorder();
    const restartedAt = performance.now();
    restoreThrottler(saved, { target: after.ref });
    advance(2_000);
    expect(after.times().map((at) => at - restartedAt)).toEqual([700, 700]);
  });
});
