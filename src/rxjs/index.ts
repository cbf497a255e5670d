/**
 * xstate-throttler/rxjs: the RxJS operator, an entry point of its own so that rxjs stays an optional
 * peer dependency: the core entry never loads it. Every name here has a heading in docs/reference.md.
 */
export { type ThrottleQueueOptions, throttleQueue } from '../adapters/rxjs.js';
