// Browser tests of the playground's sweep panel (src/sweep.js, src/sweep-worker.js): Debian's
// Chromium, headless, driven by playwright-core against the built playground (playground/dist)
// served on 127.0.0.1, as test/e2e.test.mjs does. The expected numbers are the core's own: the
// `sweep` op called once in the page on the package's full module, against the panel's answer
// made chunk by chunk in its worker.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifacts, dist, launchSite } from './browser.mjs';

let site;

before(async () => {
  site = await launchSite('rk-playground-sweep-');
});

after(async () => {
  await site?.close();
});

const open = (fragment) => site.open(fragment);

async function waitFor(page, fn, what, arg, timeout = 10000) {
  try {
    await page.waitForFunction(fn, arg, { timeout });
  } catch {
    await page.screenshot({ path: join(artifacts, 'sweep-failed.png'), fullPage: true }).catch(() => {});
    assert.fail(`timed out waiting for ${what}`);
  }
}

const outputState = (page) => page.getByTestId('sweep-output').getAttribute('data-state');
const progressNow = async (page) => Number(await page.getByTestId('sweep-progress').getAttribute('aria-valuenow'));
/** The bars of variant i's histogram: [{lo, hi, count}]. */
const bars = (page, i) => page.locator(`#sweep-output section[data-variant="${i}"] rect.bar`).evaluateAll((rs) => rs.map((r) => ({
  lo: Number(r.dataset.lo), hi: Number(r.dataset.hi), count: Number(r.dataset.count),
})));
/** The `sweep` op called once, in the page, on the package's full module. */
async function sweepInPage(page, scenarioFile, input) {
  const build = JSON.parse(readFileSync(join(dist, 'build.json'), 'utf8'));
  return page.evaluate(async ({ dir, file, input: inp }) => {
    const full = await import(`./${dir}/index.browser.js`);
    const scenario = full.parseDocuments(await (await fetch(`./sim/scenarios/${file}`)).text())[0].value;
    return full.call('sweep', { ...inp, scenario });
  }, { dir: build.pkgDir, file: scenarioFile, input });
}
/** The rows' values of one measure counted into the shown bins (the last bin holds its upper edge). */
function binRows(rows, key, shown) {
  return shown.map((b, i) => rows.filter((r) => r[key] !== undefined && r[key] >= b.lo && (r[key] < b.hi || (i === shown.length - 1 && r[key] === b.hi))).length);
}
/** A responsive main thread: a frame comes within `ms`. */
async function frameWithin(page, ms) {
  const took = await page.evaluate(() => new Promise((r) => {
    const t = performance.now();
    requestAnimationFrame(() => r(performance.now() - t));
  }));
  assert.ok(took < ms, `a frame took ${took.toFixed(0)} ms`);
  return took;
}

