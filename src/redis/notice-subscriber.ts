import type { RedisClientLike } from './types.js';

/** A notice as the control script publishes it. */
export type PublishedNotice =
  | { kind: 'pause'; epoch: string; id: string; forUs: number }
  | { kind: 'resume'; epoch: string }
  | {
      kind: 'rates';
      epoch: string;
      version: number;
      channel: string | null;
      /** A key's own rates (keyed limits). */
      key?: string;
      /** The keys' template. */
      template?: true;
      rates: Array<[number, number]>;
    };

/**
 * The store's one subscriber connection, opened when the first listener arrives and closed when
 * the last leaves (or on close), so that an idle process holds no extra connection and a closed
 * store leaves nothing that keeps the process alive. Notices are a shortcut only: every reply
 * carries the same news, so a notice lost while the subscriber reconnects costs nothing but time.
 */
export class NoticeSubscriber {
  private connection: RedisClientLike | undefined;
  private readonly listeners = new Set<(notice: PublishedNotice) => void>();

  constructor(
    private readonly redis: RedisClientLike,
    private readonly channel: string,
  ) {}

  add(listener: (notice: PublishedNotice) => void): () => void {
    this.listeners.add(listener);
    if (!this.connection) this.open();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.shut();
    };
  }

  /** Closes the connection for good. */
  close(): void {
    this.listeners.clear();
    this.shut();
  }

  private open(): void {
    // The user's client may refuse offline commands; the subscriber must wait to connect instead.
    const override = { enableOfflineQueue: true, lazyConnect: false };
    const connection = this.redis.isCluster ? this.redis.duplicate([], override) : this.redis.duplicate(override);
    this.connection = connection;
    // Connection errors are expected while Redis is down; ioredis reconnects and resubscribes.
    connection.on('error', () => {});
    connection.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      let notice: PublishedNotice;
      try {
        notice = JSON.parse(message) as PublishedNotice;
      } catch {
        return;
      }
      for (const listener of this.listeners) listener(notice);
    });
    connection.subscribe(this.channel).catch(() => {});
  }

  private shut(): void {
    this.connection?.disconnect();
    this.connection = undefined;
  }
}
