import { expect } from 'vitest';
import { ThrottlerOptionError } from '../../src/rate/index.js';

/** What a user sees of a rejected option: the message, the option path and the value given. */
export interface ExpectedOptionError {
  readonly message: string;
  readonly option: string;
  readonly value: unknown;
}

/**
 * Runs `fn` and checks it threw the library's validation error: a
 * ThrottlerOptionError, which callers may also catch as a plain TypeError.
 */
export function expectOptionError(fn: () => unknown, expected: ExpectedOptionError): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, 'expected a ThrottlerOptionError to be thrown').toBeInstanceOf(ThrottlerOptionError);
  expect(thrown).toBeInstanceOf(TypeError);
  const error = thrown as ThrottlerOptionError;
  expect(error.name).toBe('ThrottlerOptionError');
  expect(error.message).toBe(expected.message);
  expect(error.option).toBe(expected.option);
  expect(error.value).toEqual(expected.value);
}
