/**
 * Round trips that learn Redis' clock as a throttler is created, before its first grants: fewer once
 * one leaves the clock known within a quarter of the grace. Four, so that a link too slow for the
 * grace is known as such (`SLOW_AFTER_REPLIES`) before the first grants come back.
 */
export const CALIBRATION_CALLS = 4;

/**
 * Learns Redis' clock before the first grants are asked for: up to `calls` round trips, one after another,
 * beside any reserve call, until the clock is sure enough. A fleet's first grants are due at once: judged
 * against the first reply alone, whose round trip includes the script's text and a cold process, they were
 * late by its whole uncertainty and re-timed, or given back behind the next window (W6: a window lost). A
 * failure is not told here: the first reserve call meets it and tells it.
 */
export function calibrateClock(
  limiter: { redisNow(): Promise<number> },
  calls: number,
  reader: {
    closed(): boolean;
    now(): number;
    learn(askedAt: number, now: number, redisNow: number): void;
    /** Whether another reading is worth a round trip (the clock less sure than the grace asks). */
    unsure(now: number): boolean;
  },
): void {
  const learnOnce = (callsLeft: number): void => {
    if (reader.closed()) return;
    const askedAt = reader.now();
    limiter.redisNow().then(
      (redisNow) => {
        if (reader.closed()) return;
        const now = reader.now();
        reader.learn(askedAt, now, redisNow);
        if (callsLeft > 1 && reader.unsure(now)) learnOnce(callsLeft - 1);
      },
      () => {},
    );
  };
  learnOnce(calls);
}
