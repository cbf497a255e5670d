import { describeConformance } from '../store/conformance.js';
import { redisForFile } from '../support/redis.js';
import { virtualLimiter } from '../support/redis-driver.js';

/**
 * The Redis store against the conformance suite every backend passes (test/store/conformance.ts): the
 * real Lua in the real Redis, on the store's test clock. Slow tier: a round trip per call.
 */
const file = redisForFile();

describeConformance('the Redis store', {
  runs: 40,
  virtual: (config, startAt = 0) => virtualLimiter(file.redis, file.fresh('conformance'), config, startAt),
});
