// Spawning the throttler inside your own machine: the parent queues work for an
// API client actor and the throttler paces it. Replies come back through the
// `replyTo` ref that each message carries (XState v5 has no implicit sender).
import { type ActorRefFrom, assign, createActor, fromCallback, sendTo, setup } from 'xstate';
import { throttlerMachine } from '../src/index.js';

type Request = { type: 'request'; id: number; replyTo: { send(event: { type: 'reply'; id: number }): void } };

const apiClient = fromCallback<Request>(({ receive }) => {
  receive((request) => {
    setTimeout(() => request.replyTo.send({ type: 'reply', id: request.id }), 10);
  });
});

const app = setup({
  types: {
    context: {} as { throttler: ActorRefFrom<typeof throttlerMachine> | null; replies: number[]; started: number },
    events: {} as { type: 'work'; id: number } | { type: 'reply'; id: number },
  },
  actors: { apiClient, throttlerMachine },
}).createMachine({
  context: { throttler: null, replies: [], started: performance.now() },
  entry: assign(({ spawn }) => {
    const api = spawn('apiClient', { id: 'api' });
    return {
      throttler: spawn('throttlerMachine', {
        id: 'throttler',
        input: { rate: '4/1s', strategy: 'sliding-window', target: api },
      }),
    };
  }),
  on: {
    work: {
      actions: sendTo(
        ({ context }) => context.throttler!,
        ({ event, self }) => ({ type: 'QUEUE' as const, message: { type: 'request', id: event.id, replyTo: self } }),
      ),
    },
    reply: {
      actions: [
        assign({ replies: ({ context, event }) => [...context.replies, event.id] }),
        ({ context, event }) =>
          console.log(`reply ${event.id} after ${Math.round(performance.now() - context.started)} ms`),
      ],
    },
  },
});

const actor = createActor(app).start();
for (let id = 1; id <= 6; id++) actor.send({ type: 'work', id });
setTimeout(() => {
  console.log('replies:', actor.getSnapshot().context.replies.join(','));
  actor.stop();
}, 1300);
