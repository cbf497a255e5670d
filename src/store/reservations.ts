/**
 * A reservation as every backend writes it: `epoch member -|+channel|*key`, the epoch the grant was made
 * in (a lost state's grants are never taken for a new one's), the member naming it in the logs, and its
 * channel (+) or key (*), so that giving it back needs nothing else.
 */
import { ThrottlerOptionError } from '../rate/index.js';
import type { Reservation } from './protocol.js';

export function formatReservation(
  epoch: string,
  member: string,
  channel: string | undefined,
  isKey: boolean,
): Reservation {
  return `${epoch} ${member} ${channel === undefined ? '-' : `${isKey ? '*' : '+'}${channel}`}`;
}

/** `epoch member -|+channel|*key`: neither the epoch nor the member holds a space; the channel or key may. */
export function parseReservation(reservation: unknown): { epoch: string; member: string; channel: string | undefined } {
  if (typeof reservation === 'string') {
    const first = reservation.indexOf(' ');
    const second = reservation.indexOf(' ', first + 1);
    const tail = reservation.slice(second + 1);
    if (first > 0 && second > first + 1 && (tail === '-' || tail.startsWith('+') || tail.startsWith('*'))) {
      return {
        epoch: reservation.slice(0, first),
        member: reservation.slice(first + 1, second),
        channel: tail === '-' ? undefined : tail.slice(1),
      };
    }
  }
  throw new ThrottlerOptionError('reservation', 'a reservation returned by reserve', reservation);
}
