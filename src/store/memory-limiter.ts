/**
 * One throttler's handle on the memory store's limiter: checks each request as RedisSharedLimiter
 * does (the same errors, named), asks the state (memory-state.ts) and turns its answers into outcomes
 * (reserve-reply.ts, as a script's triples are). Every method is one call, counted in `roundTrips`.
 */

import { type Cost, type Rate, type RatesInput, ThrottlerOptionError } from '../rate/index.js';
import { checkPause, isKeyIn, ratesToSet, requestRefusal, templateToSet } from './limiter-checks.js';
import { type DeclaredConfig, toMicros } from './limiter-config.js';
import type { MemoryBackend } from './memory-backend.js';
import { pauseFor, resume, setScopeRates, setTemplate } from './memory-control.js';
import { retimeGrants } from './memory-retime.js';
import type { Scope } from './memory-scopes.js';
import type { MemoryRequest, MemoryState } from './memory-state.js';
import type {
  FleetAuditReport,
  LineOutcome,
  LineWeights,
  Reservation,
  ReservationRequest,
  ReserveOutcome,
  RetimeOutcome,
  StoreLimiter,
  StoreNotice,
} from './protocol.js';
import { formatReservation, parseReservation } from './reservations.js';
import { outcomeOf } from './reserve-reply.js';
import { storeCostText } from './store-cost.js';

export class MemoryLimiter implements StoreLimiter {
  roundTrips = 0;
  readonly clockDrift = 0;

  constructor(
    private readonly backend: MemoryBackend,
    private readonly declared: DeclaredConfig,
  ) {}

  get name(): string {
    return this.backend.name;
  }

  get grantGraceMs(): number {
    return this.declared.grantGraceMs;
  }

  get rates(): Rate[] {
    return this.backend.peek(this.declared)?.scopes.overall.own?.parsed ?? this.declared.rates;
  }

  get channels(): ReadonlyMap<string, Rate[]> {
    const state = this.backend.peek(this.declared);
    const channels = new Map(this.declared.channels);
    if (state) for (const [name, own] of state.scopes.channelRates()) channels.set(name, own);
    return channels;
  }

  get keyRates(): Rate[] | undefined {
    if (this.declared.keys === undefined) return undefined;
    return this.backend.peek(this.declared)?.scopes.template?.parsed ?? this.declared.keys;
  }

  reserve(requests: readonly ReservationRequest[]): Promise<ReserveOutcome[]> {
    return this.reserveIn(requests, false) as Promise<ReserveOutcome[]>;
  }

  /** `reserve` no further than `aheadMs` ahead (RetimingLimiter). */
  reserveNear(requests: readonly ReservationRequest[], aheadMs: number): Promise<ReserveOutcome[]> {
    return this.reserveIn(requests, false, nearBound(aheadMs)) as Promise<ReserveOutcome[]>;
  }

  async reserveLines(
    requests: readonly ReservationRequest[],
    weightOf?: LineWeights,
    _reports?: number,
    aheadMs?: number,
  ): Promise<LineOutcome[]> {
    if (weightOf !== undefined) {
      throw new ThrottlerOptionError(
        'fairness',
        "'none' with the memory store (weighted fairness needs the Redis store)",
        'weighted',
      );
    }
    return this.reserveIn(requests, true, aheadMs === undefined ? undefined : nearBound(aheadMs));
  }

  /** `aheadUs`: this call's reserve-ahead bound in µs, below the declared one (undefined: that one). */
  private async reserveIn(
    requests: readonly ReservationRequest[],
    lines: boolean,
    aheadUs?: number,
  ): Promise<LineOutcome[]> {
    if (!Array.isArray(requests))
      throw new ThrottlerOptionError('requests', 'an array of { channel?, cost }', requests);
    const outcomes: Array<LineOutcome | undefined> = new Array(requests.length);
    const asked: Array<{ index: number; request: MemoryRequest }> = [];
    for (const [index, request] of requests.entries()) {
      const refusal = requestRefusal(this.declared, request);
      if (typeof refusal !== 'string') outcomes[index] = { kind: 'refused', error: refusal };
      else asked.push({ index, request: this.requestOf(request.channel, refusal) });
    }
    if (asked.length === 0) return outcomes as LineOutcome[];
    const answers = this.call((state, now) =>
      state.reserve(
        asked.map(({ request }) => request),
        lines,
        now,
        aheadUs,
      ),
    );
    const epoch = this.epoch();
    for (const [n, { index, request }] of asked.entries()) {
      const { kind, us, member } = answers[n] as { kind: number; us: number; member: string };
      const reservation = formatReservation(epoch, member, request.channel, request.isKey);
      outcomes[index] = outcomeOf(kind, us, member, reservation, requests[index] as ReservationRequest);
    }
    return outcomes as LineOutcome[];
  }

