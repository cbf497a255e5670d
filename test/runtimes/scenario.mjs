/**
 * The runtime matrix's scenario (test/runtimes/runtimes.test.ts), in plain ESM JavaScript so that every
 * runtime runs it as it is, against the built package as users import it: the promise API, the machine
 * with a target actor, and the Redis store, each with 30 tasks at 10/200ms (sliding window). Each part
 * reports its start times (the `delivered` events' `at`, on the throttler's clock: when it decided to
 * start the task) and what ran; the test judges them by brute force. Node, Bun and Deno run it from
 * main.mjs, workerd from worker.mjs (in a Worker and in a Durable Object).
 */
import { createActor, fromCallback } from 'xstate';
import { createThrottler, throttlerMachine } from 'xstate-throttler';
import { createRedisStore } from 'xstate-throttler/redis';

export const RATE = '10/200ms';
export const TASKS = 30;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const taskNumbers = () => Array.from({ length: TASKS }, (_, n) => n);

/** Schedules the tasks on a throttler; each task counts its runs. */
async function runTasks(throttler) {
  const starts = [];
  throttler.actor.on('delivered', (event) => starts.push(event.at));
  const runs = taskNumbers().map(() => 0);
  const values = await Promise.all(
    taskNumbers().map((n) =>
      throttler.schedule(() => {
        runs[n] += 1;
        return n;
      }),
    ),
  );
  await throttler.stop();
  return { starts, runs, values };
}

/** The promise API: `createThrottler` and `schedule`. */
export function promiseApi() {
  return runTasks(createThrottler({ rate: RATE, strategy: 'sliding-window' }));
}

/** The machine, sending to a target actor: what the target received, in order. */
export async function machine() {
  const received = [];
  let allReceived;
  const done = new Promise((resolve) => {
    allReceived = resolve;
  });
  const target = createActor(
    fromCallback(({ receive }) => {
      receive((event) => {
        received.push(event.n);
        if (received.length === TASKS) allReceived();
      });
    }),
  ).start();
  const actor = createActor(throttlerMachine, { input: { rate: RATE, strategy: 'sliding-window', target } });
  const starts = [];
  actor.on('delivered', (event) => starts.push(event.at));
  actor.start();
  for (const n of taskNumbers()) actor.send({ type: 'QUEUE', message: { type: 'job', n } });
  await done;
  actor.stop();
  target.stop();
  return { starts, received };
}

/**
 * The Redis store (`redis` an ioredis client, `name` a limiter nobody else uses): the tasks' start times
 * on the host's clock, and the store's own audit of the grants on Redis' clock, read every 100 ms (at
 * least once per interval + grace keeps it exact) and once more when the last grant has settled.
 */
export async function store(redis, name) {
  const shared = createRedisStore({ redis, name });
  const throttler = createThrottler({ rate: RATE, strategy: 'sliding-window', store: shared });
  // Redis farther than the grace: strict on Redis time only from then on (docs/reference.md#storeslow).
  const slow = [];
  throttler.actor.on('storeSlow', ({ roundTripMs, at }) => slow.push({ roundTripMs, at }));
  let audit = await shared.audit();
  // Until the last grant has settled: the audit counts grants one interval + grace (200 + 20 ms) before its read.
  let auditUntil = Number.POSITIVE_INFINITY;
  const auditing = (async () => {
    while (performance.now() < auditUntil) {
      await sleep(100);
      audit = await shared.audit();
    }
  })();
  const result = await runTasks(throttler);
  auditUntil = performance.now() + 300;
  await auditing;
  await shared.close();
  const { deliveries, windowsOver, gaps } = audit;
  return { ...result, slow, audit: { deliveries, windowsOver, gaps } };
}

/** Which runtime runs this, and its version. */
export function runtimeName() {
  if (globalThis.Bun) return `bun ${globalThis.Bun.version}`;
  if (globalThis.Deno) return `deno ${globalThis.Deno.version.deno}`;
  if (globalThis.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd';
  return `node ${globalThis.process?.versions?.node}`;
}

/** The three parts in turn, and which runtime ran them. */
export async function scenario(redis, name) {
  return {
    runtime: runtimeName(),
    promiseApi: await promiseApi(),
    machine: await machine(),
    store: await store(redis, name),
  };
}
