// What the playground's first-load part is made of: reads the named module and the split's profile
// that `RESTARTKIT_WASM_NAMES=1 node wasm/scripts/build.mjs` leaves in $TMPDIR/restartkit-wasm-names
// and prints the code that the first-load part keeps, summed by Rust module path (bytes of function
// bodies, largest first), so a change that grows that part shows where. Usage:
//   node tools/wasm_first_load.mjs [depth=3] [top=40] [filter-regexp]
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = join(tmpdir(), 'restartkit-wasm-names');
const b = readFileSync(join(dir, 'module.wasm'));
const timestamps = readFileSync(join(dir, 'first-load.prof')).subarray(8);
const depth = Number(process.argv[2] ?? 3);
const top = Number(process.argv[3] ?? 40);
const filter = process.argv[4] ? new RegExp(process.argv[4]) : null;

let p = 8;
const leb = () => {
  let r = 0; let s = 0; let x;
  do { x = b[p++]; r += (x & 0x7f) * 2 ** s; s += 7; } while (x & 0x80);
  return r;
};
const str = () => { const n = leb(); const v = b.subarray(p, p + n).toString('utf8'); p += n; return v; };
let importedFunctions = 0;
const bodies = [];
const names = new Map();
while (p < b.length) {
  const id = b[p++];
  const size = leb();
  const end = p + size;
  if (id === 2) {
    const count = leb();
    for (let i = 0; i < count; i++) {
      str(); str();
      const kind = b[p++];
      if (kind === 0) { leb(); importedFunctions++; }
      else if (kind === 1) { p++; const f = b[p++]; leb(); if (f & 1) leb(); }
      else if (kind === 2) { const f = b[p++]; leb(); if (f & 1) leb(); }
      else if (kind === 3) { p += 2; }
    }
  } else if (id === 10) {
    const count = leb();
    for (let i = 0; i < count; i++) { const n = leb(); bodies.push(n); p += n; }
  } else if (id === 0 && str() === 'name') {
    while (p < end) {
      const sub = b[p++]; const n = leb(); const subEnd = p + n;
      if (sub === 1) {
        const count = leb();
        for (let i = 0; i < count; i++) { const idx = leb(); names.set(idx, str()); }
      }
      p = subEnd;
    }
  }
  p = end;
}
// A Rust path's module part: generic arguments and the hash dropped, `<impl X for Y>` read as Y.
const moduleOf = (name) => {
  let n = name.replace(/::h[0-9a-f]{16}$/, '');
  const impl = /^<(.+?)(?: as .+)?>::/.exec(n);
  if (impl) n = impl[1];
  n = n.replace(/<.*$/, '');
  return n.split('::').slice(0, depth).join('::');
};
const groups = new Map();
let kept = 0; let all = 0;
bodies.forEach((size, i) => {
  all += size;
  if (timestamps.readUInt32LE(4 * i) === 0) return;
  const name = names.get(importedFunctions + i) ?? `#${importedFunctions + i}`;
  if (filter && !filter.test(name)) return;
  kept += size;
  const key = filter ? name : moduleOf(name);
  const g = groups.get(key) ?? { bytes: 0, count: 0 };
  g.bytes += size; g.count += 1;
  groups.set(key, g);
});
console.log(`first-load code: ${(kept / 1024).toFixed(1)} KiB of ${(all / 1024).toFixed(1)} KiB in ${bodies.length} functions`);
for (const [k, g] of [...groups].sort((a, c) => c[1].bytes - a[1].bytes).slice(0, top)) {
  console.log(`${(g.bytes / 1024).toFixed(1).padStart(8)} KiB ${String(g.count).padStart(5)}  ${k}`);
}
