// Moves the read-only data that only the on-demand part's code reads out of the first-load part.
//
// wasm-split (split.mjs) moves functions, never data: every data segment stays in the primary
// module, so the first view paid for the simulator's messages, the Kubeflow Trainer's tables, the
// time-zone names and every other constant of code it never runs (issue 44: data was 169 KiB of the
// 418 KiB gzipped first-load part). This pass finds what the first-load part's code can reach and
// moves the rest of `.rodata` into active data segments of the on-demand part. The two parts share
// one memory, and instantiating the on-demand part (which happens before any of its functions runs:
// split.mjs's placeholders link it on the first call that needs it) writes those segments into it.
// Addresses do not change, so nothing is relocated.
//
// What the first-load part can reach is found from the relocations `wasm-ld --emit-relocs` keeps
// in the linked module (readRelocations; the build reads them, then hands wasm-bindgen the module
// without them):
// - the roots are the addresses the first-load part's code names (each `i32.const`, each load's and
//   store's static offset, and their sum where a constant address is loaded from directly; its
//   globals' initial values) and the pointers writable data holds (`.data`, `.bss`);
// - an address a code relocation gave reaches that relocation's symbol (rustc emits one per
//   constant), and the symbol it falls in or ends; any other address (wasm-opt folds constants
//   together) reaches every symbol within the distance the build's relocations reach outside their
//   symbols (LLVM folds `&TABLE[i - 1]` into `TABLE - size`);
// - a reached symbol reaches what the pointers in it (the data relocations inside it) name;
// - only the bytes of unreached symbols move; anything unknown (a passive segment, an instruction
//   this decoder does not know) stops the build rather than guessing.
// wasm/test/split.test.mjs replays the first-load work on the first-load part alone with the moved
// bytes overwritten, so that a reference this pass missed shows as a different answer or a trap.
import { readName, readU32, sections, u32 } from './split.mjs';

/** Gaps between moved runs smaller than this stay where they are (a segment costs ~8 bytes). */
const MIN_RUN = 64;

// Relocation types (LLVM's WasmRelocs.def) that carry an addend, and those that name a memory address.
const WITH_ADDEND = new Set([3, 4, 5, 8, 9, 11, 14, 15, 16, 17, 21, 22, 23, 25]);
const MEMORY_ADDR = new Set([3, 4, 5, 11, 14, 15, 16, 17, 21, 23, 25]);
const UNDEFINED = 0x10;
const EXPLICIT_NAME = 0x40;

/**
 * Reads what `wasm-ld --emit-relocs` leaves in the linked module: where each data segment lies in
 * memory, the data symbols (one per constant rustc emits) with their addresses and sizes, and every
 * relocation that names a data symbol (in code: the address a constant or offset stands for; in
 * data: the pointer a constant holds). Returns {rodata: {start, end}, symbols: [{start, end}] (the
 * defined data symbols in `.rodata`), codeTargets: Map(address -> [symbol index]), dataPointers:
 * [{at, symbol}], reach: {before, after}}: `reach` is how far outside its symbol any relocation's
 * address lies (LLVM folds `&TABLE[i - 1]` into `TABLE - size`, an end pointer is `TABLE + len`).
 */
