// The stand-in for codemirror-json-schema's markdown renderer (src/schema-markdown.js): its output
// goes into innerHTML, so everything but `code` spans and paragraphs must arrive as text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderMarkdown } from '../src/schema-markdown.js';

test('code spans become <code>, the rest is escaped text', () => {
  assert.equal(renderMarkdown('`Always` (default), <b>`OnFailure`</b> & "Never"'),
    '<code>Always</code> (default), &#60;b&#62;<code>OnFailure</code>&#60;/b&#62; &#38; &#34;Never&#34;');
  assert.equal(renderMarkdown('a `<script>` tag'), 'a <code>&#60;script&#62;</code> tag');
});

test('block mode makes paragraphs; inline mode keeps the text on one level', () => {
  assert.equal(renderMarkdown('first `a`\n\nsecond\nline', false), '<p>first <code>a</code></p>\n<p>second\nline</p>');
  assert.equal(renderMarkdown('first\n\nsecond'), 'first\n\nsecond');
  assert.equal(renderMarkdown(undefined), '');
});

test('an unclosed backtick stays a backtick', () => {
  assert.equal(renderMarkdown('a ` b'), 'a ` b');
});
