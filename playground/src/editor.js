// The manifest and scenario editors: CodeMirror 6 with the YAML language. Diagnostics come from
// restartkit's own validation (each with the range the core gives it, pushed in with
// setDiagnostics); the manifest editor's completion is the core's `complete` op (the one the
// language server answers with, also at an empty value: `operator: ` offers In and NotIn), the
// scenario editor's and hover come from restartkit's JSON Schemas (codemirror-json-schema, YAML
// mode), the schema picked by the `kind` of the document under the cursor.
import { EditorState } from '@codemirror/state';
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
  hoverTooltip, highlightSpecialChars,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentLess, indentMore } from '@codemirror/commands';
import { indentUnit, syntaxHighlighting, defaultHighlightStyle, bracketMatching, indentOnInput } from '@codemirror/language';
import { autocompletion, completionKeymap, closeBrackets } from '@codemirror/autocomplete';
import { lintGutter, setDiagnostics, lintKeymap, forEachDiagnostic } from '@codemirror/lint';
import { yaml, yamlLanguage } from '@codemirror/lang-yaml';
import { yamlCompletion, yamlSchemaHover } from 'codemirror-json-schema/yaml';
import { stateExtensions, updateSchema } from 'codemirror-json-schema';

/** Tab as before the editor was CodeMirror: two spaces at the cursor, a selection indented.
 * CodeMirror's own tab-focus mode makes Escape then Tab leave the editor. */
const tabKeys = [
  {
    key: 'Tab',
    run: (view) => {
      if (view.state.selection.ranges.some((r) => !r.empty)) return indentMore(view);
      view.dispatch(view.state.replaceSelection('  '), { scrollIntoView: true, userEvent: 'input' });
      return true;
    },
    shift: indentLess,
  },
];

/** The text of the `---`-separated document that holds `pos`. */
function documentAt(text, pos) {
  const seps = [...text.matchAll(/^---.*$/gm)];
  let start = 0;
  let end = text.length;
  for (const m of seps) {
    if (m.index + m[0].length < pos) start = m.index + m[0].length;
    else { end = m.index; break; }
  }
  return text.slice(start, end);
}

