/**
 * Every contender in one place: our three ways in (the machine, the promise
 * API, the RxJS operator), the libraries users would pick instead, each in the
 * configuration closest to ours, and two bare baselines that limit nothing.
 *
 * A contender opens an instance for a rate and a start callback; the workloads
 * then hand it tasks (the object a user of that API hands over), in order, and
 * read the start times from the callback. Every contender does the same work:
 * one object per task, one call per task (or one value per task through a
 * stream), the task's function run exactly once.
 */
import Bottleneck from 'bottleneck';
import { RateLimiter } from 'limiter';
import PQueue from 'p-queue';
import pThrottle from 'p-throttle';
import { Subject } from 'rxjs';
import { type AnyActorRef, assign, createActor, fromCallback, sendTo, setup } from 'xstate';
import { createThrottler, preciseClock, throttlerMachine } from '../src/index.js';
import { throttleQueue } from '../src/rxjs/index.js';

/** At most `limit` task starts per `interval` milliseconds. */
export interface RateSpec {
  limit: number;
  interval: number;
}

/** One limiter (or baseline) set up for one run. */
export interface Instance {
  /** The object a user of this API hands over for task `index`: a function, or a message. */
  task(index: number): unknown;
  /**
   * Hands `tasks` over in order. Where the API gives back a promise per task it
   * is stored in `promises` at the task's index, for the caller to await or catch.
   */
  submit(tasks: readonly unknown[], promises: unknown[]): void;
  /** Stops cleanly: waiting tasks are dropped (rejected where the API has promises), timers cleared. */
  stop(): void | Promise<void>;
  /** False when the library has no way to stop or clear what waits (its timers keep the process alive). */
  readonly stoppable: boolean;
}

export interface Contender {
  /** Short stable id, used on the command line and in the test. */
  id: string;
  /** What the table shows. */
  name: string;
  kind: 'ours' | 'peer' | 'baseline';
  /** Whether it holds waiting tasks in a queue of its own (p-throttle and limiter park each one on a timer). */
  queues: boolean;
  /** The configuration, as code, for a rate (the README shows it). */
  configuration(rate: RateSpec): string;
  /** Why this is the closest configuration to ours. */
  why: string;
  /** The workloads it runs in (default: W1-W5; baselines only where they have something to show). */
  workloads?: readonly Workload[];
  /**
   * The baseline that is the least an API of its kind can cost (a bare XState machine for the machine,
   * a bare batching promise API for the promise API): the tables show how close to it this contender is.
   */
  floor?: string;
  /**
   * W1 and W4 run this fraction of their task count for this contender, once (default: all of it, every
   * round). Only for a library too slow to finish the full count in reasonable time; its rate is per task.
   */
  scale?: { fraction: number; reason: string };
  open(rate: RateSpec, onStart: (index: number) => void): Instance;
}

export type Workload = 'w1' | 'w2' | 'w3' | 'w4' | 'w5';

type TaskFunction = () => unknown;

function taskFunction(onStart: (index: number) => void): (index: number) => TaskFunction {
  return (index) => () => onStart(index);
}

/** Promise-per-task APIs: `call` hands one function over and returns its promise. */
function promiseInstance(
  onStart: (index: number) => void,
  call: (task: TaskFunction) => Promise<unknown>,
  stop: () => void | Promise<void>,
  stoppable = true,
): Instance {
  return {
    task: taskFunction(onStart),
    submit(tasks, promises) {
      for (let index = 0; index < tasks.length; index++) promises[index] = call(tasks[index] as TaskFunction);
    },
    stop,
    stoppable,
  };
}

/** `'50/1000ms'`: our rate string for a spec (milliseconds, so any interval reads back exactly). */
export function rateString(rate: RateSpec): string {
  return `${rate.limit}/${rate.interval}ms`;
}

type IndexedMessage = { type: 'task'; index: number };

/** The target every machine contender delivers to: a callback actor that starts the task. */
function startingTarget(onStart: (index: number) => void): AnyActorRef {
  return createActor(
    fromCallback<IndexedMessage>(({ receive }) => {
      receive((event) => onStart(event.index));
    }),
  ).start();
}

