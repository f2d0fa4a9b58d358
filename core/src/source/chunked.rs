//! A stream read in bounded memory: bytes pushed in chunks of any size come out as the pieces
//! kubectl's decoder reads one at a time (see `stream`), and a List's items one at a time.
//!
//! Nothing here parses: the pieces are cut by bytes (kubectl's `---` line splitter for YAML, a
//! brace and string scanner for a JSON stream) and read afterwards by the same reader as a whole
//! text (`read_piece`). What is held at any time is one document, or one item of a List and
//! the List's other fields, never more than [`MAX_OBJECT_BYTES`] of either: a larger one is
//! passed over to its end and comes out as [`Piece::TooLarge`], as kube-apiserver refuses a
//! request body over 3 MiB (`MaxRequestBodyBytes`).
//!
//! A List is any document with an `items` sequence: in YAML, a key `items:` at column 0 followed
//! by a block sequence; in JSON, the top-level object's `"items": [`. Its items come out as
//! [`Piece::Item`] (each item's text, with its own line and column: the `- ` of a YAML item is
//! blanked, so the columns stay those of the stream), then [`Piece::ListEnd`] with the rest of
//! the document, its `items` written `[]`.

/// The largest object read: kube-apiserver's request body limit (3 MiB).
pub const MAX_OBJECT_BYTES: usize = 3 * 1024 * 1024;

/// A YAML List's `indent` once its sequence has ended.
const SEQUENCE_ENDED: usize = usize::MAX - 1;

/// How far into the stream kubectl looks for the `{` of a JSON stream.
const SNIFF_BYTES: usize = 4096;

/// What the splitter hands on, in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A piece of kubectl's YAML splitter, or one value of a JSON stream, from 1-based `line`
    /// and `column` of the stream.
    Document {
        text: Vec<u8>,
        line: u32,
        column: u32,
        json: bool,
        /// YAML: a `---` line ends it (not the end of the stream).
        separated: bool,
    },
    /// A `---` line with more than a comment after it (kubectl refuses it, without decoding
    /// the piece above it; `swallowed`: there was one).
    Separator {
        doc_line: u32,
        sep_line: u32,
        rest: String,
        swallowed: bool,
    },
    /// Item `index` of the List being read.
    Item {
        index: usize,
        text: Vec<u8>,
        line: u32,
        column: u32,
        json: bool,
    },
    /// The end of a List: its text without the items (`items: []`); `items_line` is the line of
    /// its `items` key, and the lines after it in `skeleton` are `removed_lines` further down in
    /// the stream.
    ListEnd {
        skeleton: Vec<u8>,
        line: u32,
        column: u32,
        json: bool,
        items_line: u32,
        removed_lines: u32,
        items: usize,
    },
    /// A document (`item` None) or an item of a List larger than [`MAX_OBJECT_BYTES`], passed
    /// over; `bytes` is its size.
    TooLarge {
        line: u32,
        column: u32,
        bytes: u64,
        item: Option<usize>,
    },
}

/// Text being gathered: a document, an item or a List's other fields.
#[derive(Debug, Default)]
struct Gather {
    text: Vec<u8>,
    line: u32,
    column: u32,
    bytes: u64,
    too_large: bool,
}

