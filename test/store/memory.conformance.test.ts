import { virtualMemoryLimiter } from '../support/redis-driver.js';
import { describeConformance } from './conformance.js';

/** The memory store against the conformance suite every backend passes (conformance.ts), in the quick tier. */
let count = 0;
describeConformance('the memory store', {
  runs: 60,
  virtual: (config, startAt = 0) => virtualMemoryLimiter(`memory-${++count}`, config, startAt),
});
