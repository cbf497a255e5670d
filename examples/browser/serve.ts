/**
 * `npm run page`: builds the live page and serves it on the loopback interface (only this machine
 * can reach it), at http://127.0.0.1:4173/ unless `--port N` (0: any free port) says otherwise.
 * It serves index.html and the build in dist/, nothing else. Ctrl+C stops it.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildPage, DIST_DIR, PAGE_DIR } from './build.js';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export interface PageServer {
  /** The page's address, e.g. `http://127.0.0.1:4173/`. */
  url: string;
  close(): Promise<void>;
}

/** The file a request path names (dist/… from `distDir`), or undefined if it names nothing the page serves. */
function fileFor(requestPath: string, distDir: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(requestPath);
  } catch {
    return undefined;
  }
  if (path === '/' || path === '/index.html') return join(PAGE_DIR, 'index.html');
  if (!path.startsWith('/dist/')) return undefined;
  const file = normalize(join(distDir, path.slice('/dist/'.length)));
  // normalize() resolves `..`, so a path that climbs out of the build no longer starts with it.
  if (!file.startsWith(distDir + sep) || CONTENT_TYPES[extname(file)] === undefined) return undefined;
  return file;
}

/**
 * Serves the built page on 127.0.0.1:`port` (port 0 takes any free one), its dist/ from `distDir`
 * (where buildPage wrote it: build it first).
 */
export function servePage(port = 0, distDir = DIST_DIR): Promise<PageServer> {
  const root = normalize(distDir);
  const server = createServer(async (request, response) => {
    const file =
      request.method === 'GET' ? fileFor(new URL(request.url ?? '/', 'http://page').pathname, root) : undefined;
    const body = file === undefined ? undefined : await readFile(file).catch(() => undefined);
    if (file === undefined || body === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    response
      .writeHead(200, { 'content-type': CONTENT_TYPES[extname(file)] ?? 'text/plain', 'cache-control': 'no-store' })
      .end(body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${bound}/`,
        close: () => new Promise((closed) => server.close(() => closed())),
      });
    });
  });
}

// Run as a script (`npm run page`), not when the test imports it.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const portFlag = process.argv.indexOf('--port');
  const port = portFlag === -1 ? 4173 : Number(process.argv[portFlag + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`--port must be an integer from 0 to 65535, got ${process.argv[portFlag + 1]}`);
  }
  await buildPage();
  const { url } = await servePage(port);
  console.log(`the live page: ${url} (Ctrl+C stops the server)`);
}
