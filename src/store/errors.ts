import { ThrottlerOptionError } from '../rate/index.js';

/**
 * Redis could not answer in time: not connected, timed out, closed, or it replied with an error
 * that is not about the limiter's configuration. Nothing was granted by the failed call that the
 * caller must account for: a reservation the caller never learned of is at worst unused capacity
 * (it expires within the reserve-ahead bound), never a violation. Retry later; keep your queue.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  /** The limiter's name (the store's `name`). */
  readonly store: string;

  constructor(store: string, message: string, cause?: unknown) {
    super(`Redis store "${store}" is unavailable: ${message}`, cause === undefined ? undefined : { cause });
    this.store = store;
  }
}

/**
 * This process opened the shared limiter with a configuration that differs from the one stored
 * by the first process that created it. The store does not adopt either silently: processes that
 * share a `name` must agree, and a deliberate fleet-wide change goes through `setRate`.
 */
export class StoreConflictError extends ThrottlerOptionError {
  override name = 'StoreConflictError';
  /** What the first process stored for this option. */
  readonly stored: unknown;

  constructor(store: string, option: string, value: unknown, stored: unknown) {
    super(
      option,
      `the same in every process sharing the Redis store "${store}" (stored by the first: ${JSON.stringify(stored)}); change it fleet-wide with setRate, or use another name`,
      value,
    );
    this.stored = stored;
  }
}
