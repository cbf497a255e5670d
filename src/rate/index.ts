export {
  type Cost,
  type CostInput,
  checkRateDimensions,
  costIn,
  costInput,
  costKey,
  type DimensionCost,
  Dimensions,
  keepingDimensions,
  resolveActualCost,
} from './cost.js';
export { type DurationInput, parseDuration } from './duration.js';
export { describeValue, ThrottlerOptionError } from './errors.js';
export {
  formatRate,
  isDimensionMap,
  longestIntervalOf,
  parseRate,
  parseRates,
  type Rate,
  type RateInput,
  type RatesInput,
  validateCost,
} from './rate.js';
