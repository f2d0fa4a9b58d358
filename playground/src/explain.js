// The explain panel: live objects (what `kubectl get pod,job,jobset -o yaml` prints) through the
// core's `explain` op, shown as the text `restartkit explain` prints (the op's `text: true`), so
// the page says what the CLI says. The op is in the module's on-demand part: the panel loads it
// when it first opens.
import { $, h } from './dom.js';

/** The examples under dist/explain/ (examples/explain/ of the repository), by file name. */
export const EXPLAIN_EXAMPLES = [
  ['crashloop-pod.yaml', "A Deployment's Pod in CrashLoopBackOff"],
  ['job-sweep-drained.yaml', 'A Job of an ML sweep failed after drains'],
  ['jobset-restarted.yaml', 'A JobSet that restarted'],
];

/** The explanation's text for `text` at `opts` (version, gates); `now` empty: the objects'. */
export function explainText(rk, text, opts, now) {
  const input = { kubernetesVersion: opts.kubernetesVersion, featureGates: opts.featureGates, text: true };
  if (now.trim()) input.now = now.trim();
  return rk.explain(text, input).text;
}

/**
 * Wires the panel: `load()` resolves to the module with its on-demand part, `opts()` gives the
 * page's version and gates. Returns `update()`, to call when they change.
 */
export function explainPanel({ load, opts }) {
  const panel = $('explain');
  const input = $('explain-input');
  const now = $('explain-now');
  const out = $('explain-output');
  const select = $('explain-example');
  for (const [file, title] of EXPLAIN_EXAMPLES) select.append(h('option', { value: file }, title));
  let seq = 0;
  const update = async () => {
    if (!panel.open) return;
    const mine = ++seq;
    delete out.dataset.ready;
    try {
      const rk = await load();
      if (mine !== seq) return;
      out.classList.remove('error-text');
      out.textContent = explainText(rk, input.value, opts(), now.value);
    } catch (e) {
      if (mine !== seq) return;
      out.classList.add('error-text');
      out.textContent = e.field ? `${e.field}: ${e.message}` : e.message;
    }
    out.dataset.ready = 'true';
  };
  const loadExample = async () => {
    const r = await fetch(`./explain/${select.value}`);
    input.value = r.ok ? await r.text() : '';
    update();
  };
  select.addEventListener('change', loadExample);
  input.addEventListener('input', update);
  now.addEventListener('input', update);
  panel.addEventListener('toggle', () => {
    if (!panel.open) return;
    if (!input.value) loadExample();
    else update();
  });
  return update;
}
