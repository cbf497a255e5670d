/**
 * Home, the coordinator of one limit across regions (docs/regions.md): the share book on home's clock,
 * answering each region's ask once per renewal, never per message. How an ask reaches it (HTTP, a queue,
 * a function call) is the caller's; each answer is decided whole, at once.
 */
import { ThrottlerOptionError } from '../../rate/index.js';
import { ShareBook } from './share-book.js';
import type { ShareAsk, ShareGrant } from './share-messages.js';
import { type ShareTerms, type ShareTermsInput, shareTerms } from './share-terms.js';

/** What `createShareHome` takes: the terms every region also states, and how home starts. */
export interface ShareHomeOptions extends ShareTermsInput {
  /** Home's clock in ms (default `performance.now`). */
  clock?: (() => number) | undefined;
  /** Grants made before this home started may still count (default true): it grants nothing for the span S. */
  fresh?: boolean | undefined;
  /** The largest seq an earlier home granted (default 0): every grant's seq is above it. */
  lastSeq?: number | undefined;
  /**
   * The regions to expect (default none): until each asks with a demand (an ask of 0 keeps the wait), or
   * `awaitRegionsMs` after home may first grant, it counts in the demand split at the largest demand heard,
   * so one region's early ask cannot take the others' shares. A region not listed is served all the same.
   */
  regions?: readonly string[] | undefined;
  /** How long after home may first grant (its start; S later when fresh) a listed region with no demand heard still counts (default W(1 + δ) + A of the longest rate). */
  awaitRegionsMs?: number | undefined;
}

/** The coordinator: answer every region's ask with `answer`. */
export interface ShareHome {
  readonly terms: ShareTerms;
  /** Applies the ask's bound, then grants the region its share by the demand rule and the room (a grant of seq 0: nothing yet). */
  answer(ask: ShareAsk): ShareGrant;
  /** What home counts a region as holding, per rate (the largest of its live entries). */
  held(region: string): number[];
  /** The largest seq granted so far (keep it to start a later home above it). */
  readonly lastSeq: number;
}

/** A coordinator for one limit across regions (see the file's header). */
export function createShareHome(options: ShareHomeOptions): ShareHome {
  const terms = shareTerms(options);
  const clock = options.clock ?? (() => performance.now());
  if (typeof clock !== 'function') throw new ThrottlerOptionError('clock', 'a function returning milliseconds', clock);
  const lastSeq = options.lastSeq ?? 0;
  if (!Number.isSafeInteger(lastSeq) || lastSeq < 0) {
    throw new ThrottlerOptionError('lastSeq', 'a whole number, 0 or more', options.lastSeq);
  }
  if (options.fresh !== undefined && typeof options.fresh !== 'boolean') {
    throw new ThrottlerOptionError('fresh', 'true or false', options.fresh);
  }
  let largest = lastSeq;
  const book = new ShareBook(terms, {
    now: clock(),
    lastSeq,
    fresh: options.fresh,
    regions: options.regions,
    awaitRegionsMs: options.awaitRegionsMs,
  });
  return {
    terms,
    answer(ask) {
      const grant = book.answer(ask, clock());
      largest = Math.max(largest, grant.seq);
      return grant;
    },
    held: (region) => book.held(region, clock()),
    get lastSeq() {
      return largest;
    },
  };
}