impl Gather {
    fn new(line: u32, column: u32) -> Self {
        Gather {
            line,
            column,
            ..Gather::default()
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        self.bytes += bytes.len() as u64;
        if self.too_large {
            return;
        }
        if self.text.len() + bytes.len() > MAX_OBJECT_BYTES {
            self.too_large = true;
            self.text = Vec::new();
        } else {
            self.text.extend_from_slice(bytes);
        }
    }

    fn into_piece(self, item: Option<usize>, json: bool) -> Piece {
        if self.too_large {
            return Piece::TooLarge {
                line: self.line,
                column: self.column,
                bytes: self.bytes,
                item,
            };
        }
        match item {
            Some(index) => Piece::Item {
                index,
                text: self.text,
                line: self.line,
                column: self.column,
                json,
            },
            None => Piece::Document {
                text: self.text,
                line: self.line,
                column: self.column,
                json,
                separated: false,
            },
        }
    }
}

/// A List being read.
#[derive(Debug, Default)]
struct List {
    /// The document without its items.
    skeleton: Gather,
    items_line: u32,
    removed_lines: u32,
    count: usize,
    item: Option<Gather>,
    /// YAML: the column of the sequence's `-`; None until the first item is seen.
    indent: Option<usize>,
    /// JSON: the items array has closed.
    closed: bool,
}

#[derive(Debug, Default, PartialEq, Eq, Clone, Copy)]
enum Mode {
    #[default]
    Sniff,
    Json,
    Yaml,
}

/// The JSON scanner's state.
#[derive(Debug, Default)]
struct Json {
    depth: usize,
    in_string: bool,
    escape: bool,
    /// A top-level value that is a scalar (not an object or array) is being read.
    scalar: bool,
    /// The last string closed at depth 1 was `"items"`.
    items_key: bool,
    /// After `"items":`, waiting for the `[`.
    await_items: bool,
    /// The string read at depth 1, up to 6 bytes.
    key: Vec<u8>,
    /// Item scalars in a List (`"items": [1, 2]`).
    item_scalar: bool,
}

/// Cuts a byte stream into [`Piece`]s. Pure: bytes in, pieces out.
#[derive(Debug, Default)]
pub struct Splitter {
    mode: Mode,
    /// Bytes not yet consumed: the sniffed head, or an unfinished YAML line.
    pending: Vec<u8>,
    /// The current unfinished YAML line is longer than any object: dropped as it comes.
    long_line: bool,
    line: u32,
    column: u32,
    doc: Option<Gather>,
    list: Option<List>,
    json: Json,
    out: Vec<Piece>,
    /// Bytes the scanning loops have looked at, each look counted (see [`Splitter::scanned`]).
    scanned: u64,
}

impl Splitter {
    pub fn new() -> Self {
        Splitter {
            line: 1,
            column: 1,
            ..Splitter::default()
        }
    }

    /// How many bytes the splitter's loops have looked at so far, a byte looked at twice
    /// counted twice: the line and brace scanners, the position counting, kubectl's sniff of
    /// the head and the rejoining of a line cut between two pushes. Reading in bounded memory is
    /// linear when this stays a small multiple of the bytes pushed, whatever the layout (a
    /// test holds it for a compact one-line List).
    pub fn scanned(&self) -> u64 {
        self.scanned
    }

    fn scan(&mut self, bytes: usize) {
        self.scanned = self.scanned.saturating_add(bytes as u64);
    }

    /// Feeds the next bytes of the stream; returns the pieces they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Piece> {
        match self.mode {
            Mode::Sniff => {
                self.pending.extend_from_slice(bytes);
                self.scan(self.pending.len().min(SNIFF_BYTES));
                if let Some(json) = sniff(&self.pending, false) {
                    self.mode = if json { Mode::Json } else { Mode::Yaml };
                    let head = std::mem::take(&mut self.pending);
                    return self.push(&head);
                }
            }
            Mode::Json => self.json_bytes(bytes),
            Mode::Yaml => self.yaml_bytes(bytes),
        }
        std::mem::take(&mut self.out)
    }

    /// The end of the stream: the pieces still open.
    pub fn finish(&mut self) -> Vec<Piece> {
        if self.mode == Mode::Sniff {
            self.mode = if sniff(&self.pending, true).unwrap_or(false) {
                Mode::Json
            } else {
                Mode::Yaml
            };
            let head = std::mem::take(&mut self.pending);
            let mut out = self.push(&head);
            out.extend(self.finish());
            return out;
        }
        match self.mode {
            Mode::Yaml => {
                if !self.pending.is_empty() || self.long_line {
                    let last = std::mem::take(&mut self.pending);
                    self.yaml_line(&last);
                    self.long_line = false;
                }
                self.end_yaml_doc();
            }
            _ => self.end_json_value(),
        }
        std::mem::take(&mut self.out)
    }

    fn advance(&mut self, bytes: &[u8]) {
        self.scan(bytes.len());
        for &b in bytes {
            if b == b'\n' {
                self.line = self.line.saturating_add(1);
                self.column = 1;
            } else if b & 0xC0 != 0x80 {
                self.column = self.column.saturating_add(1);
            }
        }
    }

