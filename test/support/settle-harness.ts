import fc from 'fast-check';
import { createActor } from 'xstate';
import { auditThrottler, type ThrottlerEmitted, type ThrottlerInput, throttlerMachine } from '../../src/index.js';
import { seededDraw } from './random.js';
import { createRecorder, msg, type Numbered } from './recorder.js';
import { advance, restoreRealTime, useVirtualTime } from './virtual-time.js';

/** One message of a settle scenario: when it arrives, its estimate, its actual cost, when it is settled. */
export interface SettleJob {
  arriveAt: number;
  estimate: number;
  actual: number;
  /** ms after its delivery that its ACTUAL_COST is sent; null: never settled (it keeps its estimate). */
  settleAfter: number | null;
}

/** A delivery as it counts in the end: its time, its cost (actual if settled), its overrun, when it was settled. */
export interface SettledDelivery {
  at: number;
  cost: number;
  overrun: number;
  settledAt: number | undefined;
  /** What it really cost, settled or not. */
  actual: number;
}

/** A cost as QUEUE and ACTUAL_COST take it: a number, or a cost per dimension. */
type Cost = number | Record<string, number>;

/** How a scenario's jobs meet the machine. */
export interface ScenarioFace<J, D> {
  /** The cost a job is QUEUEd with. */
  estimate(job: J): Cost;
  /** The record of a job delivered at `at`. */
  delivered(job: J, at: number): D;
  /** ms after its delivery that a job's ACTUAL_COST is sent; null: never settled (it keeps its estimate). */
  settleAfter(job: J): number | null;
  /** At that time: brings the record to what stands, and returns the ACTUAL_COST's cost. */
  settle(job: J, delivery: D): Cost;
}

/**
 * Runs jobs through the real machine in virtual time, each QUEUEd at `arriveAt` with its index as id and its
 * estimate as cost, and its ACTUAL_COST sent `settleAfter` ms after it was delivered; returns the deliveries
 * (in the order they went), what was refused (invalid or rejected), and the machine's audit.
 */
export function runJobs<J extends { arriveAt: number }, D>(
  input: Partial<ThrottlerInput>,
  jobs: readonly J[],
  until: number,
  face: ScenarioFace<J, D>,
) {
  useVirtualTime();
  try {
    const target = createRecorder();
    const actor = createActor(throttlerMachine, { input: { rate: '10/1s', ...input, target: target.ref } }).start();
    const deliveries: D[] = [];
    const refused: string[] = [];
    actor.on('*', (event) => {
      const emitted = event as ThrottlerEmitted;
      if (emitted.type === 'invalidEvent' || emitted.type === 'rejected') refused.push(JSON.stringify(emitted));
      if (emitted.type !== 'delivered') return;
      const index = (emitted.message as unknown as { index: number }).index;
      const job = jobs[index] as J;
      const delivery = face.delivered(job, emitted.at);
      deliveries.push(delivery);
      const after = face.settleAfter(job);
      if (after === null) return;
      setTimeout(() => actor.send({ type: 'ACTUAL_COST', id: index, cost: face.settle(job, delivery) }), after);
    });
    // One timer per arrival time: a fake clock looks through every pending timer each time one fires.
    const arrivals = new Map<number, number[]>();
    for (const [index, job] of jobs.entries())
      arrivals.set(job.arriveAt, [...(arrivals.get(job.arriveAt) ?? []), index]);
    for (const [at, indices] of arrivals) {
      setTimeout(() => {
        for (const index of indices) {
          const cost = face.estimate(jobs[index] as J);
          actor.send({ type: 'QUEUE', message: { type: 'job', index } as never, id: index, cost });
        }
      }, at);
    }
    advance(until);
    const audit = auditThrottler(actor);
    actor.stop();
    return { deliveries, refused, audit };
  } finally {
    restoreRealTime();
  }
}

/** runJobs with one cost a message: each delivery keeps its estimate until settled, then its actual cost. */
export function runSettleScenario(input: Partial<ThrottlerInput>, jobs: readonly SettleJob[], until: number) {
  return runJobs<SettleJob, SettledDelivery>(input, jobs, until, {
    estimate: (job) => job.estimate,
    delivered: (job, at) => ({ at, cost: job.estimate, overrun: 0, settledAt: undefined, actual: job.actual }),
    settleAfter: (job) => job.settleAfter,
    settle: (job, delivery) => {
      delivery.cost = job.actual;
      delivery.overrun = Math.max(0, job.actual - job.estimate);
      delivery.settledAt = performance.now();
      return job.actual;
    },
  });
}

/**
 * The cost in every window [t, t + interval) that starts at a delivery, by brute force: its sum, the overruns
 * it holds, and `lateOverrun`, those of them settled only after the window's last send (at or after it: a
 * settle and a send in the same ms count as late). A send after a settle sees the overrun, so only these may
 * take the window over its limit.
 */
export function windowSums(
  deliveries: readonly SettledDelivery[],
  interval: number,
): Array<{ start: number; sum: number; overrun: number; lateOverrun: number }> {
  return deliveries.map(({ at: start }) => {
    let sum = 0;
    let overrun = 0;
    // Deliveries are in the order they went: the window's last send is the last one in it.
    let lastSend = start;
    for (const d of deliveries) {
      if (d.at < start || d.at >= start + interval) continue;
      sum += d.cost;
      overrun += d.overrun;
      lastSend = d.at;
    }
    let lateOverrun = 0;
    for (const d of deliveries) {
      if (d.at < start || d.at >= start + interval) continue;
      if (d.overrun > 0 && (d.settledAt as number) >= lastSend) lateOverrun += d.overrun;
    }
    return { start, sum, overrun, lateOverrun };
  });
}

/**
 * A saturated queue of `length` jobs, each made with a draw seeded from what fast-check varies: the seed (an
 * array of thousands would shrink for ever).
 */
export function seededJobs<J>(length: number, make: (draw: (below: number) => number) => J): fc.Arbitrary<J[]> {
  return fc.integer({ min: 1, max: 2 ** 31 - 2 }).map((seed) => {
    const draw = seededDraw(seed);
    return Array.from({ length }, () => make(draw));
  });
}

/**
 * A throttler machine for ACTUAL_COST tests in virtual time: `rate` and sliding window unless `input`
 * says otherwise, a recording target, and helpers to send, queue (id `m<n>`, a cost) and read what was refused.
 */
export function startSettling(input: Partial<ThrottlerInput>) {
  const target = createRecorder<Numbered>();
  const actor = createActor(throttlerMachine, {
    input: { rate: '10/1s', strategy: 'sliding-window', target: target.ref, ...input } as ThrottlerInput,
  }).start();
  const emitted: ThrottlerEmitted[] = [];
  actor.on('*', (event) => emitted.push(event as ThrottlerEmitted));
  const send = (event: unknown) => actor.send(event as never);
  const refused = () => emitted.flatMap((event) => (event.type === 'invalidEvent' ? [event.error.message] : []));
  const queue = (n: number, cost: unknown) => send({ type: 'QUEUE', message: msg(n), id: `m${n}`, cost });
  return { actor, target, send, refused, queue };
}
