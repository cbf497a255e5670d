import { ThrottlerOptionError } from '../rate/index.js';
import {
  type AuditRead,
  emptyFleetReport,
  FleetAuditState,
  type FleetAuditStateJSON,
  grantOfMember,
  type PendingGrant,
} from '../store/fleet-audit-state.js';
import type { FleetAuditReport } from '../store/protocol.js';
import type { GuardedClient } from './guarded-client.js';
import type { LimiterKeys } from './keys.js';

/** What a fleet audit needs of a store: its client, its scripts, its keys and the test clock if any. */
export interface AuditAccess {
  readonly name: string;
  readonly client: GuardedClient;
  /** The store's script runner (shared-limiter.ts' ScriptRunner, named here so that neither file imports the other). */
  readonly runScript: (script: 'auditRead' | 'auditCommit', keys: string[], args: string[]) => Promise<unknown[]>;
  readonly keys: LimiterKeys;
  readonly testClock: (() => number) | undefined;
}

/** Another reader storing its state between this one's read and commit: read again, a few times. */
const COMMIT_ATTEMPTS = 5;
/** The audit's state lives a month past its last read: a fleet audited again within it carries on. */
const STATE_LIFE_MS = 30 * 24 * 3600 * 1000;

/**
 * The fleet's audit on Redis time: reads every grant of every log once (lua/audit.ts), counts those
 * kept (fleet-audit-state.ts) and stores the audit back in Redis, so any process (a restarted one too)
 * carries on from it. Exact when it is read at least once per the shortest log's interval + grace (else
 * `gaps` counts the reads that came later). Two round trips; a question that changes no decision.
 */
export async function auditFleet(access: AuditAccess): Promise<FleetAuditReport> {
  const auditKey = `${access.keys.config.slice(0, -3)}audit`;
  for (let attempt = 1; ; attempt += 1) {
    const testNow = access.testClock ? String(Math.round(access.testClock() * 1000)) : '';
    const reply = await access.client.run(() =>
      access.runScript('auditRead', [access.keys.config, auditKey], [testNow]),
    );
    if (reply.length === 0) return emptyFleetReport();
    const { read, version, stateJson, strategy } = decodeRead(reply);
    if (strategy !== 'sliding-window') {
      throw new ThrottlerOptionError(
        'strategy',
        'sliding-window for a fleet audit (a token bucket keeps no grants)',
        strategy,
      );
    }
    const state = new FleetAuditState(
      stateJson === '' ? undefined : (JSON.parse(stateJson) as FleetAuditStateJSON),
      read.now,
    );
    state.apply(read);
    const stored = await access.client.run(() =>
      access.runScript(
        'auditCommit',
        [auditKey],
        [
          version,
          JSON.stringify(state.toJSON()),
          JSON.stringify(state.pendingKeys()),
          String(read.now),
          String(STATE_LIFE_MS),
        ],
      ),
    );
    if (Number(stored) === 1) return state.report();
    if (attempt === COMMIT_ATTEMPTS) {
      throw new Error(`xstate-throttler: the fleet audit of "${access.name}" lost ${attempt} races to other readers`);
    }
  }
}

function decodeRead(reply: unknown[]): { read: AuditRead; version: string; stateJson: string; strategy: string } {
  const declared = JSON.parse(String(reply[2])) as { strategy: string; grace: number; dims?: string[] };
  const gone = new Map<string, number>();
  const trail = reply[5] as string[];
  for (let i = 0; i < trail.length; i += 2) gone.set(String(trail[i]), Number(trail[i + 1]));
  const scopes = (reply.slice(6) as Array<[string, string, string[]]>).map(([id, rates, log]) => {
    const grants: PendingGrant[] = [];
    for (let i = 0; i < log.length; i += 2)
      grants.push(grantOfMember(String(log[i]), String(id), declared.dims !== undefined));
    return { id: String(id), rates: String(rates), grants };
  });
  return {
    read: {
      now: Number(reply[0]),
      longest: Number(reply[1]),
      grace: declared.grace,
      gone,
      scopes,
      dims: declared.dims,
    },
    version: String(reply[3]),
    stateJson: String(reply[4]),
    strategy: declared.strategy,
  };
}