describe('sweep panel', () => {
  test('the on-demand part of the module is fetched only when a sweep runs, by the sweep worker', async () => {
    const wasm = [];
    const page = await site.context.newPage();
    page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(r.url().slice(site.base.length)); });
    const workers = [];
    page.on('worker', (w) => workers.push(w.url()));
    await page.goto(`${site.base}#ex=restart-on-exit-42`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
    await page.locator('#sweep > summary').click();
    await waitFor(page, () => /[#&]ws=100(&|$)/.test(location.hash), 'the sweep keys in the fragment');
    assert.ok(!wasm.some((u) => u.includes('restartkit_wasm_lazy')), `the on-demand part was fetched before a sweep ran: ${wasm.join(', ')}`);
    assert.ok(!workers.some((u) => u.includes('sweep-worker')), 'the sweep worker started before a run');
    // The first scenario (the crash-looping sidecar), 20 seeds.
    await page.getByTestId('sweep-seeds').fill('20');
    await page.getByTestId('sweep-run').click();
    await waitFor(page, () => document.querySelector('[data-testid="sweep-output"]')?.dataset.state === 'finished', 'the sweep to finish', undefined, 60000);
    assert.ok(workers.some((u) => u.includes('sweep-worker')), workers.join(', '));
    assert.equal((await bars(page, 0)).reduce((a, b) => a + b.count, 0), 20);
    await page.close();
  });

  test('a sweep link opens the simulation panel too only when it says so (sim=1), as the page writes it', async () => {
    const { page } = await open('#ex=restart-on-exit-42&s=training-reschedule&ws=50');
    assert.equal(await page.locator('#simulation').evaluate((d) => d.open), false);
    // Opening the simulation panel beside the sweep panel puts sim=1 in the fragment...
    await page.locator('#simulation > summary').click();
    await waitFor(page, () => /[#&]sim=1(&|$)/.test(location.hash) && /[#&]ws=50(&|$)/.test(location.hash), 'sim=1 beside ws');
    const both = await page.evaluate(() => location.hash);
    await page.close();
    // ...and that link opens both.
    const again = await open(both);
    assert.equal(await again.page.locator('#sweep').evaluate((d) => d.open), true);
    assert.equal(await again.page.locator('#simulation').evaluate((d) => d.open), true);
    await again.page.close();
  });

  test('two variants side by side: histograms of N runs and P(phase) equal to one `sweep` call', async () => {
    const seeds = 200;
    const { page, errors } = await open(`#ex=restart-on-exit-42&s=training-reschedule&ws=${seeds}`);
    assert.equal(await page.locator('#sweep').evaluate((d) => d.open), true, 'a link with ws opens the sweep panel');
    assert.equal(await page.locator('#simulation').evaluate((d) => d.open), false, 'and not the simulation panel (no sim=1)');
    assert.equal(await page.getByTestId('sweep-seeds').inputValue(), String(seeds));
    const variants = [
      { name: 'maxRestarts 3', patch: { runFor: '2h' }, text: 'runFor: 2h' },
      { name: 'maxRestarts 10', patch: { runFor: '2h', workload: { spec: { failurePolicy: { maxRestarts: 10 } } } }, text: '{runFor: 2h, workload: {spec: {failurePolicy: {maxRestarts: 10}}}}' },
    ];
    await page.getByTestId('sweep-name-a').fill(variants[0].name);
    await page.getByTestId('sweep-patch-a').fill(variants[0].text);
    await page.getByTestId('sweep-b-on').check();
    await page.getByTestId('sweep-name-b').fill(variants[1].name);
    await page.getByTestId('sweep-patch-b').fill(variants[1].text);
    await page.getByTestId('sweep-run').click();
    await waitFor(page, () => document.querySelector('[data-testid="sweep-output"]')?.dataset.state === 'finished', 'the sweep to finish', undefined, 90000);
    const progress = page.getByTestId('sweep-progress');
    assert.equal(await progress.getAttribute('role'), 'progressbar');
    assert.equal(await progress.getAttribute('aria-valuenow'), String(2 * seeds));
    assert.equal(await progress.getAttribute('aria-valuemax'), String(2 * seeds));

    const expected = await sweepInPage(page, 'training-reschedule.yaml', { seeds, variants: variants.map(({ name, patch }) => ({ name, patch })), runs: true });
    assert.deepEqual(expected.variants.map((v) => v.name), variants.map((v) => v.name));
    // Side by side, in the plan's order.
    assert.deepEqual(await page.locator('#sweep-output section[data-variant]').evaluateAll((s) => s.map((x) => x.dataset.name)), variants.map((v) => v.name));
    for (const [i, v] of expected.variants.entries()) {
      // The histogram holds every run, and each bar the runs whose value it spans.
      const shown = await bars(page, i);
      assert.equal(shown.reduce((a, b) => a + b.count, 0), seeds, v.name);
      assert.deepEqual(shown.map((b) => b.count), binRows(v.rows, 'timeLostSeconds', shown), v.name);
      // Every final phase, with the op's share and Wilson interval, exactly.
      for (const [phase, p] of Object.entries(v.phases)) {
        const cell = page.locator(`[data-testid="sweep-phases"] tr[data-phase="${phase}"] td`).nth(i);
        assert.deepEqual(await cell.evaluate((td) => ({ ...td.dataset })), {
          runs: String(p.runs), probability: String(p.probability), low: String(p.low), high: String(p.high),
        }, `${v.name} ${phase}`);
      }
      // The statistics of the measure shown.
      const stats = await page.locator(`#sweep-output section[data-variant="${i}"] [data-testid="sweep-stats"] td`).evaluateAll((tds) => tds.map((td) => td.dataset.value));
      const s = v.measures.timeLostSeconds;
      assert.deepEqual(stats, ['runs', 'mean', 'stdDev', 'min', 'p25', 'p50', 'p75', 'p90', 'p99', 'max'].map((k) => String(s[k])), v.name);
    }
    // The whole answer, as offered for download, is the one `sweep` call's (without its rows).
    const href = await page.getByTestId('sweep-json').getAttribute('href');
    const offered = JSON.parse(decodeURIComponent(href.slice(href.indexOf(',') + 1)));
    assert.deepEqual(offered, { ...expected, variants: expected.variants.map(({ rows, ...v }) => v) });
    // The two variants really differ (more restarts allowed: fewer runs fail).
    assert.ok(expected.variants[0].phases.Failed.runs > expected.variants[1].phases.Failed.runs, JSON.stringify(expected.variants.map((v) => v.phases.Failed)));
    assert.match(await page.getByTestId('sweep-announce').textContent(), /^Sweep finished: 200 runs of each variant\. maxRestarts 3: Failed/);

    // Another measure: whole numbers, one bar per value; the numbers are still the op's.
    await page.getByTestId('sweep-measure').selectOption('jobsetRestarts');
    for (const [i, v] of expected.variants.entries()) {
      const shown = await bars(page, i);
      assert.ok(shown.every((b) => b.hi - b.lo === 1), JSON.stringify(shown));
      assert.deepEqual(shown.map((b) => b.count), binRows(v.rows, 'jobsetRestarts', shown), v.name);
      const max = await page.locator(`#sweep-output section[data-variant="${i}"] [data-testid="sweep-stats"] tr[data-key="max"] td`).getAttribute('data-value');
      assert.equal(max, String(v.measures.jobsetRestarts.max));
    }
    await page.screenshot({ path: join(artifacts, 'sweep.png'), fullPage: true });

    // The panel's state is in the link, and the link restores it.
    await waitFor(page, () => /[#&]wm=jobsetRestarts(&|$)/.test(location.hash), 'the measure in the fragment');
    const link = page.url();
    assert.match(decodeURIComponent(link), /[#&]ws=200&wa=maxRestarts\+3&wpa=[\w-]+&wb=maxRestarts\+10&wpb=[\w-]+&wm=jobsetRestarts/);
    const again = await site.context.newPage();
    await again.goto(link);
    await again.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
    assert.equal(await again.getByTestId('sweep-name-b').inputValue(), variants[1].name);
    assert.equal(await again.getByTestId('sweep-patch-b').inputValue(), variants[1].text);
    assert.equal(await again.getByTestId('sweep-patch-a').inputValue(), variants[0].text);
    assert.equal(await again.getByTestId('sweep-measure').inputValue(), 'jobsetRestarts');
    await again.close();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a bad variant patch shows the core\'s error naming the variant and the field; seed bounds', async () => {
    const { page, errors } = await open('#ex=restart-on-exit-42&s=training-reschedule&ws=10');
    const run = async () => {
      await page.getByTestId('sweep-run').click();
      await waitFor(page, () => ['error', 'finished'].includes(document.querySelector('[data-testid="sweep-output"]')?.dataset.state), 'an answer');
      return page.getByTestId('sweep-error');
    };
    await page.getByTestId('sweep-b-on').check();
    await page.getByTestId('sweep-name-b').fill('typo');
    await page.getByTestId('sweep-patch-b').fill('startupSeconds: slow');
    let error = await run();
    assert.equal(await outputState(page), 'error');
    assert.match(await error.textContent(), /^variant "typo": scenario\.startupSeconds: invalid type: string "slow", expected f64/);
    assert.equal(await error.getAttribute('data-field'), 'scenario.startupSeconds');
    assert.match(await page.getByTestId('sweep-announce').textContent(), /variant "typo"/);
    // A patch the admission of the workload refuses: the variant and the workload's field.
    await page.getByTestId('sweep-patch-b').fill('workload: {spec: {failurePolicy: {rules: [{name: r, action: Explode}]}}}');
    error = await run();
    assert.match(await error.textContent(), /^variant "typo": .*spec\.failurePolicy\.rules\[0\]\.action: Unsupported value: "Explode"/);
    // A patch that is not a JSON object.
    await page.getByTestId('sweep-patch-b').fill('[1, 2]');
    error = await run();
    assert.match(await error.textContent(), /^variant "typo": a patch is a JSON object/);
    // Text that is not YAML.
    await page.getByTestId('sweep-patch-b').fill('runFor: [2h');
    error = await run();
    assert.match(await error.textContent(), /^variant "typo": patch: /);
    // Two variants with one name.
    await page.getByTestId('sweep-patch-b').fill('');
    await page.getByTestId('sweep-name-b').fill('as is');
    error = await run();
    assert.match(await error.textContent(), /variants\[1\]: the name "as is" is used twice/);
    // Seeds: over the playground's bound, and zero (the core's refusal).
    await page.getByTestId('sweep-b-on').uncheck();
    await page.getByTestId('sweep-seeds').fill('10001');
    error = await run();
    assert.match(await error.textContent(), /^seeds: 10,001 is more than the playground runs \(at most 10,000 per variant\)/);
    await page.getByTestId('sweep-seeds').fill('0');
    error = await run();
    assert.match(await error.textContent(), /^seeds: at least 1 seed is needed/);
    // And a good one afterwards.
    await page.getByTestId('sweep-seeds').fill('3');
    await run();
    assert.equal(await outputState(page), 'finished');
    assert.equal(await page.locator('#sweep-output section[data-variant]').count(), 1);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Stop ends a long sweep: progress stops, the worker is gone, the partial counts are marked stopped', async () => {
    const { page, errors } = await open('#ex=restart-on-exit-42&s=training-reschedule&ws=10000');
    let sweepWorker = null;
    let closed = false;
    page.on('worker', (w) => {
      if (!w.url().includes('sweep-worker')) return;
      sweepWorker = w;
      w.on('close', () => { closed = true; });
    });
    await page.getByTestId('sweep-run').click();
    await waitFor(page, () => Number(document.querySelector('[data-testid="sweep-progress"]')?.getAttribute('aria-valuenow')) >= 50, 'some progress', undefined, 30000);
    assert.ok(sweepWorker, 'a sweep worker');
    const t0 = Date.now();
    await page.getByTestId('sweep-stop').click();
    await waitFor(page, () => document.querySelector('[data-testid="sweep-output"]')?.dataset.state === 'stopped', 'the stopped state');
    const stoppedAt = await progressNow(page);
    await page.waitForTimeout(1500);
    assert.equal(await progressNow(page), stoppedAt, 'progress moved after Stop');
    assert.ok(stoppedAt < 10000, `${stoppedAt}`);
    for (let i = 0; i < 20 && !closed; i++) await page.waitForTimeout(100);
    assert.ok(closed, `the worker is still there ${Date.now() - t0} ms after Stop`);
    // Shown as stopped, with the runs so far, and not as a result.
    assert.match(await page.getByTestId('sweep-status').textContent(), new RegExp(`^Stopped after ${stoppedAt.toLocaleString('en-US')} of 10,000 runs: these counts are partial, not a result`));
    assert.match(await page.getByTestId('sweep-progress-text').textContent(), /stopped$/);
    assert.equal((await bars(page, 0)).reduce((a, b) => a + b.count, 0), stoppedAt);
    assert.equal(await page.locator('[data-testid="sweep-stats"]').count(), 0);
    assert.equal(await page.locator('[data-testid="sweep-phases"] td[data-probability]').count(), 0);
    const counted = await page.locator('[data-testid="sweep-phases"] td[data-runs]').evaluateAll((tds) => tds.reduce((a, td) => a + Number(td.dataset.runs), 0));
    assert.equal(counted, stoppedAt);
    assert.match(await page.getByTestId('sweep-announce').textContent(), /^Sweep stopped after/);
    assert.equal(await page.getByTestId('sweep-run').isEnabled(), true);
    assert.equal(await page.getByTestId('sweep-stop').isEnabled(), false);
    await page.screenshot({ path: join(artifacts, 'sweep-stopped.png'), fullPage: true });
    // A new run starts a new worker.
    await page.getByTestId('sweep-seeds').fill('5');
    await page.getByTestId('sweep-run').click();
    await waitFor(page, () => document.querySelector('[data-testid="sweep-output"]')?.dataset.state === 'finished', 'the next sweep', undefined, 30000);
    assert.equal((await bars(page, 0)).reduce((a, b) => a + b.count, 0), 5);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the page stays responsive during a sweep: typing in the editor is validated while it runs', async () => {
    const { page, errors } = await open('#ex=restart-on-exit-42&s=training-reschedule&ws=10000');
    await page.getByTestId('sweep-run').click();
    await waitFor(page, () => Number(document.querySelector('[data-testid="sweep-progress"]')?.getAttribute('aria-valuenow')) > 0, 'some progress', undefined, 30000);
    const before = await progressNow(page);
    const frames = [];
    // Type a broken operator, a character at a time, and see the validation worker answer.
    await page.getByTestId('manifest-input').focus();
    const text = await page.evaluate(() => document.getElementById('editor').editorView.state.doc.toString());
    const at = text.indexOf('operator: In') + 'operator: '.length;
    await page.evaluate((pos) => {
      const v = document.getElementById('editor').editorView;
      v.dispatch({ changes: { from: pos, to: pos + 2 }, selection: { anchor: pos } });
    }, at);
    const t0 = Date.now();
    for (const ch of 'Sometimes') {
      await page.keyboard.type(ch);
      frames.push(await frameWithin(page, 250));
    }
    const typed = Date.now() - t0;
    await waitFor(page, () => /"Sometimes"/.test(document.querySelector('[data-testid="diagnostics"]')?.innerText ?? ''), 'the diagnostic of the typed text');
    assert.equal(await outputState(page), 'running');
    assert.ok(await progressNow(page) > before, 'the sweep went on while typing');
    console.log(`# typing 9 characters during a sweep: ${typed} ms; slowest frame ${Math.max(...frames).toFixed(0)} ms`);
    await page.getByTestId('sweep-stop').click();
    assert.deepEqual(errors, []);
    await page.close();
  });
});
