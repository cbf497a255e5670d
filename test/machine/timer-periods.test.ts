import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnyActorRef, createActor, fromCallback } from 'xstate';
import { type ThrottlerEmitted, throttlerMachine } from '../../src/index.js';
import { createRecorder, msg, type Numbered } from '../support/recorder.js';
import { advance, pendingTimers, restoreRealTime, useVirtualTime } from '../support/virtual-time.js';

describe('timer strategy: when a voucher period starts', () => {
  beforeEach(useVirtualTime);
  afterEach(restoreRealTime);

  /** 2 per 250 ms, six messages at 0; the target stops at 100; a new target is set at 400. */
  function lostThenNewTarget(unsetFirst: boolean) {
    const startedAt = performance.now();
    const relative = (times: number[]) => times.map((at) => at - startedAt);
    const first = createRecorder<Numbered>();
    const second = createRecorder<Numbered>();
    const actor = createActor(throttlerMachine, { input: { rate: '2/250ms', target: first.ref } }).start();
    const emitted: ThrottlerEmitted[] = [];
    actor.on('*', (event) => emitted.push(event as ThrottlerEmitted));
    for (let n = 1; n <= 6; n++) actor.send({ type: 'QUEUE', message: msg(n) });
    advance(100);
    if (unsetFirst) actor.send({ type: 'SET_TARGET', target: undefined });
    first.ref.stop();
    advance(300);
    actor.send({ type: 'SET_TARGET', target: second.ref });
    advance(1_000);
    actor.stop();
    return {
      first: relative(first.times()),
      second: relative(second.times()),
      lostAt: relative(emitted.flatMap((event) => (event.type === 'targetLost' ? [event.at] : []))),
    };
  }

  it('after a lost target, the next activation starts a period, as an explicit unset-then-set does', () => {
    const lost = lostThenNewTarget(false);
    expect(lost.lostAt).toEqual([250]);
    expect(lost.first).toEqual([0, 0]);
    // The throttler became active again at 400: the period starts there (not on the old grid: 500).
    expect(lost.second).toEqual([400, 400, 650, 650]);
    const unset = lostThenNewTarget(true);
    expect(unset.second).toEqual(lost.second);
  });

  it('a target that sets the same rate again on every delivery gets no more than without it (2 per period)', () => {
    let throttler: AnyActorRef | undefined;
    const times: number[] = [];
    const target = createActor(
      fromCallback<Numbered>(({ receive }) => {
        receive(() => {
          times.push(performance.now());
          // Sent from inside the delivery: it waits in the busy throttler's mailbox until the pass is over.
          throttler?.send({ type: 'SET_RATE', rate: '2/1s' });
        });
      }),
    ).start();
    throttler = createActor(throttlerMachine, { input: { rate: '2/1s', target: target } }).start();
    for (let n = 1; n <= 5; n++) throttler.send({ type: 'QUEUE', message: msg(n) });
    advance(10_000);
    // Each SET_RATE restarts the period where it lands, yet what the period it cut short delivered still
    // counts: with a full set of vouchers on each, all five went at 0.
    expect(times).toEqual([0, 0, 1_000, 1_000, 2_000]);
    expect(throttler.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
    throttler.stop();
  });

  it('a period that runs on with nothing queued holds no timer: idle at once, the period still counts', () => {
    const target = createRecorder<Numbered>();
    const actor = createActor(throttlerMachine, { input: { rate: '2/60s', target: target.ref } }).start();
    actor.send({ type: 'QUEUE', message: msg(1) });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(pendingTimers()).toBe(0);
    advance(10_000);
    actor.send({ type: 'QUEUE', message: msg(2) });
    actor.send({ type: 'QUEUE', message: msg(3) });
    advance(60_000);
    expect(target.times()).toEqual([0, 10_000, 60_000]);
  });
});

describe('timer strategy: a process with nothing waiting exits', () => {
  it('exits right after its last task with a 60 s interval (the voucher period holds no timer)', async () => {
    const script = join(import.meta.dirname, '..', 'fixtures', 'timer-strategy-exit.ts');
    const started = performance.now();
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', script], { timeout: 50_000 }, (error, out) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out }),
      );
    });
    expect(stdout).toMatch(/exited after \d+ ms/);
    expect(code).toBe(0);
    // Real time, generous bound: before, it stayed alive for the rest of the 60 s period.
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});
