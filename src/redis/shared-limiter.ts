import { randomBytes } from 'node:crypto';
import { type Cost, type RatesInput, ThrottlerOptionError } from '../rate/index.js';
import { StoreConflictError } from '../store/errors.js';
import { checkPause, isKeyIn, ratesToSet, requestRefusal, templateToSet } from '../store/limiter-checks.js';
import { type DeclaredConfig, firstDifference, ratesJson, toMicros } from '../store/limiter-config.js';
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
} from '../store/protocol.js';
import { parseReservation } from '../store/reservations.js';
import { outcomeOf } from '../store/reserve-reply.js';
import { MAX_DRIFT } from '../store/store-clock.js';
import { storeCostText } from '../store/store-cost.js';
import { auditFleet } from './fleet-audit.js';
import { ConflictReply, type GuardedClient } from './guarded-client.js';
import type { LimiterKeys } from './keys.js';
import { decodeHeader, Knowledge, type ReplyHeader } from './knowledge.js';
import type { NoticeSubscriber } from './notice-subscriber.js';
import { Scopes } from './reservation-scopes.js';

type StoreScript = 'reserve' | 'release' | 'control' | 'auditRead' | 'auditCommit';

/** How the store runs one of its scripts: keys and arguments in, the raw reply out. */
export type ScriptRunner = (script: StoreScript, keys: string[], args: string[]) => Promise<unknown[]>;

/**
 * One throttler's handle on the shared limiter: builds each script call (the keys of exactly the
 * scopes it touches, the caller's expectation of the state), turns replies into outcomes, and
 * keeps what they teach in {@link Knowledge}. No timer, no polling: it answers when asked.
 */
export class RedisSharedLimiter implements StoreLimiter {
  private readonly knowledge: Knowledge;
  roundTrips = 0;

  constructor(
    readonly name: string,
    private readonly declared: DeclaredConfig,
    private readonly keys: LimiterKeys,
    private readonly client: GuardedClient,
    private readonly runScript: ScriptRunner,
    private readonly subscriber: NoticeSubscriber,
    private readonly localNow: () => number,
    private readonly testClock: (() => number) | undefined,
  ) {
    this.knowledge = new Knowledge(declared, localNow);
  }

  get rates() {
    return this.knowledge.rates;
  }

  get channels() {
    return this.knowledge.channels;
  }

  get keyRates() {
    return this.knowledge.keyRates;
  }

  get clockDrift(): number {
    return this.testClock ? 0 : MAX_DRIFT;
  }

  get grantGraceMs(): number {
    return this.declared.grantGraceMs;
  }

  async reserve(requests: readonly ReservationRequest[]): Promise<ReserveOutcome[]> {
    return (await this.reserveIn(requests, false)) as ReserveOutcome[];
  }

  /** `reserve` no further than `aheadMs` ahead (RetimingLimiter). Not public. */
  async reserveNear(requests: readonly ReservationRequest[], aheadMs: number): Promise<ReserveOutcome[]> {
    return (await this.reserveIn(requests, false, undefined, aheadMs)) as ReserveOutcome[];
  }

  /** Per-line reserve (per-channel ordering; with weights, fleet-wide fair): see LineReserver. Not public. */
  reserveLines(
    requests: readonly ReservationRequest[],
    weightOf?: LineWeights,
    reports = 0,
    aheadMs?: number,
  ): Promise<LineOutcome[]> {
    // The first `reports` (sends made on the local window during an outage) weigh 0: counted whatever the order.
    const weights =
      weightOf && ((channel: string | undefined, index: number) => (index < reports ? 0 : weightOf(channel)));
    return this.reserveIn(requests, weightOf ? 'fairlines' : 'lines', weights, aheadMs);
  }

