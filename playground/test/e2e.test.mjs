// Browser tests of the built playground (playground/dist): Debian's Chromium, headless, driven by
// playwright-core, against a node:http server started here on 127.0.0.1, port 0.
// Screenshots go to test-artifacts/playground/ (gitignored); UPDATE_DOCS_SCREENSHOT=1 also
// writes docs/playground.png.
// Expectations that depend on the core's semantics are upstream's real answers; they fail until
// those ops are merged.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../scripts/serve.mjs';
import { artifacts, dist, here, launchSite, repo } from './browser.mjs';

const examples = JSON.parse(readFileSync(join(here, 'examples', 'index.json'), 'utf8'));

let site;
const foreign = [];

before(async () => {
  site = await launchSite('rk-playground-chromium-');
  site.context.on('request', (r) => { if (!r.url().startsWith(site.base)) foreign.push(r.url()); });
});

after(async () => {
  await site?.close();
});

const open = (fragment) => site.open(fragment);

const diagnosticsText = (page) => page.getByTestId('diagnostics').innerText();
/** The text of a CodeMirror editor (its view hangs on the editor's element, see src/editor.js). */
const editorText = (page, root = 'editor') => page.evaluate((id) => document.getElementById(id).editorView.state.doc.toString(), root);
/** Replaces the editor's text as a user would: select all, then paste-like input. */
async function setText(page, text, testid = 'manifest-input') {
  await page.getByTestId(testid).focus();
  await page.keyboard.press('Control+A');
  if (text === '') await page.keyboard.press('Delete');
  else await page.keyboard.insertText(text);
}
/** Puts the cursor at a character offset of the manifest editor. */
async function setCursor(page, pos, root = 'editor') {
  await page.evaluate(([id, at]) => {
    const view = document.getElementById(id).editorView;
    view.focus();
    view.dispatch({ selection: { anchor: at } });
  }, [root, pos]);
}
/** Line and column (1-based) where each lint mark of the given severity starts, with its text. */
const lintMarks = (page, severity = 'error') => page.evaluate((sev) => {
  const view = document.getElementById('editor').editorView;
  return [...document.querySelectorAll(`#editor .cm-lintRange-${sev}`)].map((el) => {
    const pos = view.posAtDOM(el, 0);
    const line = view.state.doc.lineAt(pos);
    return { line: line.number, column: pos - line.from + 1, text: el.textContent };
  });
}, severity);
async function waitFor(page, fn, what, arg) {
  try {
    await page.waitForFunction(fn, arg, { timeout: 10000 });
  } catch {
    assert.fail(`timed out waiting for ${what}`);
  }
}

