import { createMemoryStore } from '../../src/store/index.js';
import { describeConformance } from './conformance.js';

/** The memory store against the conformance suite every backend passes (conformance.ts), in the quick tier. */
let count = 0;
describeConformance('the memory store', {
  runs: 60,
  virtual(config, startAt = 0) {
    let now = startAt;
    const store = createMemoryStore({ name: `memory-${++count}`, clock: () => now });
    return {
      store,
      limiter: store.open({ ...config, grantGraceMs: config.grantGraceMs ?? 0 }),
      setTime: (ms) => {
        now = ms;
      },
      now: () => now,
    };
  },
});