export function readRelocations(bytes) {
  const b = bytes;
  const segs = [];
  let segNames = [];
  const syms = [];
  const relocs = [];
  for (const s of sections(b)) {
    const pos = { i: s.start };
    if (s.id === 11) {
      for (let n = readU32(b, pos); n > 0; n--) {
        const flags = readU32(b, pos);
        let offset = 0;
        if (flags !== 1) {
          if (flags === 2) readU32(b, pos);
          if (b[pos.i++] !== 0x41) throw new Error('a data segment whose offset is not an i32.const');
          offset = Number(BigInt.asUintN(32, readS(b, pos, 32)));
          pos.i++;
        }
        const size = readU32(b, pos);
        segs.push({ offset, size, at: pos.i - s.start });
        pos.i += size;
      }
    } else if (s.id === 0) {
      const name = readName(b, pos);
      if (name === 'linking') {
        if (readU32(b, pos) !== 2) throw new Error('the linking section is not version 2');
        while (pos.i < s.end) {
          const sub = b[pos.i++];
          const len = readU32(b, pos);
          const subEnd = pos.i + len;
          if (sub === 5) {
            segNames = [];
            for (let n = readU32(b, pos); n > 0; n--) { segNames.push(readName(b, pos)); readU32(b, pos); readU32(b, pos); }
          } else if (sub === 8) {
            for (let n = readU32(b, pos); n > 0; n--) {
              const kind = b[pos.i++];
              const flags = readU32(b, pos);
              if (kind === 1) {
                readName(b, pos);
                if (flags & UNDEFINED) syms.push(null);
                else syms.push({ segment: readU32(b, pos), offset: readU32(b, pos), size: readU32(b, pos) });
              } else if (kind === 3) {
                readU32(b, pos);
                syms.push(null);
              } else if (kind === 0 || kind === 2 || kind === 4 || kind === 5) {
                readU32(b, pos);
                if (!(flags & UNDEFINED) || (flags & EXPLICIT_NAME)) readName(b, pos);
                syms.push(null);
              } else {
                throw new Error(`symbol kind ${kind} not expected`);
              }
            }
          }
          pos.i = subEnd;
        }
      } else if (name.startsWith('reloc.')) {
        readU32(b, pos); // the section it applies to: CODE or DATA, by name
        for (let n = readU32(b, pos); n > 0; n--) {
          const type = readU32(b, pos);
          const offset = readU32(b, pos);
          const index = readU32(b, pos);
          const addend = WITH_ADDEND.has(type) ? Number(readS(b, pos, 64)) : 0;
          if (MEMORY_ADDR.has(type)) relocs.push({ data: name === 'reloc.DATA', offset, index, addend });
        }
      }
    }
  }
  const ro = segNames.indexOf('.rodata');
  if (ro < 0 || !segs[ro]) throw new Error('the linked module names no .rodata segment (was it linked with --emit-relocs?)');
  const rodata = { start: segs[ro].offset, end: segs[ro].offset + segs[ro].size };
  const addressOf = (sym) => segs[sym.segment].offset + sym.offset;
  const symbols = [];
  const symbolOf = new Map();
  syms.forEach((sym, i) => {
    if (sym === null || sym.segment !== ro || sym.size === 0) return;
    symbolOf.set(i, symbols.length);
    symbols.push({ start: addressOf(sym), end: addressOf(sym) + sym.size });
  });
  const codeTargets = new Map();
  const dataPointers = [];
  const reach = { before: 0, after: 0 };
  for (const r of relocs) {
    const sym = syms[r.index];
    if (!sym) continue;
    const start = addressOf(sym);
    const target = start + r.addend;
    reach.before = Math.max(reach.before, start - target);
    reach.after = Math.max(reach.after, target - (start + sym.size));
    const k = symbolOf.get(r.index);
    if (k === undefined) continue;
    if (r.data) {
      const seg = segs.find((s) => r.offset >= s.at && r.offset < s.at + s.size);
      if (!seg) throw new Error(`a data relocation at ${r.offset} outside every segment`);
      dataPointers.push({ at: seg.offset + (r.offset - seg.at), symbol: k });
    } else {
      const list = codeTargets.get(target >>> 0) ?? [];
      list.push(k);
      codeTargets.set(target >>> 0, list);
    }
  }
  return { rodata, symbols, codeTargets, dataPointers, reach };
}

/** The module without the linking and relocation sections (what wasm-bindgen should read). */
export function withoutRelocations(bytes) {
  const keep = [bytes.subarray(0, 8)];
  for (const s of sections(bytes)) {
    if (s.id === 0) {
      const name = readName(bytes, { i: s.start });
      if (name === 'linking' || name.startsWith('reloc.')) continue;
    }
    keep.push(bytes.subarray(s.hdr, s.end));
  }
  return Buffer.concat(keep);
}

