/** One strict limit across regions (docs/regions.md): home's book, a region's share, their messages and terms. */
export { splitByDemand } from './demand-split.js';
export { RegionShare } from './region-share.js';
export { createRegionShares, type RegionShares, type RegionSharesOptions } from './region-shares.js';
export { type RegionWatch, type RegionWatchOptions, watchRegionShares } from './region-watch.js';
export { ShareBook, type ShareBookStart } from './share-book.js';
export { createShareHome, type ShareHome, type ShareHomeOptions } from './share-home.js';
export type { ShareAsk, ShareGrant } from './share-messages.js';
export { followWithinMs, type ShareTerms, type ShareTermsInput, shareTerms } from './share-terms.js';
