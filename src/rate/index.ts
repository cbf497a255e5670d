export { type DurationInput, parseDuration } from './duration.js';
export { describeValue, ThrottlerOptionError } from './errors.js';
export { formatRate, parseRate, parseRates, type Rate, type RateInput, type RatesInput, validateCost } from './rate.js';