const readS = (b, pos, bits) => {
  let result = 0n;
  let shift = 0n;
  let byte;
  do {
    byte = b[pos.i++];
    result |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
  } while (byte & 0x80);
  if (shift < BigInt(bits) && (byte & 0x40)) result -= 1n << shift;
  return result;
};

/**
 * Every address the code of `bytes` names (i32.const values, memory offsets, constant+offset),
 * as numbers, together with its globals' initial i32 values.
 */
export function addressesNamedBy(bytes) {
  const b = bytes;
  const out = new Set();
  const secs = sections(b);
  for (const s of secs) {
    const pos = { i: s.start };
    if (s.id === 6) {
      for (let n = readU32(b, pos); n > 0; n--) {
        pos.i += 2; // value type, mutability
        constExpr(b, pos, out);
      }
    } else if (s.id === 10) {
      for (let n = readU32(b, pos); n > 0; n--) {
        const size = readU32(b, pos);
        const end = pos.i + size;
        for (let l = readU32(b, pos); l > 0; l--) { readU32(b, pos); pos.i++; }
        instructions(b, pos, end, out);
        if (pos.i !== end) throw new Error('a function body did not decode to its end');
      }
    }
  }
  return out;
}

function constExpr(b, pos, out) {
  for (;;) {
    const op = b[pos.i++];
    if (op === 0x0b) return;
    if (op === 0x41) out.add(Number(BigInt.asUintN(32, readS(b, pos, 32))));
    else if (op === 0x42) readS(b, pos, 64);
    else if (op === 0x23 || op === 0xd2) readU32(b, pos);
    else if (op === 0xd0) pos.i++;
    else throw new Error(`constant expression opcode 0x${op.toString(16)} not expected`);
  }
}

const VALTYPES = new Set([0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f]);

function instructions(b, pos, end, out) {
  let lastConst = null;
  while (pos.i < end) {
    const op = b[pos.i++];
    let constant = null;
    if (op === 0x41) {
      constant = Number(BigInt.asUintN(32, readS(b, pos, 32)));
      out.add(constant);
    } else if (op >= 0x28 && op <= 0x3e) {
      const align = readU32(b, pos);
      if (align & 0x40) readU32(b, pos); // a memory index (multi-memory)
      const offset = readU32(b, pos);
      out.add(offset);
      if (lastConst !== null) out.add((lastConst + offset) >>> 0);
    } else if (op === 0x02 || op === 0x03 || op === 0x04) {
      if (b[pos.i] === 0x40 || VALTYPES.has(b[pos.i])) pos.i++;
      else readS(b, pos, 33);
    } else if (op === 0x0c || op === 0x0d || op === 0x10 || op === 0x12 || (op >= 0x20 && op <= 0x26) || op === 0xd2) {
      readU32(b, pos);
    } else if (op === 0x0e) {
      for (let n = readU32(b, pos); n >= 0; n--) readU32(b, pos);
    } else if (op === 0x11 || op === 0x13) {
      readU32(b, pos);
      readU32(b, pos);
    } else if (op === 0x1c) {
      for (let n = readU32(b, pos); n > 0; n--) pos.i++;
    } else if (op === 0x3f || op === 0x40 || op === 0xd0) {
      pos.i++;
    } else if (op === 0x42) {
      readS(b, pos, 64);
    } else if (op === 0x43) {
      pos.i += 4;
    } else if (op === 0x44) {
      pos.i += 8;
    } else if (op === 0xfc) {
      const sub = readU32(b, pos);
      if (sub <= 7) { /* saturating truncations */ }
      else if (sub === 8) { readU32(b, pos); pos.i++; }
      else if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) readU32(b, pos);
      else if (sub === 10) pos.i += 2;
      else if (sub === 11) pos.i++;
      else if (sub === 12 || sub === 14) { readU32(b, pos); readU32(b, pos); }
      else throw new Error(`instruction 0xfc ${sub} not expected`);
    } else if (op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x1a || op === 0x1b
      || (op >= 0x45 && op <= 0xc4) || op === 0xd1) {
      /* no immediates */
    } else {
      throw new Error(`instruction 0x${op.toString(16)} not expected (SIMD, GC, threads, exceptions are not enabled)`);
    }
    lastConst = constant;
  }
}

