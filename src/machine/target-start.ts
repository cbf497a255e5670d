/**
 * A target that was created but not started (SET_TARGET, or the input's `target`, given an actor
 * before its `start()`): XState keeps what such an actor is sent in its mailbox and hands it all over
 * when it starts, so the throttler would count deliveries the receiver gets later in one burst. The
 * throttler holds instead: nothing is sent to it, `targetNotStarted` says so once with its facts, and
 * the throttler watches the target (a snapshot subscription, which XState notifies as it starts) and
 * goes on when it starts (TARGET_STARTED), with what the rate allows from then on.
 */
import type { AnyActorRef } from 'xstate';
import type { Effects } from './effects.js';
import type { MachineContext } from './machine-types.js';
import { TARGET_STARTED_EVENT } from './own-events.js';
import { hasNotStarted } from './xstate-internals.js';

/** The target each throttler watches for its start (one at a time: a later one replaces it). */
const watching = new WeakMap<AnyActorRef, AnyActorRef>();

/** Whether deliveries to `target` must wait for it to start. */
export function awaitsStart(target: AnyActorRef | undefined): target is AnyActorRef {
  return target !== undefined && hasNotStarted(target);
}

/** Holds for `target`'s start: reported once (`targetNotStarted`), watched, TARGET_STARTED sent to `self` then. */
export function holdForStart(context: MachineContext, effects: Effects, self: AnyActorRef, target: AnyActorRef): void {
  if (watching.get(self) === target) return;
  watching.set(self, target);
  effects.emit({ type: 'targetNotStarted', target, waiting: context.dispatcher.counts.queued, at: context.now() });
  let subscription: { unsubscribe(): void } | undefined;
  let done = false;
  const started = (): void => {
    if (done || hasNotStarted(target)) return;
    done = true;
    subscription?.unsubscribe();
    if (watching.get(self) === target) watching.delete(self);
    // A throttler stopped meanwhile has nothing to go on with.
    if (self.getSnapshot().status === 'active') self.send(TARGET_STARTED_EVENT);
  };
  // XState notifies observers as the actor starts (its first snapshot); a stop (complete or error) also ends the wait.
  subscription = target.subscribe({ next: started, complete: started, error: started });
  if (done) subscription.unsubscribe();
}
