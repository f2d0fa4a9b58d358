#!/usr/bin/env node
// A static file server for playground/dist (no server logic): `node scripts/serve.mjs [dir] [port]`
// listens on 127.0.0.1 (port 8080 by default). The tests import startServer() and use port 0.
import { createServer } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm',
  '.yaml': 'text/yaml; charset=utf-8', '.png': 'image/png', '.svg': 'image/svg+xml',
};

// `prefix` serves the folder under a sub-path (e.g. '/restartkit/', as GitHub Pages does for a
// project site); anything outside it is 404.
export function startServer(dir, port = 8080, host = '127.0.0.1', { prefix = '/' } = {}) {
  const root = resolve(dir);
  const server = createServer((req, res) => {
    let path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    const inside = path.startsWith(prefix);
    path = `/${path.slice(prefix.length)}`;
    if (path.endsWith('/')) path += 'index.html';
    const file = normalize(join(root, path));
    if (!inside || (file !== root && !file.startsWith(root + sep)) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    // As a static host would: file names with a content hash (the build's `name-HASH.js`,
    // `pkg-<hash>/`) may be cached for good, the rest is revalidated; compressed when the client
    // accepts gzip (so the tests measure transfer sizes as a browser would see them).
    const hashed = /-[A-Z0-9]{8}\.(js|css)$/.test(path) || /^\/pkg-[0-9a-f]{10}\//.test(path);
    const headers = {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    };
    let body = readFileSync(file);
    if (/\bgzip\b/.test(req.headers['accept-encoding'] ?? '') && body.length > 1024) {
      body = gzipSync(body);
      headers['content-encoding'] = 'gzip';
    }
    headers['content-length'] = body.length;
    res.writeHead(200, headers);
    res.end(body);
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => ok({ server, url: `http://${host}:${server.address().port}/` }));
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const dir = process.argv[2] ?? join(here, 'dist');
  const port = Number(process.argv[3] ?? process.env.PORT ?? 8080);
  const { url } = await startServer(dir, port);
  console.log(`serving ${dir} on ${url}`);
}
