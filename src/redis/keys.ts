/**
 * Key names of one shared limiter. Every key carries the same hash tag `{name}`, so a limiter lives
 * in one Cluster slot and its scripts never meet CROSSSLOT. Braces in the name are escaped: a `}`
 * would end the tag early and a leading one would leave it empty (Redis then hashes the whole key,
 * scattering the limiter over slots). `%` is escaped too, so two names never share a tag.
 */
export interface LimiterKeys {
  /** The hash with the configuration, epoch, clocks and token-bucket state. */
  readonly config: string;
  /** The log of every grant (the overall rates'). */
  readonly overallLog: string;
  /** The log of one channel's grants. */
  channelLog(channel: string): string;
  /** The log of one key's grants (keyed limits): created on demand, expiring like the rest. */
  keyLog(key: string): string;
  /** One key's state beside its log (newest grant, token buckets, rates of its own): a hash, expiring too. */
  keyState(key: string): string;
  /** The pub/sub channel for fleet-wide notices. */
  readonly notices: string;
}

export function hashTagOf(name: string): string {
  return name.replace(/[%{}]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `keyPrefix` is ioredis' prefix: it is added to keys but not to pub/sub channels, so the notice
 * channel takes it explicitly (two prefixes sharing a Redis must not hear each other).
 */
export function limiterKeys(name: string, keyPrefix: string): LimiterKeys {
  const base = `xt:{${hashTagOf(name)}}:`;
  return {
    config: `${base}cfg`,
    overallLog: `${base}all`,
    channelLog: (channel) => `${base}c:${channel}`,
    keyLog: (key) => `${base}k:${key}`,
    keyState: (key) => `${base}ks:${key}`,
    notices: `${keyPrefix}${base}notices`,
  };
}
