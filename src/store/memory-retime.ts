/**
 * The memory store's re-time of late grants (lua/retime.ts): each moves, in place, to the store's now
 * + `lead` (at most the reserve-ahead bound) when it still fits every window of every rate of its
 * scopes there, else it is given back; a grant whose time has not come is kept. Moving a grant of cost
 * c from t0 to t1 adds c only to the windows (x - span, x] with x in [max(t1, t0 + span), t1 + span):
 * the largest of them ends at that first x or at a grant's time inside it, so only those are checked.
 */
import type { MemoryLog } from './memory-log.js';
import type { Scope } from './memory-scopes.js';
import { type MemoryAnswer, type MemoryState, timeOf } from './memory-state.js';

/** A grant to re-time: its reservation's epoch, member and scope. */
export interface RetimeAsk {
  readonly epoch: string;
  readonly member: string;
  readonly channel: string | undefined;
  readonly isKey: boolean;
}

export function retimeGrants(
  state: MemoryState,
  asks: readonly RetimeAsk[],
  leadUs: number,
  now: number,
): MemoryAnswer[] {
  const blocked = state.pausedUntil > now;
  const target = now + Math.min(leadUs, state.ahead);
  let touched = false;
  const answers = asks.map(({ epoch, member, channel, isKey }): MemoryAnswer => {
    const scopes = state.scopesOf(channel, isKey, now);
    const costs = state.costsOfMember(member);
    const dims = state.dimsOf(costs);
    const logs: Array<{ s: Scope; d: number; log: MemoryLog }> = [];
    let present = state.declared.strategy === 'sliding-window' && epoch === state.epoch;
    for (const s of scopes)
      for (const d of dims) {
        const log = s.logs.get(d);
        if (log?.has(member)) logs.push({ s, d, log });
        else present = false;
      }
    const t0 = timeOf(member);
    if (present && t0 >= now) return { kind: 0, us: Math.ceil(t0 - now), member };
    const fits =
      present &&
      !blocked &&
      logs.every(({ s, d, log }) => fitsMove(state, s, log, d, state.costFor(costs, d), t0, target));
    const renamed = fits ? `${target}${member.slice(member.indexOf(':'))}` : undefined;
    for (const { log, d } of logs) {
      log.remove(member);
      state.recordRemoval(member, now);
      if (renamed !== undefined) log.insert(renamed, target, state.costFor(costs, d));
      touched = true;
    }
    return renamed === undefined
      ? { kind: 5, us: 0, member: '' }
      : { kind: 0, us: Math.ceil(target - now), member: renamed };
  });
  if (touched) state.refreshLast();
  return answers;
}

/** Whether cost more at t1, and cost less at t0, keeps every window of scope s's rates of dimension d within its limit. */
function fitsMove(
  state: MemoryState,
  s: Scope,
  log: MemoryLog,
  d: number,
  cost: number,
  t0: number,
  t1: number,
): boolean {
  for (const rate of state.scopes.ratesOf(s)) {
    if (rate.d !== d) continue;
    const span = rate.us + state.grace;
    const from = Math.max(t1, t0 + span);
    const times: number[] = [];
    const costs: number[] = [];
    for (const entry of log.from(log.firstAfter(from - span))) {
      if (entry.time >= t1 + span) break;
      times.push(entry.time);
      costs.push(entry.cost);
    }
    // Windows (x - span, x] for x = from and every grant's time in [from, t1 + span).
    let left = 0;
    let right = 0;
    let held = 0;
    let x = from;
    let index = -1;
    for (;;) {
      while (right < times.length && (times[right] as number) <= x) held += costs[right++] as number;
      while (left < right && (times[left] as number) <= x - span) held -= costs[left++] as number;
      if (held + cost > rate.limit) return false;
      do index += 1;
      while (index < times.length && (times[index] as number) < from);
      if (index >= times.length) break;
      x = times[index] as number;
    }
  }
  return true;
}
