/** `instrumentThrottler`'s options, checked once, each error naming the field and its value. */
import type { Attributes, Meter } from '@opentelemetry/api';
import { ThrottlerOptionError } from '../rate/index.js';
import { MAX_CHANNEL_SERIES, THROTTLER_ATTRIBUTES } from './names.js';

export interface InstrumentOptions {
  /** Where the instruments are created: `metrics.getMeter('my-service')`, or a MeterProvider's `getMeter`. */
  meter: Meter;
  /** Set as `throttler.name` on every series: tells apart throttlers instrumented on one meter. */
  name?: string | undefined;
  /** More attributes on every series (strings, finite numbers or booleans), e.g. `{ 'peer.service': 'github' }`. */
  attributes?: Attributes | undefined;
  /**
   * Channels or keys whose windows get utilisation and audit series of their own (`throttler.channel`), at most
   * `MAX_CHANNEL_SERIES`: the names are yours to pick, so the series stay few. A key not live reports 0.
   */
  channels?: readonly string[] | undefined;
}

export interface CheckedOptions {
  readonly meter: Meter;
  /** The attributes on every series (name included), in a fresh object. */
  readonly base: Attributes;
  readonly channels: readonly string[];
}

const METER_METHODS = [
  'createObservableCounter',
  'createObservableUpDownCounter',
  'createObservableGauge',
  'createHistogram',
  'addBatchObservableCallback',
  'removeBatchObservableCallback',
] as const;

export function checkOptions(options: unknown): CheckedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ThrottlerOptionError('options', 'an object with a meter', options);
  }
  const { meter, name, attributes, channels } = options as Partial<InstrumentOptions>;
  if (
    typeof meter !== 'object' ||
    meter === null ||
    METER_METHODS.some((method) => typeof meter[method] !== 'function')
  ) {
    throw new ThrottlerOptionError('meter', 'an OpenTelemetry Meter (metrics.getMeter(name))', meter);
  }
  if (name !== undefined && (typeof name !== 'string' || name === '')) {
    throw new ThrottlerOptionError('name', 'a non-empty string', name);
  }
  const base: Attributes = {};
  for (const [key, value] of Object.entries(checkAttributes(attributes))) define(base, key, value);
  if (name !== undefined) define(base, THROTTLER_ATTRIBUTES.name, name);
  return { meter, base, channels: checkChannels(channels) };
}

/** Sets a key as an own property, `__proto__` too (a plain assignment to it would set the prototype). */
export function define(target: Attributes, key: string, value: Attributes[string]): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function checkAttributes(attributes: unknown): Attributes {
  if (attributes === undefined) return {};
  if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) {
    throw new ThrottlerOptionError('attributes', 'an object of attribute values', attributes);
  }
  for (const [key, value] of Object.entries(attributes)) {
    const valid =
      typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
    if (!valid) throw new ThrottlerOptionError(`attributes.${key}`, 'a string, a finite number or a boolean', value);
  }
  return attributes as Attributes;
}

function checkChannels(channels: unknown): readonly string[] {
  if (channels === undefined) return [];
  if (!Array.isArray(channels) || channels.length > MAX_CHANNEL_SERIES) {
    throw new ThrottlerOptionError(
      'channels',
      `an array of at most ${MAX_CHANNEL_SERIES} channel or key names`,
      channels,
    );
  }
  const seen = new Set<string>();
  for (const [index, channel] of channels.entries()) {
    if (typeof channel !== 'string' || channel === '' || seen.has(channel)) {
      throw new ThrottlerOptionError(`channels[${index}]`, 'a non-empty name, not given before', channel);
    }
    seen.add(channel);
  }
  return [...channels];
}
