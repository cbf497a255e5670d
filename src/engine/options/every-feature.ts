/** Every feature: what the main entry loads by itself (byAnyName), so nothing there is ever refused as not given. */
import { dimensions } from '../../policies/index.js';
import { audit } from '../audit/audit-feature.js';
import type { ThrottlerFeature } from './features-option.js';
import { optionHints } from './option-hints.js';

export const EVERY_FEATURE: readonly ThrottlerFeature[] = [audit, dimensions, optionHints];
