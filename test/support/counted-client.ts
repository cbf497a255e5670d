import type { Redis } from 'ioredis';

/**
 * The test's real ioredis client, seen through a proxy that knows which of the store's script calls
 * (the commands it defines, `xthrottler…`) are still out. A test in virtual time must not move the
 * clock while one is out (Redis TIME, read from that clock, does not move during one round trip);
 * it waits for them as events instead of polling real time. Everything goes to the real Redis.
 */
export interface CountedClient {
  /** Give this to `createRedisStore`. */
  readonly redis: Redis;
  /**
   * Resolves once no script call is out and a macrotask passed without a new one starting: every
   * answer was handled (its handlers run in microtasks before that turn) and asked nothing more.
   */
  quiet(): Promise<void>;
  /** Script calls made so far (round trips of the store's own calls). */
  readonly calls: number;
}

const STORE_COMMAND = /^xthrottler/;

export function countedClient(redis: Redis): CountedClient {
  const out = new Set<Promise<unknown>>();
  let calls = 0;
  const proxy = new Proxy(redis, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !STORE_COMMAND.test(property) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls += 1;
        const call = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        const settled: Promise<unknown> = call.then(
          () => out.delete(settled),
          () => out.delete(settled),
        );
        out.add(settled);
        return call;
      };
    },
  });
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  return {
    redis: proxy,
    get calls() {
      return calls;
    },
    async quiet() {
      for (;;) {
        await nextTurn();
        if (out.size === 0) return;
        await Promise.all(out);
      }
    },
  };
}
