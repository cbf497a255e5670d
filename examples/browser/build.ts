/**
 * `npm run build:page`: bundles the live page (src/main.ts, with the library from ../../src) into
 * examples/browser/dist/ (gitignored) with esbuild, for the browser, as ES modules split into
 * chunks, so that the Stately inspector's package sits in a chunk of its own that only the
 * "Open the Stately inspector" button loads. ES modules do not load from file://, so the page is
 * opened through `npm run page` (serve.ts), a small server on the loopback interface.
 */
import { rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';

export const PAGE_DIR = import.meta.dirname;
export const DIST_DIR = join(PAGE_DIR, 'dist');

/** What a build wrote, named as the page requests them (`dist/…`); the metafile names them from examples/browser/. */
export interface PageBuild {
  /** The module index.html loads: `dist/page.js`. */
  entry: string;
  /** The chunk holding @statelyai/inspect, loaded only on demand. */
  inspectorChunk: string;
  /** Every chunk the entry loads at once: itself and what it imports statically, transitively. */
  loadedAtStart: string[];
  metafile: Metafile;
}

/**
 * Builds the page into `outdir` (emptied first); throws with esbuild's messages if it does not compile.
 * The test builds into a directory of its own: in the shared dist/, a second test run's build deleted
 * the chunks under the page the first was loading.
 */
export async function buildPage(outdir = DIST_DIR): Promise<PageBuild> {
  rmSync(outdir, { recursive: true, force: true });
  const { metafile } = await build({
    absWorkingDir: PAGE_DIR,
    entryPoints: { page: join(PAGE_DIR, 'src', 'main.ts') },
    outdir,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    // What a browser app's bundler does for libraries that read it (xstate does not; its deps may).
    define: { 'process.env.NODE_ENV': '"production"' },
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.js'));
  const entry = outputs.find(([, output]) => output.entryPoint !== undefined)?.[0];
  const inspector = outputs.find(([, output]) =>
    Object.keys(output.inputs).some((input) => input.includes('node_modules/@statelyai/inspect/')),
  )?.[0];
  if (entry === undefined || inspector === undefined) throw new Error('esbuild wrote no entry or no inspector chunk');
  const loadedAtStart = new Set<string>();
  const visit = (file: string) => {
    if (loadedAtStart.has(file)) return;
    loadedAtStart.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? []) {
      if (imported.kind === 'import-statement') visit(imported.path);
    }
  };
  visit(entry);
  // Named as the page requests them (serve.ts serves `outdir` as dist/), wherever `outdir` is.
  const served = (file: string) => `dist/${relative(outdir, join(PAGE_DIR, file)).split(sep).join('/')}`;
  return {
    entry: served(entry),
    inspectorChunk: served(inspector),
    loadedAtStart: [...loadedAtStart].map(served),
    metafile,
  };
}

// Run as a script (`npm run build:page`), not when serve.ts or the test imports it.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const built = await buildPage();
  const kB = (file: string) => (built.metafile.outputs[file]?.bytes ?? 0) / 1000;
  const atStart = built.loadedAtStart.reduce((total, file) => total + kB(file), 0);
  console.log(
    `built the live page into ${relative(process.cwd(), DIST_DIR)}/: ${atStart.toFixed(1)} kB loaded at start ` +
      `(${built.loadedAtStart.join(', ')}), the inspector (${built.inspectorChunk}) on demand. ` +
      'Open it with npm run page.',
  );
}
