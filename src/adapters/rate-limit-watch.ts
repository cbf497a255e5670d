/**
 * Whether a rate holds tasks back (`isRateLimited`), and the promises and events that wait for it to change:
 * `onRateLimit()`, `onRateLimitCleared()`, 'rateLimit' and 'rateLimitCleared'.
 *
 * Read from what the machine already publishes, never by a scan or a timer of its own: tasks wait in the
 * machine's queue (`counts.queued`), no pause is in force, and its one wake-up timer is armed for later
 * (`wakeAt`), for the rates. A wake-up armed for a task's deadline (maxWait) is not a rate's while every
 * slot is taken (then `maxConcurrent` holds the tasks). Changes are noticed as snapshots are published, and
 * only while someone listens or waits: the first `on` or promise subscribes, O(1) a snapshot from then on.
 */
import type { Actor } from 'xstate';
import type { MachineContext } from '../machine/machine-types.js';
import type { throttlerMachine } from '../machine/index.js';
import type { TaskEvents } from './task-events.js';

export class RateLimitWatch {
  private limitWaiters: Array<() => void> = [];
  private clearedWaiters: Array<() => void> = [];
  /** The state last told; undefined while nobody listens (the next listener starts from the state then). */
  private last: boolean | undefined;
  private subscribed = false;

  constructor(
    private readonly actor: Actor<typeof throttlerMachine>,
    private readonly maxConcurrent: number,
    private readonly events: TaskEvents,
    private readonly isStopped: () => boolean,
  ) {}

  get isRateLimited(): boolean {
    if (this.isStopped()) return false;
    const context = this.actor.getSnapshot().context as unknown as MachineContext | undefined;
    if (context === undefined || context.counts.queued === 0) return false;
    const { wakeAt, dispatcher } = context;
    const now = context.now();
    if (!(wakeAt > now) || wakeAt === Number.POSITIVE_INFINITY || dispatcher.clearance.pausedUntil > now) return false;
    return wakeAt < dispatcher.nextDeadline || dispatcher.inFlightCount < this.maxConcurrent;
  }

  onRateLimit(): Promise<void> {
    if (this.isRateLimited) return Promise.resolve();
    this.watch();
    return new Promise((resolve) => this.limitWaiters.push(resolve));
  }

  onRateLimitCleared(): Promise<void> {
    if (!this.isRateLimited) return Promise.resolve();
    this.watch();
    return new Promise((resolve) => this.clearedWaiters.push(resolve));
  }

  /** Someone listens or waits: changes are told from the state now on. */
  watch(): void {
    this.last ??= this.isRateLimited;
    if (this.subscribed) return;
    this.subscribed = true;
    this.actor.subscribe({ next: this.noticed, error: () => {} });
  }

  private get listened(): boolean {
    return (
      this.limitWaiters.length > 0 ||
      this.clearedWaiters.length > 0 ||
      this.events.hears('rateLimit') ||
      this.events.hears('rateLimitCleared')
    );
  }

  /** A snapshot was published (or the throttler stopped): a change of state is told once. */
  readonly noticed = (): void => {
    if (!this.listened) {
      this.last = undefined;
      return;
    }
    const limited = this.isRateLimited;
    if (limited === this.last) return;
    this.last = limited;
    if (limited) {
      this.limitWaiters = resolveAll(this.limitWaiters);
      this.events.emit('rateLimit');
    } else {
      this.clearedWaiters = resolveAll(this.clearedWaiters);
      this.events.emit('rateLimitCleared');
    }
  };
}

function resolveAll(waiters: Array<() => void>): Array<() => void> {
  for (const resolve of waiters) resolve();
  return [];
}
