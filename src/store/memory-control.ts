/**
 * The memory store's fleet-wide control (lua/control.ts): a pause (a longer one in force is kept),
 * its resume, a scope's rates from now, and the keys' template. Sliding window: the logs are kept,
 * so new limits apply to grants already made. Token bucket: the same number of rates keeps each
 * bucket (resynced to now, stored permits rescaled to the new maximum); another number starts empty
 * buckets, not before the old next free time (a fresh bucket must not hand out what a pre-consumed
 * request already took).
 */
import type { Rate } from '../rate/index.js';
import type { Bucket, Scope } from './memory-scopes.js';
import { memoryRates } from './memory-scopes.js';
import type { MemoryState } from './memory-state.js';

/** No grant before now + `forUs` (a longer pause in force is kept); the pause's end. */
export function pauseFor(state: MemoryState, forUs: number, now: number): number {
  state.pausedUntil = Math.max(state.pausedUntil, now + forUs);
  return state.pausedUntil;
}

/** Lifts a pause; whether one was set (a quarantine is never lifted: the memory store has none). */
export function resume(state: MemoryState): boolean {
  const was = state.pausedUntil !== 0;
  state.pausedUntil = 0;
  return was;
}

/** A scope's own rates from now: overall, a channel's, or a key's (kept while the key lives). */
export function setScopeRates(state: MemoryState, s: Scope, parsed: Rate[], now: number): void {
  const rates = memoryRates(parsed, state.declared.dims);
  if (state.declared.strategy === 'token-bucket') {
    const old = state.scopes.ratesOf(s);
    const states: Array<Bucket & { max: number }> = [];
    let latestFree = now;
    for (const [i, rate] of old.entries()) {
      const b = s.buckets.get(i) ?? { nextFree: s.isKey ? now : state.createdAt, stored: 0 };
      let { nextFree, stored } = b;
      if (now > nextFree) {
        stored = Math.min(state.maxPermits(rate), stored + (now - nextFree) / (rate.us / rate.limit));
        nextFree = now;
      }
      latestFree = Math.max(latestFree, nextFree);
      states[i] = { nextFree, stored, max: state.maxPermits(rate) };
    }
    s.buckets.clear();
    for (const [i, rate] of rates.entries()) {
      const kept = rates.length === old.length ? states[i] : undefined;
      const from = kept ?? { nextFree: latestFree, stored: 0, max: 0 };
      s.buckets.set(i, {
        nextFree: from.nextFree,
        stored: from.max > 0 ? (from.stored * state.maxPermits(rate)) / from.max : 0,
      });
    }
  }
  s.own = { rates, parsed };
  if (s.isKey)
    for (const rate of rates) state.scopes.keyLongest = Math.max(state.scopes.keyLongest, rate.us + state.grace);
  state.version += 1;
}

/** The keys' template from now, for every key without rates of its own (a key's bucket is kept, its stored permits cut when next read). */
export function setTemplate(state: MemoryState, parsed: Rate[]): void {
  state.scopes.template = { rates: memoryRates(parsed, state.declared.dims), parsed };
  state.version += 1;
}