  async release(reservations: readonly Reservation[]): Promise<void> {
    if (!Array.isArray(reservations)) {
      throw new ThrottlerOptionError('reservations', 'an array of reservations from reserve', reservations);
    }
    const parsed = reservations.map((reservation) => this.grantOf(reservation));
    if (parsed.length === 0 || this.declared.strategy === 'token-bucket') return;
    this.call((state, now) => state.release(parsed, now));
  }

  async settle(reservation: Reservation, actual: Cost): Promise<void> {
    const { epoch, member, channel, isKey } = this.grantOf(reservation);
    if (this.declared.strategy !== 'sliding-window') return;
    const costs = storeCostText(actual, this.declared.dims, 'cost', true).split(',').map(Number);
    this.call((state, now) => state.settle(epoch, member, channel, isKey, costs, now));
  }

  async retime(reservations: readonly Reservation[], leadMs = 0): Promise<RetimeOutcome[]> {
    const parsed = reservations.map((reservation) => this.grantOf(reservation));
    if (parsed.length === 0 || this.declared.strategy !== 'sliding-window') return parsed.map(() => ({ kind: 'gone' }));
    const answers = this.call((state, now) => retimeGrants(state, parsed, toMicros(leadMs), now));
    const epoch = this.epoch();
    return parsed.map(({ channel, isKey }, n): RetimeOutcome => {
      const { kind, us, member } = answers[n] as { kind: number; us: number; member: string };
      if (kind !== 0) return { kind: 'gone' };
      return outcomeOf(0, us, member, formatReservation(epoch, member, channel, isKey), { cost: 1 }) as RetimeOutcome;
    });
  }

  async redisNow(): Promise<number> {
    return this.call((_state, now) => now / 1000);
  }

  async setRate(rates: RatesInput, channel?: string): Promise<void> {
    const parsed = ratesToSet(this.declared, this, rates, channel);
    const isKey = channel !== undefined && this.isKey(channel);
    this.call((state, now) => {
      setScopeRates(state, state.scopesOf(channel, isKey, now).at(-1) as Scope, parsed, now);
    });
    const key = isKey ? { name: channel as string, rates: parsed } : undefined;
    this.backend.tell({ type: 'rates', rates: this.rates, channels: this.channels, keys: this.keyRates, key });
  }

  async setKeyTemplate(rates: RatesInput): Promise<void> {
    const parsed = templateToSet(this.declared, this.keyRates, rates, this.name);
    this.call((state) => setTemplate(state, parsed));
    this.backend.tell({ type: 'rates', rates: this.rates, channels: this.channels, keys: this.keyRates });
  }

  async pause(durationMs: number): Promise<void> {
    checkPause(durationMs);
    const [before, after, now] = this.call((state, now) => [
      state.pausedUntil,
      pauseFor(state, toMicros(durationMs), now),
      now,
    ]);
    if (after !== before) this.backend.tell({ type: 'paused', forMs: (after - now) / 1000 });
  }

  async resume(): Promise<void> {
    if (this.call((state) => resume(state))) this.backend.tell({ type: 'resumed' });
  }

  async check(): Promise<void> {
    this.call(() => undefined);
  }

  subscribe(listener: (notice: StoreNotice) => void): () => void {
    if (typeof listener !== 'function') throw new ThrottlerOptionError('listener', 'a function', listener);
    return this.backend.listen(listener);
  }

  async audit(): Promise<FleetAuditReport> {
    this.roundTrips += 1;
    return this.backend.audit();
  }

  private call<T>(decide: (state: MemoryState, now: number) => T): T {
    this.roundTrips += 1;
    return this.backend.call(this.declared, decide);
  }

  /** The epoch of the state in force (after a call: the one that answered). */
  private epoch(): string {
    return this.backend.peek(this.declared)?.epoch ?? '';
  }

  private grantOf(reservation: Reservation) {
    const { epoch, member, channel } = parseReservation(reservation);
    const isKey = channel !== undefined && reservation.endsWith(` *${channel}`);
    return { epoch, member, channel, isKey };
  }

  private requestOf(channel: string | undefined, costText: string): MemoryRequest {
    return { channel, isKey: channel !== undefined && this.isKey(channel), costs: costText.split(',').map(Number) };
  }

  private isKey(name: unknown): name is string {
    return isKeyIn(this.declared, name);
  }
}

/** A reserve call's own bound, checked as the Redis limiter checks it (shared-limiter.ts), in µs. */
function nearBound(aheadMs: number): number {
  if (typeof aheadMs !== 'number' || !Number.isFinite(aheadMs) || aheadMs < 0) {
    throw new ThrottlerOptionError('aheadMs', 'a finite number of milliseconds >= 0', aheadMs);
  }
  return Math.floor(aheadMs * 1000);
}
