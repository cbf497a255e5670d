/** The formatting every table of the report shares. */

/** A whole number with thousands separators; ∞ for Infinity, n/a for anything else not finite. */
export const integer = (value: number): string =>
  Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : value > 0 ? '∞' : 'n/a';

/** A number with `digits` decimals; ∞ for Infinity, n/a for anything else not finite. */
export const fixed = (value: number, digits: number): string =>
  Number.isFinite(value) ? value.toFixed(digits) : value > 0 ? '∞' : 'n/a';

export const yes = (met: boolean): string => (met ? '**met**' : '**missed**');

/** A markdown table, the first column left-aligned and the others right-aligned. */
export function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map((_, index) => (index === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ];
}
