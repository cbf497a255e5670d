/**
 * What both adapters are built on: one throttler actor, its target (a
 * callback actor that hands every delivered message to the adapter, at the
 * moment of delivery), the clock for its one timer, the `dropped` and
 * `rejected` events wired to the adapter, and the way messages go in: one
 * QUEUE_BATCH per synchronous stretch, or with a bounded queue (`capacity`)
 * one QUEUE per message, so that overflow is decided message by message as
 * each arrives (a batch reaches the queue later, after a stretch in which
 * slots may free up).
 *
 * The promise API and the RxJS operator are faces over it: each says what a
 * message is, what a delivery and a discard do, and when the batch of a
 * stretch goes; the host does the rest.
 */
import { type Actor, type AnyActorRef, createActor, fromCallback, type InspectionEvent } from 'xstate';
import type { ResolvedOptions } from '../engine/index.js';
import {
  type Clock,
  type CommonOptions,
  clockFor,
  DELIVERY_GATE,
  type InternalMachine,
  leanInternalMachine,
  type MachineEvent,
  MESSAGE_CHECK,
  type ThrottlerActor,
  type ThrottlerEmitted,
  withResolvedOptions,
} from '../machine/index.js';
import { type DeferFlush, deferToMicrotask, QueueBatcher } from './queue-batcher.js';

/** A message leaving the queue undelivered: displaced or cancelled (`dropped`), or refused (`rejected`). */
export type DiscardEvent = Extract<ThrottlerEmitted, { type: 'dropped' | 'rejected' }>;

/** What the host sends for one message: a QUEUE event's fields, or one entry of a QUEUE_BATCH. */
export interface QueueEntry {
  readonly message: { readonly type: string };
  readonly channel: string | undefined;
  /** As given: the machine checks it (an entry is handed over before it is queued). */
  readonly cost: number | { readonly [dimension: string]: number } | undefined;
  readonly id?: unknown;
  readonly priority?: number | undefined;
  readonly deadline?: number | undefined;
  readonly maxWait?: number | string | undefined;
}

/** Told about every hand-over of entries to the machine, just before and just after the event is sent. */
export interface HandOverTracker<TEntry> {
  sending(entries: readonly TEntry[]): void;
  sent(entries: readonly TEntry[]): void;
}

export interface HostSetup<TEntry extends QueueEntry> {
  /** The chart to run: by default without its descriptions (xstate-throttler/lean's); the main entry's has them. */
  machine?: InternalMachine | undefined;
  /** The machine's options, as given (its input). */
  options: CommonOptions;
  /** The same options, validated: the machine takes them as they are (resolved-input.ts). */
  resolved: ResolvedOptions;
  /** The clock of the one timer; by default the one `timerPrecision` asks for. */
  clock?: Clock | undefined;
  inspect?: ((event: InspectionEvent) => void) | undefined;
  /** Asked before each delivery of a pass; no holds the rest of the pass for a zero-delay wake-up. */
  deliveryGate?: (() => boolean) | undefined;
  /** The error for a message sent to the actor directly that the adapter could not take (ThrottlerInput.messageCheck). */
  messageCheck?: ((message: { readonly type: string }) => Error | undefined) | undefined;
  /** Called with each delivered message, synchronously, as the throttler delivers it. */
  deliver(message: TEntry['message']): void;
  /** Called for each message that left the queue undelivered. */
  discard(event: DiscardEvent): void;
  /** How a batch waits for the end of the stretch; a microtask by default. */
  deferFlush?: DeferFlush | undefined;
  /** Whether an entry of the unsent batch has left it since (see `withdraw`). */
  hasLeftBatch?: ((entry: TEntry) => boolean) | undefined;
  tracker?: HandOverTracker<TEntry> | undefined;
}

