// A manifest too long for the URL fragment (state.js MAX_FRAGMENT_TEXT), kept in IndexedDB so a
// reload of the tab finds it again (sessionStorage holds about 5 million characters in
// Chromium, less than a 5 MB paste). One record per tab, keyed by a tab id in sessionStorage.
const DB = 'restartkit-playground';
const STORE = 'texts';

function tabKey() {
  let id = sessionStorage.getItem('restartkit-playground-tab');
  if (!id) {
    id = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    sessionStorage.setItem('restartkit-playground-tab', id);
  }
  return id;
}

function open() {
  return new Promise((ok, fail) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => ok(req.result);
    req.onerror = () => fail(req.error);
  });
}

async function run(mode, fn) {
  const db = await open();
  try {
    return await new Promise((ok, fail) => {
      const req = fn(db.transaction(STORE, mode).objectStore(STORE));
      req.onsuccess = () => ok(req.result);
      req.onerror = () => fail(req.error);
    });
  } finally {
    db.close();
  }
}

/** Keeps `text` for this tab (the latest write wins); failures are reported, not thrown. */
export function stashText(text) {
  return run('readwrite', (s) => s.put(text, tabKey())).then(() => true, () => false);
}

/** The text kept for this tab, or null. */
export function stashedText() {
  return run('readonly', (s) => s.get(tabKey())).then((t) => (typeof t === 'string' ? t : null), () => null);
}
