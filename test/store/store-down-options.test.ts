import { describe, expect, it } from 'vitest';
import { ThrottlerOptionError } from '../../src/index.js';
import { createMemoryStore } from '../../src/store/index.js';
import { checkStoreDown, DEFAULT_RECONNECT_WITHIN_MS } from '../../src/store/store-options.js';

/** `reconnectWithin` (issue 33): how long after the store's return every process has reconnected. */
describe('the reconnectWithin store option', () => {
  const local = { onStoreDown: 'local', localShare: 0.25 } as const;

  it('defaults to ioredis’ reconnect cap plus a connect, and reads durations', () => {
    expect(checkStoreDown(local).reconnectWithinMs).toBe(DEFAULT_RECONNECT_WITHIN_MS);
    expect(checkStoreDown({ ...local, reconnectWithin: '4s' }).reconnectWithinMs).toBe(4000);
    expect(checkStoreDown({ ...local, reconnectWithin: 750 }).reconnectWithinMs).toBe(750);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, 'soon', null, {}])('refuses %s, naming it', (value) => {
    const create = () => createMemoryStore({ name: 'r', ...local, reconnectWithin: value as never });
    expect(create).toThrow(ThrottlerOptionError);
    expect(create).toThrow(/reconnectWithin/);
  });

  it("is refused with onStoreDown 'pause' (nothing goes locally, so nothing is held)", () => {
    expect(() => createMemoryStore({ name: 'r', reconnectWithin: '2s' })).toThrow(/reconnectWithin/);
  });
});