/** An actor fed one QUEUE event per task that delivers to `target`: stopping stops both. */
function queueEventInstance(
  actor: { send(event: { type: 'QUEUE'; message: IndexedMessage }): void; stop(): void },
  target: AnyActorRef,
): Instance {
  return {
    task: (index) => ({ type: 'task', index }),
    submit(tasks) {
      for (let index = 0; index < tasks.length; index++) {
        actor.send({ type: 'QUEUE', message: tasks[index] as IndexedMessage });
      }
    },
    stop() {
      actor.stop();
      target.stop();
    },
    stoppable: true,
  };
}

/** One QUEUE per task through the machine with `strategy`; token-bucket and warming-up run in W1 only (issue 16's "every strategy"). */
function machineContender(strategy: 'sliding-window' | 'timer' | 'token-bucket' | 'warming-up'): Contender {
  const id = strategy === 'sliding-window' ? 'machine-sliding' : `machine-${strategy}`;
  // A warm-up as long as the interval: the throttler starts at a third of the rate, still far from binding.
  const strategyOptions = strategy === 'warming-up' ? { warmup: 1000 } : {};
  return {
    id,
    name: `ours: machine (${strategy})`,
    kind: 'ours',
    queues: true,
    // W5 runs each of our ways in once, strict: the timer strategy allows 2N in a window by design.
    ...(strategy === 'timer' ? { workloads: ['w1', 'w2', 'w3', 'w4'] as const } : {}),
    ...(strategy === 'token-bucket' || strategy === 'warming-up' ? { workloads: ['w1'] as const } : {}),
    floor: 'baseline-xstate',
    configuration: (rate) =>
      `createActor(throttlerMachine, { input: { rate: '${rateString(rate)}', strategy: '${strategy}',` +
      `${strategy === 'warming-up' ? ' warmup: 1000,' : ''} target } })` +
      ' + one QUEUE event per task; target: a fromCallback actor that runs the task',
    why: 'The actor API itself: QUEUE events in, the message delivered to a target actor.',
    open(rate, onStart) {
      const target = startingTarget(onStart);
      const actor = createActor(throttlerMachine, {
        input: { rate: rateString(rate), strategy, ...strategyOptions, target },
      }).start();
      return queueEventInstance(actor, target);
    },
  };
}

