import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Ordering, Overflow } from '../../../src/engine/options/options.js';
import type { ChannelQueue } from '../../../src/engine/queue/channel-queue.js';
import { type DropReason, MessageQueues } from '../../../src/engine/queue/message-queues.js';
import { type OverflowFeature, overflow as overflowFeature } from '../../../src/engine/queue/overflow-choice.js';
import { type Place, SelfQueuedMessage } from '../../../src/engine/queue/queued-message.js';
import { runs } from '../../support/property-runs.js';

/**
 * MessageQueues against a plain array of what waits, over random runs of
 * enqueues (with priorities, deadlines and overflow), cancels (ids shared by
 * several messages), takes, discards, expiries and the passing of time: the
 * same messages wait, each queue's head is the one of lowest rank, the counts
 * agree, every change of a queue's head is reported, and tombstones never
 * outnumber the live. A retry (a message taken earlier, queued again with its
 * first place, as the promise API's retries are) stands where its place puts it.
 */

/** maxPriorityWait in these runs: a level is worth 100 ms. */
const MAX_PRIORITY_WAIT = 900;

const CHANNELS = [undefined, 'a', 'b', '__proto__', 'constructor'] as const;

interface Waiting {
  seq: number;
  channel: string | undefined;
  id: number | undefined;
  priority: number | undefined;
  queuedAt: number;
  deadline: number | undefined;
  place?: Place | undefined;
}

/** A retry as the promise API queues one: its own queue entry, carrying the place of its first attempt. */
class Retry extends SelfQueuedMessage implements Waiting {
  cost: unknown = 1;
  declare id: number | undefined;
  declare priority: number | undefined;
  declare deadline: number | undefined;
  constructor(
    public channel: string | undefined,
    id: number | undefined,
    place: Place,
  ) {
    super();
    if (id !== undefined) this.id = id;
    this.place = place;
  }
}

type Command =
  | {
      kind: 'enqueue';
      channel: string | undefined;
      id: number | undefined;
      priority: number | undefined;
      maxWait: number | undefined;
    }
  | { kind: 'retry'; pick: number; id: number | undefined; maxWait: number | undefined }
  | { kind: 'cancel'; id: number }
  | { kind: 'take' | 'discard'; channel: string | undefined }
  | { kind: 'advance'; by: number }
  | { kind: 'expire'; atNowToo: boolean };

/** Where a message stands in line: its arrival, or a retry's first; then its own arrival order. */
const placeOf = (w: Waiting): [number, number, number] => [w.place?.at ?? w.queuedAt, w.place?.seq ?? w.seq, w.seq];
const inLine = (a: Waiting, b: Waiting) => {
  const [pa, pb] = [placeOf(a), placeOf(b)];
  return pa[0] - pb[0] || pa[1] - pb[1] || pa[2] - pb[2];
};
const rankOf = (w: Waiting) => placeOf(w)[0] - (w.priority ?? 5) * (MAX_PRIORITY_WAIT / 9);
const goesBefore = (a: Waiting, b: Waiting) => rankOf(a) < rankOf(b) || (rankOf(a) === rankOf(b) && inLine(a, b) < 0);

const channelArbitrary = fc.constantFrom(...CHANNELS);
const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      channel: channelArbitrary,
      id: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
      // Often the default level: a retry lands among messages of its own level.
      priority: fc.oneof(fc.constant(undefined), fc.constant(undefined), fc.integer({ min: 0, max: 9 })),
      maxWait: fc.option(fc.integer({ min: 0, max: 500 }), { nil: undefined }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('retry' as const),
      pick: fc.nat(),
      id: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
      maxWait: fc.option(fc.integer({ min: 0, max: 500 }), { nil: undefined }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('cancel' as const), id: fc.integer({ min: 0, max: 21 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constantFrom('take' as const, 'discard' as const), channel: channelArbitrary }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), by: fc.integer({ min: 0, max: 300 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const), atNowToo: fc.boolean() }) },
);

