/**
 * Whether a rate holds tasks back (`isRateLimited`), and the promises and events that wait for it to change:
 * `onRateLimit()`, `onRateLimitCleared()`, 'rateLimit' and 'rateLimitCleared'.
 *
 * Read from what the machine already publishes, never by a scan or a timer of its own: tasks wait in the
 * machine's queue (`counts.queued`), no pause is in force, and its one wake-up timer is armed for later
 * (`wakeAt`), for the rates. While every `maxConcurrent` slot is taken the machine arms no timer for the
 * rates (a slot must free first): concurrency holds the tasks then, not a rate; nor is a wake-up armed for
 * a task's deadline (maxWait) a rate's then. Changes are noticed as snapshots are published, and only while
 * someone listens or waits: the first `on` or promise subscribes, O(1) a snapshot from then on. A change is
 * told in the microtask after the snapshot that made it (one told per stretch, whatever its steps: a task
 * queued then cleared in one stretch is no change); `clear()` tells it at once.
 */
import type { Actor } from 'xstate';
import type { FeatureValue } from '../engine/index.js';
import type { MachineContext, throttlerMachine } from '../machine/index.js';
import type { TaskEvents } from './task-events.js';

/** The rate-limit watch as a feature value (engine/options/features-option.ts): what builds a throttler's. */
export interface RateLimitWatchFeature extends FeatureValue<'rateLimitWatch'> {
  readonly watch: (...parts: ConstructorParameters<typeof RateLimitWatch>) => RateLimitWatch;
}

/**
 * p-queue's rate-limit readers on the promise API (`isRateLimited`, `isSaturated`, `onRateLimit()`,
 * `onRateLimitCleared()`, the 'rateLimit' and 'rateLimitCleared' events): pass it in `features` to
 * xstate-throttler/lean, which refuses them without it (the main entry loads it by itself).
 */
export const rateLimitWatch: FeatureValue<'rateLimitWatch'> = {
  feature: 'rateLimitWatch',
  watch: (...parts) => new RateLimitWatch(...parts),
} as RateLimitWatchFeature;

export class RateLimitWatch {
  private limitWaiters: Array<() => void> = [];
  private clearedWaiters: Array<() => void> = [];
  /** The state last told; undefined while nobody listens (the next listener starts from the state then). */
  private last: boolean | undefined;
  private subscribed = false;
  /** A check is queued for the next microtask. */
  private checking = false;

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
    // A wake-up already due still counts: the timer has not fired yet, the tasks still wait for it.
    if (wakeAt === Number.POSITIVE_INFINITY || dispatcher.clearance.pausedUntil > context.now()) return false;
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

  /** A snapshot was published (or the throttler stopped): checked in the next microtask. */
  private readonly noticed = (): void => {
    if (this.checking) return;
    this.checking = true;
    queueMicrotask(this.tell);
  };

  /** Tells a change of state since the last told, once. */
  readonly tell = (): void => {
    this.checking = false;
    if (!this.listened) {
      this.last = undefined;
      return;
    }
    if (this.last === undefined) return;
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