/** The module's active data segments as {offset, bytes}; throws on any other kind. */
function dataSegments(b) {
  const data = sections(b).find((s) => s.id === 11);
  if (!data) return { data: null, segments: [] };
  const pos = { i: data.start };
  const segments = [];
  for (let n = readU32(b, pos); n > 0; n--) {
    const flags = readU32(b, pos);
    if (flags === 1) throw new Error('a passive data segment: moving data around memory.init is not supported');
    if (flags === 2 && readU32(b, pos) !== 0) throw new Error('a data segment of a second memory is not expected');
    if (b[pos.i++] !== 0x41) throw new Error('a data segment whose offset is not an i32.const');
    const offset = Number(BigInt.asUintN(32, readS(b, pos, 32)));
    if (b[pos.i++] !== 0x0b) throw new Error('a data segment whose offset expression is not one constant');
    const size = readU32(b, pos);
    segments.push({ offset, bytes: b.subarray(pos.i, pos.i + size) });
    pos.i += size;
  }
  return { data, segments };
}

function encodeDataSection(segments) {
  const body = [Buffer.from(u32(segments.length))];
  for (const s of segments) {
    body.push(Buffer.from([0x00, 0x41]), Buffer.from(sleb32(s.offset)), Buffer.from([0x0b]), Buffer.from(u32(s.bytes.length)), s.bytes);
  }
  const payload = Buffer.concat(body);
  return Buffer.concat([Buffer.from([11, ...u32(payload.length)]), payload]);
}

function sleb32(value) {
  let v = value | 0;
  const out = [];
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    if ((v === 0 && !(byte & 0x40)) || (v === -1 && (byte & 0x40))) { out.push(byte); return out; }
    out.push(byte | 0x80);
  }
}

/** Where the module's active data segments write: [{offset, length}] (the tests poison these). */
export function dataRanges(bytes) {
  return dataSegments(bytes).segments.map((s) => ({ offset: s.offset, length: s.bytes.length }));
}

/** Replaces the data section (and the data count, if any), or adds one after the code. */
function withData(b, segments) {
  const parts = [b.subarray(0, 8)];
  const secs = sections(b);
  const hasData = secs.some((s) => s.id === 11);
  for (const s of secs) {
    if (s.id === 12) parts.push(Buffer.from([12, ...u32(u32(segments.length).length), ...u32(segments.length)]));
    else if (s.id === 11) parts.push(encodeDataSection(segments));
    else parts.push(b.subarray(s.hdr, s.end));
    if (s.id === 10 && !hasData && segments.length) parts.push(encodeDataSection(segments));
  }
  return Buffer.concat(parts);
}

/**
 * Moves the `.rodata` that `primary`'s code cannot reach into `secondary`. `linked` is
 * readRelocations() of the module as wasm-ld wrote it, before wasm-bindgen and wasm-opt (which
 * change code, never the data or its addresses). Returns {primary, secondary, moved: [{start,
 * end}], movedBytes, reach}.
 */
