import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isRelative, linksOf, prose } from '../../scripts/markdown-links.js';
import {
  filesNpmPacks,
  type PackedPackage,
  packedFileUrl,
  packedPages,
  packedTarget,
  rewriteForPackage,
} from '../../scripts/pack-docs.js';

/**
 * The docs hold together: every relative link and #anchor in README.md and docs/*.md leads somewhere
 * (a file or folder of the repository, a heading of the page it names), and every test file a page
 * cites in brackets (`[test/machine/soak.test.ts]`, the Guarantees' way of saying what checks a
 * promise) exists. Anchors are GitHub's: a heading's text, lower case, punctuation dropped, spaces as
 * hyphens, a repeated one numbered (`-1`, `-2`).
 *
 * And as packed (scripts/pack-docs.ts): README.md, as the registry's page shows it, links only to
 * absolute URLs, each packed file of this version on the CDN, anchors included; every other packed page
 * links relatively only to files the tarball holds (`npm pack --dry-run` lists them); a link to a file
 * neither packed nor the repository's own (tests, benchmark code) fails the pack.
 */
const root = join(import.meta.dirname, '..', '..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

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
  return linksOf(markdown)
    .map((link) => link.target)
    .filter(isRelative);
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

/** An anchor's failure in a repository file, or undefined. */
function missingAnchor(path: string, anchor: string): string | undefined {
  if (anchor === '' || !path.endsWith('.md')) return undefined;
  return anchorsOfFile(join(root, path)).has(decodeURIComponent(anchor.slice(1)))
    ? undefined
    : `no heading ${anchor} in ${path}`;
}

/** What a link of a packed page fails on, as the tarball holds the page, or undefined when it leads somewhere. */
function brokenPackedLink(page: string, target: string, pkg: PackedPackage): string | undefined {
  if (target.startsWith('#')) return undefined;
  const cdn = packedFileUrl(pkg.name, pkg.version, '');
  if (isRelative(target)) {
    if (page === 'README.md') return 'relative, which the registry page cannot resolve';
    const packed = packedTarget(page, target, pkg.files);
    if (packed === undefined) return undefined;
    if (!packed.packed) return `${packed.path} is not in the tarball`;
    return missingAnchor(packed.path, packed.anchor);
  }
  if (!target.startsWith(packedFileUrl(pkg.name, '', '').slice(0, -2))) return undefined;
  if (!target.startsWith(cdn)) return `not this version's file (${cdn})`;
  const [path = '', anchor = ''] = decodeURI(target.slice(cdn.length)).split(/(?=#)/, 2);
  const packed = packedTarget('README.md', path, pkg.files);
  if (packed === undefined || !packed.packed) return `${path} is not in the tarball`;
  return missingAnchor(packed.path, anchor);
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

describe('the pages as packed, README.md as the registry page shows it', () => {
  let pkg: PackedPackage;
  beforeAll(() => {
    const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackedPackage;
    pkg = { name, version, files: filesNpmPacks(root) };
  }, 60_000);

  it('packs README.md, every page of docs/, the pictures and examples they show', () => {
    expect(packedPages(pkg.files)).toEqual(expect.arrayContaining(pages));
    expect([...pkg.files]).toEqual(expect.arrayContaining(['docs/timeline.svg', 'examples/quickstart.ts']));
  });

  it.each(pages)('%s: every link leads to a packed file, README.md through the CDN', (page) => {
    const packed = rewriteForPackage(page, readFileSync(join(root, page), 'utf8'), pkg);
    const broken = linksOf(packed).flatMap(({ target }) => {
      const why = brokenPackedLink(page, target, pkg);
      return why === undefined ? [] : [`${target}: ${why}`];
    });
    expect(broken).toEqual([]);
  });

  it('README.md keeps its links to docs, pictures and examples as links, and only those to the repository become text', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const packed = rewriteForPackage('README.md', readme, pkg);
    const kept = linksOf(packed).filter(({ target }) => target.startsWith(packedFileUrl(pkg.name, pkg.version, '')));
    const relativeToFiles = relativeLinks(readme).filter((target) => !target.startsWith('#'));
    const unlinked = relativeToFiles.filter((target) => !packedTarget('README.md', target, pkg.files)?.packed);
    expect(kept.length).toBe(relativeToFiles.length - unlinked.length);
    expect(unlinked.filter((target) => !/^(test|bench|scripts|api)\/|^ARCHITECTURE\.md$/.test(target))).toEqual([]);
    expect(kept.some(({ image }) => image)).toBe(true);
  });

  it('finds a link broken by the packing: a missing file, a relative one on the registry page, a wrong rewrite', () => {
    const files = new Set(['README.md', 'docs/a.md', 'docs/b.png']);
    const sample = { name: 'pkg', version: '1.2.3', files };
    expect(() => rewriteForPackage('README.md', '[gone](docs/gone.md)', sample)).toThrow(/docs\/gone\.md/);
    expect(rewriteForPackage('README.md', 'see [a](docs/a.md#x) ![b](docs/b.png) `[c](docs/a.md)`', sample)).toBe(
      'see [a](https://cdn.jsdelivr.net/npm/pkg@1.2.3/docs/a.md#x) ![b](https://cdn.jsdelivr.net/npm/pkg@1.2.3/docs/b.png) `[c](docs/a.md)`',
    );
    expect(rewriteForPackage('docs/a.md', '[t](../test/x.test.ts) and [b](b.png)', sample)).toBe('t and [b](b.png)');
    expect(brokenPackedLink('README.md', 'docs/a.md', sample)).toMatch(/relative/);
    expect(brokenPackedLink('docs/a.md', 'gone.md', sample)).toMatch(/not in the tarball/);
    expect(brokenPackedLink('README.md', 'https://cdn.jsdelivr.net/npm/pkg@1.2.2/docs/a.md', sample)).toMatch(
      /not this version/,
    );
    expect(brokenPackedLink('README.md', 'https://cdn.jsdelivr.net/npm/pkg@1.2.3/docs/c.md', sample)).toMatch(
      /not in the tarball/,
    );
    expect(brokenPackedLink('README.md', 'https://cdn.jsdelivr.net/npm/pkg@1.2.3/docs/b.png', sample)).toBeUndefined();
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
