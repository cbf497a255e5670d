import type { Reservation } from '../store/protocol.js';
import { formatReservation } from '../store/reservations.js';
import type { LimiterKeys } from './keys.js';

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
    return formatReservation(epoch, member, channel, channel !== undefined && this.isKey(channel));
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
