import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { type AnyActorRef, createActor, createMachine, fromCallback } from 'xstate';
import {
  hasNotStarted,
  idleSnapshot,
  listeningTarget,
  listensTo,
  relay,
  wasStopped,
  XSTATE_CHECKED_VERSION,
} from '../../src/machine/xstate-internals.js';

/**
 * The XState internals the throttler relies on (src/machine/xstate-internals.ts),
 * checked against the XState installed here. If one of these fails after an
 * XState upgrade, read the new XState and update that file (and the version it
 * names) before anything else.
 */
const installedVersion = (
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve('xstate/package.json'), 'utf8')) as {
    version: string;
  }
).version;

describe(`XState internals (checked against ${XSTATE_CHECKED_VERSION})`, () => {
  it('names the installed major.minor, so an upgrade is a decision, not an accident', () => {
    const majorMinor = (version: string) => version.split('.').slice(0, 2).join('.');
    expect(majorMinor(installedVersion), `XState ${installedVersion} is installed`).toBe(
      majorMinor(XSTATE_CHECKED_VERSION),
    );
  });

  it('an actor tells not started (0), running (1) and stopped (2) apart only in a private _processingStatus', () => {
    const status = (actor: AnyActorRef) => (actor as unknown as { _processingStatus?: unknown })._processingStatus;
    const actor = createActor(fromCallback(() => {}));
    // Its snapshot reads 'active' before it starts, and after a stop before any start.
    expect([status(actor), actor.getSnapshot().status, hasNotStarted(actor), wasStopped(actor)]).toEqual([
      0,
      'active',
      true,
      false,
    ]);
    const seen: string[] = [];
    actor.subscribe({ next: (snapshot) => seen.push(snapshot.status) });
    actor.start();
    // Observers hear the start (the throttler's watch on a target set before it started relies on it).
    expect(seen).toEqual(['active']);
    expect([status(actor), hasNotStarted(actor), wasStopped(actor)]).toEqual([1, false, false]);
    actor.stop();
    expect([status(actor), hasNotStarted(actor), wasStopped(actor)]).toEqual([2, false, true]);
    const neverStarted = createActor(fromCallback(() => {}));
    neverStarted.stop();
    expect([status(neverStarted), neverStarted.getSnapshot().status, wasStopped(neverStarted)]).toEqual([
      2,
      'active',
      true,
    ]);
  });

  it('an actor keeps its listeners in a private Map eventListeners, by type, with Sets', () => {
    const actor = createActor(createMachine({})).start();
    const listeners = (actor as unknown as { eventListeners?: unknown }).eventListeners;
    expect(listeners).toBeInstanceOf(Map);
    expect(listensTo(actor, 'delivered')).toBe(false);
    const subscription = actor.on('delivered', () => {});
    expect((listeners as Map<string, unknown>).get('delivered')).toBeInstanceOf(Set);
    expect(listensTo(actor, 'delivered')).toBe(true);
    subscription.unsubscribe();
    expect(listensTo(actor, 'delivered')).toBe(false);
    actor.on('*', () => {});
    expect(listensTo(actor, 'idled')).toBe(true);
  });

  it('the system relays an event from a source to a target through a private _relay', () => {
    const received: unknown[] = [];
    const target = createActor(fromCallback(({ receive }) => receive((event) => received.push(event)))).start();
    const source = createActor(createMachine({})).start();
    expect(typeof (source.system as { _relay?: unknown })._relay).toBe('function');
    relay(source, target as AnyActorRef, { type: 'hello' });
    expect(received).toEqual([{ type: 'hello' }]);
  });

  it('a listening target hears what the system relays through _send, and runs as long as its host', () => {
    const received: unknown[] = [];
    const host = createActor(fromCallback(() => undefined)).start();
    const target = listeningTarget(host, (event) => received.push(event));
    const source = createActor(createMachine({})).start();
    relay(source, target, { type: 'hello' });
    expect(received).toEqual([{ type: 'hello' }]);
    expect(target.getSnapshot().status).toBe('active');
    expect(wasStopped(target)).toBe(false);
    target.stop();
    expect(wasStopped(target)).toBe(true);
  });

  it('a hand-built idle snapshot restores with its context as given, and runs', () => {
    const machine = createMachine({
      types: {} as { context: { n: number } },
      context: { n: 0 },
      initial: 'idle',
      states: { idle: { on: { GO: 'busy' } }, busy: {} },
    });
    const actor = createActor(machine, { snapshot: idleSnapshot({ n: 42 }) }).start();
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context).toEqual({ n: 42 });
    actor.send({ type: 'GO' });
    expect(actor.getSnapshot().value).toBe('busy');
  });
});
