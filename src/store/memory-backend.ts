/**
 * The memory store's one limiter: its state (made by the first call, expiring as Redis' keys do), the
 * store's clock, and the listeners every handle's `subscribe` adds. Each call is decided whole here.
 */
import { ThrottlerOptionError } from '../rate/index.js';
import { StoreConflictError } from './errors.js';
import { emptyFleetReport, FleetAuditState } from './fleet-audit-state.js';
import { type DeclaredConfig, firstDifference } from './limiter-config.js';
import { auditRead } from './memory-audit.js';
import { MemoryState } from './memory-state.js';
import type { FleetAuditReport, StoreNotice } from './protocol.js';

/** Past the state's horizon, how long it is kept (µs), as the scripts keep Redis' keys. */
const LIFE_MARGIN_US = 10_000_000;

/** The store's one limiter: its state (made by the first call, expiring), clock and listeners. */
export class MemoryBackend {
  private state: MemoryState | undefined;
  private expiresAt = Number.NEGATIVE_INFINITY;
  private lastNow = Number.NEGATIVE_INFINITY;
  private epochs = 0;
  private readonly listeners = new Set<(notice: StoreNotice) => void>();
  /** The fleet's audit so far (the Redis store keeps it in Redis), from the first read on. */
  private audited: FleetAuditState | undefined;
  closed = false;

  constructor(
    readonly name: string,
    private readonly clock: () => number,
  ) {}

  /** The store's now in µs: integer, never running backwards. */
  now(): number {
    this.lastNow = Math.max(this.lastNow, Math.round(this.clock() * 1000));
    return this.lastNow;
  }

  /** The state in force for a configuration, if it is the stored one (for the rates a handle reports). */
  peek(declared: DeclaredConfig): MemoryState | undefined {
    return this.state?.declared.json === declared.json && this.now() < this.expiresAt ? this.state : undefined;
  }

  /** One call: decided whole on the state, which it creates, or refuses for a configuration that differs. */
  call<T>(declared: DeclaredConfig, decide: (state: MemoryState, now: number) => T): T {
    if (this.closed) throw new ThrottlerOptionError('store', 'open (it was closed)', this.name);
    const now = this.now();
    if (this.state !== undefined && now >= this.expiresAt) this.state = undefined;
    if (this.state === undefined) {
      this.epochs += 1;
      const epoch = `m${this.epochs}.${Math.random().toString(36).slice(2, 10)}`;
      this.state = new MemoryState(declared, epoch, now);
    } else if (this.state.declared.json !== declared.json) {
      const { option, value, stored } = firstDifference(declared, this.state.declared.json);
      throw new StoreConflictError(this.name, option, value, stored);
    }
    const state = this.state;
    const result = decide(state, now);
    let horizon = Math.max(state.last + state.scopes.longest(), state.pausedUntil) - now;
    if (horizon < 0) horizon = 0;
    const until = now + horizon + LIFE_MARGIN_US + horizon / 100;
    this.expiresAt = Math.max(this.expiresAt, until);
    state.scopes.extendKeys(until);
    return result;
  }

  /** The fleet's audit (memory-audit.ts): the grants the store kept, counted once they left every window. */
  audit(): FleetAuditReport {
    if (this.closed) throw new ThrottlerOptionError('store', 'open (it was closed)', this.name);
    const now = this.now();
    if (this.state === undefined || now >= this.expiresAt) return this.audited?.report() ?? emptyFleetReport();
    const read = auditRead(this.state, now);
    this.audited ??= new FleetAuditState(undefined, now);
    this.audited.apply(read);
    return this.audited.report();
  }

  listen(listener: (notice: StoreNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every listener, before the caller's await resumes (a microtask queued ahead of its answer). */
  tell(notice: StoreNotice): void {
    queueMicrotask(() => {
      for (const listener of [...this.listeners]) {
        try {
          listener(notice);
        } catch {
          // A listener's failure is its own; the others still hear.
        }
      }
    });
  }
}
