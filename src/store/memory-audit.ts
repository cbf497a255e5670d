/**
 * The fleet's audit of a memory store: what lua/audit.ts reads from Redis (every scope's grants, the
 * rates in force, the give-backs), read from the state and counted by the same FleetAuditState, so that
 * the report means what the Redis store's does. Exact when read at least once per the shortest interval
 * + grace (`gaps` counts the reads that came later).
 */
import { ThrottlerOptionError } from '../rate/index.js';
import { type AuditRead, grantOfMember, type PendingGrant } from './fleet-audit-state.js';
import type { MemoryRate, Scope } from './memory-scopes.js';
import type { MemoryState } from './memory-state.js';

export function auditRead(state: MemoryState, now: number): AuditRead {
  if (state.declared.strategy !== 'sliding-window') {
    throw new ThrottlerOptionError(
      'strategy',
      'sliding-window for a fleet audit (a token bucket keeps no grants)',
      state.declared.strategy,
    );
  }
  const dims = state.declared.dims;
  const scopes: AuditRead['scopes'][number][] = [];
  const add = (id: string, s: Scope) => {
    const grants: PendingGrant[] = [];
    for (const log of s.logs.values())
      for (const entry of log.from(0)) grants.push(grantOfMember(entry.member, id, dims !== undefined));
    scopes.push({ id, rates: ratesText(state.scopes.ratesOf(s)), grants });
  };
  for (const s of state.scopes.all()) add(s.name === undefined ? '' : `${s.isKey ? 'k' : 'c'}${s.name}`, s);
  for (const name of state.declared.channels.keys())
    if (!scopes.some((scope) => scope.id === `c${name}`)) add(`c${name}`, state.scopes.of(name, false, now));
  return { now, longest: state.scopes.longest(), grace: state.grace, gone: state.gone, scopes, dims };
}

/** Rates as the scripts store them: `[[limit, µs], ...]`, in dimensions `[[limit, µs, d], ...]`. */
function ratesText(rates: readonly MemoryRate[]): string {
  return JSON.stringify(rates.map(({ limit, us, d }) => (d === 0 ? [limit, us] : [limit, us, d])));
}
