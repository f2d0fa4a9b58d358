// Validation off the main thread: a 5 MB paste, a binary paste or a YAML alias bomb keeps the page
// responsive. The page sends {id, text, opts}; the worker answers {id, docs, diags, proposals}
// with the engine's own diagnostics (its reading errors included). The page keeps only the answer
// to its latest request and replaces a worker that is still busy when a newer request comes.
import * as rk from './pkg/core.browser.js';

self.onmessage = ({ data: { id, text, opts } }) => {
  let docs = [];
  let diags = [];
  let proposals = null;
  try {
    docs = rk.parseDocuments(text);
  } catch (e) {
    diags = e.diagnostics?.length ? e.diagnostics : [{ severity: 'error', field: '', message: e.message, origin: 'restartkit' }];
  }
  if (docs.length) {
    try {
      const out = rk.validate(text, opts);
      diags = [...out.errors, ...out.warnings, ...(out.infos ?? [])];
      proposals = out.proposals ?? null;
    } catch (e) {
      diags = e.diagnostics?.length ? e.diagnostics : [{ severity: 'error', field: e.field ?? '', message: e.message, origin: 'restartkit' }];
    }
  }
  self.postMessage({ id, docs, diags, proposals });
};
self.postMessage({ ready: true });