function checkAgainstModel(
  ordering: Ordering,
  capacity: number,
  overflow: Overflow,
  commands: readonly Command[],
): void {
  const reportedHead = new Map<ChannelQueue<Waiting>, number | undefined>();
  const queues = new MessageQueues<Waiting>(
    {
      ordering,
      capacity,
      overflow,
      maxPriorityWait: MAX_PRIORITY_WAIT,
      features: { overflow: overflowFeature as OverflowFeature },
    },
    (queue) => reportedHead.set(queue, queue.head?.seq),
  );
  let model: Waiting[] = [];
  let nextSeq = 0;
  let time = 0;
  let rejected = 0;
  let delivered = 0;
  let droppedTotal = 0;
  let dropped: Array<[number, DropReason]> = [];
  /** Messages delivered, which may come back as retries. */
  const taken: Waiting[] = [];
  const queueKey = (channel: string | undefined) => (ordering === 'fifo' ? 'one' : channel);
  const headOf = (channel: string | undefined) =>
    model
      .filter((w) => queueKey(w.channel) === queueKey(channel))
      .reduce<Waiting | undefined>((best, w) => (best === undefined || goesBefore(w, best) ? w : best), undefined);
  const remove = (entry: Waiting, reason: DropReason) => {
    model = model.filter((w) => w !== entry);
    dropped.push([entry.seq, reason]);
    droppedTotal += 1;
  };

  for (const command of commands) {
    if (command.kind === 'enqueue' || command.kind === 'retry') {
      const { id, maxWait } = command;
      let message: Waiting;
      if (command.kind === 'enqueue') {
        const { channel, priority } = command;
        const deadline = maxWait === undefined ? undefined : time + maxWait;
        message = { seq: nextSeq, channel, id, priority, queuedAt: time, deadline };
      } else {
        // A message taken earlier comes back with its first place, channel and priority, once.
        if (taken.length === 0) continue;
        const [first] = taken.splice(command.pick % taken.length, 1) as [Waiting];
        message = new Retry(first.channel, id, first.place ?? { at: first.queuedAt, seq: first.seq });
        if (first.priority !== undefined) message.priority = first.priority;
      }
      const { channel, priority } = message;
      const deadline = maxWait === undefined ? undefined : time + maxWait;
      let expected: 'queued' | 'rejected' = 'queued';
      if (model.length >= capacity) {
        // The lowest priority waiting gives way, its oldest or newest; a newcomer below them all is refused.
        const lowest = Math.min(...model.map((w) => w.priority ?? 5));
        const ofLowest = model.filter((w) => (w.priority ?? 5) === lowest);
        if (overflow === 'reject' || (priority ?? 5) < lowest) expected = 'rejected';
        else remove((overflow === 'drop-oldest' ? ofLowest[0] : ofLowest.at(-1)) as Waiting, overflow);
      }
      const entry = queues.enqueue(message, channel, 1, id, time, priority, deadline);
      expect(entry === undefined ? 'rejected' : 'queued').toBe(expected);
      if (expected === 'queued') {
        model.push(message);
        // In line by place: a retry may stand before messages that arrived after its first attempt.
        model.sort(inLine);
        nextSeq += 1;
      } else rejected += 1;
      if (entry !== undefined) expect(entry.message).toBe(message);
    } else if (command.kind === 'advance') {
      time += command.by;
    } else if (command.kind === 'expire') {
      const passed = (w: Waiting) =>
        w.deadline !== undefined && (w.deadline < time || (command.atNowToo && w.deadline === time));
      const expired = model
        .filter(passed)
        .sort((a, b) => (a.deadline as number) - (b.deadline as number) || a.seq - b.seq);
      for (const entry of expired) remove(entry, 'expired');
      expect(queues.expire(time, command.atNowToo)).toBe(expired.length > 0);
      const next = Math.min(...model.map((w) => w.deadline ?? Number.POSITIVE_INFINITY));
      expect(queues.nextDeadline).toBe(next);
    } else if (command.kind === 'cancel') {
      // Of several under one id, the one queued first (a retry counts from when it was queued again).
      const entry = model
        .filter((w) => w.id === command.id)
        .reduce<Waiting | undefined>((first, w) => (first === undefined || w.seq < first.seq ? w : first), undefined);
      if (entry !== undefined) remove(entry, 'cancelled');
      expect(queues.cancel(command.id)).toBe(entry !== undefined);
    } else {
      const head = headOf(command.channel);
      const queue = queues.queueOf(command.channel);
      expect(queue?.head?.message).toBe(head);
      if (queue === undefined || head === undefined) continue;
      if (command.kind === 'take') {
        model = model.filter((w) => w !== head);
        delivered += 1;
        taken.push(head);
        expect(queues.take(queue).message).toBe(head);
      } else {
        remove(head, 'cost-exceeds-limit');
        queues.discardHead(queue, 'cost-exceeds-limit');
      }
    }

    expect(queues.waiting().map((entry) => entry.message)).toEqual(model);
    expect(queues.oldest()?.message).toBe(model[0]);
    expect(queues.firstWaiting(3).map((entry) => entry.message)).toEqual(model.slice(0, 3));
    expect(queues.counts).toEqual({ queued: model.length, delivered: 0, dropped: droppedTotal, rejected });
    expect(queues.discarded.map(({ entry, reason }) => [(entry.message as Waiting).seq, reason])).toEqual(dropped);
    dropped = [];
    queues.discarded.length = 0;
    for (const [queue, seq] of reportedHead) expect(seq, 'the last head reported').toBe(queue.head?.seq);
    for (const channel of CHANNELS) {
      const queue = queues.queueOf(channel);
      if (queue === undefined) continue;
      expect(reportedHead.get(queue)).toBe(headOf(channel)?.seq);
      expect(queue.retained, 'tombstones never outnumber the live').toBeLessThanOrEqual(2 * queue.length);
    }
    const { entries, queues: open } = queues.retained;
    expect(entries).toBeLessThanOrEqual(2 * model.length);
    if (ordering === 'per-channel') expect(open).toBe(new Set(model.map((w) => w.channel)).size);
  }
  expect(delivered + droppedTotal + model.length).toBe(nextSeq);
}