const OURS: Contender[] = [
  machineContender('sliding-window'),
  machineContender('timer'),
  machineContender('token-bucket'),
  machineContender('warming-up'),
  {
    id: 'machine-batch',
    name: 'ours: machine, QUEUE_BATCH (sliding-window)',
    kind: 'ours',
    queues: true,
    floor: 'baseline-xstate',
    configuration: (rate) =>
      `createActor(throttlerMachine, { input: { rate: '${rateString(rate)}', strategy: 'sliding-window', target } })` +
      ' + one QUEUE_BATCH event per hand-over (W1, W2: all tasks; W3: each burst); target as above',
    why:
      'The actor API for a burst that is at hand all at once: one event for the lot, each message then' +
      ' handled as its own QUEUE would be.',
    open(rate, onStart) {
      const target = startingTarget(onStart);
      const actor = createActor(throttlerMachine, {
        input: { rate: rateString(rate), strategy: 'sliding-window', target },
      }).start();
      return {
        task: (index) => ({ message: { type: 'task', index } }),
        submit(tasks) {
          actor.send({ type: 'QUEUE_BATCH', messages: tasks as ReadonlyArray<{ message: IndexedMessage }> });
        },
        stop() {
          actor.stop();
          target.stop();
        },
        stoppable: true,
      };
    },
  },
  {
    id: 'promise-sliding',
    name: 'ours: createThrottler (sliding-window)',
    kind: 'ours',
    queues: true,
    configuration: (rate) =>
      `createThrottler({ rate: '${rateString(rate)}', strategy: 'sliding-window' }).schedule(fn)`,
    why: 'The promise API, the one to compare with the promise-based peers.',
    floor: 'baseline-batched-promises',
    open(rate, onStart) {
      const throttler = createThrottler({ rate: rateString(rate), strategy: 'sliding-window' });
      return promiseInstance(
        onStart,
        (task) => throttler.schedule(task),
        () => throttler.stop(),
      );
    },
  },
  {
    id: 'machine-exact',
    name: "ours: machine (sliding-window, timerPrecision 'exact')",
    kind: 'ours',
    queues: true,
    workloads: ['w3'],
    configuration: (rate) =>
      `createActor(throttlerMachine, { input: { rate: '${rateString(rate)}', strategy: 'sliding-window',` +
      " timerPrecision: 'exact', target }, clock: preciseClock() }) + one QUEUE event per task",
    why: 'The machine with its wake-ups kept to the fraction of a millisecond (W3 only: the timer is all it changes).',
    open(rate, onStart) {
      const target = startingTarget(onStart);
      const actor = createActor(throttlerMachine, {
        input: { rate: rateString(rate), strategy: 'sliding-window', timerPrecision: 'exact', target },
        clock: preciseClock(),
      }).start();
      return queueEventInstance(actor, target);
    },
  },
  {
    id: 'promise-exact',
    name: "ours: createThrottler (sliding-window, timerPrecision 'exact')",
    kind: 'ours',
    queues: true,
    workloads: ['w3'],
    configuration: (rate) =>
      `createThrottler({ rate: '${rateString(rate)}', strategy: 'sliding-window', timerPrecision: 'exact' }).schedule(fn)`,
    why: 'The promise API with its wake-ups kept to the fraction of a millisecond (W3 only).',
    open(rate, onStart) {
      const throttler = createThrottler({
        rate: rateString(rate),
        strategy: 'sliding-window',
        timerPrecision: 'exact',
      });
      return promiseInstance(
        onStart,
        (task) => throttler.schedule(task),
        () => throttler.stop(),
      );
    },
  },
  {
    id: 'rxjs-sliding',
    name: 'ours: throttleQueue (sliding-window)',
    kind: 'ours',
    queues: true,
    configuration: (rate) =>
      `source.pipe(throttleQueue({ rate: '${rateString(rate)}', strategy: 'sliding-window' })).subscribe(run)`,
    why:
      'The RxJS operator. Values are pushed through a Subject so that W3 can send bursts over time into one' +
      ' pipeline; `from(values).pipe(...)` hands values over the same way (one next() each).',
    open(rate, onStart) {
      const source = new Subject<number>();
      const subscription = source
        .pipe(throttleQueue<number>({ rate: rateString(rate), strategy: 'sliding-window' }))
        .subscribe((index) => onStart(index));
      return {
        task: (index) => index,
        submit(tasks) {
          for (let index = 0; index < tasks.length; index++) source.next(tasks[index] as number);
        },
        stop: () => subscription.unsubscribe(),
        stoppable: true,
      };
    },
  },
];

