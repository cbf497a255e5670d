/** Every feature: what the main entry loads by itself (byAnyName), so nothing there is ever refused as not given. */
import { audit } from '../audit/audit-feature.js';
import { dimensions } from '../clearance/dimensions-feature.js';
import { settle } from '../clearance/settle-book.js';
import { fairness } from '../fair-share.js';
import { overflow } from '../queue/overflow-choice.js';
import type { ThrottlerFeature } from './features-option.js';
import { optionHints } from './option-hints.js';
import { transit } from './transit-feature.js';

export const EVERY_FEATURE: readonly ThrottlerFeature[] = [
  audit,
  dimensions,
  optionHints,
  overflow,
  settle,
  fairness,
  transit,
];
