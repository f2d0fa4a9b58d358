// A textarea with a line-number gutter and diagnostics drawn inline at their lines: a backdrop
// behind the (transparent) textarea repeats the text invisibly and shows each line's messages
// after its end; the gutter marks the lines that have diagnostics.
export function createEditor(root, { onInput }) {
  const gutter = root.querySelector('.gutter');
  const backdrop = root.querySelector('.backdrop');
  const textarea = root.querySelector('textarea');
  let marks = new Map();

  const render = () => {
    const lines = textarea.value.split('\n');
    const g = document.createDocumentFragment();
    const b = document.createDocumentFragment();
    lines.forEach((line, i) => {
      const n = i + 1;
      const ds = marks.get(n) ?? [];
      const worst = ds.some((d) => d.severity === 'error') ? 'error' : ds.length ? 'warning' : null;
      const num = document.createElement('div');
      num.textContent = String(n);
      if (worst) {
        num.className = `mark-${worst}`;
        num.title = ds.map((d) => d.message).join('\n');
      }
      g.append(num);
      const row = document.createElement('div');
      row.className = worst ? `line line-${worst}` : 'line';
      const text = document.createElement('span');
      text.className = 'ghost';
      text.textContent = line || ' ';
      row.append(text);
      if (worst) {
        const msg = document.createElement('span');
        msg.className = `inline-diag inline-${worst}`;
        msg.dataset.line = String(n);
        msg.textContent = `  ${ds.map((d) => (d.field ? `${d.field}: ` : '') + stripField(d)).join(' · ')}`;
        row.append(msg);
      }
      b.append(row);
    });
    gutter.replaceChildren(g);
    backdrop.replaceChildren(b);
    sync();
  };
  const sync = () => {
    gutter.scrollTop = textarea.scrollTop;
    backdrop.scrollTop = textarea.scrollTop;
    backdrop.scrollLeft = textarea.scrollLeft;
  };
  textarea.addEventListener('input', () => { render(); onInput(textarea.value); });
  textarea.addEventListener('scroll', sync);
  // Tab inserts two spaces (Escape then Tab leaves the editor, for keyboard users).
  let escaped = false;
  textarea.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { escaped = true; return; }
    if (e.key === 'Tab' && !e.shiftKey && !escaped) {
      e.preventDefault();
      textarea.setRangeText('  ', textarea.selectionStart, textarea.selectionEnd, 'end');
      textarea.dispatchEvent(new Event('input'));
    }
    escaped = false;
  });

  return {
    get value() { return textarea.value; },
    set value(v) { textarea.value = v; render(); },
    setDiagnostics(diags) {
      marks = new Map();
      for (const d of diags) {
        if (!d.line) continue;
        if (!marks.has(d.line)) marks.set(d.line, []);
        marks.get(d.line).push(d);
      }
      render();
    },
    focusLine(line) {
      const lines = textarea.value.split('\n');
      const start = lines.slice(0, line - 1).reduce((a, l) => a + l.length + 1, 0);
      textarea.focus();
      textarea.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
      const lh = parseFloat(getComputedStyle(textarea).lineHeight) || 18;
      textarea.scrollTop = Math.max(0, (line - 3) * lh);
      sync();
    },
  };
}

// The message without the leading "field: " apimachinery puts there (the field is shown already).
function stripField(d) {
  return d.field && d.message.startsWith(`${d.field}: `) ? d.message.slice(d.field.length + 2) : d.message;
}
