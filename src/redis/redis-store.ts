/**
 * `createRedisStore`: the client and options checked once; `open` gives the raw limiter, `clearanceFor` a
 * throttler's clearance (store/store-clearance.ts), `check` the adapters' early refusal, on one set of defaults.
 */
import type { ResolvedOptions, StoreHooks } from '../engine/index.js';
import { ThrottlerOptionError } from '../rate/index.js';
import type { SharedLimiterConfig } from '../store/protocol.js';
import { RedisClearance } from '../store/store-clearance.js';
import { checkStoreDown, declareWith, throttlerConfig } from '../store/store-options.js';
import { auditFleet } from './fleet-audit.js';
import { GuardedClient } from './guarded-client.js';
import { limiterKeys } from './keys.js';
import { AUDIT_COMMIT_SCRIPT, AUDIT_READ_SCRIPT } from './lua/audit.js';
import { CONTROL_SCRIPT } from './lua/control.js';
import { RELEASE_SCRIPT } from './lua/release.js';
import { RESERVE_SCRIPT } from './lua/reserve.js';
import { NoticeSubscriber } from './notice-subscriber.js';
import { RedisSharedLimiter, type ScriptRunner } from './shared-limiter.js';
import type { RedisClientLike, RedisStore, RedisStoreOptions } from './types.js';

/**
 * Commands defined on the user's client. Versioned: a later release with other scripts defines
 * other names, so two versions of this library sharing one client never run each other's script.
 * ioredis' defineCommand sends EVALSHA and falls back to EVAL on NOSCRIPT (a restarted Redis).
 */
const COMMANDS = {
  reserve: { name: 'xthrottlerReserveV4', lua: RESERVE_SCRIPT },
  release: { name: 'xthrottlerReleaseV2', lua: RELEASE_SCRIPT },
  control: { name: 'xthrottlerControlV2', lua: CONTROL_SCRIPT },
  auditRead: { name: 'xthrottlerAuditReadV1', lua: AUDIT_READ_SCRIPT },
  auditCommit: { name: 'xthrottlerAuditCommitV1', lua: AUDIT_COMMIT_SCRIPT },
} as const;

const DEFAULT_COMMAND_TIMEOUT_MS = 1000;
const MAX_TIMER_MS = 2 ** 31 - 1;
const CLIENT_METHODS = ['defineCommand', 'duplicate', 'on', 'once', 'off', 'connect', 'disconnect'] as const;

/**
 * A shared limiter in Redis, named `name`: every process that opens a store of that name shares
 * every rate, channel rate and cost accounting. See docs/redis.md.
 */
export function createRedisStore(options: RedisStoreOptions): RedisStore {
  if (typeof options !== 'object' || options === null) {
    throw new ThrottlerOptionError('options', 'an object { redis, name }', options);
  }
  const redis = checkClient(options.redis);
  const name = options.name;
  if (typeof name !== 'string' || name.length === 0) {
    throw new ThrottlerOptionError('name', 'a non-empty string naming the shared limiter', name);
  }
  const timeout = options.commandTimeout ?? DEFAULT_COMMAND_TIMEOUT_MS;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0 || timeout > MAX_TIMER_MS) {
    throw new ThrottlerOptionError('commandTimeout', 'a positive number of milliseconds below 2^31', timeout);
  }
  const testClock = options.testClock;
  if (testClock !== undefined && typeof testClock !== 'function') {
    throw new ThrottlerOptionError('testClock', 'a function returning milliseconds (tests only)', testClock);
  }
  const commands = redis as unknown as Record<string, (...args: unknown[]) => Promise<unknown[]>>;
  for (const { name: command, lua } of Object.values(COMMANDS)) {
    if (typeof commands[command] !== 'function') redis.defineCommand(command, { lua });
  }
  const runScript: ScriptRunner = (script, keys, args) =>
    (commands[COMMANDS[script].name] as (...args: unknown[]) => Promise<unknown[]>).call(
      redis,
      keys.length,
      ...keys,
      ...args,
    );
  const keyPrefix = redis.options?.keyPrefix ?? redis.options?.redisOptions?.keyPrefix ?? '';
  const keys = limiterKeys(name, keyPrefix);
  const client = new GuardedClient(redis, name, timeout);
  const subscriber = new NoticeSubscriber(redis, keys.notices);
  const localNow = testClock ?? (() => performance.now());
  const whenDown = checkStoreDown(options);
  let closed = false;
  const open = (config: SharedLimiterConfig) => {
    if (closed) throw new ThrottlerOptionError('store', 'open (it was closed)', name);
    return new RedisSharedLimiter(
      name,
      declareWith(options, config, testClock !== undefined),
      keys,
      client,
      runScript,
      subscriber,
      localNow,
      testClock,
    );
  };
  return {
    name,
    open,
    clearanceFor(throttle: ResolvedOptions, hooks: StoreHooks) {
      return new RedisClearance(open(throttlerConfig(throttle)), throttle, hooks, whenDown);
    },
    check(throttle: ResolvedOptions) {
      if (closed) throw new ThrottlerOptionError('store', 'open (it was closed)', name);
      declareWith(options, throttlerConfig(throttle), testClock !== undefined);
    },
    audit() {
      if (closed) throw new ThrottlerOptionError('store', 'open (it was closed)', name);
      return auditFleet({ name, client, runScript, keys, testClock });
    },
    async close() {
      closed = true;
      client.close();
      subscriber.close();
    },
  };
}

function checkClient(redis: unknown): RedisClientLike {
  const candidate = redis as Record<string, unknown> | null;
  const usable =
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.status === 'string' &&
    CLIENT_METHODS.every((method) => typeof candidate[method] === 'function');
  if (!usable) {
    throw new ThrottlerOptionError(
      'redis',
      'an ioredis client (new Redis(url) or new Redis.Cluster(nodes)); node-redis and others are not supported',
      redis,
    );
  }
  return redis as RedisClientLike;
}
