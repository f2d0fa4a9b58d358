// The browser entry (index.browser.js: ESM, top-level await of the module) in headless Chromium
// (Debian's /usr/bin/chromium driven by playwright-core), served from 127.0.0.1 by a node:http
// server started here on port 0.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium } from 'playwright-core';
import { pkgDir } from './helpers.mjs';

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.html': 'text/html' };
let server;
let base;
let context;
let profile;
const requests = [];

before(async () => {
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<!doctype html><title>restartkit-wasm</title>');
    }
    const file = normalize(join(pkgDir, path));
    if (!file.startsWith(pkgDir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
  profile = mkdtempSync(join(tmpdir(), 'rk-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await context?.close();
  await new Promise((r) => server?.close(r) ?? r());
  if (profile) rmSync(profile, { recursive: true, force: true });
});

test('index.browser.js loads in Chromium and answers', async () => {
  const page = await context.newPage();
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${base}/`);
  const out = await page.evaluate(async () => {
    const m = await import('/index.browser.js');
    const text = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: 5\n';
    let err = null;
    try { m.check(text); } catch (e) { err = { isRk: e instanceof m.RestartkitError, name: e.name, field: e.field, line: e.line, code: e.code }; }
    let panic = null;
    try { m.__selfTestPanic('in the browser'); } catch (e) { panic = { isRk: e instanceof m.RestartkitError, code: e.code, message: e.message }; }
    return {
      contract: m.describe().contractVersion,
      afterPanic: m.describe().contractVersion,
      schemaNames: Object.keys(m.schemas()).length,
      raw: JSON.parse(m.handleJson('{"op":"describe"}')).status,
      err,
      panic,
    };
  });
  assert.equal(out.contract, '1.2');
  assert.equal(out.raw, 'ok');
  assert.ok(out.schemaNames > 10);
  assert.deepEqual(out.err, { isRk: true, name: 'RestartkitError', field: 'spec.containers', line: 6, code: 'invalid' });
  assert.equal(out.panic.isRk, true);
  assert.equal(out.panic.code, 'panic');
  assert.match(out.panic.message, /self-test panic: in the browser/);
  assert.equal(out.afterPanic, '1.2');
  // Everything came from the local server.
  assert.ok(requests.length > 0);
  for (const u of requests) assert.ok(u.startsWith(base), u);
  await page.close();
});

test('core.browser.js (restartkit-wasm/core): the same API on the module without the simulator', async () => {
  const page = await context.newPage();
  const wasm = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(new URL(r.url()).pathname); });
  await page.goto(`${base}/`);
  const out = await page.evaluate(async () => {
    const core = await import('/core.browser.js');
    const valid = core.validate('apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: c, image: i}]\n').valid;
    let simulate = null;
    try { core.call('simulate', { scenario: {} }); } catch (e) { simulate = { isRk: e instanceof core.RestartkitError, code: e.code, field: e.field }; }
    return { valid, simulate, contract: core.describe().contractVersion };
  });
  assert.equal(out.valid, true);
  assert.deepEqual(out.simulate, { isRk: true, code: 'op-not-built', field: 'op' });
  assert.equal(out.contract, '1.2');
  // Only the core module was fetched.
  assert.deepEqual(wasm, ['/web-core/restartkit_wasm_bg.wasm']);
  await page.close();
});