const PEERS: Contender[] = [
  {
    id: 'bottleneck',
    name: 'Bottleneck 2 (reservoir)',
    kind: 'peer',
    queues: true,
    configuration: (rate) =>
      `new Bottleneck({ reservoir: ${rate.limit}, reservoirRefreshAmount: ${rate.limit}, ` +
      `reservoirRefreshInterval: ${rate.interval} }).schedule(fn)`,
    why:
      'N per interval is what its reservoir does; minTime would space every task by interval/N, which is a' +
      ' different (smoother, slower-to-burst) promise. Bottleneck has no sliding window: the reservoir is a' +
      ' fixed window refreshed by a 250 ms heartbeat.',
    scale: {
      fraction: 0.01,
      reason:
        'Bottleneck waits for a setTimeout(0) inside every submission (LocalDatastore.yieldLoop, behind a lock' +
        ' that admits one submission at a time), about 2.5 ms per task whatever the limit: 200,000 tasks would' +
        ' take over 8 minutes a round. It runs 1% of the tasks, one round.',
    },
    open(rate, onStart) {
      const limiter = new Bottleneck({
        reservoir: rate.limit,
        reservoirRefreshAmount: rate.limit,
        reservoirRefreshInterval: rate.interval,
      });
      return promiseInstance(
        onStart,
        (task) => limiter.schedule(task as () => Promise<unknown>),
        async () => {
          await limiter.stop({ dropWaitingJobs: true });
          await limiter.disconnect();
        },
      );
    },
  },
  {
    id: 'p-throttle',
    name: 'p-throttle 8 (strict)',
    kind: 'peer',
    queues: false,
    configuration: (rate) =>
      `pThrottle({ limit: ${rate.limit}, interval: ${rate.interval}, strict: true, signal })((fn) => fn())(fn)`,
    why:
      'strict: true is its sliding window (the default is a fixed window that allows 2N across a boundary).' +
      ' It parks every delayed call on its own setTimeout rather than queueing it.',
    open(rate, onStart) {
      const controller = new AbortController();
      const run = pThrottle({
        limit: rate.limit,
        interval: rate.interval,
        strict: true,
        signal: controller.signal,
      })((task: TaskFunction) => task());
      return promiseInstance(
        onStart,
        (task) => run(task) as Promise<unknown>,
        () => controller.abort(),
      );
    },
  },
  {
    id: 'p-queue',
    name: 'p-queue 9 (strict)',
    kind: 'peer',
    queues: true,
    configuration: (rate) =>
      `new PQueue({ intervalCap: ${rate.limit}, interval: ${rate.interval}, strict: true }).add(fn)`,
    why:
      'intervalCap per interval with strict: true is its sliding window (the default is a fixed window).' +
      ' Concurrency is left unbounded, as ours.',
    open(rate, onStart) {
      const queue = new PQueue({ intervalCap: rate.limit, interval: rate.interval, strict: true });
      return promiseInstance(
        onStart,
        (task) => queue.add(task),
        () => queue.clear(),
      );
    },
  },
  {
    id: 'limiter',
    name: 'limiter 3 (RateLimiter)',
    kind: 'peer',
    queues: false,
    configuration: (rate) =>
      `const limiter = new RateLimiter({ tokensPerInterval: ${rate.limit}, interval: ${rate.interval} }); ` +
      'limiter.removeTokens(1).then(fn)',
    why:
      'RateLimiter is its N-per-interval limiter (a token bucket plus a fixed-window count). removeTokens' +
      ' parks each waiting call on its own setTimeout; there is no queue to clear and no stop.',
    open(rate, onStart) {
      const limiter = new RateLimiter({ tokensPerInterval: rate.limit, interval: rate.interval });
      return promiseInstance(
        onStart,
        (task) => limiter.removeTokens(1).then(task),
        () => {},
        false,
      );
    },
  },
];

/** A one-state machine that forwards every QUEUE to its target and counts it: no queue, no limit. */
const forwardingMachine = setup({
  types: {
    context: {} as { target: AnyActorRef; forwarded: number },
    input: {} as { target: AnyActorRef },
    events: {} as { type: 'QUEUE'; message: IndexedMessage },
  },
}).createMachine({
  context: ({ input }) => ({ target: input.target, forwarded: 0 }),
  on: {
    QUEUE: {
      actions: [
        sendTo(
          ({ context }) => context.target,
          ({ event }) => event.message,
        ),
        assign({ forwarded: ({ context }) => context.forwarded + 1 }),
      ],
    },
  },
});

