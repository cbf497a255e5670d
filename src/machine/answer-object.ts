/**
 * The objects an event is answered in (a LEASE's `lease`, a TRY_ACQUIRE's `reply`): checked before
 * anything changes, so that a write the machine makes later cannot throw. Such an object comes from
 * anywhere; a read-only field, a getter or setter (which may throw), a frozen or sealed object, or a
 * Proxy whose traps throw is refused by name, and the machine carries on with its queue intact.
 */
import { ThrottlerOptionError } from '../rate/index.js';

/**
 * The error for an answer object that cannot take plain writes of `fields`, or undefined when it can:
 * each field an own writable data property, or absent from an extensible object and from its
 * prototypes (where a setter or a read-only field would catch the write). Nothing is written or read
 * through a getter here; any trap that throws counts as not writable.
 */
export function answerObjectError(
  value: unknown,
  option: string,
  receives: string,
  fields: readonly string[],
): ThrottlerOptionError | undefined {
  // Made only when refused: an Error (its stack) made for every LEASE and TRY_ACQUIRE cost more than the check.
  const notAnObject = () => new ThrottlerOptionError(option, `a writable object that receives ${receives}`, value);
  if (typeof value !== 'object' || value === null) return notAnObject();
  try {
    if (Object.isFrozen(value)) return notAnObject();
    for (const name of fields) {
      if (!isPlainWritable(value, name)) {
        return new ThrottlerOptionError(
          `${option}.${name}`,
          `a writable data field of the ${option} object (not read-only, not a getter or setter)`,
          value,
        );
      }
    }
    return undefined;
  } catch {
    // A Proxy whose traps throw: its writes could throw too.
    return notAnObject();
  }
}

/** Whether `object.name = x` is a plain write that succeeds (may throw when a Proxy's trap does). */
function isPlainWritable(object: object, name: string): boolean {
  const own = Object.getOwnPropertyDescriptor(object, name);
  if (own !== undefined) return 'value' in own && own.writable === true;
  if (!Object.isExtensible(object)) return false;
  for (let proto = Object.getPrototypeOf(object); proto !== null; proto = Object.getPrototypeOf(proto)) {
    const inherited = Object.getOwnPropertyDescriptor(proto, name);
    if (inherited !== undefined) return 'value' in inherited && inherited.writable === true;
  }
  return true;
}
