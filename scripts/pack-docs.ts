/**
 * The docs as the package ships them. In the repository, README.md and docs/ link relatively, which
 * works in a clone and in node_modules; the registry's page shows README.md with no repository to
 * resolve a relative link against. So `npm pack` (and `npm publish`) ship a README whose links to
 * packed files are absolute, version-pinned URLs of the same files on a public npm CDN (jsDelivr
 * serves every published file of every version), and every packed page's link to a file left out of
 * the package (tests, benchmark code, scripts) is left as its text. Pages inside the package keep their
 * relative links, which resolve in node_modules.
 *
 * `prepack` rewrites the packed pages in place, keeping the originals in node_modules/.cache;
 * `postpack` puts them back. A pack that died between the two is mended by the next `prepack`.
 * test/build/doc-links.test.ts checks the rewrite against the files a pack holds; the package install
 * test checks a real tarball.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isRelative, linksOf } from './markdown-links.js';

/** Where the registry's page sends a reader: the packed file of this very version. */
export function packedFileUrl(name: string, version: string, path: string): string {
  return `https://cdn.jsdelivr.net/npm/${name}@${version}/${path}`;
}

/**
 * What the package leaves out on purpose, for the repository's contributors: a packed page's link there
 * becomes its text. A link to anything else that is not packed is a mistake (a file left out of
 * `files`, a path misspelt), and the rewrite refuses it.
 */
export const REPOSITORY_ONLY = ['ARCHITECTURE.md', 'api/', 'bench/', 'scripts/', 'src/', 'test/'];

/** The package a page is packed into. */
export interface PackedPackage {
  readonly name: string;
  readonly version: string;
  /** Every file the tarball holds, relative to its root (`docs/reference.md`). */
  readonly files: ReadonlySet<string>;
}

/**
 * Where a relative link of `page` leads, relative to the package's root, and whether that is a packed
 * file or a folder holding one; undefined for a link to a place on the same page.
 */
export function packedTarget(
  page: string,
  target: string,
  files: ReadonlySet<string>,
): { path: string; anchor: string; packed: boolean } | undefined {
  const hash = target.indexOf('#');
  const pathPart = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? '' : target.slice(hash);
  if (pathPart === '') return undefined;
  const folder = pathPart.endsWith('/');
  const path = posix.normalize(posix.join(posix.dirname(page), decodeURI(pathPart))).replace(/\/$/, '');
  const packed = folder || !files.has(path) ? [...files].some((file) => file.startsWith(`${path}/`)) : true;
  return { path: folder ? `${path}/` : path, anchor, packed };
}

/**
 * A packed page as the package ships it (`page` is its path in the package, `README.md` or `docs/x.md`).
 * Throws, naming each, for links to files neither packed nor in REPOSITORY_ONLY.
 */
export function rewriteForPackage(page: string, markdown: string, pkg: PackedPackage): string {
  let rewritten = '';
  let copiedTo = 0;
  const nowhere: string[] = [];
  for (const link of linksOf(markdown)) {
    if (!isRelative(link.target)) continue;
    const target = packedTarget(page, link.target, pkg.files);
    if (target === undefined) continue;
    let replacement: string | undefined;
    if (!target.packed) {
      const repositoryOnly = REPOSITORY_ONLY.some((place) =>
        place.endsWith('/') ? `${target.path}/`.startsWith(place) : target.path === place,
      );
      if (!repositoryOnly) nowhere.push(`${link.target} (${target.path})`);
      replacement = link.text;
    } else if (page === 'README.md') {
      const url = `${packedFileUrl(pkg.name, pkg.version, encodeURI(target.path))}${target.anchor}`;
      replacement = `${link.image ? '!' : ''}[${link.text}](${url})`;
    }
    if (replacement === undefined) continue;
    rewritten += markdown.slice(copiedTo, link.start) + replacement;
    copiedTo = link.end;
  }
  if (nowhere.length > 0) {
    throw new Error(
      `${page} links to files the package does not hold, and that are not the repository's own (${REPOSITORY_ONLY.join(', ')}): ${nowhere.join(', ')}`,
    );
  }
  return rewritten + markdown.slice(copiedTo);
}

/** The files `npm pack` puts in the tarball, asked of npm itself (without running this script again). */
export function filesNpmPacks(root: string): Set<string> {
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [packed] = JSON.parse(output) as [{ files: { path: string }[] }];
  return new Set(packed.files.map((file) => file.path));
}

/** The packed pages with links: README.md and every packed markdown file. */
export function packedPages(files: ReadonlySet<string>): string[] {
  return [...files].filter((file) => file.endsWith('.md')).sort();
}

const root = join(import.meta.dirname, '..');
const backups = join(root, 'node_modules', '.cache', 'xstate-throttler-packed-docs');
const manifestFile = join(backups, 'manifest.json');

/** What prepack changed: each page's original and rewritten text, so postpack restores only its own. */
type Manifest = Record<string, { original: string; rewritten: string }>;

function restore(): void {
  if (!existsSync(manifestFile)) return;
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
  for (const [page, { original, rewritten }] of Object.entries(manifest)) {
    const path = join(root, page);
    const now = readFileSync(path, 'utf8');
    if (now === rewritten) writeFileSync(path, original);
    else if (now !== original) {
      // Edited while packing: the edit stays, and the reader is told the links are the packed ones.
      console.warn(`pack-docs: ${page} changed during the pack; its links stay rewritten for the package`);
    }
  }
  rmSync(backups, { recursive: true, force: true });
}

function prepack(): void {
  restore();
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  const files = filesNpmPacks(root);
  const manifest: Manifest = {};
  for (const page of packedPages(files)) {
    const original = readFileSync(join(root, page), 'utf8');
    const rewritten = rewriteForPackage(page, original, { ...pkg, files });
    if (rewritten !== original) manifest[page] = { original, rewritten };
  }
  // The originals are saved before any page changes, so a failure half-way leaves them restorable.
  mkdirSync(dirname(manifestFile), { recursive: true });
  writeFileSync(manifestFile, JSON.stringify(manifest));
  for (const [page, { rewritten }] of Object.entries(manifest)) writeFileSync(join(root, page), rewritten);
  // On stderr: `npm pack --json` prints its answer on stdout, with a lifecycle script's output in it.
  console.error(`pack-docs: ${Object.keys(manifest).length} pages with links rewritten for the package`);
}

// Run as a script (`tsx scripts/pack-docs.ts prepack`), not when a test imports it.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const command = process.argv[2];
  if (command === 'prepack') prepack();
  else if (command === 'postpack') restore();
  else throw new Error(`pack-docs: unknown command ${command}; use prepack or postpack`);
}
