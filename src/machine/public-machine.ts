/**
 * The type users see the machine as: the same machine with the public context, events and input
 * (types.ts) in place of the library's own (machine-types.ts). A type only: the machine object is one.
 */
import type { StateMachine } from 'xstate';
import type { ThrottlerContext, ThrottlerEvent, ThrottlerInput } from './types.js';

export type PublicMachine<M> = M extends StateMachine<
  infer _Context,
  infer _Event,
  infer Children,
  infer Actor,
  infer Action,
  infer Guard,
  infer Delay,
  infer StateValue,
  infer Tag,
  infer _Input,
  infer Output,
  infer Emitted,
  infer StateMeta,
  infer StateSchema,
  infer TransitionMeta
>
  ? StateMachine<
      ThrottlerContext,
      ThrottlerEvent,
      Children,
      Actor,
      Action,
      Guard,
      Delay,
      StateValue,
      Tag,
      ThrottlerInput,
      Output,
      Emitted,
      StateMeta,
      StateSchema,
      TransitionMeta
    >
  : never;
