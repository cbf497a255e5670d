import { describeSettleThrottler } from '../store/settle-throttler.suite.js';
import { redisForFile } from '../support/redis.js';

/** ACTUAL_COST through a throttler on a Redis store (settle-throttler.suite.ts) against the real Redis. */
const file = redisForFile();
describeSettleThrottler('a Redis store', {
  get backend() {
    return file.redis;
  },
  fresh: file.fresh,
});
