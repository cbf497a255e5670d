import { memoryForFile } from '../support/store-throttler.js';
import { describeSettleThrottler } from './settle-throttler.suite.js';

/** ACTUAL_COST through a throttler on the memory store (settle-throttler.suite.ts), in the quick tier. */
describeSettleThrottler('the memory store', memoryForFile());
