/**
 * The plain values rate-limit headers carry: seconds, counts, HTTP dates (RFC 9110 §5.6.7) and
 * reset times that may be seconds from now or a moment since the epoch. Each reader returns
 * undefined for text it cannot read; none throws, whatever the text.
 */

/**
 * A non-negative number written in plain digits, with an optional fraction: `30`, `1.5`. RFC 9110's
 * delay-seconds is digits only; a fraction is accepted because some servers send one. Signs,
 * exponents, hex, `NaN`, `Infinity` and empty text are refused.
 */
const PLAIN_NUMBER = /^\s*(\d+(?:\.\d+)?)\s*$/;

export function readPlainNumber(text: string): number | undefined {
  const match = PLAIN_NUMBER.exec(text);
  // A thousand digits read as Infinity: still a number, capped by the caller like any huge one.
  return match === null ? undefined : Number(match[1]);
}

/**
 * The numbers of a field that may have been sent more than once (joined with `, ` on the way):
 * undefined unless every part is a plain number.
 */
export function readPlainNumbers(text: string): number[] | undefined {
  const numbers: number[] = [];
  for (const part of text.split(',')) {
    const value = readPlainNumber(part);
    if (value === undefined) return undefined;
    numbers.push(value);
  }
  return numbers;
}

/**
 * A reset value at or above this is a moment since the epoch in seconds (1e9 s is 2001-09-09):
 * as seconds from now it would be 31 years, which no server means. GitHub, Twitter/X and others
 * send epoch seconds in X-RateLimit-Reset; the IETF drafts and many others send seconds from now.
 */
export const EPOCH_SECONDS_FROM = 1e9;

/** A reset value at or above this is a moment since the epoch in milliseconds (the same 2001 instant). */
export const EPOCH_MILLISECONDS_FROM = 1e12;

/** Milliseconds from `reference` (ms since the epoch) until a reset written as seconds from now, or as epoch seconds or ms. */
export function resetDelay(value: number, reference: number): number {
  if (value >= EPOCH_MILLISECONDS_FROM) return value - reference;
  if (value >= EPOCH_SECONDS_FROM) return value * 1000 - reference;
  return value * 1000;
}

const DAY = '(Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Sun, 06 Nov 1994 08:49:37 GMT`: the form servers must send. */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT`: obsolete, still to be read (RFC 9110 §5.6.7). */
const RFC850_DATE = new RegExp(`^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994`: C's asctime, obsolete too. */
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

/**
 * An HTTP date (RFC 9110 §5.6.7) in ms since the epoch, or undefined. Only the three forms the RFC
 * names are read: `Date.parse` would also take `"5"` or `"2024"` for a date. A day that its month
 * does not have (`31 Feb`) is refused; the weekday is not checked against the date.
 */
export function readHttpDate(text: string, now: number): number | undefined {
  const trimmed = text.trim();
  let match = IMF_FIXDATE.exec(trimmed);
  if (match !== null) return utc(match[4], match[3], match[2], match[5], match[6], match[7]);
  match = RFC850_DATE.exec(trimmed);
  if (match !== null) {
    // Two-digit years: the RFC's rule, a year more than 50 years ahead is the century before.
    let year = 2000 + Number(match[3]);
    if (year > new Date(now).getUTCFullYear() + 50) year -= 100;
    return utc(String(year), match[2], match[1], match[4], match[5], match[6]);
  }
  match = ASCTIME_DATE.exec(trimmed);
  if (match !== null) return utc(match[7], match[2], (match[3] as string).trim(), match[4], match[5], match[6]);
  return undefined;
}

function utc(
  yearText: string | undefined,
  monthName: string | undefined,
  dayText: string | undefined,
  hourText: string | undefined,
  minuteText: string | undefined,
  secondText: string | undefined,
): number | undefined {
  const [year, day, hour, minute, second] = [yearText, dayText, hourText, minuteText, secondText].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const month = MONTHS.indexOf(monthName as string);
  // RFC 9110 allows a leap second (60).
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads a year below 100 as 1900 + year.
  date.setUTCFullYear(year, month, day);
  if (date.getUTCDate() !== day) return undefined;
  return date.getTime() + ((hour * 60 + minute) * 60 + second) * 1000;
}
