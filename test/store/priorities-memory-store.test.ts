import { describeStorePriorities } from './throttler-store-priorities.suite.js';

/** Priorities and deadlines with the memory store (throttler-store-priorities.suite.ts), in the quick tier. */
describeStorePriorities('the memory store', () => 'memory');
