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
  assert.equal(out.contract, '1.3');
  assert.equal(out.raw, 'ok');
  assert.ok(out.schemaNames > 10);
  assert.deepEqual(out.err, { isRk: true, name: 'RestartkitError', field: 'spec.containers', line: 6, code: 'invalid' });
  assert.equal(out.panic.isRk, true);
  assert.equal(out.panic.code, 'panic');
  assert.match(out.panic.message, /self-test panic: in the browser/);
  assert.equal(out.afterPanic, '1.3');
  // Everything came from the local server.
  assert.ok(requests.length > 0);
  for (const u of requests) assert.ok(u.startsWith(base), u);
  await page.close();
});

// A scenario the simulator runs, and its answer from the Node entry (the same two parts).
const node = await import(join(pkgDir, 'index.node.mjs'));
const scenario = node.parseDocuments(readFileSync(join(pkgDir, '..', '..', 'examples', 'scenarios', 'crashlooping-sidecar.yaml'), 'utf8'))[0].value;
const expected = node.call('simulate', { scenario });

test('core.browser.js (restartkit-wasm/core): the first-load part only, the on-demand part fetched by loadFull()', async () => {
  const page = await context.newPage();
  const wasm = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(new URL(r.url()).pathname); });
  await page.goto(`${base}/`);
  const out = await page.evaluate(async (scenario) => {
    const core = await import('/core.browser.js');
    const wasmFetched = () => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => p.endsWith('.wasm'));
    const valid = core.validate('apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: c, image: i}]\n').valid;
    const whatIf = core.call('whatIf', { object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } }, exitCode: 1 }).podPhase;
    const beforeSimulate = wasmFetched();
    // The simulator is in the on-demand part: on the main thread, the first call fails with
    // module-loading (and starts the fetch); request() answers with the same error.
    let first = null;
    try { core.call('simulate', { scenario }); } catch (e) { first = { isRk: e instanceof core.RestartkitError, code: e.code }; }
    const viaRequest = core.request('simulate', { scenario }).errors?.[0]?.code ?? null;
    await core.loadFull();
    const simulated = core.call('simulate', { scenario });
    // A panic replaces the instance; the new one links the on-demand part again by itself.
    let panic = null;
    try { core.__selfTestPanic('split'); } catch (e) { panic = e.code; }
    const again = core.call('simulate', { scenario });
    return { valid, whatIf, beforeSimulate, first, viaRequest, simulated, panic, again, contract: core.describe().contractVersion };
  }, scenario);
  assert.equal(out.valid, true);
  assert.equal(out.whatIf, 'Failed');
  assert.deepEqual(out.beforeSimulate, ['/web/restartkit_wasm_bg.wasm']);
  assert.deepEqual(out.first, { isRk: true, code: 'module-loading' });
  assert.equal(out.viaRequest, 'module-loading');
  assert.deepEqual(out.simulated, expected);
  assert.equal(out.panic, 'panic');
  assert.deepEqual(out.again, expected);
  assert.equal(out.contract, '1.3');
  assert.deepEqual(wasm, ['/web/restartkit_wasm_bg.wasm', '/web/restartkit_wasm_lazy.wasm']);
  await page.close();
});

test('core.browser.js in a worker: a call that needs the on-demand part fetches it synchronously', async () => {
  const page = await context.newPage();
  await page.goto(`${base}/`);
  const out = await page.evaluate(async (scenario) => {
    // The worker says when it is ready: a message sent during its top-level await would be lost.
    const src = `import * as core from '${location.origin}/core.browser.js';
      self.onmessage = ({ data }) => {
        try { self.postMessage({ ok: core.call('simulate', { scenario: data }) }); } catch (e) { self.postMessage({ error: String(e.code ?? e.message) }); }
      };
      self.postMessage('ready');`;
    const worker = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })), { type: 'module' });
    const next = () => new Promise((resolve) => {
      worker.onmessage = ({ data }) => resolve(data);
      worker.onerror = (e) => resolve({ error: `worker: ${e.message}` });
    });
    const ready = await next();
    if (ready !== 'ready') return ready;
    worker.postMessage(scenario);
    const data = await next();
    worker.terminate();
    return data;
  }, scenario);
  assert.equal(out.error, undefined);
  assert.deepEqual(out.ok, expected);
  await page.close();
});

test('index.browser.js: both parts at import; the simulator runs at once, and again after a panic', async () => {
  const page = await context.newPage();
  await page.goto(`${base}/`);
  const out = await page.evaluate(async (scenario) => {
    const m = await import('/index.browser.js');
    const simulated = m.call('simulate', { scenario });
    try { m.__selfTestPanic('split'); } catch { /* the instance is replaced */ }
    return { simulated, again: m.call('simulate', { scenario }) };
  }, scenario);
  assert.deepEqual(out.simulated, expected);
  assert.deepEqual(out.again, expected);
  await page.close();
});

test('index.browser.js when the on-demand part cannot be fetched: the import works, simulate names the missing part', async () => {
  const page = await context.newPage();
  await page.route('**/restartkit_wasm_lazy.wasm', (route) => route.fulfill({ status: 404, body: '' }));
  await page.goto(`${base}/`);
  const out = await page.evaluate(async (scenario) => {
    const m = await import('/index.browser.js');
    let sim = null;
    try { m.call('simulate', { scenario }); } catch (e) { sim = { isRk: e instanceof m.RestartkitError, code: e.code, message: e.message }; }
    const valid = m.validate('apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: c, image: i}]\n').valid;
    return { sim, valid };
  }, scenario);
  assert.equal(out.sim.isRk, true);
  assert.equal(out.sim.code, 'module-load-failed');
  assert.match(out.sim.message, /restartkit_wasm_lazy\.wasm answered 404/);
  assert.equal(out.valid, true);
  await page.close();
});
