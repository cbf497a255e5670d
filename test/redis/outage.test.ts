import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/redis/index.js';
import { StoreUnavailableError } from '../../src/store/index.js';
import type { SharedLimiter, StoreNotice } from '../../src/store/protocol.js';
import { startThrowawayRedis, type ThrowawayRedis } from '../support/redis-server.js';

/**
 * Redis paused, its scripts flushed, killed and restarted, on a throwaway server: every call
 * settles within the store's timeout with a StoreUnavailableError (never hangs in ioredis' offline
 * queue, whatever the client's options), and the store recovers by itself, quarantining the state
 * the restart lost. Real timers, generous bounds.
 */
/** The store's timeout for calls that must fail (Redis is down): short, and such a call cannot fail by being slow. */
const TIMEOUT = 300;
/** For calls that must be answered: ample on a busy machine (at 300 ms one timed out there). */
const ANSWER_TIMEOUT = 5000;
/** A failure comes within the timeout, late by a loaded machine's slack at most: never held until Redis is back. */
const FAILS_WITHIN = TIMEOUT + 2000;
let own: ThrowawayRedis;
let redis: Redis;
let admin: Redis;
let port: number;

beforeAll(async () => {
  own = await startThrowawayRedis('outage');
  ({ redis, admin, port } = own);
});

afterAll(() => own?.close());

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<unknown> {
  const startedAt = performance.now();
  const result = await promise.then(
    (value) => value,
    (error: unknown) => error,
  );
  expect(performance.now() - startedAt).toBeLessThan(ms);
  return result;
}

/**
 * The 5 s rate keeps the state needed (so a missing one is a loss) for longer than the outage
 * lasts on a busy machine; after a shorter horizon a missing state is rightly taken for an expiry.
 */
function open(name: string, commandTimeout = ANSWER_TIMEOUT): SharedLimiter {
  return createRedisStore({ redis, name, commandTimeout }).open({
    strategy: 'sliding-window',
    rates: ['5/200ms', '50/5s'],
    maxReserveAheadMs: 100,
  });
}

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const giveUpAt = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > giveUpAt) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('Redis down, paused or restarted', () => {
  it('times out a call while Redis is paused (CLIENT PAUSE), then works again', async () => {
    const shared = open('paused');
    const fast = open('paused', TIMEOUT);
    expect(await shared.reserve([{ cost: 1 }])).toMatchObject([{ kind: 'granted' }]);
    // Paused until the call has failed (WRITE pauses scripts and still lets UNPAUSE through; ALL would not).
    await admin.client('PAUSE', 60_000, 'WRITE');
    const error = await settlesWithin(fast.reserve([{ cost: 1 }]), FAILS_WITHIN);
    await admin.client('UNPAUSE');
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toBe(`Redis store "paused" is unavailable: no answer within ${TIMEOUT} ms`);
    await until(async () => (await shared.reserve([{ cost: 1 }]).catch(() => undefined)) !== undefined, 5000);
  });

  it('runs its scripts again after SCRIPT FLUSH (NOSCRIPT is handled)', async () => {
    const shared = open('noscript');
    await shared.reserve([{ cost: 1 }]);
    await admin.script('FLUSH');
    expect(await shared.reserve([{ cost: 1 }])).toMatchObject([{ kind: 'granted' }]);
  });

  it('fails fast while Redis is down, recovers by itself when it is back, and quarantines the lost state', async () => {
    const shared = open('restart');
    const fast = open('restart', TIMEOUT);
    const heard: StoreNotice[] = [];
    shared.subscribe((notice) => heard.push(notice));
    expect(await shared.reserve([{ cost: 1 }])).toMatchObject([{ kind: 'granted' }]);

    await own.stopServer();
    for (let attempt = 0; attempt < 3; attempt++) {
      const error = await settlesWithin(fast.reserve([{ cost: 1 }]), FAILS_WITHIN);
      expect(error).toBeInstanceOf(StoreUnavailableError);
    }
    await expect(fast.pause(1000)).rejects.toBeInstanceOf(StoreUnavailableError);

    // Back empty, as after a crash without persistence: the state this process saw is gone.
    await own.restartServer();
    let outcome: unknown;
    await until(async () => {
      outcome = await shared.reserve([{ cost: 1 }]).catch(() => undefined);
      return outcome !== undefined;
    }, 10_000);
    expect(outcome).toMatchObject([{ kind: 'later', reason: 'quarantine' }]);
    expect(heard.some((notice) => notice.type === 'quarantined')).toBe(true);
    // The quarantine (100 ms ahead + 5 s interval) passes; grants resume without anyone's help.
    await until(
      async () => (await shared.reserve([{ cost: 1 }]).catch(() => undefined))?.[0]?.kind === 'granted',
      15_000,
    );
  });

  it('refuses calls after close() and on a client the user closed, at once', async () => {
    const store = createRedisStore({ redis, name: 'closed', commandTimeout: TIMEOUT });
    const shared = store.open({ strategy: 'sliding-window', rates: '1/1s' });
    await store.close();
    await expect(shared.reserve([{ cost: 1 }])).rejects.toThrow(
      'Redis store "closed" is unavailable: the store was closed',
    );
    expect(() => store.open({ strategy: 'sliding-window', rates: '1/1s' })).toThrow(
      'store must be open (it was closed), got "closed"',
    );
    const gone = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
    gone.disconnect();
    const orphan = createRedisStore({ redis: gone, name: 'gone' }).open({ strategy: 'sliding-window', rates: '1/1s' });
    await expect(orphan.reserve([{ cost: 1 }])).rejects.toThrow('the ioredis client was closed (status "end")');
  });
});
