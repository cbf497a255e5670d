import { vi } from 'vitest';

/**
 * Virtual time for a test: Vitest's fake timers, with `performance.now()` (the
 * throttler's default time source) faked too and starting at 0. Timers that
 * re-arm themselves chain correctly through `advance`, unlike one large
 * SimulatedClock increment.
 */
export function useVirtualTime(): void {
  vi.useFakeTimers({
    now: 0,
    toFake: [
      'setTimeout',
      'clearTimeout',
      'setInterval',
      'clearInterval',
      'setImmediate',
      'clearImmediate',
      'Date',
      'performance',
    ],
  });
}

/**
 * Back to the runtime's timers. Spies go first: one made on a timer while time was virtual wraps the
 * fake, and Vitest restores every spy again when the file ends (mockRestore does not unregister it),
 * which would put the fake timers back, dead, for the next file sharing the process.
 */
export function restoreRealTime(): void {
  vi.restoreAllMocks();
  vi.useRealTimers();
}

/** Moves virtual time forward by `ms`, firing every timer due on the way, in order. */
export function advance(ms: number): void {
  vi.advanceTimersByTime(ms);
}

/** The virtual time now. */
export function now(): number {
  return performance.now();
}

/** How many timers are pending (idle means idle: none). */
export function pendingTimers(): number {
  return vi.getTimerCount();
}
