/**
 * The pause of a provider quota the server reports spent (`remaining: 0`), cut to what the server's window
 * needs. OpenAI's reset is "the time until the quota is back to its initial state" and Anthropic's the time
 * it is "fully replenished": the quota is *full* then, but the server has room for the next request as soon
 * as the first of what its window holds leaves it. An overrun (an actual cost above its estimate) that spends
 * a quota would otherwise pause the throttler a whole window more than needed.
 *
 * What the client knows: its own window for that quota (the throttler's rate of the quota's dimension over
 * the provider's window, each delivery at its send time with its cost settled as answers come). A request
 * the server counts was sent no later than it arrived, so it leaves the client's window no later than the
 * server's: the first time the client's window holds less than it does now is the earliest the server may
 * have room. The pause ends then (never later than the reset), and the client's own window, which holds back
 * whatever does not fit in what is left, does the rest. When the client's window is not full at the answer,
 * no pause: the server's count is ahead of it only by requests the client's window let go less than an uplink
 * ago (the server counts them from their arrival) or by overruns not settled yet (settled as their answers
 * come, this one's right after it is read), and the client's window holds back what does not fit. With nothing of that quota in the client's window
 * (the server counts what this client never sent: another process, another key) the client knows nothing of
 * when room comes, and the pause is the reset as stated; so it is on a 429 (the server counts what the
 * client's window does not, another process on the same key, say: trusting that window again would be
 * refused again). Only an accepted answer is cut, so the cost of a wrong cut is one 429. The IETF and X-RateLimit resets, when a window
 * starts afresh, are room itself and are kept as they are; so is a `Retry-After`.
 */
import type { Rate } from '../rate/index.js';
import type { ThrottlerInForce } from './throttler-in-force.js';
import type { LimitDimension, ServerLimits, ServerPauseEvent } from './types.js';

/** The reset fields of quotas whose reset is "full again", with the dimension each names. */
const FULL_RESET =
  /^(?:x-ratelimit-reset-(requests|tokens)|anthropic-ratelimit-(requests|tokens|input-tokens|output-tokens)-reset)$/;

/** Below this the search for the first room stops (ms): finer than any timer. */
const PRECISION = 0.25;

/**
 * `limits.pause` cut to the earliest time the server may have room (undefined: no pause, the client's window
 * has room), when it comes from a spent provider quota and the throttler's window for that quota can be
 * read; otherwise `limits.pause` as it is.
 */
export function overrunPause(
  limits: ServerLimits,
  inForce: ThrottlerInForce | undefined,
): ServerPauseEvent | undefined {
  const { pause, pauseFrom } = limits;
  if (pause === undefined || inForce === undefined || pauseFrom === undefined || !FULL_RESET.test(pauseFrom)) {
    return pause;
  }
  // A refusal: the server counts what the client's window does not (another process on the same key). Its
  // whole pause, as stated.
  if (limits.status === 429 || limits.status === 503) return pause;
  // Every spent quota must have room: the latest of their first rooms.
  let longest: number | undefined;
  for (const quota of Object.values(limits.dimensions)) {
    if (quota === undefined || quota.remaining === undefined || quota.remaining >= 1) continue;
    const room = firstRoom(limits, inForce, quota.dimension, Math.min(quota.resetIn ?? pause.duration, pause.duration));
    if (room === undefined) return pause;
    longest = Math.max(longest ?? 0, room);
  }
  if (longest === undefined) return pause;
  return longest === 0 ? undefined : { type: 'PAUSE', duration: longest };
}

/** Ms from now until the client's window for `dimension`'s quota first holds less; undefined when it cannot tell by `reset`. */
function firstRoom(
  limits: ServerLimits,
  inForce: ThrottlerInForce,
  dimension: LimitDimension,
  reset: number,
): number | undefined {
  const window = limits.dimensions[dimension]?.rate?.interval;
  if (window === undefined) return undefined;
  const isQuota = quotaRate(limits, dimension, window);
  const channel = limits.setRate?.channel;
  const now = inForce.now();
  const before = heldIn(inForce, channel, now, isQuota);
  if (before === undefined || before <= 0) return undefined;
  // The client's window has room already: it holds back what does not fit itself, and the server's count is
  // ahead of it by what the client's window let go less than an uplink ago, which the server lets go soon.
  if (before < 1) return 0;
  const end = now + reset;
  if ((heldIn(inForce, channel, end, isQuota) ?? before) >= before) return undefined;
  // What the window holds never grows ahead of now (nothing sent yet counts): the first drop, by halving.
  let [low, high] = [now, end];
  while (high - low > PRECISION) {
    const middle = (low + high) / 2;
    if ((heldIn(inForce, channel, middle, isQuota) ?? before) < before) high = middle;
    else low = middle;
  }
  return Math.max(PRECISION, high - now);
}

/** Which of the throttler's rates is the quota's: its dimension's (or, without dimensions, the listener's), over the provider's window. */
function quotaRate(limits: ServerLimits, dimension: LimitDimension, window: number): (rate: Rate) => boolean {
  return (rate) =>
    rate.interval === window &&
    (rate.dimension === undefined ? (limits.dimension ?? 'requests') === dimension : rate.dimension === dimension);
}

/**
 * What the quota's rates hold at `at`, as the share of its limit the fullest one holds; undefined when none
 * is in force or the windows cannot be read.
 */
function heldIn(
  inForce: ThrottlerInForce,
  channel: string | undefined,
  at: number,
  isQuota: (rate: Rate) => boolean,
): number | undefined {
  let most: number | undefined;
  for (const { rate, held } of inForce.windowUse(channel, at) ?? []) {
    if (isQuota(rate)) most = Math.max(most ?? 0, held / rate.limit);
  }
  return most;
}
