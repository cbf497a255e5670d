/**
 * The size of a language-model request, estimated from its body before it is sent, as the providers
 * estimate it when they count it: OpenAI charges "the estimated number of tokens based on the character
 * count of your request" (https://platform.openai.com/docs/guides/rate-limits), and Anthropic estimates
 * input tokens "at the beginning of each request" (https://platform.claude.com/docs/en/api/rate-limits).
 * Neither publishes its rule, so this one is stated and can be replaced: the characters of every text the
 * body carries (`system`, `messages[].content`, `prompt`, `input`), as JavaScript counts a string's length,
 * divided by `charsPerToken` (default 4, OpenAI's rule of thumb for English text) and rounded up. Images,
 * tools and other parts carry no text here and count 0: give `inputTokens` for them.
 */
import { ThrottlerOptionError } from '../../rate/index.js';

/** The options of every charge helper (`openaiCharge`, `anthropicCharge`, `actualUsageCharge`). */
export interface ChargeOptions {
  /** Characters per token of the size estimate: a number above 0. Default 4. */
  readonly charsPerToken?: number | undefined;
  /** The request's input tokens when counted with a tokenizer: replaces the estimate. A whole number, 0 or more. */
  readonly inputTokens?: number | undefined;
}

/** The default characters per token of the size estimate. */
export const CHARS_PER_TOKEN = 4;

/** A whole number, 0 or more (`min` 1: more than 0). */
export function isCount(value: unknown, min = 0): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min;
}

/** `value` as a plain object, or a ThrottlerOptionError naming `path`. */
export function objectAt(value: unknown, path: string, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ThrottlerOptionError(path, what, value);
  }
  return value as Record<string, unknown>;
}

/** The text of a content: a string, or an array of parts whose `text` strings count (images and tools: 0). */
function contentLength(content: unknown, path: string): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) throw new ThrottlerOptionError(path, 'a string or an array of content parts', content);
  let length = 0;
  content.forEach((part, index) => {
    const text = objectAt(part, `${path}[${index}]`, 'a content part (an object)').text;
    if (text === undefined) return;
    if (typeof text !== 'string') throw new ThrottlerOptionError(`${path}[${index}].text`, 'a string', text);
    length += text.length;
  });
  return length;
}

/** The characters of an array of messages, each with a `content`. */
function messagesLength(messages: unknown, path: string): number {
  if (!Array.isArray(messages)) throw new ThrottlerOptionError(path, 'an array of messages', messages);
  let length = 0;
  messages.forEach((message, index) => {
    const at = `${path}[${index}]`;
    length += contentLength(objectAt(message, at, 'a message (an object with content)').content, `${at}.content`);
  });
  return length;
}

/** The characters of every text `body` carries; a ThrottlerOptionError naming the field that is malformed. */
export function requestCharacters(body: unknown): number {
  const fields = objectAt(body, 'body', 'a request body (an object)');
  const { system, messages, prompt, input } = fields;
  if (messages === undefined && prompt === undefined && input === undefined) {
    throw new ThrottlerOptionError('body.messages', 'an array of messages (or body.prompt, or body.input)', messages);
  }
  let length = 0;
  if (system !== undefined) length += contentLength(system, 'body.system');
  if (messages !== undefined) length += messagesLength(messages, 'body.messages');
  if (prompt !== undefined) {
    const prompts = Array.isArray(prompt) ? prompt : [prompt];
    prompts.forEach((text, index) => {
      if (typeof text !== 'string') {
        const path = Array.isArray(prompt) ? `body.prompt[${index}]` : 'body.prompt';
        throw new ThrottlerOptionError(path, 'a string or an array of strings', text);
      }
      length += text.length;
    });
  }
  if (input !== undefined) length += typeof input === 'string' ? input.length : messagesLength(input, 'body.input');
  return length;
}

/** The input tokens charged for `body`: `options.inputTokens`, or its characters over `charsPerToken`, rounded up. */
export function inputEstimate(body: unknown, options: ChargeOptions | undefined): number {
  const { charsPerToken = CHARS_PER_TOKEN, inputTokens } = objectAt(
    options ?? {},
    'options',
    'an object of charge options',
  ) as ChargeOptions;
  if (typeof charsPerToken !== 'number' || !Number.isFinite(charsPerToken) || charsPerToken <= 0) {
    throw new ThrottlerOptionError('options.charsPerToken', 'a finite number above 0', charsPerToken);
  }
  if (inputTokens !== undefined && !isCount(inputTokens)) {
    throw new ThrottlerOptionError('options.inputTokens', 'a whole number, 0 or more', inputTokens);
  }
  // Read even when inputTokens replaces it: a malformed body is an error either way.
  const characters = requestCharacters(body);
  return inputTokens ?? Math.ceil(characters / charsPerToken);
}

/** The first of `names` the body carries, as the most the model may write; a ThrottlerOptionError when none is a count. */
export function maxTokensOf(body: unknown, names: readonly string[]): number {
  const fields = objectAt(body, 'body', 'a request body (an object)');
  const name = names.find((candidate) => fields[candidate] !== undefined) ?? (names[0] as string);
  const value = fields[name];
  if (!isCount(value, 1)) {
    const others = names.length > 1 ? ` (or ${names.filter((other) => other !== name).join(', ')})` : '';
    throw new ThrottlerOptionError(`body.${name}`, `a whole number above 0${others}: the charge depends on it`, value);
  }
  return value;
}
