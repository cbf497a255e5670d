/**
 * Writing SVG as text: every string from a user (channel names, titles) goes through
 * {@link escapeText}, which also replaces what XML 1.0 cannot hold at all, so hostile names
 * (`<script>`, `&`, control characters, lone surrogates) come out as inert, well-formed text.
 */

// Characters XML 1.0 forbids even when escaped.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding the control characters XML forbids is the point
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
// UTF-16 halves without their partner: not characters at all.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const MARKUP: ReadonlyMap<string, string> = new Map([
  ['&', '&amp;'],
  ['<', '&lt;'],
  ['>', '&gt;'],
  ['"', '&quot;'],
  ["'", '&apos;'],
]);

/** Any string made safe for SVG text and attribute values. */
export function escapeText(text: string): string {
  return text
    .replace(NOT_XML, '\uFFFD')
    .replace(LONE_SURROGATE, '\uFFFD')
    .replace(/[&<>"']/g, (char) => MARKUP.get(char) as string);
}

/** A name shortened to `max` characters (whole code points, so no surrogate is split), on one line. */
export function shorten(text: string, max: number): string {
  const oneLine = text.replace(/[\t\n\r]/g, ' ');
  const codePoints = Array.from(oneLine);
  return codePoints.length <= max ? oneLine : `${codePoints.slice(0, max - 1).join('')}…`;
}

/** A coordinate with at most one decimal: small output, and no `-0` or exponent. */
export function num(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

/** An element with attributes (values escaped) and optional raw content. */
export function element(
  name: string,
  attributes: Record<string, string | number | undefined>,
  content?: string,
): string {
  let text = `<${name}`;
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    text += ` ${key}="${typeof value === 'number' ? num(value) : escapeText(value)}"`;
  }
  return content === undefined ? `${text}/>` : `${text}>${content}</${name}>`;
}

/** A text element whose content is escaped. */
export function text(content: string, attributes: Record<string, string | number | undefined>): string {
  return element('text', attributes, escapeText(content));
}

/** A tooltip for the enclosing element (browsers show it on hover). */
export function tooltip(content: string): string {
  return `<title>${escapeText(content)}</title>`;
}

/** Roughly how wide a text is at a font size, for keeping labels apart (no font metrics at hand). */
export function textWidth(content: string, fontSize: number): number {
  return Array.from(content).length * fontSize * 0.6;
}
