/**
 * What W6 needs from Redis besides the contenders: the server (REDIS_URL, or the local one), a
 * count of the round trips each process makes, and cleaning up a run's keys afterwards.
 *
 * Round trips are counted in the client, not from `INFO commandstats`: the server is shared with
 * other test runs, whose commands the server-wide counters would mix in. Every command ioredis sends
 * goes through `sendCommand`; a pipeline (or MULTI) sends all of its commands in one write and
 * waits once, so it counts as one round trip, its commands each as a command. A script sent as
 * EVALSHA and again as EVAL after NOSCRIPT counts twice, as it costs.
 */
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface RoundTrips {
  /** Requests that waited for a reply on their own: single commands, and each pipeline once. */
  roundTrips: number;
  /** Every command, those inside pipelines one by one. */
  commands: number;
}

/** A client that counts what it sends from now on; `reset()` starts the count again. */
export function countingClient(options: Record<string, unknown> = {}): {
  redis: Redis;
  counts: RoundTrips;
  reset(): void;
} {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, ...options });
  redis.on('error', () => {});
  const counts: RoundTrips = { roundTrips: 0, commands: 0 };
  const pipelinesSeen = new WeakSet<object>();
  const send = redis.sendCommand.bind(redis) as (...args: unknown[]) => unknown;
  (redis as unknown as { sendCommand: (...args: unknown[]) => unknown }).sendCommand = (...args: unknown[]) => {
    const stream = args[1] as { isPipeline?: boolean } | undefined;
    counts.commands += 1;
    if (stream?.isPipeline !== true) counts.roundTrips += 1;
    else if (!pipelinesSeen.has(stream)) {
      pipelinesSeen.add(stream);
      counts.roundTrips += 1;
    }
    return send(...args);
  };
  return {
    redis,
    counts,
    reset() {
      counts.roundTrips = 0;
      counts.commands = 0;
    },
  };
}

/** Deletes every key whose name contains `fragment` (a run's unique name); returns how many. */
export async function deleteKeysContaining(redis: Redis, fragment: string): Promise<number> {
  const pattern = `*${fragment.replace(/[*?[\]\\]/g, '\\$&')}*`;
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

/** The server's version, for the report. */
export async function redisVersion(redis: Redis): Promise<string> {
  const info = await redis.info('server');
  return /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
}
