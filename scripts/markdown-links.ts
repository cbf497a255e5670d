/**
 * The links of a markdown page as the docs write them, `[text](target)` and `![alt](target)`, outside
 * fenced blocks and code spans (where a `[x](y)` is not a link). Read by the docs' link test
 * (test/build/doc-links.test.ts) and by the packing step that rewrites them (scripts/pack-docs.ts).
 */

/** One link, where it is in the page, and its parts as written. */
export interface MarkdownLink {
  /** Offsets of the whole link in the page: `[` (or `!`) to `)` inclusive, end exclusive. */
  readonly start: number;
  readonly end: number;
  /** The text between the brackets (an image's alt text). */
  readonly text: string;
  /** The target, without angle brackets or title: `docs/reference.md#rate`, `https://...`. */
  readonly target: string;
  readonly image: boolean;
}

const FENCED_BLOCK = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm;
const CODE_SPAN = /`[^`\n]*`/g;
const LINK_END = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/** The page with its fenced code blocks and code spans blanked out, every offset and line kept. */
export function prose(markdown: string): string {
  const blank = (code: string) => code.replace(/[^\n]/g, ' ');
  return markdown.replace(FENCED_BLOCK, blank).replace(CODE_SPAN, blank);
}

/** Every link and image of the page outside code, in order. */
export function linksOf(markdown: string): MarkdownLink[] {
  const text = prose(markdown);
  const links: MarkdownLink[] = [];
  for (const match of text.matchAll(LINK_END)) {
    const close = match.index;
    // The `[` this `]` closes: brackets inside the text (a nested link's) are counted.
    let depth = 0;
    let open = -1;
    for (let at = close - 1; at >= 0; at--) {
      const char = text[at];
      if (char === ']') depth++;
      else if (char === '[') {
        if (depth === 0) {
          open = at;
          break;
        }
        depth--;
      } else if (char === '\n' && text[at - 1] === '\n') break;
    }
    if (open < 0) continue;
    const image = open > 0 && text[open - 1] === '!';
    links.push({
      start: image ? open - 1 : open,
      end: close + match[0].length,
      text: markdown.slice(open + 1, close),
      target: match[1] as string,
      image,
    });
  }
  return links;
}

/** A target that names a scheme (`https:`, `mailto:`) leaves the package; any other is relative. */
export function isRelative(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target);
}
