import { StoreUnavailableError } from '../store/errors.js';
import type { RedisClientLike } from './types.js';

/** A script reply error raised on purpose by the limiter's scripts (the configuration differs). */
export class ConflictReply extends Error {
  readonly storedJson: string;
  constructor(storedJson: string) {
    super('XT_CONFLICT');
    this.storedJson = storedJson;
  }
}

/**
 * Every Redis call of the store goes through here, so that none waits longer than the store's
 * timeout, whatever options the user's ioredis client was made with: a call never enters ioredis'
 * offline queue (where it would wait for a reconnection, up to its retry limit, and then run
 * late); while the client is not ready, the call waits for 'ready' within the same deadline.
 * A call that timed out may still run in Redis later: at worst it reserves a slot nobody uses,
 * within the reserve-ahead bound, never a violation.
 */
export class GuardedClient {
  private closed = false;
  private readyWaiters = new Set<() => void>();
  private readonly onReady = () => {
    for (const wake of this.readyWaiters) wake();
    this.readyWaiters.clear();
  };

  constructor(
    private readonly redis: RedisClientLike,
    private readonly store: string,
    private readonly timeoutMs: number,
  ) {}

  /** Runs `send` once the client is ready, all within the timeout; every failure is a StoreUnavailableError. */
  async run<T>(send: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreUnavailableError(this.store, 'the store was closed');
    if (this.redis.status === 'end') {
      throw new StoreUnavailableError(this.store, 'the ioredis client was closed (status "end")');
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    let wake: (() => void) | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailableError(this.store, `no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      // A pending call must not keep a process alive that has nothing else to do.
      timer.unref?.();
    });
    try {
      if (this.redis.status !== 'ready') {
        await Promise.race([
          new Promise<void>((resolve) => {
            wake = resolve;
            this.watchReady(resolve);
          }),
          deadline,
        ]);
        // Woken by close(): the store is gone, send nothing.
        if (this.closed) throw new StoreUnavailableError(this.store, 'the store was closed');
      }
      return await Promise.race([send(), deadline]);
    } catch (error) {
      throw this.translate(error);
    } finally {
      clearTimeout(timer);
      if (wake) this.readyWaiters.delete(wake);
      if (this.readyWaiters.size === 0) this.redis.off('ready', this.onReady);
    }
  }

  /** Refuses every later call; a call under way finishes or times out. */
  close(): void {
    this.closed = true;
    this.onReady();
    this.redis.off('ready', this.onReady);
  }

  private watchReady(wake: () => void): void {
    if (this.readyWaiters.size === 0) this.redis.on('ready', this.onReady);
    this.readyWaiters.add(wake);
    // A lazyConnect client connects on its first command; we send none until it is ready, so ask.
    if (this.redis.status === 'wait') this.redis.connect().catch(() => {});
  }

  private translate(error: unknown): Error {
    if (error instanceof StoreUnavailableError) return error;
    const message = error instanceof Error ? error.message : String(error);
    if (message.startsWith('XT_CONFLICT ')) return new ConflictReply(message.slice('XT_CONFLICT '.length));
    return new StoreUnavailableError(this.store, message, error);
  }
}
