import type { Rate } from '../rate/index.js';
import { type DeclaredConfig, ratesFromJson } from '../store/limiter-config.js';
import type { StoreNotice } from '../store/protocol.js';
import type { PublishedNotice } from './notice-subscriber.js';

/** The fixed part of every script's reply, decoded. */
export interface ReplyHeader {
  readonly epoch: string;
  readonly seq: number;
  readonly version: number;
  readonly horizonUs: number;
  readonly pausedUs: number;
  readonly quarantineUs: number;
  readonly lostNow: boolean;
  readonly pauseId: string;
  readonly quarantineId: string;
  /** Present when the caller's known version differed: '' for the opened overall rates (and template). */
  readonly rates?: {
    readonly overall: string;
    readonly template: string;
    readonly channels: ReadonlyMap<string, string>;
  };
}

/** Decodes the header and says where the script's own results start. */
export function decodeHeader(reply: unknown[]): { header: ReplyHeader; rest: number } {
  const [
    epoch,
    seq,
    version,
    horizonUs,
    pausedUs,
    quarantineUs,
    lostNow,
    pauseId,
    quarantineId,
    overall,
    template,
    count,
  ] = reply as [string, number, number, number, number, number, number, string, string, string, string, number];
  const channels = new Map<string, string>();
  for (let i = 0; i < Number(count); i++) channels.set(String(reply[12 + 2 * i]), String(reply[13 + 2 * i]));
  return {
    header: {
      epoch: String(epoch),
      seq: Number(seq),
      version: Number(version),
      horizonUs: Number(horizonUs),
      pausedUs: Number(pausedUs),
      quarantineUs: Number(quarantineUs),
      lostNow: Number(lostNow) === 1,
      pauseId: String(pauseId),
      quarantineId: String(quarantineId),
      ...(overall === '=' ? {} : { rates: { overall: String(overall), template: String(template), channels } }),
    },
    rest: 12 + 2 * Number(count),
  };
}

/** How long a limiter's keys outlive its horizon (prelude.ts: `lifeMs`), at least. */
const KEY_MARGIN_MS = 10_000;

/**
 * What this process knows of the shared state: the epoch and the highest sequence number it has
 * seen, until when the state must still exist (so that a missing one is a loss, not an expiry),
 * the rates in force and the pause. Times here are on the local clock and only ever compared with
 * it: Redis' durations are added to the local time a reply arrived.
 */
export class Knowledge {
  private epoch = '';
  private seq = 0;
  /** Until this local time the state cannot have expired by itself. */
  private expectUntil = Number.NEGATIVE_INFINITY;
  private versionKey = '';
  private pauseId = '0';
  private quarantineId = '0';
  rates: Rate[];
  channels: Map<string, Rate[]>;
  /** The keys' template in force; undefined without keys. */
  keyRates: Rate[] | undefined;
  private readonly listeners = new Set<(notice: StoreNotice) => void>();

  constructor(
    private readonly declared: DeclaredConfig,
    private readonly localNow: () => number,
  ) {
    this.rates = declared.rates;
    this.channels = new Map(declared.channels);
    this.keyRates = declared.keys;
  }

  /** The epoch and sequence to send: the caller's claim that the state must exist as it saw it. */
  expectation(): { epoch: string; seq: number; version: string } {
    const expected = this.epoch !== '' && this.localNow() < this.expectUntil;
    return { epoch: expected ? this.epoch : '', seq: expected ? this.seq : 0, version: this.versionKey };
  }

  listen(listener: (notice: StoreNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Learns from a reply that arrived at local time `arrived`. */
  learn(header: ReplyHeader, arrived: number): void {
    // A new state where the old one cannot have expired by itself yet (its keys outlive the horizon by
    // KEY_MARGIN_MS): Redis lost it (a restart, a flush). Before the first reply there was none to lose.
    const fresh = header.epoch !== this.epoch && this.epoch !== '' && arrived <= this.expectUntil + KEY_MARGIN_MS;
    if (header.epoch !== this.epoch) {
      this.epoch = header.epoch;
      this.seq = header.seq;
    } else {
      this.seq = Math.max(this.seq, header.seq);
    }
    const horizonMs = header.horizonUs / 1000;
    // Slack for clock-rate drift between this host and Redis; the keys outlive the horizon by more.
    this.expectUntil = arrived + horizonMs + 100 + horizonMs / 1000;
    const versionKey = `${header.epoch}:${header.version}`;
    if (header.rates && versionKey !== this.versionKey) {
      this.versionKey = versionKey;
      this.setRates(header.rates.overall, header.rates.template, header.rates.channels);
    }
    if (header.pauseId !== this.pauseId) {
      const wasPaused = this.pauseId !== '0';
      this.pauseId = header.pauseId;
      if (header.pausedUs > 0) this.emit({ type: 'paused', forMs: header.pausedUs / 1000 });
      else if (wasPaused && header.pauseId === '0') this.emit({ type: 'resumed' });
    }
    if (header.quarantineId !== this.quarantineId) {
      this.quarantineId = header.quarantineId;
      if (header.quarantineUs > 0) this.emit({ type: 'quarantined', forMs: header.quarantineUs / 1000 });
    }
    if (fresh) this.emit({ type: 'fresh' });
  }

  /** Learns from a notice published by any process (including this one). */
  hear(notice: PublishedNotice): void {
    if (notice.kind === 'pause' && notice.id !== this.pauseId) {
      this.pauseId = notice.id;
      this.emit({ type: 'paused', forMs: notice.forUs / 1000 });
    } else if (notice.kind === 'resume' && this.pauseId !== '0') {
      this.pauseId = '0';
      this.emit({ type: 'resumed' });
    } else if (notice.kind === 'rates' && notice.epoch === this.epoch) {
      const [, knownVersion] = this.versionKey.split(':');
      if (Number(knownVersion) >= notice.version) return;
      // One version ahead: this notice is the whole change. Further: some were missed, and the
      // next reply brings the full set; apply what is here meanwhile.
      if (Number(knownVersion) + 1 === notice.version) this.versionKey = `${notice.epoch}:${notice.version}`;
      const rates = ratesFromJson(JSON.stringify(notice.rates), this.declared.dims);
      let key: { name: string; rates: Rate[] } | undefined;
      if (notice.template === true) this.keyRates = rates;
      else if (typeof notice.key === 'string') key = { name: notice.key, rates };
      else if (notice.channel === null) this.rates = rates;
      else this.channels.set(notice.channel, rates);
      this.emit({ type: 'rates', rates: this.rates, channels: new Map(this.channels), keys: this.keyRates, key });
    }
  }

  private setRates(overall: string, template: string, overrides: ReadonlyMap<string, string>): void {
    const rates = overall === '' ? this.declared.rates : ratesFromJson(overall, this.declared.dims);
    const keyRates =
      template === '' || this.declared.keys === undefined
        ? this.declared.keys
        : ratesFromJson(template, this.declared.dims);
    const channels = new Map(this.declared.channels);
    for (const [name, json] of overrides)
      if (channels.has(name)) channels.set(name, ratesFromJson(json, this.declared.dims));
    const before = JSON.stringify([this.rates, this.keyRates, [...this.channels]]);
    this.rates = rates;
    this.keyRates = keyRates;
    this.channels = channels;
    if (JSON.stringify([rates, keyRates, [...channels]]) !== before) {
      this.emit({ type: 'rates', rates, channels: new Map(channels), keys: keyRates });
    }
  }

  private emit(notice: StoreNotice): void {
    for (const listener of this.listeners) {
      try {
        listener(notice);
      } catch {
        // A listener's failure is its own; the others still hear.
      }
    }
  }
}