    // ---- YAML: kubectl's line splitter, and a List's block sequence ----

    fn yaml_bytes(&mut self, mut bytes: &[u8]) {
        self.scan(bytes.len());
        while !bytes.is_empty() {
            match bytes.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    let (line, rest) = bytes.split_at(i + 1);
                    bytes = rest;
                    if self.pending.is_empty() && !self.long_line {
                        self.yaml_line(line);
                    } else {
                        let mut whole = std::mem::take(&mut self.pending);
                        whole.extend_from_slice(line);
                        self.scan(whole.len());
                        self.yaml_line(&whole);
                        self.long_line = false;
                    }
                }
                None => {
                    self.pending.extend_from_slice(bytes);
                    if self.pending.len() > MAX_OBJECT_BYTES {
                        // A line longer than any object: whatever holds it is too large.
                        self.long_line_part();
                    }
                    bytes = &[];
                }
            }
        }
    }

    /// Part of a line longer than [`MAX_OBJECT_BYTES`]: counted into the object that holds it,
    /// which is then too large, and dropped.
    fn long_line_part(&mut self) {
        let part = std::mem::take(&mut self.pending);
        if !self.long_line {
            // Its start decides what it is (a `---` line, an item); the rest only counts.
            self.long_line = true;
            self.yaml_line(&part);
            return;
        }
        let target = match (&mut self.list, &mut self.doc) {
            (Some(list), _) => match &mut list.item {
                Some(item) => item,
                None => &mut list.skeleton,
            },
            (None, Some(doc)) => doc,
            (None, None) => {
                self.doc = Some(Gather::new(self.line, 1));
                self.doc.get_or_insert_with(Gather::default)
            }
        };
        target.push(&part);
        target.too_large = true;
        target.text = Vec::new();
        self.advance(&part);
    }

    fn yaml_line(&mut self, line: &[u8]) {
        self.scan(line.len());
        let continued = self.long_line && self.column > 1;
        if !continued && line.starts_with(b"---") {
            let rest = String::from_utf8_lossy(line.get(3..).unwrap_or(&[]))
                .trim()
                .to_owned();
            if !rest.is_empty() && !rest.starts_with('#') {
                let swallowed = self.doc.is_some();
                let doc_line = self.doc.as_ref().map_or(self.line, |d| d.line);
                self.list = None;
                self.doc = None;
                self.out.push(Piece::Separator {
                    doc_line,
                    sep_line: self.line,
                    rest,
                    swallowed,
                });
                self.advance(line);
                return;
            }
            if self.doc.is_some() {
                self.end_yaml_doc();
                if let Some(Piece::Document { separated, .. }) = self.out.last_mut() {
                    *separated = true;
                }
                self.advance(line);
                return;
            }
        }
        if self.doc.is_none() {
            self.doc = Some(Gather::new(self.line, 1));
        }
        if continued {
            self.long_line_continue(line);
        } else if self.list.is_some() {
            self.list_line(line);
        } else {
            let top_items = !self.long_line && is_items_key(line);
            if let Some(doc) = &mut self.doc {
                if top_items && !doc.too_large {
                    let mut skeleton = Gather::new(doc.line, doc.column);
                    skeleton.push(&doc.text);
                    skeleton.bytes = doc.bytes;
                    skeleton.push(b"items: []\n");
                    self.list = Some(List {
                        skeleton,
                        items_line: self.line,
                        ..List::default()
                    });
                } else {
                    doc.push(line);
                }
            }
        }
        self.advance(line);
    }

    /// The rest of a long line: into whatever its start went to.
    fn long_line_continue(&mut self, line: &[u8]) {
        let target = match (&mut self.list, &mut self.doc) {
            (Some(list), _) => match &mut list.item {
                Some(item) => item,
                None => &mut list.skeleton,
            },
            (None, Some(doc)) => doc,
            (None, None) => return,
        };
        target.push(line);
    }

    /// A line of a YAML List after its `items:` line.
    fn list_line(&mut self, line: &[u8]) {
        let Some(list) = &mut self.list else {
            return;
        };
        let indent = line.iter().take_while(|&&b| b == b' ').count();
        let body = line.get(indent..).unwrap_or(&[]);
        let blank = body
            .iter()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            || body.first() == Some(&b'#');
        let dash = body.first() == Some(&b'-')
            && matches!(body.get(1), None | Some(b' ' | b'\t' | b'\r' | b'\n'));
        if list.indent == Some(SEQUENCE_ENDED) {
            list.skeleton.push(line);
            return;
        }
        if blank {
            list.removed_lines += 1;
            if let Some(item) = &mut list.item {
                item.push(line);
            }
            return;
        }
        let seq = *list
            .indent
            .get_or_insert(if dash { indent } else { usize::MAX });
        if seq == usize::MAX {
            // `items:` holds no block sequence: an ordinary document after all.
            let list = self.list.take();
            if let (Some(list), Some(doc)) = (list, &mut self.doc) {
                let mut text = list.skeleton.text;
                text.truncate(text.len().saturating_sub(b"items: []\n".len()));
                let mut whole = Gather::new(doc.line, doc.column);
                whole.push(&text);
                whole.push(b"items:\n");
                for _ in 0..list.removed_lines {
                    whole.push(b"\n");
                }
                whole.push(line);
                *doc = whole;
            }
            return;
        }
        if dash && indent == seq {
            if let Some(item) = list.item.take() {
                self.out.push(item.into_piece(Some(list.count), false));
                list.count += 1;
            }
            let mut item = Gather::new(self.line, 1);
            let mut blanked = line.to_vec();
            if let Some(b) = blanked.get_mut(indent) {
                *b = b' ';
            }
            item.push(&blanked);
            list.item = Some(item);
            list.removed_lines += 1;
        } else if indent > seq {
            list.removed_lines += 1;
            if let Some(item) = &mut list.item {
                item.push(line);
            }
        } else {
            // The sequence has ended: the List's next key.
            if let Some(item) = list.item.take() {
                self.out.push(item.into_piece(Some(list.count), false));
                list.count += 1;
            }
            // Later lines belong to the skeleton: no second sequence is read.
            list.indent = Some(SEQUENCE_ENDED);
            list.skeleton.push(line);
        }
    }

    fn end_yaml_doc(&mut self) {
        let doc = self.doc.take();
        if let Some(mut list) = self.list.take() {
            if let Some(item) = list.item.take() {
                self.out.push(item.into_piece(Some(list.count), false));
                list.count += 1;
            }
            self.out.push(list_end(list, false));
            return;
        }
        if let Some(doc) = doc {
            self.out.push(doc.into_piece(None, false));
        }
    }

    // ---- JSON: a stream of values, and a top-level object's `"items": [` ----

    fn json_bytes(&mut self, bytes: &[u8]) {
        self.scan(bytes.len());
        // Runs of bytes go to the gatherers in slices, not byte by byte.
        let mut run_start = 0usize;
        let mut i = 0usize;
        while let Some(&b) = bytes.get(i) {
            let consumed = self.json_byte(b, bytes, &mut run_start, i);
            i = consumed;
        }
        let end = bytes.len();
        if self.between_items() {
            self.drop_run(bytes, &mut run_start, end);
        } else {
            self.cut(bytes, &mut run_start, end);
        }
    }

    /// Inside a List's items array, between two items: the bytes there (commas, white space)
    /// are left out of the skeleton.
    fn between_items(&self) -> bool {
        self.json.depth == 2
            && !self.json.in_string
            && self
                .list
                .as_ref()
                .is_some_and(|l| l.item.is_none() && !l.closed)
    }

    /// Passes over `bytes[*run_start..upto]`, counting its lines as removed from the skeleton.
    fn drop_run(&mut self, bytes: &[u8], run_start: &mut usize, upto: usize) {
        let removed = bytes.get(*run_start..upto).unwrap_or(&[]);
        let newlines = removed.iter().filter(|&&c| c == b'\n').count();
        self.scan(removed.len());
        self.advance(removed);
        *run_start = upto;
        if let Some(list) = &mut self.list {
            list.removed_lines = list
                .removed_lines
                .saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
        }
    }

    /// Appends `run` to what is being gathered (the item, the List's skeleton or the
    /// document).
    fn flush_run(&mut self, run: &[u8]) {
        if run.is_empty() {
            return;
        }
        if let Some(list) = &mut self.list {
            match &mut list.item {
                Some(item) => item.push(run),
                None => list.skeleton.push(run),
            }
        } else if let Some(doc) = &mut self.doc {
            doc.push(run);
        }
    }

    /// Flushes `bytes[*run_start..upto]` and moves the position past it.
    fn cut(&mut self, bytes: &[u8], run_start: &mut usize, upto: usize) {
        let run = bytes.get(*run_start..upto).unwrap_or(&[]);
        self.flush_run(run);
        self.advance(run);
        *run_start = upto;
    }

    /// Handles `bytes[i]`; returns the index of the next byte to look at.
    fn json_byte(&mut self, b: u8, bytes: &[u8], run_start: &mut usize, i: usize) -> usize {
        let j = &mut self.json;
        if j.in_string {
            if j.escape {
                j.escape = false;
            } else if b == b'\\' {
                j.escape = true;
            } else if b == b'"' {
                j.in_string = false;
                if j.depth == 1 && self.list.is_none() {
                    j.items_key = j.key == b"items";
                }
                if j.depth == 0 && j.scalar {
                    // A top-level string ends the value.
                    self.cut(bytes, run_start, i + 1);
                    self.json.scalar = false;
                    self.end_json_value();
                    return i + 1;
                }
            } else if j.depth == 1 && j.key.len() <= 6 {
                j.key.push(b);
            }
            return i + 1;
        }
        let ws = matches!(b, b' ' | b'\t' | b'\r' | b'\n');
        // Outside any value.
        if self.doc.is_none() {
            if ws {
                return i + 1;
            }
            self.cut(bytes, run_start, i);
            self.doc = Some(Gather::new(self.line, self.column));
            let j = &mut self.json;
            match b {
                b'{' | b'[' => j.depth = 1,
                b'"' => {
                    j.scalar = true;
                    j.in_string = true;
                }
                _ => j.scalar = true,
            }
            return i + 1;
        }
        if j.scalar && j.depth == 0 {
            if ws || matches!(b, b'{' | b'[' | b'"') {
                self.cut(bytes, run_start, i);
                self.json.scalar = false;
                self.end_json_value();
                return i;
            }
            return i + 1;
        }
        // Inside a List's items array (depth 2 is the array itself).
        let in_items = self.json.depth >= 2 && self.list.as_ref().is_some_and(|l| !l.closed);
        if in_items {
            let j = &mut self.json;
            let item_open = self.list.as_ref().is_some_and(|l| l.item.is_some());
            if j.depth == 2 && !item_open {
                if ws || b == b',' {
                    return i + 1;
                }
                self.drop_run(bytes, run_start, i);
                if b == b']' {
                    // The end of the items: the skeleton goes on after `[`, with `]`.
                    self.json.depth = 1;
                    if let Some(list) = &mut self.list {
                        list.closed = true;
                    }
                    return i + 1;
                }
                // An item starts here.
                if let Some(list) = &mut self.list {
                    list.item = Some(Gather::new(self.line, self.column));
                }
                let j = &mut self.json;
                match b {
                    b'{' | b'[' => j.depth = 3,
                    b'"' => {
                        j.item_scalar = true;
                        j.in_string = true;
                    }
                    _ => j.item_scalar = true,
                }
                return i + 1;
            }
            if j.depth == 2 && j.item_scalar {
                if ws || b == b',' || b == b']' {
                    self.end_json_item(bytes, run_start, i);
                    return i;
                }
                return i + 1;
            }
            match b {
                b'"' => j.in_string = true,
                b'{' | b'[' => j.depth += 1,
                b'}' | b']' => {
                    j.depth = j.depth.saturating_sub(1);
                    if j.depth == 2 {
                        self.end_json_item(bytes, run_start, i + 1);
                    }
                }
                _ => {}
            }
            return i + 1;
        }
        let j = &mut self.json;
        if j.await_items && !ws {
            j.await_items = false;
            if b == b'[' && j.depth == 1 {
                // A List: the skeleton takes the text so far and `[`; the items go apart.
                self.cut(bytes, run_start, i + 1);
                let doc = self.doc.take().unwrap_or_default();
                if !doc.too_large {
                    self.list = Some(List {
                        items_line: self.line,
                        skeleton: doc,
                        ..List::default()
                    });
                    self.doc = Some(Gather::new(0, 0));
                    self.json.depth = 2;
                    return i + 1;
                }
                self.doc = Some(doc);
            }
        }
        let j = &mut self.json;
        match b {
            b'"' => {
                j.in_string = true;
                j.key.clear();
            }
            b':' if j.depth == 1 && j.items_key => {
                j.await_items = true;
                j.items_key = false;
            }
            b'{' | b'[' => {
                j.depth += 1;
                j.items_key = false;
            }
            b'}' | b']' => {
                j.depth = j.depth.saturating_sub(1);
                if j.depth == 0 {
                    self.cut(bytes, run_start, i + 1);
                    self.end_json_value();
                }
            }
            _ if !ws => j.items_key = false,
            _ => {}
        }
        i + 1
    }

    fn end_json_item(&mut self, bytes: &[u8], run_start: &mut usize, upto: usize) {
        self.cut(bytes, run_start, upto);
        self.json.item_scalar = false;
        if let Some(list) = &mut self.list
            && let Some(item) = list.item.take()
        {
            self.out.push(item.into_piece(Some(list.count), true));
            list.count += 1;
        }
    }

    fn end_json_value(&mut self) {
        self.json = Json::default();
        if let Some(mut list) = self.list.take() {
            if let Some(item) = list.item.take() {
                self.out.push(item.into_piece(Some(list.count), true));
                list.count += 1;
            }
            self.doc = None;
            self.out.push(list_end(list, true));
            return;
        }
        if let Some(doc) = self.doc.take() {
            self.out.push(doc.into_piece(None, true));
        }
    }
}

