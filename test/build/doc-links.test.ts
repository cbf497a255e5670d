import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs hold together: every relative link and #anchor in README.md and docs/*.md leads somewhere
 * (a file or folder of the repository, a heading of the page it names), and every test file a page
 * cites in brackets (`[test/machine/soak.test.ts]`, the Guarantees' way of saying what checks a
 * promise) exists. Anchors are GitHub's: a heading's text, lower case, punctuation dropped, spaces as
 * hyphens, a repeated one numbered (`-1`, `-2`).
 */
const root = join(import.meta.dirname, '..', '..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The page without its fenced code blocks and inline code spans, where a `[x](y)` is not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading's text. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, text] of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug((text as string).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOfFile(path: string): Set<string> {
  let anchors = anchorCache.get(path);
  if (anchors === undefined) {
    anchors = anchorsOf(readFileSync(path, 'utf8'));
    anchorCache.set(path, anchors);
  }
  return anchors;
}

/** Every link of a page that does not leave the repository, as written. */
function relativeLinks(markdown: string): string[] {
  const targets = [...prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (match) => match[1] as string,
  );
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What a link fails on, or undefined when it resolves. */
function brokenLink(page: string, target: string): string | undefined {
  const [pathPart = '', anchor] = target.split('#', 2);
  const path = pathPart === '' ? join(root, page) : join(root, dirname(page), decodeURI(pathPart));
  if (relative(root, path).startsWith('..')) return 'leaves the repository';
  if (!existsSync(path)) return `no file ${relative(root, path)}`;
  if (anchor === undefined || anchor === '' || !path.endsWith('.md')) return undefined;
  return anchorsOfFile(path).has(decodeURIComponent(anchor))
    ? undefined
    : `no heading #${anchor} in ${relative(root, path)}`;
}

/** Paths under test/ cited in square brackets: `[test/properties, test/machine/soak.test.ts: 1,000,000 messages]`. */
function citedTests(markdown: string): string[] {
  const cited: string[] = [];
  for (const [, inside] of prose(markdown).matchAll(/\[([^\]]*\btest\/[^\]]*)\]/g)) {
    for (const [path] of (inside as string).matchAll(/\btest\/[\w./-]*[\w/]/g)) cited.push(path);
  }
  return cited;
}

describe.each(pages)('%s', (page) => {
  const markdown = readFileSync(join(root, page), 'utf8');

  it('has links that resolve, each #anchor to a heading', () => {
    const broken = relativeLinks(markdown).flatMap((target) => {
      const why = brokenLink(page, target);
      return why === undefined ? [] : [`${target}: ${why}`];
    });
    expect(broken).toEqual([]);
  });

  it('cites test files that exist', () => {
    const missing = citedTests(markdown).filter((path) => !existsSync(join(root, path)));
    expect(missing).toEqual([]);
  });
});

describe('the anchors GitHub makes', () => {
  it('drops punctuation and code marks, turns spaces into hyphens, numbers a repeat', () => {
    expect([
      ...anchorsOf('## Coming from p-queue / Bottleneck\n### `schedule(fn, options?)`\n#### `rate`\n#### `rate`'),
    ]).toEqual(['coming-from-p-queue--bottleneck', 'schedulefn-options', 'rate', 'rate-1']);
    expect(slug('What "delivered" means')).toBe('what-delivered-means');
    expect(slug('xstate-throttler/redis')).toBe('xstate-throttlerredis');
  });

  it('finds a broken link and a missing citation', () => {
    expect(relativeLinks('[a](docs/nowhere.md) [b](https://example.com) `[c](d)`')).toEqual(['docs/nowhere.md']);
    expect(brokenLink('README.md', 'docs/nowhere.md')).toMatch(/no file/);
    expect(brokenLink('README.md', 'docs/reference.md#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink('README.md', 'docs/reference.md#createthrottler')).toBeUndefined();
    expect(citedTests('holds [test/properties, test/machine/soak.test.ts: 1,000 messages].')).toEqual([
      'test/properties',
      'test/machine/soak.test.ts',
    ]);
  });
});