/** One throttler actor and its target, started; `queue` hands messages to it. */
export class ThrottlerHost<TEntry extends QueueEntry> {
  /** The actor as the adapter's user sees it (public types); `send` reaches it with the machine's own events too. */
  readonly actor: ThrottlerActor;
  private readonly machineActor: Actor<InternalMachine>;
  private readonly target: Actor<ReturnType<typeof fromCallback<TEntry['message']>>>;
  private readonly batcher: QueueBatcher<TEntry> | undefined;
  private readonly tracker: HandOverTracker<TEntry> | undefined;

  constructor(setup: HostSetup<TEntry>) {
    const { deliver, discard, deliveryGate, messageCheck, inspect, tracker, resolved } = setup;
    this.tracker = tracker;
    this.target = createActor(
      fromCallback<TEntry['message']>(({ receive }) => {
        receive(deliver);
      }),
    ).start();
    this.machineActor = createActor(setup.machine ?? leanInternalMachine, {
      input: withResolvedOptions(
        {
          ...setup.options,
          target: this.target as AnyActorRef,
          ...(deliveryGate === undefined ? {} : { [DELIVERY_GATE]: deliveryGate }),
          ...(messageCheck === undefined ? {} : { [MESSAGE_CHECK]: messageCheck }),
        },
        resolved,
      ),
      clock: setup.clock ?? clockFor(resolved),
      ...(inspect === undefined ? {} : { inspect }),
    });
    this.actor = this.machineActor as unknown as ThrottlerActor;
    // A throttler that could not start (its context threw: an option, the store, the time source) throws
    // here, at the adapter's call, instead of reaching XState's uncaught-error path once started.
    const created = this.machineActor.getSnapshot();
    if (created.status === 'error') {
      this.target.stop();
      throw created.error;
    }
    this.machineActor.on('dropped', discard);
    this.machineActor.on('rejected', discard);
    this.machineActor.start();
    this.batcher =
      resolved.capacity === Number.POSITIVE_INFINITY
        ? new QueueBatcher<TEntry>(this.sendBatch, setup.deferFlush ?? deferToMicrotask, setup.hasLeftBatch)
        : undefined;
  }

  /** Hands one message to the throttler: with the batch of this stretch, or (bounded queue) at once. */
  queue(entry: TEntry): void {
    if (this.batcher !== undefined) {
      this.batcher.add(entry);
      return;
    }
    const { message, channel, cost, id, priority, deadline, maxWait } = entry;
    const event = { type: 'QUEUE' as const, message, channel, cost, id, priority, deadline, maxWait };
    if (this.tracker === undefined) {
      this.machineActor.send(event);
      return;
    }
    const entries = [entry];
    this.tracker.sending(entries);
    this.machineActor.send(event);
    this.tracker.sent(entries);
  }

  /** Sends the batch of this stretch now; call it before any other event, so that order holds. */
  flush(): void {
    this.batcher?.flush();
  }

  /** An entry of the unsent batch left it; the batch is filtered (by `hasLeftBatch`) before it goes. */
  withdraw(): void {
    this.batcher?.withdraw();
  }

  /** Sends any other event, as it is (the machine's own LEASE too): the caller flushes first where order matters. */
  send(event: MachineEvent): void {
    this.machineActor.send(event);
  }

  /**
   * Nothing is sent from now on: returns the unsent batch, for the adapter to settle (entries that
   * left it since may be among them). Call it before `stop` to settle what never reached the throttler.
   */
  abandonBatch(): TEntry[] {
    return this.batcher?.clear() ?? [];
  }

  /** Takes the unsent batch out, for the adapter to settle; later messages form a new one. */
  takeBatch(): TEntry[] {
    return this.batcher?.take() ?? [];
  }

  /** Stops the throttler (and its one timer) and its target; an unsent batch is forgotten. */
  stop(): void {
    this.batcher?.clear();
    this.machineActor.stop();
    this.target.stop();
  }

  private readonly sendBatch = (entries: TEntry[]): void => {
    if (this.tracker === undefined) {
      this.machineActor.send({ type: 'QUEUE_BATCH', messages: entries });
      return;
    }
    this.tracker.sending(entries);
    this.machineActor.send({ type: 'QUEUE_BATCH', messages: entries });
    this.tracker.sent(entries);
  };
}
