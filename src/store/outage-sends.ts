/**
 * What a throttler sent on its local window while the store was down (onStoreDown 'local'), kept
 * until it leaves every window: Redis never saw it, and a Redis that answers again (empty or not)
 * would otherwise grant the whole limit on top of it (four processes at a quarter share reached 40
 * of 20 in a window). So, until the last of it has left the longest window:
 *
 * - it is reported to the store as grants, first in every reserve call (`toReport`), until granted,
 *   so that the whole fleet counts it from then on (at the report's Redis time, no earlier than the
 *   send: counting later is never counting less for the windows that follow);
 * - this process keeps its local window in force on top of the store's (`holds`), so that before
 *   its report is in, and while other processes' reports are not, it sends no more than its share.
 */
import type { ResolvedOptions } from '../engine/index.js';
import { Deque } from '../engine/index.js';
import { type Cost, longestIntervalOf } from '../rate/index.js';
import type { ReservationRequest } from './protocol.js';

export interface LocalSend extends ReservationRequest {
  readonly channel: string | undefined;
  readonly cost: Cost;
  readonly at: number;
}

export class OutageSends {
  /** Sent locally and not yet reported, oldest first. */
  private readonly unreported = new Deque<LocalSend>();
  /** The local window holds sends until then (the last local send + the longest window). */
  private holdsUntil = Number.NEGATIVE_INFINITY;

  /**
   * `longestMs`: the longest interval of any rate, plus the grace the store spaces grants by.
   * `holdAfterOutageMs`: with onStoreDown 'local', how long the local window also stays in force after
   * the store is back, whether or not this process sent locally (undefined: not at all): `longestMs`
   * plus the longest another process may still be sending locally after the return (`reconnectWithin`
   * + 1 s: reserve-calls.ts, `localUntil`). Its local sends may not be reported yet, and a store back empty
   * would grant this one the whole limit on top of them: every window this process is granted in
   * after the hold ends after the last of them went (docs/redis.md, "Redis down").
   */
  constructor(
    private readonly longestMs: number,
    private readonly holdAfterOutageMs: number | undefined = undefined,
  ) {}

  /** The store answered again after an outage, at `now`. */
  recovered(now: number): void {
    if (this.holdAfterOutageMs !== undefined) this.holdsUntil = Math.max(this.holdsUntil, now + this.holdAfterOutageMs);
  }

  record(channel: string | undefined, cost: Cost, at: number): void {
    this.unreported.push({ channel, cost, at });
    this.holdsUntil = Math.max(this.holdsUntil, at + this.longestMs);
    this.forgetOld(at);
  }

  /** Whether a local send may still be in a window at `now`: the local window stays in force. */
  holds(now: number): boolean {
    return now < this.holdsUntil;
  }

  /** The unreported sends still inside a window at `now`, oldest first, at most `max`. */
  toReport(now: number, max: number): LocalSend[] {
    this.forgetOld(now);
    const reports: LocalSend[] = [];
    for (const send of this.unreported) {
      if (reports.length >= max) break;
      reports.push(send);
    }
    return reports;
  }

  /** These sends (the first of a `toReport`) are counted in the store now. */
  reported(sends: readonly LocalSend[]): void {
    const counted = new Set(sends);
    while (counted.has(this.unreported.peekFirst() as LocalSend)) this.unreported.shift();
  }

  private forgetOld(now: number): void {
    while ((this.unreported.peekFirst()?.at ?? Number.POSITIVE_INFINITY) + this.longestMs <= now)
      this.unreported.shift();
  }
}

/** The longest interval of any rate the options hold (overall, channels, keys), in ms. */
export function longestInterval(options: ResolvedOptions): number {
  return longestIntervalOf([options.rates, ...options.channels.values(), options.keys?.rates ?? []]);
}

/** The shortest interval of any rate in force, in ms (what a settling throttler's reserve-ahead is reckoned on). */
export function shortestInterval(options: ResolvedOptions): number {
  let shortest = Number.POSITIVE_INFINITY;
  for (const rates of [options.rates, ...options.channels.values(), options.keys?.rates ?? []])
    for (const rate of rates) shortest = Math.min(shortest, rate.interval);
  return shortest;
}
