/**
 * Provider accounting (src/server-limits/accounting/): each helper's charge from a request body against a
 * brute-force oracle of the documented rule (the characters of every text over `charsPerToken`, rounded
 * up), each settle from an answer's usage, and every malformed field named in the error.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  actualUsageAccounting,
  actualUsageCharge,
  actualUsageSettle,
  anthropicAccounting,
  anthropicCharge,
  anthropicSettle,
  CHARS_PER_TOKEN,
  openaiAccounting,
  openaiCharge,
} from '../../src/server-limits/index.js';
import { expectOptionError } from '../support/option-error.js';
import { runs } from '../support/property-runs.js';

const text = fc.string({ maxLength: 400 });
const content = fc.oneof(
  text,
  fc.array(fc.oneof(fc.record({ type: fc.constant('text'), text }), fc.record({ type: fc.constant('image') })), {
    maxLength: 3,
  }),
);
const messages = fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), content }), { maxLength: 4 });

/** The documented rule, written out: every text's characters, over charsPerToken, rounded up. */
function oracleTokens(body: { system?: unknown; messages?: unknown[]; prompt?: unknown }, perToken: number): number {
  const length = (value: unknown): number =>
    typeof value === 'string'
      ? value.length
      : Array.isArray(value)
        ? value.reduce((sum: number, part) => sum + (typeof part === 'string' ? part.length : length(part?.text)), 0)
        : 0;
  let characters = length(body.system) + length(body.prompt);
  for (const message of body.messages ?? []) characters += length((message as { content: unknown }).content);
  return Math.ceil(characters / perToken);
}

describe('openaiCharge', () => {
  it('charges one request and the larger of max_tokens and the size estimate (oracle)', () => {
    fc.assert(
      fc.property(
        messages,
        fc.integer({ min: 1, max: 500 }),
        fc.constantFrom('max_tokens', 'max_completion_tokens', 'max_output_tokens'),
        fc.option(fc.double({ min: 0.5, max: 8, noNaN: true }), { nil: undefined }),
        (list, most, field, perToken) => {
          const body = { model: 'gpt', messages: list, [field]: most };
          const estimate = oracleTokens(body, perToken ?? CHARS_PER_TOKEN);
          expect(openaiCharge(body, { charsPerToken: perToken })).toEqual({
            requests: 1,
            tokens: Math.max(most, estimate),
          });
        },
      ),
      { numRuns: runs(200) },
    );
  });

  it('reads prompt (completions) and input (responses); inputTokens replaces the estimate', () => {
    expect(openaiCharge({ prompt: 'x'.repeat(4_000), max_tokens: 100 })).toEqual({ requests: 1, tokens: 1_000 });
    expect(openaiCharge({ prompt: ['abcd', 'efgh'], max_tokens: 1 })).toEqual({ requests: 1, tokens: 2 });
    expect(openaiCharge({ input: 'x'.repeat(41), max_output_tokens: 5 })).toEqual({ requests: 1, tokens: 11 });
    expect(openaiCharge({ prompt: 'x'.repeat(4_000), max_tokens: 100 }, { inputTokens: 20 })).toEqual({
      requests: 1,
      tokens: 100,
    });
  });

  it('names the field that is missing or malformed', () => {
    expectOptionError(() => openaiCharge({ messages: [] }), {
      message:
        'body.max_completion_tokens must be a whole number above 0 (or max_tokens, max_output_tokens): the charge depends on it, got undefined',
      option: 'body.max_completion_tokens',
      value: undefined,
    });
    expectOptionError(() => openaiCharge({ messages: [], max_tokens: 0 }), {
      message:
        'body.max_tokens must be a whole number above 0 (or max_completion_tokens, max_output_tokens): the charge depends on it, got 0',
      option: 'body.max_tokens',
      value: 0,
    });
    expectOptionError(() => openaiCharge({ messages: [{ content: 3 }], max_tokens: 5 }), {
      message: 'body.messages[0].content must be a string or an array of content parts, got 3',
      option: 'body.messages[0].content',
      value: 3,
    });
    expectOptionError(() => openaiCharge({ messages: [{ content: [{ text: 1 }] }], max_tokens: 5 }), {
      message: 'body.messages[0].content[0].text must be a string, got 1',
      option: 'body.messages[0].content[0].text',
      value: 1,
    });
    expectOptionError(() => openaiCharge({ max_tokens: 5 }), {
      message: 'body.messages must be an array of messages (or body.prompt, or body.input), got undefined',
      option: 'body.messages',
      value: undefined,
    });
    expectOptionError(() => openaiCharge('hello'), {
      message: 'body must be a request body (an object), got "hello"',
      option: 'body',
      value: 'hello',
    });
    expectOptionError(() => openaiCharge({ prompt: 'a', max_tokens: 1 }, { charsPerToken: 0 }), {
      message: 'options.charsPerToken must be a finite number above 0, got 0',
      option: 'options.charsPerToken',
      value: 0,
    });
    expectOptionError(() => openaiCharge({ prompt: 'a', max_tokens: 1 }, { inputTokens: 1.5 }), {
      message: 'options.inputTokens must be a whole number, 0 or more, got 1.5',
      option: 'options.inputTokens',
      value: 1.5,
    });
  });

  it('has nothing to settle: OpenAI gives nothing back', () => {
    expect(openaiAccounting).toEqual({
      provider: 'openai',
      refill: 'sliding-window',
      strategy: 'sliding-window',
      charge: openaiCharge,
      settle: undefined,
    });
  });
});