export function moveOnDemandData({ primary, secondary, linked }) {
  const { rodata, codeTargets, dataPointers, reach: window } = linked;
  const symbols = [...linked.symbols].map((s, i) => ({ ...s, i })).sort((x, y) => x.start - y.start || x.end - y.end);
  const { segments } = dataSegments(primary);
  if (dataSegments(secondary).segments.length) throw new Error('the on-demand part already has data segments');
  const memory = new Uint8Array(Math.max(rodata.end, ...segments.map((s) => s.offset + s.bytes.length)));
  for (const s of segments) memory.set(s.bytes, s.offset);

  const reached = new Uint8Array(symbols.length);
  const position = new Map(symbols.map((s, k) => [s.i, k]));
  const stack = [];
  const mark = (k) => {
    if (!reached[k]) { reached[k] = 1; stack.push(k); }
  };
  // Symbols overlapping [from, to] (sorted by start; symbols are small, so scan back a little).
  const firstEndingAfter = (a) => {
    let lo = 0;
    let hi = symbols.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (symbols[mid].start <= a) lo = mid + 1; else hi = mid;
    }
    let k = lo;
    while (k > 0 && symbols[k - 1].end > a) k--;
    return k;
  };
  const markRange = (from, to) => {
    for (let k = firstEndingAfter(from); k < symbols.length && symbols[k].start <= to; k++) {
      if (symbols[k].end > from || symbols[k].start === from) mark(k);
    }
  };
  // An address the first-load part's code names: the symbols a relocation gave that very address,
  // the symbol it falls in and the one it ends; an address no relocation gave (wasm-opt folded
  // constants together, or a number that only looks like an address) reaches as far as any
  // relocation of this build reaches outside its symbol.
  const named = (a) => {
    if (a + window.before < rodata.start || a - window.after > rodata.end) return;
    const exact = codeTargets.get(a);
    if (exact) {
      for (const i of exact) mark(position.get(i));
      markRange(a - 1, a);
    } else {
      markRange(a - window.after - 1, a + window.before);
    }
  };
  for (const a of addressesNamedBy(primary)) named(a);
  // Pointers held by data: exact, from the data relocations (data is never rewritten after the link).
  const pointers = [...dataPointers].sort((x, y) => x.at - y.at);
  const ats = pointers.map((p) => p.at);
  const firstAt = (a) => {
    let lo = 0;
    let hi = ats.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ats[mid] < a) lo = mid + 1; else hi = mid;
    }
    return lo;
  };
  const follow = (from, to) => {
    for (let j = firstAt(from); j < pointers.length && pointers[j].at < to; j++) mark(position.get(pointers[j].symbol));
  };
  // Writable data (.data, .bss) and anything else outside .rodata holds roots.
  follow(0, rodata.start);
  follow(rodata.end, 2 ** 32);
  while (stack.length) {
    const k = stack.pop();
    follow(symbols[k].start, symbols[k].end);
  }

  // Runs of memory inside .rodata that no reached symbol overlaps, at least MIN_RUN long.
  // Bytes no symbol covers stay (padding, mostly); so does every byte of a reached symbol.
  const keep = new Uint8Array(rodata.end - rodata.start).fill(1);
  symbols.forEach((s, k) => { if (!reached[k]) keep.fill(0, s.start - rodata.start, s.end - rodata.start); });
  symbols.forEach((s, k) => { if (reached[k]) keep.fill(1, s.start - rodata.start, s.end - rodata.start); });
  const runs = [];
  for (let a = rodata.start; a < rodata.end;) {
    if (keep[a - rodata.start]) { a++; continue; }
    let e = a;
    while (e < rodata.end && !keep[e - rodata.start]) e++;
    if (e - a >= MIN_RUN) runs.push({ start: a, end: e });
    a = e;
  }
  // The first-load part's segments without the moved runs.
  const kept = [];
  for (const s of segments) {
    let from = s.offset;
    const to = s.offset + s.bytes.length;
    for (const r of runs) {
      if (r.end <= from || r.start >= to) continue;
      if (r.start > from) kept.push({ offset: from, bytes: s.bytes.subarray(from - s.offset, r.start - s.offset) });
      from = Math.max(from, r.end);
    }
    if (from < to) kept.push({ offset: from, bytes: s.bytes.subarray(from - s.offset) });
  }
  // Zero runs need no segment: memory starts zeroed.
  const movedSegments = runs.map((r) => ({ offset: r.start, bytes: Buffer.from(memory.subarray(r.start, r.end)) }))
    .filter((seg) => seg.bytes.some((x) => x !== 0));
  return {
    primary: withData(primary, kept),
    secondary: withData(secondary, movedSegments),
    moved: runs,
    movedBytes: runs.reduce((a, r) => a + r.end - r.start, 0),
    reach: window,
  };
}
