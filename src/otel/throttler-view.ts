/**
 * What the metrics read of a throttler: its actor (to listen to), its counts, the messages it ever
 * queued, its deliveries in flight, its pause, what each rate's window holds, its audit and a store's
 * traffic. The one place this entry point reads the machine's context (its dispatcher and the
 * dispatcher's clearance), checked against src/machine/machine-types.ts, src/engine/dispatcher.ts
 * (`queuedTotal`, `audit`) and src/engine/clearance/ (`windowUse`, `pausedUntil`, `StoreTraffic`); a
 * context without them is refused as no throttler.
 */
import type { StoreTraffic } from '../engine/index.js';
import type { ThrottlerAuditReport, ThrottlerCounts, ThrottlerEmitted } from '../machine/index.js';
import { type Rate, ThrottlerOptionError } from '../rate/index.js';

/** The part of an actor the metrics listen to: `actor.on(type, handler)`. */
export interface Listenable {
  on(type: string, handler: (event: ThrottlerEmitted) => void): { unsubscribe(): void };
  getSnapshot(): unknown;
}

export interface ThrottlerView {
  readonly actor: Listenable;
  /** Waiting now; delivered, dropped, rejected so far (the promise API's count its unsent tasks as waiting). */
  counts(): ThrottlerCounts;
  /** Messages that ever entered the queue (the dispatcher's count: nobody need listen to `queued`). */
  queuedTotal(): number;
  /** Deliveries not yet settled (tracked with maxConcurrent or countUntil 'done'; 0 otherwise). */
  inFlight(): number;
  /** The throttler's clock. */
  now(): number;
  /** Whether a pause is in force now (its end is later than now; Infinity until RESUME). */
  paused(): boolean;
  /** Each rate's window at now, overall (undefined) or for a channel or key; empty with a store. */
  windowUse(channel: string | undefined): ReadonlyArray<{ readonly rate: Rate; readonly held: number }>;
  /** The audit of every window (what `auditThrottler` reports); undefined where there is none. */
  audit(): ThrottlerAuditReport | undefined;
  /** A store's traffic so far; undefined without a store. */
  traffic(): StoreTraffic | undefined;
}

interface ClearanceView {
  readonly pausedUntil: number;
  windowUse?(channel: string | undefined, now: number): Array<{ rate: Rate; held: number }>;
  readonly traffic?: StoreTraffic;
}

interface ContextView {
  readonly now: () => number;
  readonly counts: ThrottlerCounts;
  readonly inFlight: number;
  readonly dispatcher: {
    readonly clearance: ClearanceView;
    readonly queuedTotal: number;
    readonly audit?: { report(): ThrottlerAuditReport };
  };
}

const EXPECTED = 'a throttler actor (createActor(throttlerMachine)) or a throttler from createThrottler()';

/** The view of a throttler actor or of the promise API's throttler; throws for anything else. */
export function throttlerView(throttlerOrActor: unknown): ThrottlerView {
  const direct = listenable(throttlerOrActor);
  const actor = direct ?? listenable((throttlerOrActor as { actor?: unknown } | null)?.actor);
  if (actor === undefined || contextOf(actor) === undefined)
    throw new ThrottlerOptionError('throttler', EXPECTED, throttlerOrActor);
  const context = (): ContextView => contextOf(actor) as ContextView;
  // The promise API's own counts add the tasks of this stretch not yet handed to the machine.
  const promiseApi = direct === undefined ? (throttlerOrActor as { readonly counts: ThrottlerCounts }) : undefined;
  return {
    actor,
    counts: promiseApi === undefined ? () => context().counts : () => promiseApi.counts,
    queuedTotal: () => context().dispatcher.queuedTotal,
    inFlight: () => context().inFlight,
    now: () => context().now(),
    paused: () => {
      const view = context();
      return view.dispatcher.clearance.pausedUntil > view.now();
    },
    windowUse: (channel) => {
      const view = context();
      return view.dispatcher.clearance.windowUse?.(channel, view.now()) ?? [];
    },
    audit: () => context().dispatcher.audit?.report(),
    traffic: () => context().dispatcher.clearance.traffic,
  };
}

function listenable(value: unknown): Listenable | undefined {
  const candidate = value as Partial<Listenable> | null | undefined;
  return typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.on === 'function' &&
    typeof candidate.getSnapshot === 'function'
    ? (candidate as Listenable)
    : undefined;
}

function contextOf(actor: Listenable): ContextView | undefined {
  const context = (actor.getSnapshot() as { context?: Partial<ContextView> } | undefined)?.context;
  const dispatcher = context?.dispatcher as { clearance?: unknown } | undefined;
  const valid = typeof context?.now === 'function' && typeof dispatcher?.clearance === 'object';
  if (!valid || typeof (dispatcher as { queuedTotal?: unknown }).queuedTotal !== 'number') return undefined;
  return context as ContextView;
}