describe('playground', () => {
  test('loads, offers the versions from describe(), and every control is labelled', async () => {
    const { page, errors } = await open();
    const versions = await page.getByTestId('version').locator('option').allTextContents();
    assert.ok(versions.length >= 1);
    assert.ok(versions.every((v) => /^1\.\d+$/.test(v)), versions.join(','));
    const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea, button')]
      .filter((e) => !(e.labels?.length || e.getAttribute('aria-label') || e.textContent.trim()))
      .map((e) => e.outerHTML.slice(0, 80)));
    assert.deepEqual(unlabelled, []);
    // Keyboard: Tab reaches the editor and the version selector.
    const reached = new Set();
    await page.focus('body');
    for (let i = 0; i < 40; i++) {
      const at = await page.evaluate(() => document.activeElement?.dataset?.testid ?? document.activeElement?.id ?? '');
      reached.add(at);
      // In the editor Tab indents; Escape first lets Tab move on (as the label says).
      if (at === 'manifest-input') await page.keyboard.press('Escape');
      await page.keyboard.press('Tab');
    }
    assert.ok(reached.has('manifest-input'), [...reached].join(','));
    assert.ok(reached.has('version'), [...reached].join(','));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('loads each gallery example', async () => {
    const { page, errors } = await open();
    for (const ex of examples) {
      const source = readFileSync(join(here, 'examples', ex.file), 'utf8');
      await page.locator(`[data-example="${ex.id}"]`).click();
      await waitFor(page, (id) => location.hash.includes(`ex=${id}`), `the fragment to name ${ex.id}`, ex.id);
      assert.equal(await editorText(page), source, ex.id);
      assert.match(decodeURIComponent(page.url()), new RegExp(`ex=${ex.id}`));
      await page.screenshot({ path: join(artifacts, `example-${ex.id}.png`), fullPage: true });
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a rule with a non-numeric exit code shows inline and in the list with its field path', async () => {
    const { page } = await open('#ex=restart-on-exit-42');
    const text = (await editorText(page)).replace('values: [42]', 'values: [forty-two]');
    await page.getByTestId('manifest-input').focus();
    await setText(page, text);
    const field = 'spec.containers[0].restartPolicyRules[0].exitCodes.values[0]';
    await waitFor(page, (f) => document.querySelector(`[data-testid="diagnostics"] li[data-field="${f}"]`), `a diagnostic on ${field}`, field);
    const line = text.split('\n').findIndex((l) => l.includes('forty-two')) + 1;
    assert.match(await page.locator(`[data-testid="diagnostics"] li[data-field="${field}"]`).innerText(), new RegExp(`^${line}:\\d+`));
    // Underlined at the value's own line and column.
    const col = text.split('\n')[line - 1].indexOf('forty-two') + 1;
    assert.deepEqual(await lintMarks(page), [{ line, column: col, text: 'forty-two' }]);
    assert.match(await page.locator('#diag-count').innerText(), /1 diagnostic/);
    // Fixing it clears the diagnostic as you type.
    await setText(page, text.replace('forty-two', '42'));
    await waitFor(page, () => document.querySelector('#diag-count')?.innerText === 'No problems.', 'the diagnostic to clear');
    await page.close();
  });

  test('a YAML type error shows inline and in the list with its field path', async () => {
    const { page } = await open('#ex=restart-on-exit-42');
    const text = (await editorText(page)).replace(/  containers:\n[\s\S]*$/, '  containers: 5\n');
    await setText(page, text);
    await waitFor(page, () => document.querySelector('[data-testid="diagnostics"]')?.innerText.includes('spec.containers'), 'the diagnostic');
    const line = text.split('\n').findIndex((l) => l.startsWith('  containers: 5')) + 1;
    assert.match(await diagnosticsText(page), new RegExp(`${line}:\\d+`));
    assert.deepEqual((await lintMarks(page)).map((m) => m.line), [line]);
    await page.close();
  });

  test('an invalid restart rule shows its diagnostic with the field path', async () => {
    const { page } = await open('#ex=restart-on-exit-42');
    // Type the bad operator by hand into the editor.
    const text = await editorText(page);
    const at = text.indexOf('operator: In') + 'operator: '.length;
    await page.evaluate((pos) => {
      const view = document.getElementById('editor').editorView;
      view.focus();
      view.dispatch({ selection: { anchor: pos, head: pos + 2 } });
    }, at);
    await page.keyboard.type('Sometimes');
    await page.keyboard.press('Escape');
    const field = 'spec.containers[0].restartPolicyRules[0].exitCodes.operator';
    await waitFor(page, (f) => document.querySelector('[data-testid="diagnostics"]')?.innerText.includes(f), `a diagnostic on ${field}`, field)
      .catch(async (e) => { await page.screenshot({ path: join(artifacts, 'invalid-rule-failed.png'), fullPage: true }); throw e; });
    const item = page.locator(`[data-testid="diagnostics"] li[data-field="${field}"]`);
    assert.match(await item.innerText(), /Unsupported value: "Sometimes"/);
    const line = (await editorText(page)).split('\n').findIndex((l) => l.includes('operator: Sometimes')) + 1;
    // The refused value is underlined (the core's range), not its key.
    const lineText = (await editorText(page)).split('\n')[line - 1];
    assert.deepEqual(await lintMarks(page), [{ line, column: lineText.indexOf('Sometimes') + 1, text: 'Sometimes' }]);
    // The list entry's button moves the cursor there.
    await item.locator('button.goto').click();
    assert.equal(await page.evaluate(() => {
      const v = document.getElementById('editor').editorView;
      return v.state.doc.lineAt(v.state.selection.main.head).number;
    }), line);
    await page.screenshot({ path: join(artifacts, 'invalid-rule.png'), fullPage: true });
    await page.close();
  });

  test('what-if: exit 42 under a Restart In [42] rule on a Never pod restarts; exit 1 does not', async () => {
    const { page } = await open('#ex=restart-on-exit-42&g=ContainerRestartRules:1');
    await page.getByLabel('exits with code').fill('42');
    await waitFor(page, () => document.querySelector('[data-testid="decision-kubelet"] .action')?.textContent === 'Restart', 'Restart');
    await page.getByLabel('exits with code').fill('1');
    await waitFor(page, () => document.querySelector('[data-testid="decision-kubelet"] .action')?.textContent === 'DoNotRestart', 'DoNotRestart');
    assert.match(decodeURIComponent(page.url()), /x=1/);
    await page.close();
  });

  test('what-if on the training JobSet: the Job fails with the exact message and the JobSet fails', async () => {
    const { page } = await open('#ex=training-jobset&g=ContainerRestartRules:1&c=trainer&x=1');
    const decision = page.getByTestId('decision');
    await waitFor(page, () => document.querySelector('[data-testid="decision-jobset"]'), 'the JobSet row')
      .catch(async (e) => { await page.screenshot({ path: join(artifacts, 'whatif-jobset-failed.png'), fullPage: true }); throw e; });
    assert.equal(await page.locator('[data-testid="decision-kubelet"] .action').innerText(), 'DoNotRestart');
    assert.equal(await page.locator('[data-testid="decision-job"] .action').innerText(), 'FailJob');
    // The core's whatIf op names the failing Pod <job>-0, the Job <jobset>-<replicatedJob>-0.
    assert.match(await page.locator('[data-testid="decision-job"] .detail').innerText(),
      /^Container trainer for pod training\/llm-pretrain-workers-0-0 failed with exit code 1 matching FailJob rule at index 0$/);
    assert.equal(await page.locator('[data-testid="decision-jobset"] .action').innerText(), 'FailJobSet');
    assert.match(await decision.innerText(), /userBugFailsTheRun/);
    await page.close();
  });

  test('a Kubeflow TrainJob: what-if answers for the JobSet the trainer builds; an error of the built JobSet is at the runtime\'s line; the simulation ends at the deadline', async () => {
    const { page, errors } = await open('#ex=trainjob');
    await waitFor(page, () => document.querySelector('[data-testid="decision-jobset"]'), 'the JobSet row')
      .catch(async (e) => { await page.screenshot({ path: join(artifacts, 'whatif-trainjob-failed.png'), fullPage: true }); throw e; });
    // Exit 2 of a node: the runtime's podFailurePolicy fails the Job, its failurePolicy the JobSet.
    assert.equal(await page.locator('[data-testid="decision-job"] .action').innerText(), 'FailJob');
    assert.match(await page.locator('[data-testid="decision-job"] .detail').innerText(), /^Container node for pod training\/llm-finetune-node-0-0 failed with exit code 2/);
    assert.equal(await page.locator('[data-testid="decision-jobset"] .action').innerText(), 'FailJobSet');
    await waitFor(page, () => document.querySelector('#diag-count')?.innerText === 'No problems.', 'no diagnostics');
    // A runtime whose Pods restart OnFailure beside a podFailurePolicy: kube-apiserver refuses the
    // Jobs the trainer would create, at the runtime's restartPolicy line.
    const text = (await editorText(page)).replace('restartPolicy: Never', 'restartPolicy: OnFailure');
    await setText(page, text);
    const line = text.split('\n').findIndex((l) => l.includes('restartPolicy: OnFailure')) + 1;
    await waitFor(page, () => /1 diagnostic/.test(document.querySelector('#diag-count')?.innerText ?? ''), 'the diagnostic');
    assert.match(await diagnosticsText(page), new RegExp(`${line}:\\d+`));
    await page.locator('#simulation > summary').click();
    await page.getByTestId('scenario-select').selectOption('trainjob-torch');
    await waitFor(page, () => /TrainJob llm-finetune: Failed \(DeadlineExceeded\)/.test(document.querySelector('[data-testid="sim-summary"]')?.innerText ?? ''), 'the TrainJob to fail at its deadline');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('what-if: an exit code no rule names exhausts backoffLimit 0 and restarts the JobSet', async () => {
    const { page } = await open('#ex=training-jobset&g=ContainerRestartRules:1&c=trainer&x=137');
    await waitFor(page, () => document.querySelector('[data-testid="decision-jobset"]'), 'the JobSet row');
    assert.equal(await page.locator('[data-testid="decision-kubelet"] .action').innerText(), 'DoNotRestart');
    assert.equal(await page.locator('[data-testid="decision-job"] .action').innerText(), 'Count');
    assert.equal(await page.locator('[data-testid="decision-job"] .detail').innerText(), 'Job has reached the specified backoff limit');
    assert.match(await page.locator('[data-testid="decision-job"] .note').innerText(), /no podFailurePolicy rule matched; reason BackoffLimitExceeded/);
    assert.equal(await page.locator('[data-testid="decision-jobset"] .action').innerText(), 'RestartJobSet');
    assert.match(await page.locator('[data-testid="decision-jobset"]').innerText(), /restartOnAnythingElse/);
    await page.close();
  });

  test('what-if on a Job the API server would refuse: upstream\'s answer, with the validation errors beside it', async () => {
    const { page, errors } = await open('#ex=restart-on-exit-42');
    const jobYaml = (action) => [
      'apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: j', 'spec:', '  podFailurePolicy:', '    rules:',
      `    - action: ${action}`, '      onExitCodes:', '        containerName: m', '        operator: In', '        values: [3]',
      '  template:', '    spec:', '      restartPolicy: Never', '      containers:', '      - name: m', '        image: busybox', '',
    ].join('\n');
    await page.getByTestId('manifest-input').focus();
    await setText(page, jobYaml('Bogus'));
    await page.getByLabel('exits with code').fill('3');
    await waitFor(page, () => document.querySelector('[data-testid="whatif-warnings"]'), 'the what-if warnings')
      .catch(async (e) => { await page.screenshot({ path: join(artifacts, 'whatif-warnings-failed.png'), fullPage: true }); throw e; });
    // The matcher skips the unknown action: the failure counts, as upstream's code decides.
    assert.equal(await page.locator('[data-testid="decision-job"] .action').innerText(), 'Count');
    const warning = page.locator('[data-testid="whatif-warnings"]');
    assert.match(await warning.innerText(), /The API server would refuse this Job \(1 validation error\)/);
    const item = warning.locator('li[data-field="spec.podFailurePolicy.rules[0].action"]');
    assert.equal(await item.getAttribute('data-code'), 'invalid-object');
    assert.match(await item.innerText(), /Unsupported value: "Bogus"/);
    await page.screenshot({ path: join(artifacts, 'whatif-warnings.png'), fullPage: true });
    // Fixed, the Job is valid: the rule matches and the warnings are gone.
    await setText(page, jobYaml('FailJob'));
    await waitFor(page, () => document.querySelector('[data-testid="decision-job"] .action')?.textContent === 'FailJob', 'FailJob');
    assert.equal(await page.locator('[data-testid="whatif-warnings"]').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('simulation: the crash-looping sidecar restarts on KEP-4603\'s reduced curve', async () => {
    const { page, errors } = await open('#ex=sidecar&s=crashlooping-sidecar');
    const sim = page.getByTestId('simulation');
    await waitFor(page, () => document.querySelector('[data-testid="sim-timeline"] tbody tr'), 'the timeline')
      .catch(async (e) => { await page.screenshot({ path: join(artifacts, 'simulation-failed.png'), fullPage: true }); throw e; });
    // Starts of the sidecar: it crashes 5 s after each start; the reduced curve waits 0, 1, 2, 4,
    // 8, 16 s before the next (1 s doubling), so it starts at 0, 5, 11, 18, 27, 40, 61 s.
    const starts = await page.locator('[data-testid="sim-timeline"] tr[data-event="Started"][data-container="log-shipper"]')
      .evaluateAll((rows) => rows.map((r) => Number(r.dataset.t)));
    assert.deepEqual(starts.slice(0, 7), [0, 5, 11, 18, 27, 40, 61]);
    const cell = (key) => page.locator(`[data-testid="sim-summary"] tr[data-key="${key}"] td`).first().innerText();
    assert.equal(await cell('inPlaceRestarts'), String(starts.length - 1));
    assert.equal(await cell('podsCreated'), '1');
    assert.match(await cell('final'), /Pod web: Running/);
    assert.match(await page.locator('[data-testid="sim-timeline"] tr[data-event="BackOff"]').first().innerText(), /back-off 1s restarting failed container=log-shipper/);
    assert.match(decodeURIComponent(page.url()), /s=crashlooping-sidecar/);
    // Side by side with a compare scenario; the choice goes into the fragment.
    await page.getByTestId('compare-select').selectOption('job-backoff-per-index');
    await waitFor(page, () => document.querySelector('[data-testid="sim-timeline-compare"] tbody tr'), 'the compare timeline');
    assert.equal(await page.locator('[data-testid="sim-summary"] thead th').count(), 3);
    assert.match(decodeURIComponent(page.url()), /sc=job-backoff-per-index/);
    // Editing the scenario (the sidecar now crashes after 60 s) re-runs it and keeps the text in the link.
    await page.getByTestId('compare-select').selectOption('');
    const text = (await editorText(page, 'scenario-editor')).replace('afterSeconds: 5', 'afterSeconds: 60');
    await setText(page, text, 'scenario-input');
    await waitFor(page, () => document.querySelector('[data-testid="sim-timeline"] tr[data-event="Terminated"]')?.dataset.t === '60', 'the edited run');
    await waitFor(page, () => /[#&]sm=/.test(location.hash), 'the scenario text in the fragment');
    await page.screenshot({ path: join(artifacts, 'simulation.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await sim.isVisible();
    await page.close();
  });

  test('simulation: training in place against rescheduling, side by side (workloadFile resolved)', async () => {
    const { page, errors } = await open('#s=training-in-place&sc=training-reschedule');
    await waitFor(page, () => document.querySelector('[data-testid="sim-timeline-compare"] tbody tr'), 'both timelines')
      .catch(async (e) => { await page.screenshot({ path: join(artifacts, 'simulation-compare-failed.png'), fullPage: true }); throw e; });
    const cells = (key) => page.locator(`[data-testid="sim-summary"] tr[data-key="${key}"] td`).allInnerTexts();
    // In place: every exit 42 is a restartPolicyRules restart, no JobSet restart; rescheduling:
    // no in-place restart, the JobSet restarts (examples/scenarios/README.md's question).
    const [inPlace, resched] = (await cells('inPlaceRestarts')).map(Number);
    const [jsIn, jsRe] = (await cells('jobsetRestarts')).map(Number);
    assert.ok(inPlace > 0 && resched === 0, `in-place restarts ${inPlace} vs ${resched}`);
    assert.ok(jsIn === 0 && jsRe > 0, `JobSet restarts ${jsIn} vs ${jsRe}`);
    assert.equal(await page.locator('[data-testid="sim-summary"] thead th').count(), 3);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('explain: a kubectl snapshot pasted in reads as `restartkit explain` prints it', async () => {
    const { page, errors } = await open('#v=1.31');
    await page.locator('#explain summary').click();
    await page.getByTestId('explain-now').fill('2026-03-02T10:01:00Z');
    const shows = (re, what) => waitFor(page, ([src, flags]) => new RegExp(src, flags)
      .test(document.querySelector('[data-testid="explain-output"]')?.textContent ?? ''), what, [re.source, re.flags]);
    await shows(/\(given\)/, 'the explanation at the given instant');
    // The same text as the CLI's, as docs/explain.md shows it printed.
    const doc = readFileSync(join(repo, 'docs', 'explain.md'), 'utf8');
    const printed = /\$ restartkit explain examples\/explain\/crashloop-pod\.yaml -k 1\.31 --now 2026-03-02T10:01:00Z\n([\s\S]*?)\n```/.exec(doc)?.[1];
    assert.ok(printed, 'the worked case in docs/explain.md');
    assert.equal((await page.getByTestId('explain-output').textContent()).trim(), printed.trim());
    // Another example, and a bad instant named by its field.
    await page.getByTestId('explain-example').selectOption('jobset-restarted.yaml');
    await shows(/^JobSet /m, 'the JobSet explained');
    await page.getByTestId('explain-now').fill('yesterday');
    await shows(/^input\.now: /, 'the error naming input.now');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('switching a gate or the version changes the backoff curve and its table', async () => {
    const { page } = await open('#ex=restart-on-exit-42&v=1.35&g=ReduceDefaultCrashLoopBackOffDecay:0,KubeletCrashLoopBackOffMax:0&r=600');
    const curve = () => page.locator('[data-testid="backoff-chart"] [data-series="selected"] path').getAttribute('d');
    const row = () => page.locator('#backoff-table tr[data-series="selected"]').innerText();
    await page.waitForSelector('[data-testid="backoff-chart"] [data-series="selected"] path', { timeout: 10000 })
      .catch(async (e) => { await page.screenshot({ path: join(artifacts, 'backoff-failed.png'), fullPage: true }); throw e; });
    const legacy = await curve();
    // Legacy curve: restarts at 0, 10, 30, 70, 150, 310, 610, 910, 1210, 1510 s -> within 10 s: 2,
    // 30 s: 3, 70 s: 4, 5 min: 5, 30 min: 10 (specs/backoff-and-crr.md A.9).
    assert.match(await row(), /\t2\t3\t4\t5\t10$/);
    await page.locator('[data-gate="ReduceDefaultCrashLoopBackOffDecay"]').check();
    await waitFor(page, (d) => document.querySelector('[data-testid="backoff-chart"] [data-series="selected"] path')?.getAttribute('d') !== d, 'the curve to change', legacy);
    assert.notEqual(await curve(), legacy);
    assert.match(decodeURIComponent(page.url()), /ReduceDefaultCrashLoopBackOffDecay:1/);
    const reduced = await curve();
    await page.getByTestId('version').selectOption({ index: 0 });
    await page.getByRole('button', { name: /Reset gates/ }).click();
    await waitFor(page, (d) => document.querySelector('[data-testid="backoff-chart"] [data-series="selected"] path')?.getAttribute('d') !== d, 'the curve to change back', reduced);
    await page.close();
  });

  test('the URL fragment reproduces the view', async () => {
    const { page } = await open('#ex=keystone');
    const text = (await editorText(page)).replace('values: [42]', 'values: [42, 43]');
    await setText(page, text);
    await page.getByTestId('version').selectOption({ index: 0 });
    await page.locator('#whatif-container').selectOption('main');
    await page.getByLabel('exits with code').fill('43');
    await waitFor(page, () => /x=43/.test(location.hash), 'the fragment to follow');
    const url = page.url();
    assert.match(url, /[#&]m=/);
    const version = await page.getByTestId('version').inputValue();
    const decision = await page.getByTestId('decision').innerText();
    await page.close();

    const again = await open(url.slice(site.base.length));
    assert.equal(await editorText(again.page), text);
    assert.equal(await again.page.getByTestId('version').inputValue(), version);
    assert.equal(await again.page.locator('#whatif-container').inputValue(), 'main');
    assert.equal(await again.page.getByLabel('exits with code').inputValue(), '43');
    assert.equal(await again.page.getByTestId('decision').innerText(), decision);
    await again.page.close();
  });

  test('proposals: one labelled toggle per proposal the core lists (from its JSON Schema)', async () => {
    const { page, errors } = await open('#ex=restart-on-exit-42');
    const listed = await page.evaluate(async () => {
      const build = await (await fetch('./build.json')).json();
      const rk = await import(`./${build.pkgDir}/core.browser.js`);
      return rk.schemas().ValidateInput.$defs.Proposal.oneOf.map((x) => x.const);
    });
    assert.ok(listed.includes('RestartRulesFuture') && listed.includes('Rapid'), listed.join(','));
    const toggles = await page.locator('[data-proposal]').evaluateAll((els) => els.map((e) => e.dataset.proposal));
    assert.deepEqual(toggles, listed);
    for (const name of listed) assert.equal(await page.getByLabel(name, { exact: true }).count(), 1, `a label for ${name}`);
    // Keyboard: focus the toggle and press Space.
    await page.locator('#proposals-box > summary').click();
    await page.getByLabel('Rapid', { exact: true }).focus();
    await page.keyboard.press('Space');
    await waitFor(page, () => /[#&]p=Rapid(&|$)/.test(location.hash), 'the fragment to name the proposal');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('proposals: the KEP-5307 four-container example is rejected upstream, valid and marked under RestartRulesFuture', async () => {
    const { page, errors } = await open('#ex=kep-5307-four-containers');
    await waitFor(page, () => document.querySelectorAll('[data-testid="diagnostics"] li.diag-error').length > 0, 'upstream errors');
    const upstream = await diagnosticsText(page);
    assert.match(upstream, /action|when|restartPolicy/, upstream);
    assert.equal(await page.getByTestId('validate-marker').count(), 0, 'no marker without a proposal');
    assert.equal(await page.getByTestId('whatif-marker').count(), 0);
    await page.locator('#proposals-box > summary').click();
    await page.getByLabel('RestartRulesFuture', { exact: true }).check();
    await waitFor(page, () => document.querySelector('#diag-count')?.innerText === 'No problems.', 'the errors to clear')
      .catch(async (e) => { await page.screenshot({ path: join(artifacts, 'proposal-failed.png'), fullPage: true }); throw e; });
    const marker = page.getByTestId('validate-marker');
    assert.equal(await marker.getAttribute('data-proposals'), 'RestartRulesFuture');
    assert.ok(await marker.isVisible());
    assert.match(await marker.innerText(), /RestartRulesFuture/);
    await waitFor(page, () => document.querySelector('[data-testid="whatif-marker"]'), 'the what-if marker');
    assert.equal(await page.getByTestId('whatif-marker').getAttribute('data-proposals'), 'RestartRulesFuture');
    await waitFor(page, () => /[#&]p=RestartRulesFuture(&|$)/.test(location.hash), 'the fragment');
    await page.screenshot({ path: join(artifacts, 'proposal-kep-5307.png'), fullPage: true });
    // Off again: upstream's errors come back, the marker goes.
    await page.getByLabel('RestartRulesFuture', { exact: true }).uncheck();
    await waitFor(page, () => document.querySelectorAll('[data-testid="diagnostics"] li.diag-error').length > 0, 'upstream errors again');
    assert.equal(await page.getByTestId('validate-marker').count(), 0);
    assert.equal(await diagnosticsText(page), upstream);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('proposals: the chart gains the proposal curves beside upstream\'s, marked', async () => {
    const { page, errors } = await open('#ex=kubelet-crashloopbackoff&r=120');
    await page.waitForSelector('[data-testid="backoff-chart"] [data-series="legacy"] path');
    assert.equal(await page.locator('[data-testid="backoff-chart"] [data-series^="proposal-"]').count(), 0);
    // The proposals' code is in the module's on-demand part: the page's first backoffCompare call
    // fails with module-loading, the page fetches the part and draws again.
    const lazyFetched = () => page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('restartkit_wasm_lazy')).length);
    assert.equal(await lazyFetched(), 0);
    await page.locator('#proposals-box > summary').click();
    await page.getByLabel('Rapid', { exact: true }).check();
    await waitFor(page, () => document.querySelector('[data-testid="backoff-chart"] [data-series^="proposal-"] path'), 'a proposal curve');
    assert.equal(await lazyFetched(), 1);
    assert.equal(await page.getByTestId('proposal-error').count(), 0);
    assert.deepEqual(errors, []);
    const legend = page.locator('#legend li[data-proposal="Rapid"]');
    assert.equal(await legend.count(), 1);
    assert.match(await legend.innerText(), /experimental/i);
    // Rapid (250 ms doubling to 60 s) restarts more often in 2 minutes than legacy 10 s / 300 s.
    const restarts = (sel) => page.locator(`[data-testid="backoff-chart"] ${sel}`).getAttribute('data-restarts').then(Number);
    const rapid = await restarts('[data-series^="proposal-"]');
    const legacy = await restarts('[data-series="legacy"]');
    assert.ok(rapid > legacy, `Rapid ${rapid} > legacy ${legacy}`);
    // Upstream's curves are unchanged by the proposal.
    assert.equal(await page.locator('[data-testid="backoff-chart"] [data-series="legacy"]').count(), 1);
    await page.getByLabel('FrontLoadedCatchUp', { exact: true }).check();
    await waitFor(page, () => document.querySelectorAll('[data-testid="backoff-chart"] [data-series^="proposal-"]').length >= 2, 'two proposal curves');
    await page.close();
  });

  test('proposals: the fragment round-trips, and a scenario runs under the proposal, marked', async () => {
    const { page } = await open('#ex=kep-5307-four-containers&p=RestartRulesFuture,Rapid');
    await waitFor(page, () => document.querySelector('#diag-count')?.innerText === 'No problems.', 'valid under the proposal');
    assert.equal(await page.getByLabel('RestartRulesFuture', { exact: true }).isChecked(), true);
    assert.equal(await page.getByLabel('Rapid', { exact: true }).isChecked(), true);
    assert.equal(await page.getByLabel('AlwaysPod', { exact: true }).isChecked(), false);
    // The simulation panel (closed: the link names no scenario) loads the simulator when opened.
    await page.locator('#simulation > summary').click();
    await waitFor(page, () => document.querySelector('[data-testid="simulation"]')?.dataset.ready === 'true', 'the simulation');
    const simMarker = page.getByTestId('sim-marker-run');
    assert.equal(await simMarker.count(), 1);
    assert.match(await simMarker.getAttribute('data-proposals'), /Rapid/);
    const url = page.url();
    assert.match(url, /[#&]p=RestartRulesFuture%2CRapid(&|$)/);
    await page.close();
    const again = await open(url.slice(site.base.length));
    assert.equal(await again.page.getByLabel('RestartRulesFuture', { exact: true }).isChecked(), true);
    assert.equal(await again.page.getByLabel('Rapid', { exact: true }).isChecked(), true);
    assert.equal(again.page.url(), url);
    await again.page.close();
    // An unknown name in a link is dropped, not sent to the core.
    const bad = await open('#ex=restart-on-exit-42&p=Turbo');
    assert.doesNotMatch(bad.page.url(), /[#&]p=/);
    assert.deepEqual(bad.errors, []);
    await bad.page.close();
  });

  test('screenshot with a diagnostic and the chart', async () => {
    const { page } = await open('#ex=restart-on-exit-42&g=ContainerRestartRules:1&x=42');
    // A rule whose exit code is not a number: rejected by the API server's decoder.
    const text = (await editorText(page)).replace('values: [42]', 'values: [forty-two]');
    await setText(page, text);
    await waitFor(page, () => document.querySelector('[data-testid="diagnostics"]')?.innerText.includes('exitCodes.values[0]'), 'the diagnostic');
    const shot = join(artifacts, 'playground.png');
    await page.screenshot({ path: shot, fullPage: true });
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') {
      mkdirSync(join(repo, 'docs'), { recursive: true });
      copyFileSync(shot, join(repo, 'docs', 'playground.png'));
    }
    await page.close();
  });

  test('no request left the page', () => {
    assert.deepEqual(foreign, []);
  });
});

/** The labels of the completion popup, after Ctrl-Space at the cursor. */
async function completions(page) {
  await page.keyboard.press('Control+Space');
  await page.waitForSelector('.cm-tooltip-autocomplete li', { timeout: 5000 });
  return page.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allInnerTexts();
}

describe('editor (CodeMirror, completion and hover from the JSON Schemas)', () => {
  test('completion offers restartPolicyRules under a container and In/NotIn for operator', async () => {
    const { page, errors } = await open('#ex=restart-on-exit-42');
    const pod = ['apiVersion: v1', 'kind: Pod', 'metadata:', '  name: p', 'spec:', '  restartPolicy: Never', '  containers:',
      '  - name: main', '    image: busybox'].join('\n');
    await setText(page, pod);
    // A new key in the container's mapping, typed after `image: busybox`.
    await setCursor(page, pod.length);
    await page.keyboard.press('Enter');
    await page.keyboard.type('restartP');
    const keys = await completions(page);
    assert.ok(keys.includes('restartPolicyRules'), keys.join(','));
    assert.ok(keys.includes('restartPolicy'), keys.join(','));
    await page.keyboard.press('Escape');
    // A value for a rule's operator: the accepted values (the schema's examples), by prefix.
    const rule = `${pod}\n    restartPolicy: Never\n    restartPolicyRules:\n    - action: Restart\n      exitCodes:\n        values: [42]\n        operator: `;
    const offered = [];
    for (const prefix of ['I', 'N']) {
      await setText(page, rule);
      await setCursor(page, rule.length);
      await page.keyboard.type(prefix);
      offered.push(...await completions(page));
      await page.keyboard.press('Escape');
    }
    assert.ok(offered.includes('In') && offered.includes('NotIn'), offered.join(','));
    // At an empty value, before any letter: Ctrl-Space lists the values (the core's `complete`,
    // as the language server answers).
    await setText(page, rule);
    await setCursor(page, rule.length);
    assert.deepEqual(await completions(page), ['In', 'NotIn']);
    await page.keyboard.press('Escape');
    // Accepting a completion writes it.
    await setText(page, rule);
    await setCursor(page, rule.length);
    await page.keyboard.type('No');
    await completions(page);
    // CodeMirror ignores Enter for 75 ms after the list opens (its interactionDelay, so a fast
    // typist's Enter is not taken as a choice).
    await page.waitForTimeout(200);
    await page.keyboard.press('Enter');
    assert.match(await editorText(page), /operator: NotIn$/);
    await page.screenshot({ path: join(artifacts, 'completion.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('hover on backoffLimitPerIndex shows its description from the Job schema', async () => {
    const { page, errors } = await open('#ex=restart-on-exit-42');
    await setText(page, ['apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: j', 'spec:', '  completionMode: Indexed',
      '  completions: 2', '  backoffLimitPerIndex: 1', '  template:', '    spec:', '      restartPolicy: Never',
      '      containers:', '      - name: m', '        image: busybox', ''].join('\n'));
    await waitFor(page, () => document.querySelector('#diag-count')?.innerText === 'No problems.', 'the Job to validate');
    const word = page.locator('#editor .cm-line', { hasText: 'backoffLimitPerIndex' }).first();
    const box = await word.boundingBox();
    await page.mouse.move(box.x + 40, box.y + box.height / 2);
    await page.waitForSelector('.cm-tooltip-hover', { timeout: 5000 });
    const tip = await page.locator('.cm-tooltip-hover').innerText();
    assert.match(tip, /retried before that index is marked failed/);
    await page.screenshot({ path: join(artifacts, 'hover.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('quick fixes from the core edit the text and clear the error', async () => {
    const { page, errors } = await open('#ex=restart-on-exit-42');
    const job = (policy, values, action = 'FailJob') => ['apiVersion: batch/v1', 'kind: Job', 'metadata:', '  name: j', 'spec:',
      '  completionMode: Indexed', '  completions: 2', '  podFailurePolicy:', '    rules:', `    - action: ${action}`, '      onExitCodes:',
      '        operator: In', `        values: ${values}`, '  template:', '    spec:', `      restartPolicy: ${policy}`, '      containers:',
      '      - name: m', '        image: busybox', ''].join('\n');
    // 1. restartPolicy OnFailure beside a podFailurePolicy: the lint tooltip's action sets Never.
    await setText(page, job('OnFailure', '[3]'));
    await waitFor(page, () => /1 diagnostic/.test(document.querySelector('#diag-count')?.innerText ?? ''), 'the OnFailure error');
    const mark = page.locator('#editor .cm-lintRange-error').first();
    await mark.hover();
    await page.waitForSelector('.cm-tooltip-lint .cm-diagnosticAction', { timeout: 5000 });
    assert.match(await page.locator('.cm-tooltip-lint .cm-diagnosticAction').first().innerText(), /Fix: set restartPolicy to "Never"/);
    await page.screenshot({ path: join(artifacts, 'quick-fix.png') });
    await page.locator('.cm-tooltip-lint .cm-diagnosticAction').first().click();
    assert.equal(await editorText(page), job('Never', '[3]'));
    await waitFor(page, () => document.querySelector('#diag-count')?.innerText === 'No problems.', 'the error to clear');
    // 2. Exit code 0 in an In list: the list's button removes it.
    await setText(page, job('Never', '[0, 3]'));
    await waitFor(page, () => document.querySelector('[data-testid="quick-fix"]'), 'the fix button');
    assert.match(await page.getByTestId('quick-fix').innerText(), /remove 0 from the In values/);
    await page.getByTestId('quick-fix').click();
    assert.equal(await editorText(page), job('Never', '[3]'));
    await waitFor(page, () => document.querySelector('#diag-count')?.innerText === 'No problems.', 'the 0 error to clear');
    // 3. FailIndex without backoffLimitPerIndex: the fix adds it.
    await setText(page, job('Never', '[3]', 'FailIndex'));
    await waitFor(page, () => document.querySelector('[data-testid="quick-fix"]'), 'the FailIndex fix');
    await page.getByTestId('quick-fix').click();
    assert.match(await editorText(page), /\n  backoffLimitPerIndex: 1\n  completionMode: Indexed\n/);
    await waitFor(page, () => document.querySelector('#diag-count')?.innerText === 'No problems.', 'the FailIndex error to clear');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('diagnostics reach screen readers through a live region', async () => {
    const { page } = await open('#ex=restart-on-exit-42');
    const text = (await editorText(page)).replace('operator: In', 'operator: Sometimes');
    await setText(page, text);
    await waitFor(page, () => /1 diagnostic/.test(document.querySelector('[data-testid="diag-announce"]')?.textContent ?? ''), 'the announcement');
    const region = page.getByTestId('diag-announce');
    assert.equal(await region.getAttribute('aria-live'), 'polite');
    assert.match(await region.textContent(), /line \d+: .*operator/);
    assert.equal(await page.getByTestId('manifest-input').getAttribute('aria-describedby'), 'diag-count');
    await page.close();
  });
});

describe('first load and bad input', () => {
  test('the on-demand part of the module (the simulator) is fetched only when the simulation panel opens; sizes and time to interactive', async () => {
    const page = await site.context.newPage();
    const fetched = [];
    const sized = [];
    page.on('request', (r) => fetched.push({ url: r.url(), bytes: 0 }));
    page.on('requestfinished', (r) => sized.push(r.sizes().then((z) => {
      const entry = fetched.find((f) => f.url === r.url() && f.bytes === 0);
      if (entry) entry.bytes = z.responseBodySize + z.responseHeadersSize;
    }).catch(() => {})));
    const settled = async () => { await page.waitForLoadState('networkidle'); await Promise.all(sized); };
    // A first visit: nothing in the HTTP cache (earlier tests in this profile filled it).
    await (await site.context.newCDPSession(page)).send('Network.clearBrowserCache');
    const t0 = Date.now();
    await page.goto(`${site.base}#ex=restart-on-exit-42`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
    const interactive = Date.now() - t0;
    const build = JSON.parse(readFileSync(join(dist, 'build.json'), 'utf8'));
    const wasmUrls = () => fetched.filter((f) => f.url.endsWith('.wasm')).map((f) => f.url.slice(site.base.length));
    const firstPart = `${build.pkgDir}/web/restartkit_wasm_bg.wasm`;
    const lazyPart = `${build.pkgDir}/web/restartkit_wasm_lazy.wasm`;
    // First load: only the module's first-load part (the main thread and the validation worker
    // share it); validating, the what-if panel and the backoff chart did not need the rest.
    assert.deepEqual([...new Set(wasmUrls())], [firstPart]);
    await settled();
    const firstLoad = fetched.reduce((a, f) => a + f.bytes, 0);
    const firstRequests = fetched.length;
    const firstGz = build.files[firstPart].gzip;
    const lazyGz = build.files[lazyPart].gzip;
    const bothRaw = build.files[firstPart].bytes + build.files[lazyPart].bytes;
    // The page's own JavaScript (CodeMirror and the rest), without the package's glue.
    const bundleGz = Object.entries(build.files).filter(([f]) => f.endsWith('.js') && !f.startsWith(`${build.pkgDir}/`))
      .reduce((a, [, v]) => a + v.gzip, 0);
    await page.locator('#simulation > summary').click();
    await waitFor(page, () => document.querySelector('[data-testid="sim-timeline"] tbody tr'), 'the timeline');
    // Opening the panel fetched the on-demand part, once.
    assert.deepEqual([...new Set(wasmUrls())], [firstPart, lazyPart]);
    assert.equal(wasmUrls().filter((u) => u === lazyPart).length, 1);
    await settled();
    const total = fetched.reduce((a, f) => a + f.bytes, 0);
    const report = `first load: ${firstRequests} requests, ${(firstLoad / 1024).toFixed(0)} KiB transferred (gzip); after opening the simulation panel: ${fetched.length} requests, ${(total / 1024).toFixed(0)} KiB; ` +
      `wasm gzip: first-load part ${(firstGz / 1024).toFixed(0)} KiB, on-demand part ${(lazyGz / 1024).toFixed(0)} KiB (both ${(bothRaw / 1024).toFixed(0)} KiB raw); JS bundle gzip ${(bundleGz / 1024).toFixed(0)} KiB; time to interactive ${interactive} ms`;
    console.log(`# ${report}`);
    mkdirSync(artifacts, { recursive: true });
    writeFileSync(join(artifacts, 'first-load.txt'), `${report}\n`);
    // Issue #21's goals: the first load's wasm at most 350 KiB gzipped (478 KiB before the issue;
    // 326 KiB measured with the split), and the split costing no more than the imports and exports
    // that link the parts (+1.6 % then): the two parts against the unsplit module of the same
    // build (wasm/pkg/SIZES.txt; 1,306,302 bytes at the split, more since the module gained the
    // Kubeflow Trainer build, all of it in the on-demand part). Issue #27 raised the first-load
    // goal to 385 KiB: the first view validates by the fields each of seven minors knows, whose
    // generated tables (core/src/generated) sit in the data section, which loads whole (382.5 KiB
    // measured, after keeping the simulator, sweeps, upgrade check, proposals and conformance ops
    // out of contract::answer: 395.2 before). Issue #30 raised it to 455 KiB: validation decodes
    // every kind each minor's API server creates (125 group/version/kinds, their fields and the
    // Go type names of the API server's messages), tables in the same data section (450.1 KiB
    // measured). The fourth session of issue #30 raised it to 475 KiB: the whole spec of six
    // workload kinds and every container's common fields (selectors, strategies, cron schedules,
    // time zones, ports) and the CRD schema walker are validation, which the first view runs
    // (469.6 KiB measured, after interning the field table's Go names: 35 KiB less raw data).
    // Issue #44 set the goal at 300 KiB (414.8 KiB then, once wasm-opt stopped inlining large
    // single-caller functions into the op table's dispatcher): met at 288.7 KiB (297.3 once the package
    // carried the bundled CRDs and CEL, both on demand) by moving the
    // constants only on-demand code reads into the on-demand part (wasm/scripts/data-split.mjs)
    // and training the split on the first view only (the default example; wasm/scripts/training.mjs).
    // 293.1 KiB once Change::since stopped reaching the version facts' texts (core/src/versions.rs).
    const unsplit = Number(/^unsplit_bytes=(\d+)$/m.exec(readFileSync(join(repo, 'wasm', 'pkg', 'SIZES.txt'), 'utf8'))?.[1]);
    assert.ok(unsplit > 0, 'wasm/pkg/SIZES.txt names the unsplit module\'s size');
    console.log(`# first-load part ${(firstGz / 1024).toFixed(1)} KiB gzipped; issue #44's goal 300 KiB`);
    assert.ok(firstGz <= 300 * 1024, `the first-load part is ${(firstGz / 1024).toFixed(1)} KiB gzipped, over issue #44's 300 KiB goal`);
    assert.ok(bothRaw <= 1.05 * unsplit, `the two parts are ${bothRaw} bytes, more than 5 % over the unsplit module (${unsplit})`);
    assert.ok(bundleGz <= 215 * 1024, `the page's JavaScript is ${(bundleGz / 1024).toFixed(1)} KiB gzipped, over its 215 KiB budget`);
    await page.close();
  });

  test('a minor switch, and the first view on a throttled connection: timings reported beside their goals', async () => {
    const renders = (page) => page.evaluate(() => Number(document.body.dataset.renders ?? 0));
    const page = await site.context.newPage();
    await page.goto(`${site.base}#ex=restart-on-exit-42`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
    /** Picks a minor; the time to the page's first answer at it (validation included) and to the
     * answer once the network is quiet (the on-demand part fetched, if that minor needed it). */
    const switchTo = async (index) => {
      const before = await renders(page);
      const t0 = Date.now();
      await page.getByTestId('version').selectOption({ index });
      await page.waitForFunction((n) => Number(document.body.dataset.renders) > n, before, { timeout: 20000 });
      const first = Date.now() - t0;
      await page.waitForLoadState('networkidle');
      await waitFor(page, () => !document.querySelector('[data-testid="decision-loading"]'), 'the what-if panel');
      return { first, settled: Date.now() - t0 };
    };
    const oldest = await switchTo(0);
    const count = await page.getByTestId('version').locator('option').count();
    const again = await switchTo(Math.max(1, count - 2));
    assert.equal(await page.getByTestId('version').inputValue(), (await page.getByTestId('version').locator('option').nth(Math.max(1, count - 2)).textContent()).trim());
    await page.close();

    // The first view on a throttled connection (Chromium's network emulation: 1.6 Mbit/s down,
    // 750 kbit/s up, 150 ms round trip), nothing cached.
    const slow = await site.context.newPage();
    const cdp = await site.context.newCDPSession(slow);
    await cdp.send('Network.enable');
    await cdp.send('Network.clearBrowserCache');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 });
    const t0 = Date.now();
    await slow.goto(`${site.base}#ex=restart-on-exit-42`);
    await slow.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
    const throttled = Date.now() - t0;
    await slow.close();

    const report = `minor switch: first answer ${oldest.first} ms (goal 300 ms), settled ${oldest.settled} ms (the on-demand part fetched); ` +
      `a second switch ${again.first} ms; time to interactive at 1.6 Mbit/s, 150 ms RTT: ${throttled} ms (goal 3000 ms)`;
    console.log(`# ${report}`);
    mkdirSync(artifacts, { recursive: true });
    writeFileSync(join(artifacts, 'timings.txt'), `${report}\n`);
  });

  test('the on-demand part cannot be fetched: the page says so where the answers go, nothing blank', async () => {
    const page = await site.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.route('**/restartkit_wasm_lazy.wasm', (route) => route.fulfill({ status: 404, body: '' }));
    // The Training JobSet's checks and what-if are outside the first view: they need the part.
    await page.goto(`${site.base}#ex=training-jobset`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
    await waitFor(page, () => /could not be loaded/.test(document.querySelector('#diagnostics')?.textContent ?? ''), 'the diagnostic naming the part');
    assert.match(await page.locator('#diagnostics').textContent(), /restartkit_wasm_lazy\.wasm/);
    await waitFor(page, () => /could not be loaded/.test(document.querySelector('[data-testid="decision-error"]')?.textContent ?? ''), 'the what-if panel naming the failure');
    assert.equal(await page.getByTestId('decision-loading').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('works from a sub-path (as on GitHub Pages)', async () => {
    const sub = await startServer(dist, 0, '127.0.0.1', { prefix: '/restartkit/playground/' });
    try {
      const page = await site.context.newPage();
      const errors = [];
      const missing = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('response', (r) => { if (r.status() >= 400 && !r.url().endsWith('favicon.ico')) missing.push(r.url()); });
      await page.goto(`${sub.url}restartkit/playground/#ex=restart-on-exit-42`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
      await setText(page, (await editorText(page)).replace('operator: In', 'operator: Sometimes'));
      await waitFor(page, () => /1 diagnostic/.test(document.querySelector('#diag-count')?.innerText ?? ''), 'the diagnostic');
      await page.locator('#simulation > summary').click();
      await waitFor(page, () => document.querySelector('[data-testid="sim-timeline"] tbody tr'), 'the timeline');
      assert.deepEqual(missing, []);
      assert.deepEqual(errors, []);
      await page.close();
    } finally {
      await new Promise((r) => sub.server.close(r));
    }
  });

  test('a 5 MB paste, a binary paste and a YAML alias bomb keep the page responsive and show the engine\'s error', async () => {
    const { page, errors } = await open('#ex=restart-on-exit-42');
    const before = await editorText(page);
    // Responsiveness: the main thread answers while the worker reads.
    const responsive = async () => {
      const t = Date.now();
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
      return Date.now() - t;
    };
    // An alias bomb: each level doubles the one before.
    const bomb = ['a: &a ["x", "x"]', ...Array.from({ length: 30 }, (_, i) => `${String.fromCharCode(98 + (i % 24))}${i}: &l${i} [*${i ? `l${i - 1}` : 'a'}, *${i ? `l${i - 1}` : 'a'}]`)].join('\n');
    await setText(page, bomb);
    assert.ok(await responsive() < 2000);
    await waitFor(page, () => /diagnostic/.test(document.querySelector('#diag-count')?.innerText ?? ''), 'the alias-bomb error');
    const bombDiag = await diagnosticsText(page);
    // The engine's own limit (kubectl's reader stops there too), not the page's timeout.
    assert.match(bombDiag, /aliases expand to more than 100000 nodes/);
    assert.equal(await editorText(page), bomb);
    // Binary: NUL and other control bytes.
    await setText(page, 'kind: Pod\n\u0000\u0001\u0002\u00ff\ufffe\n');
    await waitFor(page, () => /diagnostic/.test(document.querySelector('#diag-count')?.innerText ?? ''), 'the binary error');
    assert.doesNotMatch(await diagnosticsText(page), /did not finish/);
    // 5 MB: one Pod with a huge annotation.
    const big = `${before}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: "${'x'.repeat(5 * 1024 * 1024)}"\n`;
    await page.evaluate((t) => {
      const view = document.getElementById('editor').editorView;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t }, userEvent: 'input.paste' });
    }, big);
    assert.ok(await responsive() < 2000);
    await waitFor(page, () => document.querySelector('#diag-count')?.innerText, 'an answer for the 5 MB text');
    assert.equal((await editorText(page)).length, big.length);
    // Too long for the link: the fragment names the tab's copy, and a reload brings the text back.
    await waitFor(page, () => /[#&]mref=tab(&|$)/.test(location.hash), 'mref=tab in the fragment');
    assert.doesNotMatch(page.url(), /[#&]m=/);
    await page.waitForTimeout(1500); // the IndexedDB write of 5 MB
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    assert.equal(await editorText(page), big);
    // Typing still works and wins over the big text's validation.
    await setText(page, before.replace('operator: In', 'operator: Sometimes'));
    await waitFor(page, () => /1 diagnostic/.test(document.querySelector('#diag-count')?.innerText ?? ''), 'the latest text\'s diagnostic');
    assert.deepEqual(errors, []);
    console.log(`# alias bomb: ${bombDiag.split('\n').slice(0, 2).join(' ')}`);
    await page.close();
  });
});