/** A task waiting in a baseline: its function and how to settle its promise. */
interface ParkedTask {
  run: TaskFunction;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

const BASELINES: Contender[] = [
  {
    id: 'baseline-array',
    workloads: ['w1', 'w4'],
    name: 'baseline: plain array queue',
    kind: 'baseline',
    queues: true,
    configuration: () => 'queue.push(fn); drained in one microtask by an index loop calling each fn',
    why: 'The least an in-process queue can cost: no limit, no promise per task.',
    open(_rate, onStart) {
      let queue: Array<TaskFunction | undefined> = [];
      let head = 0;
      let scheduled = false;
      const drain = (): void => {
        scheduled = false;
        while (head < queue.length) {
          const task = queue[head] as TaskFunction;
          queue[head++] = undefined;
          task();
        }
        queue = [];
        head = 0;
      };
      return {
        task: taskFunction(onStart),
        submit(tasks) {
          for (let index = 0; index < tasks.length; index++) {
            queue.push(tasks[index] as TaskFunction);
            if (!scheduled) {
              scheduled = true;
              queueMicrotask(drain);
            }
          }
        },
        stop() {
          queue = [];
          head = 0;
        },
        stoppable: true,
      };
    },
  },
  {
    id: 'baseline-promises',
    workloads: ['w1', 'w4'],
    name: 'baseline: one resolved promise per task',
    kind: 'baseline',
    queues: false,
    configuration: () => 'Promise.resolve().then(fn), all awaited',
    why: 'The least a promise-per-task API can cost: the floor under every promise-based contender.',
    open(_rate, onStart) {
      return promiseInstance(
        onStart,
        (task) => Promise.resolve().then(task),
        () => {},
      );
    },
  },
  {
    id: 'baseline-xstate',
    name: 'baseline: bare XState machine',
    kind: 'baseline',
    queues: false,
    workloads: ['w1', 'w4'],
    configuration: () =>
      'one state, QUEUE: [sendTo(target, event.message), assign({ forwarded: +1 })]; one QUEUE event per task, target as ours',
    why:
      'What XState itself costs per event for this job (an event in, a message out to a target actor, a snapshot' +
      ' that changes), with no queue and no limit: the floor under the machine.',
    open(_rate, onStart) {
      const target = startingTarget(onStart);
      const actor = createActor(forwardingMachine, { input: { target } }).start();
      return queueEventInstance(actor, target);
    },
  },
  {
    id: 'baseline-batched-promises',
    name: 'baseline: bare batching promise API',
    kind: 'baseline',
    queues: true,
    workloads: ['w1', 'w4'],
    configuration: () =>
      'schedule(fn): new Promise, { fn, resolve, reject } pushed to an array; a microtask runs the array',
    why:
      'The least a promise API costs that, like ours, gathers the calls of one synchronous stretch and starts' +
      ' them together: the floor under the promise API (p-throttle and p-queue start each call inside it instead).',
    open(_rate, onStart) {
      let parked: ParkedTask[] = [];
      const runParked = (): void => {
        const running = parked;
        parked = [];
        for (const task of running) task.resolve(task.run());
      };
      return promiseInstance(
        onStart,
        (run) =>
          new Promise((resolve, reject) => {
            if (parked.push({ run, resolve, reject }) === 1) queueMicrotask(runParked);
          }),
        () => {},
      );
    },
  },
  {
    id: 'baseline-promise-queue',
    name: 'baseline: bare promise per waiting task',
    kind: 'baseline',
    queues: true,
    workloads: ['w2'],
    configuration: () => 'new Promise, { fn, resolve, reject } pushed to an array, never started',
    why:
      'What any promise-per-task API must hold for a waiting task (its promise, the functions that settle it and' +
      ' a slot): the floor under the promise APIs in W2.',
    open() {
      let parked: ParkedTask[] = [];
      return {
        task: () => () => {},
        submit(tasks, promises) {
          for (let index = 0; index < tasks.length; index++) {
            promises[index] = new Promise((resolve, reject) => {
              parked.push({ run: tasks[index] as TaskFunction, resolve, reject });
            });
          }
        },
        stop() {
          const waiting = parked;
          parked = [];
          for (const task of waiting) task.reject(new Error('stopped'));
        },
        stoppable: true,
      };
    },
  },
];

export const CONTENDERS: readonly Contender[] = [...OURS, ...PEERS, ...BASELINES];

/** The contenders that run a workload. */
export function contendersFor(workload: Workload, from: readonly Contender[] = CONTENDERS): Contender[] {
  return from.filter((contender) => (contender.workloads ?? ['w1', 'w2', 'w3', 'w4', 'w5']).includes(workload));
}

/** Contenders that enforce a limit (W3 leaves the baselines out: they have nothing to hold back). */
export const LIMITING: readonly Contender[] = CONTENDERS.filter((contender) => contender.kind !== 'baseline');

export function contender(id: string): Contender {
  const found = CONTENDERS.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`No contender "${id}"; known: ${CONTENDERS.map((c) => c.id).join(', ')}`);
  return found;
}
