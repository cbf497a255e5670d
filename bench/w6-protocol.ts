/**
 * What a W6 fleet's parent (bench/w6-shared-limit.ts) and its processes (bench/w6-worker.ts) say
 * to each other over IPC, and the clock they share.
 *
 * The common clock is this host's: `performance.timeOrigin + performance.now()`. Every process of a
 * fleet runs on this one host, where that reading agrees between processes to within about 10 µs
 * (the wall clock sampled once at each process's start, then the monotonic clock: measured here
 * against `process.hrtime`, which Linux keeps one for all processes). Redis `TIME` would cost a
 * round trip per task and read when the command ran, not when the task started.
 */
import type { RateSpec } from './contenders.js';

export const commonNow = (): number => performance.timeOrigin + performance.now();

/** Parent to process: open the contender and say 'ready'. */
export interface WorkerOpen {
  type: 'open';
  contender: string;
  name: string;
  rate: RateSpec;
  backlog: number;
}

/** Parent to process: hand the backlog over at `startAt`; report when all started or at `endAt`. */
export interface WorkerGo {
  type: 'go';
  startAt: number;
  endAt: number;
}

/** Process to parent, once, then it exits. */
export interface WorkerReport {
  type: 'done';
  /** Common-clock time of the hand-over. */
  arrival: number;
  /** Common-clock start times, in the order the tasks started. */
  starts: number[];
  /** Ours: each started task's grant on Redis time (ms), in the same order. Empty for the peers. */
  grants: number[];
  roundTrips: number;
  commands: number;
  errors: number;
}
