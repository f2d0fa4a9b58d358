// The browser the playground's Playwright suites share: the built playground (playground/dist)
// served by node:http on 127.0.0.1 (port 0) and Debian's Chromium, headless, in a throwaway
// profile, driven by playwright-core. Not a test file itself: it only exports.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/serve.mjs';

export const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repo = resolve(here, '..');
export const dist = resolve(process.env.PLAYGROUND_DIST ?? join(here, 'dist'));
export const artifacts = join(repo, 'test-artifacts', 'playground');

/** Serves dist and opens Chromium; `profilePrefix` names the temporary profile directory. */
export async function launchSite(profilePrefix) {
  assert.ok(existsSync(join(dist, 'index.html')), `no playground in ${dist}: run \`make playground\``);
  mkdirSync(artifacts, { recursive: true });
  const { server, url: base } = await startServer(dist, 0);
  const profile = mkdtempSync(join(tmpdir(), profilePrefix));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    base,
    context,
    /** A new page at `fragment`, once the app says it is ready; `errors` collects page errors. */
    async open(fragment = '') {
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${base}${fragment}`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
      return { page, errors };
    },
    async close() {
      await context.close();
      await new Promise((r) => server.close(r));
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
