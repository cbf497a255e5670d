import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { expect } from 'vitest';

/** An element of a parsed SVG: its name, attributes (entities decoded), children and text. */
export interface SvgElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly SvgElement[];
  readonly text: string;
}

/** The only elements the timeline writes: anything else (a `<script>` from a name) is an injection. */
const ELEMENTS = new Set(['svg', 'title', 'rect', 'g', 'text', 'tspan', 'line', 'path']);
// Outside XML 1.0's Char production: forbidden even escaped.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// The entities XML knows without a DTD, and character references.
const UNKNOWN_ENTITY = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;

type Ordered = Record<string, unknown> & { ':@'?: Record<string, string> };

function toElement(node: Ordered): SvgElement | undefined {
  const name = Object.keys(node).find((key) => key !== ':@');
  if (name === undefined || name === '#text') return undefined;
  const content = node[name] as Ordered[];
  const children: SvgElement[] = [];
  let text = '';
  for (const child of content) {
    if ('#text' in child) text += String(child['#text']);
    const element = toElement(child);
    if (element !== undefined) children.push(element);
  }
  return { name, attributes: node[':@'] ?? {}, children, text };
}

/**
 * Checks that `svg` is one well-formed XML document made only of the timeline's own elements
 * (a strict check on top of the parser's: no character XML forbids, no unknown entity), and
 * returns its root.
 */
export function parseSvg(svg: string): SvgElement {
  expect(XMLValidator.validate(svg)).toBe(true);
  expect(svg).not.toMatch(NOT_XML_CHAR);
  expect(svg).not.toMatch(LONE_SURROGATE);
  expect(svg).not.toMatch(UNKNOWN_ENTITY);
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    parseTagValue: false,
    trimValues: false,
  });
  const roots = (parser.parse(svg) as Ordered[]).map(toElement).filter((root) => root !== undefined);
  expect(roots.map((root) => root.name)).toEqual(['svg']);
  const root = roots[0] as SvgElement;
  expect(descendants(root).filter((element) => !ELEMENTS.has(element.name))).toEqual([]);
  return root;
}

/** Every element under `root`, depth first, including it. */
export function descendants(root: SvgElement): SvgElement[] {
  const found: SvgElement[] = [];
  const visit = (element: SvgElement) => {
    found.push(element);
    for (const child of element.children) visit(child);
  };
  visit(root);
  return found;
}

/** Elements whose `class` is `className`. */
export function byClass(root: SvgElement, className: string): SvgElement[] {
  return descendants(root).filter((element) => element.attributes.class === className);
}