describe('MessageQueues', () => {
  it('keeps what waits, in order, through random enqueues, overflow, cancels, takes and discards', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Ordering>('fifo', 'per-channel'),
        fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 1, max: 8 })),
        fc.constantFrom<Overflow>('reject', 'drop-oldest', 'drop-newest'),
        fc.array(commandArbitrary, { maxLength: 120 }),
        checkAgainstModel,
      ),
      { numRuns: runs(400) },
    );
  });

  it('puts a retry at its first place, through long runs of takes and retries among the rest', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Ordering>('fifo', 'per-channel'),
        fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 4, max: 12 })),
        fc.constantFrom<Overflow>('reject', 'drop-oldest', 'drop-newest'),
        // Long runs: a retry needs a take before it, and others waiting behind its first place.
        fc.array(commandArbitrary, { minLength: 40, maxLength: 80 }),
        checkAgainstModel,
      ),
      { numRuns: runs(60) },
    );
  });

  it('holds no more tombstones than live messages in any queue, whatever is cancelled in whatever order', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Ordering>('fifo', 'per-channel'),
        fc
          .array(channelArbitrary, { minLength: 3, maxLength: 60 })
          .chain((channels) => fc.tuple(fc.constant(channels), fc.shuffledSubarray([...channels.keys()]))),
        (ordering, [channels, cancelled]) => {
          const queues = new MessageQueues<number>({ ordering, capacity: Infinity, overflow: 'reject' });
          for (const [n, channel] of channels.entries()) queues.enqueue(n, channel, 1, n, 0);
          const left = new Set(channels.keys());
          for (const n of cancelled) {
            expect(queues.cancel(n)).toBe(true);
            left.delete(n);
            for (const channel of CHANNELS) {
              const queue = queues.queueOf(channel);
              if (queue !== undefined) expect(queue.retained).toBeLessThanOrEqual(2 * queue.length);
            }
          }
          expect(queues.waiting().map((entry) => entry.message)).toEqual([...left]);
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('CANCEL with an id several messages wait under takes out the oldest of them, then the next', () => {
    const queues = new MessageQueues<string>({ ordering: 'per-channel', capacity: Infinity, overflow: 'reject' });
    queues.enqueue('first', 'a', 1, 'job', 0);
    queues.enqueue('second', 'b', 1, 'job', 0);
    queues.enqueue('third', 'a', 1, 'job', 0);
    queues.take(queues.queueOf('a') as ChannelQueue<string>); // 'first' goes: the id now names 'second'
    expect(queues.cancel('job')).toBe(true);
    expect(queues.cancel('job')).toBe(true);
    expect(queues.cancel('job')).toBe(false);
    expect(queues.discarded.map(({ entry }) => entry.message)).toEqual(['second', 'third']);
    expect(queues.isEmpty).toBe(true);
  });

  it('a cancelled message left in the middle of its queue is let go of at once, and the queue compacted', () => {
    const queues = new MessageQueues<{ payload: number[] }>({
      ordering: 'fifo',
      capacity: Infinity,
      overflow: 'reject',
    });
    for (let n = 0; n < 1_000; n++) queues.enqueue({ payload: [n] }, undefined, 1, n, 0);
    const queue = queues.queueOf(undefined) as ChannelQueue<{ payload: number[] }>;
    for (let n = 1; n < 999; n++) queues.cancel(n);
    // Tombstones never outnumber the live: compacted as they would.
    expect(queues.retained.entries).toBeLessThanOrEqual(2 * queues.counts.queued);
    expect([...queue.entries()].map((entry) => entry.message.payload[0])).toEqual([0, 999]);
    // The dropped event still has each message.
    expect(queues.discarded.map(({ entry }) => entry.message.payload[0])).toEqual(
      Array.from({ length: 998 }, (_, index) => index + 1),
    );
  });
});