/** `kind` of the document under the cursor (YAML `kind: X` at the top level or JSON "kind": "X"). */
export function kindAt(text, pos) {
  const doc = documentAt(text, pos);
  return /^kind:\s*["']?([A-Za-z]+)/m.exec(doc)?.[1] ?? /"kind"\s*:\s*"([A-Za-z]+)"/.exec(doc)?.[1] ?? null;
}

/**
 * @param root element the editor goes in
 * @param opts.onInput called with the text after every edit by the user
 * @param opts.schemaFor (kind|null) => JSON Schema or undefined, for completion and hover
 * @param opts.label accessible name; opts.describedBy id of the live diagnostics summary
 * @param opts.testid data-testid of the editable element
 */
/**
 * A CodeMirror completion source on the core's `complete` op: `complete(text, line, column)`
 * returns its output ({items, range}), 1-based lines and character columns. Explicit requests
 * (Ctrl-Space) are answered anywhere, an empty value included; while typing, after a word, a colon
 * or a dash.
 */
export function coreCompletion(complete) {
  return (context) => {
    const { state, pos } = context;
    const line = state.doc.lineAt(pos);
    const before = line.text.slice(0, pos - line.from);
    if (!context.explicit && !/[\w:-]\s?$/.test(before)) return null;
    let out;
    try {
      out = complete(state.doc.toString(), line.number, [...before].length + 1);
    } catch {
      return null;
    }
    if (!out?.items?.length || !out.range) return null;
    const from = line.from + [...line.text].slice(0, out.range.column - 1).join('').length;
    return {
      from,
      to: pos,
      validFor: /^[\w./-]*$/,
      options: out.items.map((i) => ({
        label: i.label,
        apply: i.insertText,
        type: i.kind === 'field' ? 'property' : 'enum',
        detail: i.detail,
        info: i.documentation,
      })),
    };
  };
}

export function createEditor(root, { onInput, schemaFor, complete, label, describedBy, testid, id }) {
  let fromOutside = false;
  let schemaKind;
  const syncSchema = (view) => {
    const kind = kindAt(view.state.doc.toString(), view.state.selection.main.head);
    if (kind === schemaKind && schemaKind !== undefined) return;
    schemaKind = kind;
    updateSchema(view, schemaFor(kind));
  };
  const view = new EditorView({
    parent: root,
    state: EditorState.create({
      doc: '',
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        highlightActiveLine(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        indentUnit.of('  '),
        EditorState.tabSize.of(2),
        yaml(),
        yamlLanguage.data.of({ autocomplete: complete ? coreCompletion(complete) : yamlCompletion() }),
        autocompletion({ activateOnTyping: true }),
        hoverTooltip(yamlSchemaHover()),
        stateExtensions(schemaFor(null)),
        lintGutter(),
        keymap.of([...tabKeys, ...completionKeymap, ...lintKeymap, ...historyKeymap, ...defaultKeymap]),
        EditorView.contentAttributes.of({
          'aria-label': label, ...(describedBy ? { 'aria-describedby': describedBy } : {}),
          ...(testid ? { 'data-testid': testid } : {}), ...(id ? { id } : {}),
          autocapitalize: 'off', autocorrect: 'off', spellcheck: 'false',
        }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged || u.selectionSet) queueMicrotask(() => syncSchema(view));
          if (u.docChanged && !fromOutside) onInput(u.state.doc.toString());
        }),
      ],
    }),
  });

  // Scripts that drive the page (the Playwright tests) read the text and place the cursor here.
  root.editorView = view;
  return {
    view,
    get value() { return view.state.doc.toString(); },
    set value(v) {
      if (v === view.state.doc.toString()) return;
      fromOutside = true;
      try {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: v } });
      } finally {
        fromOutside = false;
      }
      syncSchema(view);
    },
    /** restartkit's diagnostics ({line, column, range?, severity, field, message, fixes?}) as lint
     * marks: the core's `range` (the refused value of a value error, the key of a required,
     * forbidden or unknown field), else the token at line:column, else the whole line.
     * `actionsFor(d)` gives CodeMirror lint actions. */
    setDiagnostics(diags, actionsFor = () => []) {
      const doc = view.state.doc;
      const at = (lineNo, column) => {
        const line = doc.line(lineNo);
        return Math.min(line.from + [...line.text].slice(0, column - 1).join('').length, line.to);
      };
      const marks = [];
      for (const d of diags) {
        if (!d.line || d.line > doc.lines) continue;
        const line = doc.line(d.line);
        let from = line.from;
        let to = line.to;
        if (d.range && d.range.endLine <= doc.lines) {
          from = at(d.range.line, d.range.column);
          to = Math.max(at(d.range.endLine, d.range.endColumn), from);
          if (to === from) to = Math.min(from + 1, doc.line(d.range.line).to);
        } else if (d.column) {
          from = Math.min(line.from + d.column - 1, line.to);
          const rest = line.text.slice(from - line.from);
          // A quoted scalar, or a plain one up to `: ` (a key's colon), a comma, a bracket or a comment.
          const token = /^(?:"[^"]*"|'[^']*'|(?:[^\s,\]}#:]|:(?=[^\s,\]}]))+)/.exec(rest)?.[0] ?? '';
          to = from + Math.max(token.length, 0);
          if (to === from) to = Math.min(from + 1, line.to);
          if (to === from) { from = line.from; to = line.to; }
        }
        marks.push({
          from, to,
          severity: d.severity === 'error' ? 'error' : d.severity === 'warning' ? 'warning' : 'info',
          source: d.field || undefined,
          message: stripField(d),
          actions: actionsFor(d),
        });
      }
      view.dispatch(setDiagnostics(view.state, marks));
    },
    /** How many lint marks the editor holds (tests and the live region read it). */
    markCount() {
      let n = 0;
      forEachDiagnostic(view.state, () => { n++; });
      return n;
    },
    focusLine(n, column = 1) {
      const doc = view.state.doc;
      const line = doc.line(Math.min(Math.max(n, 1), doc.lines));
      const at = Math.min(line.from + column - 1, line.to);
      view.dispatch({ selection: { anchor: at, head: at }, scrollIntoView: true });
      view.focus();
    },
  };
}

// The message without the leading "field: " apimachinery puts there (the field is shown already).
function stripField(d) {
  return d.field && d.message.startsWith(`${d.field}: `) ? d.message.slice(d.field.length + 2) : d.message;
}
