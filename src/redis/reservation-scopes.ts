import { ThrottlerOptionError } from '../rate/index.js';
import type { Reservation } from '../store/protocol.js';
import type { LimiterKeys } from './keys.js';

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

/**
 * The channels and keys one script call names, numbered 1, 2, ... in the order the call first names
 * them (0 is neither): the script gets each one's log and state once, and its name marked 'c' (a
 * channel) or 'k' (a key), and each request refers to it by number.
 */
export class Scopes {
  readonly names: string[] = [];
  readonly logs: string[] = [];
  readonly states: string[] = [];
  private readonly numbers = new Map<string, number>();

  constructor(
    readonly isKey: (name: string) => boolean,
    private readonly keys: LimiterKeys,
  ) {}

  /** A grant's reservation: `epoch member -|+channel|*key` (parseReservation reads it back). */
  reservation(epoch: string, member: string, channel: string | undefined): Reservation {
    return `${epoch} ${member} ${channel === undefined ? '-' : `${this.isKey(channel) ? '*' : '+'}${channel}`}`;
  }

  of(channel: string | undefined): number {
    if (channel === undefined) return 0;
    let scope = this.numbers.get(channel);
    if (scope === undefined) {
      const key = this.isKey(channel);
      this.names.push(`${key ? 'k' : 'c'}${channel}`);
      this.logs.push(key ? this.keys.keyLog(channel) : this.keys.channelLog(channel));
      this.states.push(key ? this.keys.keyState(channel) : this.keys.config);
      scope = this.names.length;
      this.numbers.set(channel, scope);
    }
    return scope;
  }
}