fn list_end(list: List, json: bool) -> Piece {
    let skeleton = list.skeleton;
    if skeleton.too_large {
        return Piece::TooLarge {
            line: skeleton.line,
            column: skeleton.column,
            bytes: skeleton.bytes,
            item: None,
        };
    }
    Piece::ListEnd {
        skeleton: skeleton.text,
        line: skeleton.line,
        column: skeleton.column,
        json,
        items_line: list.items_line,
        removed_lines: list.removed_lines,
        items: list.count,
    }
}

/// A YAML line `items:` at column 0, nothing after it but white space or a comment.
fn is_items_key(line: &[u8]) -> bool {
    line.strip_prefix(b"items:").is_some_and(|rest| {
        let rest = String::from_utf8_lossy(rest);
        let rest = rest.trim();
        rest.is_empty() || rest.starts_with('#')
    })
}

/// kubectl's sniff over the head of the stream: Some(true) JSON, Some(false) YAML, None: not
/// enough bytes yet (`end`: there are no more).
fn sniff(head: &[u8], end: bool) -> Option<bool> {
    let text = String::from_utf8_lossy(head.get(..SNIFF_BYTES.min(head.len())).unwrap_or(&[]));
    match text.char_indices().find(|(_, c)| !c.is_whitespace()) {
        Some((at, c)) => Some(c == '{' && at < SNIFF_BYTES),
        None if end || head.len() >= SNIFF_BYTES => Some(false),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str, chunk: usize) -> Vec<Piece> {
        let mut s = Splitter::new();
        let mut out = Vec::new();
        for c in text.as_bytes().chunks(chunk) {
            out.extend(s.push(c));
        }
        out.extend(s.finish());
        out
    }

    fn doc(text: &str, line: u32, column: u32, json: bool) -> Piece {
        Piece::Document {
            text: text.as_bytes().to_vec(),
            line,
            column,
            json,
            separated: false,
        }
    }

    fn sep(text: &str, line: u32) -> Piece {
        Piece::Document {
            text: text.as_bytes().to_vec(),
            line,
            column: 1,
            json: false,
            separated: true,
        }
    }

    #[test]
    fn yaml_is_cut_at_separator_lines() {
        for chunk in [1, 3, 100] {
            assert_eq!(
                split("a: 1\n---\n# c\nb: 2\n--- # x\n---\nc: 3", chunk),
                vec![
                    sep("a: 1\n", 1),
                    sep("# c\nb: 2\n", 3),
                    doc("---\nc: 3", 6, 1, false)
                ]
            );
        }
        assert_eq!(
            split("a: 1\n--- x\nb: 2\n", 2).first(),
            Some(&Piece::Separator {
                doc_line: 1,
                sep_line: 2,
                rest: "x".to_owned(),
                swallowed: true
            })
        );
    }

    #[test]
    fn json_values_are_cut_with_their_positions() {
        for chunk in [1, 5, 100] {
            assert_eq!(
                split(
                    " {\"a\": \"}{\\\"\"}{\"b\": [1]}\n  {\"c\": {}} 42 \"s\"",
                    chunk
                ),
                vec![
                    doc("{\"a\": \"}{\\\"\"}", 1, 2, true),
                    doc("{\"b\": [1]}", 1, 15, true),
                    doc("{\"c\": {}}", 2, 3, true),
                    doc("42", 2, 13, true),
                    doc("\"s\"", 2, 16, true),
                ]
            );
        }
    }

    #[test]
    fn a_json_list_comes_item_by_item() {
        let text = "{\"kind\": \"List\", \"items\": [\n {\"a\": [1, {\"items\": []}]},\n {\"b\": \"]\"}\n], \"x\": [1]}";
        for chunk in [1, 4, 1000] {
            let pieces = split(text, chunk);
            assert_eq!(
                pieces,
                vec![
                    Piece::Item {
                        index: 0,
                        text: b"{\"a\": [1, {\"items\": []}]}".to_vec(),
                        line: 2,
                        column: 2,
                        json: true
                    },
                    Piece::Item {
                        index: 1,
                        text: b"{\"b\": \"]\"}".to_vec(),
                        line: 3,
                        column: 2,
                        json: true
                    },
                    Piece::ListEnd {
                        skeleton: b"{\"kind\": \"List\", \"items\": [], \"x\": [1]}".to_vec(),
                        line: 1,
                        column: 1,
                        json: true,
                        items_line: 1,
                        removed_lines: 3,
                        items: 2
                    }
                ],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn a_yaml_list_comes_item_by_item_with_the_dash_blanked() {
        let text = "apiVersion: v1\nitems:\n- a: 1\n  b:\n  - 2\n\n-   c: 3\nkind: List\n";
        let pieces = split(text, 3);
        assert_eq!(
            pieces,
            vec![
                Piece::Item {
                    index: 0,
                    text: b"  a: 1\n  b:\n  - 2\n\n".to_vec(),
                    line: 3,
                    column: 1,
                    json: false
                },
                Piece::Item {
                    index: 1,
                    text: b"    c: 3\n".to_vec(),
                    line: 7,
                    column: 1,
                    json: false
                },
                Piece::ListEnd {
                    skeleton: b"apiVersion: v1\nitems: []\nkind: List\n".to_vec(),
                    line: 1,
                    column: 1,
                    json: false,
                    items_line: 2,
                    removed_lines: 5,
                    items: 2
                }
            ]
        );
        // `items:` holding a mapping is no List.
        assert_eq!(
            split("items:\n\n  a: 1\nkind: X\n", 4),
            vec![doc("items:\n\n  a: 1\nkind: X\n", 1, 1, false)]
        );
    }

    #[test]
    fn objects_over_the_limit_are_passed_over_in_bounded_memory() {
        let long = "x".repeat(MAX_OBJECT_BYTES + 1);
        let text = format!("a: {long}\n---\nb: 1\n");
        let pieces = split(&text, 1 << 16);
        assert!(matches!(
            pieces.first(),
            Some(Piece::TooLarge {
                line: 1,
                item: None,
                ..
            })
        ));
        assert_eq!(pieces.get(1), Some(&doc("b: 1\n", 3, 1, false)));
        let text = format!("{{\"a\": \"{long}\"}} {{\"b\": 1}}");
        let pieces = split(&text, 1 << 16);
        assert!(matches!(
            pieces.first(),
            Some(Piece::TooLarge { item: None, .. })
        ));
        assert_eq!(
            pieces.get(1),
            Some(&doc("{\"b\": 1}", 1, MAX_OBJECT_BYTES as u32 + 12, true))
        );
    }
}
