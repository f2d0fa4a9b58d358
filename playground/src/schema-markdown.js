// Stands in for codemirror-json-schema's utils/markdown.js in the bundle (scripts/build.mjs swaps
// it in). The original renders schema descriptions with markdown-it plus the shiki highlighter:
// about 140 KiB of the first load's 327 KiB gzipped JavaScript, for descriptions that are
// restartkit's own doc comments (plain sentences with `code` spans). This renders what those use:
// `code` spans and paragraphs. Everything else is shown as the text it is, HTML-escaped, since the
// library puts the result into innerHTML.

const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** One paragraph: escaped text with `code` spans as <code>. */
function renderInlineText(text) {
  return text
    .split(/(`[^`\n]+`)/)
    .map((part) => (/^`[^`\n]+`$/.test(part) ? `<code>${escapeHtml(part.slice(1, -1))}</code>` : escapeHtml(part)))
    .join('');
}

/** Same signature as the module it replaces: inline (no paragraphs) unless `inline` is false. */
export function renderMarkdown(markdown, inline = true) {
  const text = String(markdown ?? '');
  if (inline) return renderInlineText(text);
  return text
    .split(/\n\s*\n/)
    .filter((p) => p.trim() !== '')
    .map((p) => `<p>${renderInlineText(p.trim())}</p>`)
    .join('\n');
}
