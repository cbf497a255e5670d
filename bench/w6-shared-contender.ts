/**
 * What a W6 contender is: a limiter every process of a fleet opens over its own Redis client, and
 * the handle it gives back. Its own file so that our contenders (w6-ours.ts) and the peers
 * (w6-contenders.ts) share it without importing each other.
 */
import type { Redis } from 'ioredis';
import type { RateSpec } from './contenders.js';

/** What a process of the fleet gives its contender. */
export interface SharedContext {
  /** This process's client (counting its round trips); the contender may duplicate it for pub/sub. */
  redis: Redis;
  /** The run's unique name: every key the contender makes contains it (the fleet deletes them afterwards). */
  name: string;
  rate: RateSpec;
  /** Called when task `index` of this process starts. */
  onStart(index: number): void;
  /** Ours only: the Redis time (ms) a task was granted for, to check strictness on the clock it is promised on. */
  onGrant?(index: number, redisMs: number): void;
}

/** One process's handle. */
export interface SharedInstance {
  /** Hands `count` more tasks over (indexes continue from the last hand-over). */
  submit(count: number): void;
  /** Calls to Redis that failed, if the contender counts them. */
  readonly errors?: number;
}

export interface SharedContender {
  id: string;
  name: string;
  kind: 'ours' | 'peer';
  configuration(rate: RateSpec): string;
  why: string;
  open(context: SharedContext): Promise<SharedInstance>;
}
