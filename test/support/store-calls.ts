import type { Redis } from 'ioredis';

/**
 * The test's real client, with every store script call (the commands the store defines, `xthrottler…`)
 * made through `through`, which runs it (`call`) or not, and may change what it answers: a slow link,
 * a store that fails. Everything else goes to the client as it is.
 */
export function throughStoreCalls(
  redis: Redis,
  through: (call: () => Promise<unknown>, args: unknown[]) => Promise<unknown>,
): Redis {
  return new Proxy(redis, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !property.startsWith('xthrottler') || typeof value !== 'function')
        return value;
      return (...args: unknown[]) =>
        through(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args), args);
    },
  });
}
