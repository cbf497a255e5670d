/**
 * One request's answer from the reserve script's (kind, µs, member) triple: granted (the wait, the
 * grant's time on Redis' clock, the reservation to give it back by), later (ask again after), or
 * refused for good (a cost above the smallest limit now in force: another process lowered it).
 */
import { ThrottlerOptionError, validateCost } from '../rate/index.js';
import type { LaterReason, LineOutcome, ReservationRequest } from './protocol.js';

const LATER_REASONS: Record<number, LaterReason> = { 1: 'reserve-ahead', 2: 'paused', 3: 'quarantine' };

/** The outcome of one request from the script's (kind, µs, member) triple. */
export function outcomeOf(
  kind: number,
  micros: number,
  member: string,
  reservation: string,
  request: ReservationRequest,
): LineOutcome {
  if (kind === 0) {
    // The member starts with the grant's time in µs of Redis' clock (reserve.ts).
    const redisTime = Number.parseInt(member, 10) / 1000;
    return { kind: 'granted', waitMs: micros / 1000, redisTime, reservation };
  }
  const reason = LATER_REASONS[kind];
  if (reason) return { kind: 'later', retryAfterMs: micros / 1000, reason };
  if (kind === 5) return { kind: 'line-later', retryAfterMs: micros / 1000 };
  // The rates in force in Redis are lower than this process knew (another process set them).
  return { kind: 'refused', error: validateCostError(request.cost, micros) };
}

function validateCostError(cost: unknown, smallest: number): ThrottlerOptionError {
  if (typeof cost !== 'number') {
    return new ThrottlerOptionError(
      'cost',
      `in each dimension at most that dimension's smallest limit in force (one it exceeds: ${smallest})`,
      cost,
    );
  }
  try {
    validateCost(cost, smallest);
  } catch (error) {
    return error as ThrottlerOptionError;
  }
  return new ThrottlerOptionError('cost', `at most ${smallest}`, cost);
}
