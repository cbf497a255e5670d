export * from './adapters/index.js';
export * from './machine/index.js';
export type { StrategyName } from './policies/index.js';
export {
  type DurationInput,
  formatRate,
  parseDuration,
  parseRate,
  parseRates,
  type Rate,
  type RateInput,
  type RatesInput,
  ThrottlerOptionError,
} from './rate/index.js';
