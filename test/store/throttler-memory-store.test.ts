import { createMemoryStore } from '../../src/store/index.js';
import { describeThrottlerStore } from './throttler-store.suite.js';

/** The throttler machine with the memory store: the store suite (throttler-store.suite.ts) without Redis, in the quick tier. */
describeThrottlerStore(
  'the memory store',
  () => 'memory',
  (name) => createMemoryStore({ name }),
);