  private async reserveIn(
    requests: readonly ReservationRequest[],
    lines: false | 'lines' | 'fairlines',
    weightOf?: (channel: string | undefined, index: number) => number,
    aheadMs?: number,
  ): Promise<LineOutcome[]> {
    if (!Array.isArray(requests))
      throw new ThrottlerOptionError('requests', 'an array of { channel?, cost }', requests);
    const outcomes: Array<LineOutcome | undefined> = new Array(requests.length);
    const scopes = this.scopes();
    const pairs: string[] = aheadArgs(aheadMs);
    if (lines) pairs.push(lines);
    const asked: Array<{ index: number; channel: string | undefined }> = [];
    for (const [index, request] of requests.entries()) {
      const refusal = requestRefusal(this.declared, request);
      if (typeof refusal !== 'string') {
        outcomes[index] = { kind: 'refused', error: refusal };
        continue;
      }
      const channel = request.channel;
      const scope = scopes.of(channel);
      pairs.push(String(scope), refusal);
      if (weightOf) pairs.push(String(weightOf(channel, index)));
      asked.push({ index, channel });
    }
    if (asked.length > 0) {
      const { reply, rest, header } = await this.call('reserve', scopes, pairs);
      for (const [n, { index, channel }] of asked.entries()) {
        const kind = Number(reply[rest + 3 * n]);
        const micros = Number(reply[rest + 3 * n + 1]);
        const member = String(reply[rest + 3 * n + 2]);
        const request = requests[index] as ReservationRequest;
        outcomes[index] = outcomeOf(kind, micros, member, scopes.reservation(header.epoch, member, channel), request);
      }
    }
    return outcomes as LineOutcome[];
  }

  async release(reservations: readonly Reservation[]): Promise<void> {
    if (!Array.isArray(reservations)) {
      throw new ThrottlerOptionError('reservations', 'an array of reservations from reserve', reservations);
    }
    const parsed = reservations.map(parseReservation);
    if (parsed.length === 0 || this.declared.strategy === 'token-bucket') return;
    const scopes = this.scopes();
    const triples: string[] = [];
    for (const { epoch, member, channel } of parsed) {
      const scope = scopes.of(channel);
      triples.push(String(scope), epoch, member);
    }
    await this.call('release', scopes, triples);
  }

  /**
   * Sliding window: a sent grant's actual cost replaces its estimate at its own time, in one call
   * (lua/settle.ts). Not part of the public SharedLimiter: a throttler's clearance uses it for ACTUAL_COST.
   */
  async settle(reservation: Reservation, actual: Cost): Promise<void> {
    const { epoch, member, channel } = parseReservation(reservation);
    if (this.declared.strategy !== 'sliding-window') return;
    const text = storeCostText(actual, this.declared.dims, 'cost', true);
    const scopes = this.scopes();
    await this.call('release', scopes, ['settle', String(scopes.of(channel)), epoch, member, text]);
  }

  /**
   * Sliding window: moves grants that could not be sent within the grace of their time to Redis' now
   * (+ `leadMs`) where they still fit every window, and gives back those that do not (lua/retime.ts); a grant
   * whose time has not come is kept as it is. One outcome per reservation, in order. Not part of the
   * public SharedLimiter: a throttler's clearance uses it for its late grants.
   */
  async retime(reservations: readonly Reservation[], leadMs = 0): Promise<RetimeOutcome[]> {
    const parsed = reservations.map(parseReservation);
    if (parsed.length === 0 || this.declared.strategy !== 'sliding-window') return parsed.map(() => ({ kind: 'gone' }));
    const scopes = this.scopes();
    const triples: string[] = ['retime', String(toMicros(leadMs))];
    for (const { epoch, member, channel } of parsed) triples.push(String(scopes.of(channel)), epoch, member);
    const { reply, rest, header } = await this.call('reserve', scopes, triples);
    return parsed.map(({ channel }, n): RetimeOutcome => {
      if (Number(reply[rest + 3 * n]) !== 0) return { kind: 'gone' };
      const member = String(reply[rest + 3 * n + 2]);
      const micros = Number(reply[rest + 3 * n + 1]);
      return outcomeOf(0, micros, member, scopes.reservation(header.epoch, member, channel), {
        cost: 1,
      }) as RetimeOutcome;
    });
  }