describe('anthropicCharge and anthropicSettle', () => {
  it('charges a request, the input estimate and max_tokens of output, named as serverLimits names the quotas (oracle)', () => {
    fc.assert(
      fc.property(
        fc.option(text, { nil: undefined }),
        messages,
        fc.integer({ min: 1, max: 8_192 }),
        (system, list, most) => {
          const body = { model: 'claude', system, messages: list, max_tokens: most };
          expect(anthropicCharge(body)).toEqual({
            requests: 1,
            'input-tokens': oracleTokens(body, CHARS_PER_TOKEN),
            'output-tokens': most,
          });
        },
      ),
      { numRuns: runs(200) },
    );
  });

  it('settles input to input_tokens plus cache writes (cache reads do not count), output to output_tokens', () => {
    const usage = {
      input_tokens: 120,
      output_tokens: 37,
      cache_creation_input_tokens: 30,
      cache_read_input_tokens: 900,
    };
    expect(anthropicSettle({ id: 'msg', usage })).toEqual({ 'input-tokens': 150, 'output-tokens': 37 });
    expect(anthropicSettle({ usage: { input_tokens: 5, output_tokens: 0 } })).toEqual({
      'input-tokens': 5,
      'output-tokens': 0,
    });
    expect(anthropicAccounting).toMatchObject({
      provider: 'anthropic',
      refill: 'token-bucket',
      strategy: 'sliding-window',
    });
  });

  it('names the field that is missing or malformed', () => {
    expectOptionError(() => anthropicCharge({ messages: [] }), {
      message: 'body.max_tokens must be a whole number above 0: the charge depends on it, got undefined',
      option: 'body.max_tokens',
      value: undefined,
    });
    expectOptionError(() => anthropicCharge({ system: 5, messages: [], max_tokens: 1 }), {
      message: 'body.system must be a string or an array of content parts, got 5',
      option: 'body.system',
      value: 5,
    });
    expectOptionError(() => anthropicSettle({ type: 'error' }), {
      message: 'answer.usage must be an object, got undefined',
      option: 'answer.usage',
      value: undefined,
    });
    expectOptionError(() => anthropicSettle({ usage: { input_tokens: 1, output_tokens: '2' } }), {
      message: 'answer.usage.output_tokens must be a whole number, 0 or more, got "2"',
      option: 'answer.usage.output_tokens',
      value: '2',
    });
    expectOptionError(
      () => anthropicSettle({ usage: { input_tokens: 1, output_tokens: 2, cache_creation_input_tokens: -1 } }),
      {
        message: 'answer.usage.cache_creation_input_tokens must be a whole number, 0 or more, got -1',
        option: 'answer.usage.cache_creation_input_tokens',
        value: -1,
      },
    );
  });
});

describe('actualUsageCharge and actualUsageSettle', () => {
  it('reserves the input estimate plus max_tokens, and settles the tokens to what the answer used', () => {
    expect(actualUsageCharge({ messages: [{ role: 'user', content: 'x'.repeat(400) }], max_tokens: 300 })).toEqual({
      requests: 1,
      tokens: 400,
    });
    expect(actualUsageSettle({ usage: { prompt_tokens: 90, completion_tokens: 40, total_tokens: 130 } })).toEqual({
      tokens: 130,
    });
    expect(actualUsageSettle({ usage: { input_tokens: 90, output_tokens: 40 } })).toEqual({ tokens: 130 });
    expect(actualUsageAccounting).toMatchObject({ provider: 'actual-usage', refill: 'sliding-window' });
  });

  it('names the field that is missing or malformed', () => {
    expectOptionError(() => actualUsageSettle({ usage: { total_tokens: null } }), {
      message: 'answer.usage.total_tokens must be a whole number, 0 or more, got null',
      option: 'answer.usage.total_tokens',
      value: null,
    });
    expectOptionError(() => actualUsageSettle({ usage: { input_tokens: 3 } }), {
      message: 'answer.usage.output_tokens must be a whole number, 0 or more (or usage.total_tokens), got undefined',
      option: 'answer.usage.output_tokens',
      value: undefined,
    });
  });
});
