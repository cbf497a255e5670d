/**
 * Two processes, one limit. This process and a copy of itself (forked) each run a throttler at
 * '10/1s' on the same Redis store, and each schedules 15 tasks at once: without the store they
 * would start 20 in the first second; with it, never more than 10 in any second, together.
 * Needs a Redis at REDIS_URL (default 127.0.0.1:6379). Run: npx tsx examples/shared-limit.ts
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createThrottler } from '../src/index.js';
import { createRedisStore } from '../src/redis/index.js';

const TASKS = 15;
const [role = 'first', name = `example-shared-${process.pid}-${Date.now()}`] = process.argv.slice(2);

/** One process's part: its throttler on the shared store, its tasks, the time each started. */
async function run(): Promise<number[]> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const store = createRedisStore({ redis, name });
  const throttler = createThrottler({ rate: '10/1s', strategy: 'sliding-window', store });
  const starts: number[] = [];
  // The host's clock, common to both processes: when each task really started.
  const task = async () => starts.push(performance.timeOrigin + performance.now());
  await Promise.all(Array.from({ length: TASKS }, () => throttler.schedule(task)));
  throttler.stop();
  await store.close();
  await redis.quit();
  return starts;
}

if (role === 'second') {
  process.send?.(await run());
} else {
  const second = fork(fileURLToPath(import.meta.url), ['second', name], { execArgv: process.execArgv });
  const theirs = new Promise<number[]>((resolve) => second.once('message', (starts) => resolve(starts as number[])));
  const [mine, other] = await Promise.all([run(), theirs]);
  const all = [...mine, ...other].sort((a, b) => a - b);
  // The busiest second, by brute force: every window [t, t + 1000) that starts at a task.
  const most = Math.max(...all.map((start) => all.filter((t) => t >= start && t < start + 1000).length));
  console.log(`${all.length} tasks from 2 processes sharing '10/1s' through Redis`);
  console.log(`this process ran ${mine.length}, the other ${other.length}`);
  console.log(`most started in any 1000 ms: ${most} (limit 10)`);
  console.log(`first to last: ${((all.at(-1) as number) - (all[0] as number)).toFixed(0)} ms`);
}
