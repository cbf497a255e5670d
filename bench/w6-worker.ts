/**
 * One process of a W6 fleet (forked by bench/w6-shared-limit.ts, talking over IPC): opens the
 * contender on its own Redis client, says it is ready, hands its whole backlog over at the fleet's
 * common start, records when each task starts, and reports once every task has started or the
 * phase's deadline has passed. Then it exits: whatever the contender still holds is not stopped
 * cleanly (Bottleneck's stop waits behind every pending submission); the fleet deletes the keys.
 * Times are on the fleet's common clock (w6-protocol.ts).
 */
import { countingClient } from './redis-round-trips.js';
import { sharedContender } from './w6-contenders.js';
import { commonNow, type WorkerGo, type WorkerOpen, type WorkerReport } from './w6-protocol.js';
import type { SharedInstance } from './w6-shared-contender.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

const send = (message: unknown): Promise<void> =>
  new Promise((resolve, reject) =>
    process.send?.(message, undefined, {}, (error) => (error ? reject(error) : resolve())),
  );

let opened: { instance: SharedInstance; run: WorkerOpen } | undefined;
const { redis, counts, reset } = countingClient();
const starts: number[] = [];
const grants: number[] = [];
const grantByIndex = new Map<number, number>();
let allStarted: () => void = () => {};
const everyStart = new Promise<void>((resolve) => {
  allStarted = resolve;
});

async function open(run: WorkerOpen): Promise<void> {
  await redis.ping();
  const instance = await sharedContender(run.contender).open({
    redis,
    name: run.name,
    rate: run.rate,
    onStart(index) {
      starts.push(commonNow());
      if (starts.length === run.backlog) allStarted();
      const grant = grantByIndex.get(index);
      if (grant !== undefined) {
        grants.push(grant);
        grantByIndex.delete(index);
      }
    },
    onGrant(index, redisMs) {
      grantByIndex.set(index, redisMs);
    },
  });
  opened = { instance, run };
  await send({ type: 'ready' });
}

async function go({ startAt, endAt }: WorkerGo): Promise<void> {
  if (opened === undefined) throw new Error('go before open');
  const { instance, run } = opened;
  await sleep(startAt - commonNow() - 2);
  while (commonNow() < startAt) {
    // The last two milliseconds spin, so that every process hands over at the same moment.
  }
  reset();
  const arrival = commonNow();
  instance.submit(run.backlog);
  await Promise.race([everyStart, sleep(endAt - commonNow())]);
  const report: WorkerReport = {
    type: 'done',
    arrival,
    starts: [...starts],
    grants: [...grants],
    roundTrips: counts.roundTrips,
    commands: counts.commands,
    errors: instance.errors ?? 0,
  };
  await send(report);
  process.exit(0);
}

process.on('message', (message: WorkerOpen | WorkerGo) => {
  const step = message.type === 'open' ? open(message) : go(message);
  step.catch((error: unknown) => {
    process.stderr.write(`W6 worker: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
});
