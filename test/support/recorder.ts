import { type AnyActorRef, createActor, type EventObject, fromCallback } from 'xstate';

/** A delivery as the target saw it. */
export interface Received<TMessage> {
  readonly message: TMessage;
  readonly at: number;
}

/**
 * A target actor that records what it receives and when (on `performance.now()`,
 * the virtual clock in tests).
 */
export function createRecorder<TMessage extends EventObject = EventObject>(): {
  ref: AnyActorRef;
  received: Received<TMessage>[];
  messages: () => TMessage[];
  times: () => number[];
} {
  const received: Received<TMessage>[] = [];
  const ref = createActor(
    fromCallback<TMessage>(({ receive }) => {
      receive((message) => {
        received.push({ message, at: performance.now() });
      });
    }),
  );
  ref.start();
  return {
    ref,
    received,
    messages: () => received.map((r) => r.message),
    times: () => received.map((r) => r.at),
  };
}

/** A message with a number, the shape most tests queue. */
export interface Numbered extends EventObject {
  type: 'msg';
  n: number;
}

export const msg = (n: number): Numbered => ({ type: 'msg', n });