  /**
   * Redis' now (ms), by the reserve script: one round trip that also puts the script on this
   * connection (ioredis sends a script's text the first time a connection runs it). Not part of the
   * public SharedLimiter: a throttler's clearance learns Redis' clock from it before its first grants.
   */
  async redisNow(): Promise<number> {
    const { reply, rest } = await this.call('reserve', this.scopes(), ['clock']);
    return Number(reply[rest]) / 1000;
  }

  async setRate(rates: RatesInput, channel?: string): Promise<void> {
    const parsed = ratesToSet(this.declared, this, rates, channel);
    const scopes = this.scopes();
    const scope = scopes.of(channel);
    await this.call('control', scopes, ['rate', String(scope), ratesJson(parsed, this.declared.dims)]);
  }

  async setKeyTemplate(rates: RatesInput): Promise<void> {
    const parsed = templateToSet(this.declared, this.keyRates, rates, this.name);
    await this.call('control', this.scopes(), ['template', ratesJson(parsed, this.declared.dims)]);
  }

  async pause(durationMs: number): Promise<void> {
    checkPause(durationMs);
    await this.call('control', this.scopes(), ['pause', String(toMicros(durationMs))]);
  }

  async resume(): Promise<void> {
    await this.call('control', this.scopes(), ['resume']);
  }

  async check(): Promise<void> {
    // The release script with nothing to release: the common header alone, for either strategy.
    await this.call('release', this.scopes(), []);
  }

  audit(): Promise<FleetAuditReport> {
    const { name, client, runScript, keys, testClock } = this;
    return auditFleet({ name, client, runScript, keys, testClock });
  }

  subscribe(listener: (notice: StoreNotice) => void): () => void {
    if (typeof listener !== 'function') throw new ThrottlerOptionError('listener', 'a function', listener);
    const stopListening = this.knowledge.listen(listener);
    const stopHearing = this.subscriber.add((notice) => this.knowledge.hear(notice));
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      stopListening();
      stopHearing();
    };
  }

  /** Whether a name is a key: the limiter has keys, and the name is no channel and a valid key. */
  private isKey(name: unknown): name is string {
    return isKeyIn(this.declared, name);
  }

  /** The scopes of one call: a channel's state is in the configuration hash, a key's in a hash of its own. */
  private scopes(): Scopes {
    return new Scopes((name) => this.isKey(name), this.keys);
  }

  /** Runs one script with the common header; learns from the reply; maps a conflict to its error. */
  private async call(
    script: StoreScript,
    scopes: Scopes,
    own: string[],
  ): Promise<{ reply: unknown[]; rest: number; header: ReplyHeader }> {
    const expected = this.knowledge.expectation();
    const keys = [this.keys.config, this.keys.overallLog, ...scopes.logs, ...scopes.states];
    const channelNames = scopes.names;
    const args = [
      this.declared.json,
      randomBytes(8).toString('hex'),
      expected.epoch,
      String(expected.seq),
      expected.version,
      this.testClock ? String(Math.round(this.testClock() * 1000)) : '',
      this.keys.notices,
      String(channelNames.length),
      ...channelNames,
      ...own,
    ];
    let reply: unknown[];
    try {
      // Counted as it is sent: a call the guard refuses (not ready within the timeout, closed) sent nothing.
      reply = await this.client.run(() => {
        this.roundTrips += 1;
        return this.runScript(script, keys, args);
      });
    } catch (error) {
      if (error instanceof ConflictReply) {
        const { option, value, stored } = firstDifference(this.declared, error.storedJson);
        throw new StoreConflictError(this.name, option, value, stored);
      }
      throw error;
    }
    const { header, rest } = decodeHeader(reply);
    this.knowledge.learn(header, this.localNow());
    return { reply, rest, header };
  }
}

/** The reserve script's optional 'ahead' and its bound in µs (lua/reserve.ts), checked: none without one. */
function aheadArgs(aheadMs: number | undefined): string[] {
  if (aheadMs === undefined) return [];
  if (typeof aheadMs !== 'number' || !Number.isFinite(aheadMs) || aheadMs < 0) {
    throw new ThrottlerOptionError('aheadMs', 'a finite number of milliseconds >= 0', aheadMs);
  }
  return ['ahead', String(Math.floor(aheadMs * 1000))];
}
