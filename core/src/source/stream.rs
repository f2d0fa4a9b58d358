//! A file or standard input read as kubectl reads it: one document at a time.
//!
//! kubectl (`resource.StreamVisitor`, k8s.io/cli-runtime) reads a stream with apimachinery's
//! `YAMLOrJSONDecoder` (k8s.io/apimachinery/pkg/util/yaml/decoder.go) and stops at the first
//! error that decoder returns; an object it decoded but cannot use (no kind, not an object) is
//! an error of that object alone. The decoder:
//!
//! - looks at the first 4096 bytes: when the first of them that is not Unicode white space is
//!   `{`, the stream is JSON, read value after value by Go's `json.Decoder` (`{..}{..}`,
//!   `{..}\n{..}`, any JSON white space between them, any JSON value);
//! - otherwise the stream is YAML, cut into documents by its own line splitter before anything
//!   is parsed: a line that starts with `---` ends a document, and may go on only with white
//!   space or a `#` comment; each piece is then read alone by go-yaml (`yaml.Unmarshal`, only
//!   its first YAML document);
//! - when the JSON decoder fails before it has read two values, the rest of the stream (from
//!   the end of the last value, after the white space up to and including the next newline) is
//!   read as YAML instead; if its first YAML document fails too, the JSON error is the answer.
//!   After two JSON values a JSON error is final.
//!
//! Documents that hold nothing (empty, only comments, `null`) are passed over, as kubectl does.
//!
//! What stops kubectl: a YAML document go-yaml cannot read (a syntax error, an alias to nothing,
//! a value its tag refuses, …), a bad `---` line, a JSON syntax error. The documents before it
//! are applied, none after. A key written twice does not stop it (kubectl's decoder is not
//! strict and keeps the last value); restartkit reports it as an error of that document alone,
//! the strict reading the API server gives a YAML body. Where kubectl stops but the splitter can
//! still find the next documents (YAML), restartkit reads and validates them anyway, and the
//! error says kubectl will not; after a JSON syntax error nothing more can be read.

use super::document::Document;
use super::piece::parse_text;
use super::types::{Mode, Offset, move_diagnostic};
use crate::diag::{Diagnostic, Severity};
use serde::de::IgnoredAny;

/// How far into the stream kubectl looks for the `{` of a JSON stream (`StreamVisitor`).
const SNIFF_BYTES: usize = 4096;

/// A document kubectl's decoder or the strict reading refuses.
#[derive(Debug, Clone)]
pub struct BrokenDocument {
    /// 0-based index among the stream's documents, read or broken.
    pub index: usize,
    /// 1-based line where the document starts.
    pub line: u32,
    /// The error, naming the document (its index and first line) and, when it stops kubectl,
    /// saying so. Its `document` is `index`.
    pub error: Diagnostic,
    /// kubectl stops reading the stream here: it applies the documents before this one and
    /// none after.
    pub stops_kubectl: bool,
}

/// Parses YAML or JSON text with one or more documents, as kubectl reads a file (see
/// [`read_stream`]). Empty documents are skipped. The first document that cannot be read is the
/// error; [`read_stream`] gives every document and every error.
pub fn parse_documents(text: &str) -> Result<Vec<Document>, Diagnostic> {
    let mut docs = Vec::new();
    for entry in read_stream(text) {
        docs.push(entry.map_err(|b| b.error)?);
    }
    Ok(docs)
}

/// Every document of a YAML or JSON stream in order, each read or refused on its own, as the
/// newest modelled kubectl reads it.
pub fn read_stream(text: &str) -> Vec<Result<Document, BrokenDocument>> {
    read_stream_at(text, crate::features::NEWEST_MINOR)
}

/// [`read_stream`] as kubectl 1.`minor` reads it: before 1.33 (apimachinery v0.32 and older) a
/// stream whose first character is `{` is JSON to the end, and a JSON error is final; from 1.33
/// the decoder turns to YAML when JSON fails before a second value.
pub fn read_stream_at(text: &str, minor: u32) -> Vec<Result<Document, BrokenDocument>> {
    let mut out = Reader {
        yaml_after_bad_json: crate::versions::Change::YamlAfterBadJson.at(minor),
        ..Reader::default()
    };
    if looks_like_json(text) {
        out.json(text);
    } else {
        out.yaml(text, 0, false);
    }
    let total = out.entries.len();
    let mut first_stop = None;
    for (entry, stop) in out.entries.iter_mut().zip(out.stops) {
        if let (Err(b), Some(stop)) = (entry, stop) {
            match first_stop {
                None => {
                    b.error.message.push_str(&stop.note(b.index, total));
                    first_stop = Some(b.index);
                }
                Some(first) => b.error.message.push_str(&format!(
                    "; kubectl would stop reading here too, had it not stopped at document {first}"
                )),
            }
        }
    }
    out.entries
}

/// One piece of a stream read in bounded memory (`chunked::Splitter`): a YAML piece of
/// kubectl's splitter or one JSON value, starting at 1-based `line` and `column` of the stream,
/// its documents numbered from `first_index`. Read as [`read_stream`] reads that piece; an error
/// that stops kubectl says so without counting the documents after it (not known yet).
/// `separated`: a `---` line ends the YAML piece (an error at its end is then said at the end
/// of its last line, as [`read_stream`] says it).
pub fn read_piece(
    text: &str,
    json: bool,
    separated: bool,
    line: u32,
    column: u32,
    first_index: usize,
) -> Vec<Result<Document, BrokenDocument>> {
    let mut r = Reader {
        base_lines: line.saturating_sub(1),
        base_index: first_index,
        ..Reader::default()
    };
    if json {
        let offset = Offset {
            lines: line.saturating_sub(1),
            columns: column.saturating_sub(1),
        };
        let mode = Mode {
            json: true,
            ..Mode::default()
        };
        match parse_text(text, mode, offset) {
            Ok(docs) => r.read(docs),
            Err(e) => {
                // apimachinery v0.33's fall back, as `read_stream` makes it: a value that fails
                // before a second one is read as YAML (here the value alone: the pieces after
                // it are read on their own).
                let mut yaml = Reader {
                    base_lines: r.base_lines,
                    base_index: first_index,
                    ..Reader::default()
                };
                if first_index <= 1 && column == 1 && yaml.yaml(text, 0, true) {
                    r = yaml;
                } else {
                    let stop = (e.code.as_deref() == Some("syntax")).then_some(Stop::Json);
                    r.broken(line, e, stop);
                }
            }
        }
    } else if separated {
        let mut first = false;
        r.chunk(&format!("{text}---\n"), 0, text.len(), &mut first);
    } else {
        let mut first = false;
        r.chunk(text, 0, text.len(), &mut first);
    }
    for (entry, stop) in r.entries.iter_mut().zip(r.stops) {
        if let (Err(b), Some(_)) = (entry, stop) {
            let applied = match b.index {
                0 => "applies nothing from this stream".to_owned(),
                n => format!("applies the {n} document(s) before it"),
            };
            b.error.message.push_str(&format!(
                "; kubectl stops reading at this document: it {applied} and none after it (restartkit still validates them)"
            ));
        }
    }
    r.entries
}

/// An item of a List read in bounded memory, from 1-based `line` and `column` of the stream: a
/// JSON value, or a YAML block sequence entry with its `-` blanked (one YAML document is read,
/// as go-yaml reads one).
pub fn read_item(
    text: &str,
    json: bool,
    line: u32,
    column: u32,
) -> Result<Vec<Document>, Diagnostic> {
    let offset = Offset {
        lines: line.saturating_sub(1),
        columns: column.saturating_sub(1),
    };
    let mode = Mode {
        json,
        first_only: !json,
        ..Mode::default()
    };
    parse_text(text, mode, offset)
}

/// A `---` line with more than a comment after it, met while reading a stream in bounded
/// memory: the error [`read_stream`] gives, as document `index`.
pub fn separator_error(
    doc_line: u32,
    sep_line: u32,
    rest: &str,
    swallowed: bool,
    index: usize,
) -> BrokenDocument {
    let mut r = Reader {
        base_index: index,
        ..Reader::default()
    };
    let error = Diagnostic::request(
        "syntax",
        "",
        format!(
            "line {sep_line} column 1: invalid Yaml document separator: {rest} (kubectl allows only spaces or a comment after ---)"
        ),
    )
    .at(sep_line, 1);
    r.broken(doc_line, error, Some(Stop::Separator { swallowed }));
    let mut b = r
        .entries
        .pop()
        .and_then(Result::err)
        .unwrap_or(BrokenDocument {
            index,
            line: doc_line,
            error: Diagnostic::request("syntax", "", "invalid Yaml document separator"),
            stops_kubectl: true,
        });
    b.error.message.push_str(&format!(
        "; kubectl stops reading at this line{}: it applies the documents before it and none after it (restartkit still validates them)",
        if swallowed {
            ", without decoding the document above it"
        } else {
            ""
        }
    ));
    b
}

/// Why kubectl stops at a broken document, said at the end of its error once the stream's
/// length is known.
#[derive(Clone, Copy)]
enum Stop {
    /// go-yaml cannot read the document.
    Yaml,
    /// A `---` line with more than a comment after it; `swallowed`: the document above it,
    /// which kubectl never decodes.
    Separator { swallowed: bool },
    /// A JSON syntax error: nothing after it can be read.
    Json,
}

impl Stop {
    fn note(self, index: usize, total: usize) -> String {
        let after = total.saturating_sub(index + 1);
        let applied = match index {
            0 => "applies nothing from this stream".to_owned(),
            n => format!("applies the {n} document(s) before it"),
        };
        let rest = match after {
            0 => String::new(),
            n => format!(" and none of the {n} after it (restartkit still validates them)"),
        };
        match self {
            Stop::Yaml => format!("; kubectl stops reading at this document: it {applied}{rest}"),
            Stop::Separator { swallowed } => format!(
                "; kubectl stops reading at this line{}: it {applied}{rest}",
                if swallowed {
                    ", without decoding the document above it"
                } else {
                    ""
                }
            ),
            Stop::Json => format!(
                "; kubectl stops reading here: it {applied}, and the rest of the stream cannot be read"
            ),
        }
    }
}

/// kubectl's sniff (`GuessJSONStream`, `hasPrefix`): within the first 4096 bytes, the first
/// character that is not white space (Go's `unicode.IsSpace`, Unicode's White_Space as Rust's
/// `char::is_whitespace`) is `{`.
fn looks_like_json(text: &str) -> bool {
    text.char_indices()
        .find(|(_, c)| !c.is_whitespace())
        .is_some_and(|(at, c)| c == '{' && at < SNIFF_BYTES)
}

/// Lines and columns of byte offsets asked in increasing order, counted once over the text
/// (a stream of 10,000 objects on one line must not be rescanned for each).
#[derive(Clone, Copy)]
struct Cursor {
    at: usize,
    line: u32,
    /// 1-based column, in characters, of `at`.
    column: u32,
}

impl Default for Cursor {
    fn default() -> Self {
        Cursor {
            at: 0,
            line: 1,
            column: 1,
        }
    }
}

impl Cursor {
    /// The 1-based line and column of byte offset `to`.
    fn seek(&mut self, text: &str, to: usize) -> (u32, u32) {
        if to < self.at {
            *self = Cursor::default();
        }
        for c in text.get(self.at..to).unwrap_or("").chars() {
            if c == '\n' {
                self.line = self.line.saturating_add(1);
                self.column = 1;
            } else {
                self.column = self.column.saturating_add(1);
            }
        }
        self.at = to;
        (self.line, self.column)
    }
}

#[derive(Default)]
struct Reader {
    /// apimachinery v0.33's fallback: JSON that fails before its second value is read as YAML.
    yaml_after_bad_json: bool,
    entries: Vec<Result<Document, BrokenDocument>>,
    /// Per entry: why kubectl stops there, if it does.
    stops: Vec<Option<Stop>>,
    cursor: Cursor,
    /// A piece read alone (`read_piece`): the lines before it in the stream.
    base_lines: u32,
    /// And the documents before it.
    base_index: usize,
}

impl Reader {
    fn next_index(&self) -> usize {
        self.base_index + self.entries.len()
    }

    /// The 1-based line of byte offset `at`.
    fn line_of(&mut self, text: &str, at: usize) -> u32 {
        self.cursor.seek(text, at).0 + self.base_lines
    }

    fn broken(&mut self, line: u32, mut error: Diagnostic, stop: Option<Stop>) {
        let index = self.next_index();
        let stops_kubectl = stop.is_some();
        self.stops.push(stop);
        error.message = format!("document {index} (from line {line}): {}", error.message);
        error.document = Some(index);
        error.severity = Severity::Error;
        self.entries.push(Err(BrokenDocument {
            index,
            line,
            error,
            stops_kubectl,
        }));
    }

    fn read(&mut self, docs: Vec<Document>) {
        for mut d in docs {
            d.index = self.next_index();
            self.stops.push(None);
            self.entries.push(Ok(d));
        }
    }

    /// Kubectl's YAML splitter over `text[from..]`. With `after_json`, this is the fallback
    /// after a failed JSON value: the first document's failure is `json_error` instead.
    /// Returns false when that first document failed (the JSON error stands, the caller
    /// reports it).
    fn yaml(&mut self, text: &str, from: usize, after_json: bool) -> bool {
        let mut chunk_start: Option<usize> = None;
        let mut first = after_json;
        let mut at = from;
        while at < text.len() {
            let rest = text.get(at..).unwrap_or("");
            let line_len = rest.find('\n').map_or(rest.len(), |i| i + 1);
            let line = rest.get(..line_len).unwrap_or(rest);
            if let Some(after) = line.strip_prefix("---") {
                let trimmed = after.trim();
                if !trimmed.is_empty() && !trimmed.starts_with('#') {
                    // kubectl returns this error instead of the document above the line, which
                    // it never decodes.
                    if first {
                        return false;
                    }
                    let doc_line = self.line_of(text, chunk_start.unwrap_or(at));
                    let sep_line = self.line_of(text, at);
                    let error = Diagnostic::request(
                        "syntax",
                        "",
                        format!(
                            "line {sep_line} column 1: invalid Yaml document separator: {trimmed} (kubectl allows only spaces or a comment after ---)"
                        ),
                    )
                    .at(sep_line, 1);
                    self.broken(
                        doc_line,
                        error,
                        Some(Stop::Separator {
                            swallowed: chunk_start.is_some(),
                        }),
                    );
                    chunk_start = None;
                    at += line_len;
                    continue;
                }
                match chunk_start.take() {
                    Some(start) => {
                        // The line ends the piece above it and is read no further.
                        if !self.chunk(text, start, at, &mut first) {
                            return false;
                        }
                        at += line_len;
                        continue;
                    }
                    // With nothing above it, kubectl's splitter keeps the line: it opens the
                    // next piece (go-yaml then reads it as a document start).
                    None => chunk_start = Some(at),
                }
                at += line_len;
                continue;
            }
            chunk_start.get_or_insert(at);
            // The lines up to the next `---` line only belong to this piece: skipped at once.
            at = rest
                .find("\n---")
                .map_or(text.len(), |i| at + i + 1)
                .max(at + line_len);
        }
        if let Some(start) = chunk_start {
            return self.chunk(text, start, text.len(), &mut first);
        }
        true
    }

    /// One piece of the YAML splitter, `text[start..end]`.
    fn chunk(&mut self, text: &str, start: usize, end: usize, first: &mut bool) -> bool {
        let piece = text.get(start..end).unwrap_or("");
        let line = self.line_of(text, start);
        let offset = Offset {
            lines: line - 1,
            columns: 0,
        };
        let mode = Mode {
            first_only: true,
            ..Mode::default()
        };
        let after_json = std::mem::take(first);
        match parse_text(piece, mode, offset) {
            Ok(docs) => self.read(docs),
            Err(mut e) => {
                // The end of the piece is where the parser found it missing; when a `---` line
                // follows, said at the end of the piece's last line rather than on that line (at
                // the end of the text, the line after the last one, as YAML parsers say it).
                let last_line = piece.trim_end_matches('\n');
                let lines = u32::try_from(last_line.split('\n').count()).unwrap_or(u32::MAX);
                if end < text.len() && e.line.is_some_and(|l| l > offset.lines + lines) {
                    let tail = last_line.rsplit('\n').next().unwrap_or("");
                    let column = u32::try_from(tail.trim_end_matches('\r').chars().count())
                        .unwrap_or(u32::MAX);
                    move_diagnostic(&mut e, offset.lines + lines, column.saturating_add(1));
                }
                let stops = stops_kubectl(piece, mode, &e);
                if after_json && stops {
                    return false;
                }
                let line = first_line_of_content(piece).map_or(line, |l| l + offset.lines);
                self.broken(line, e, stops.then_some(Stop::Yaml));
            }
        }
        true
    }

    /// Kubectl's JSON stream decoder, with its fall back to YAML.
    fn json(&mut self, text: &str) {
        // Where the current serde_json stream starts: it starts again after a value Go's
        // decoder ends earlier than serde_json does (see `go_scalar_end`).
        let mut base = 0usize;
        let mut values = serde_json::Deserializer::from_str(text).into_iter::<IgnoredAny>();
        let mut decoded = 0usize;
        let mut end = 0usize;
        loop {
            let start = end;
            let next = match values.next() {
                None => return,
                Some(Ok(IgnoredAny)) => Ok(base + values.byte_offset()),
                Some(Err(e)) => match go_scalar_end(text, start, base, &e) {
                    Some(value_end) => {
                        base = value_end;
                        values = serde_json::Deserializer::from_str(text.get(base..).unwrap_or(""))
                            .into_iter::<IgnoredAny>();
                        Ok(value_end)
                    }
                    None => Err(e),
                },
            };
            match next {
                Ok(value_end) => {
                    decoded += 1;
                    end = value_end;
                    let raw = text.get(start..end).unwrap_or("");
                    let skipped = raw.len() - raw.trim_start_matches([' ', '\t', '\r', '\n']).len();
                    let value_start = start + skipped;
                    let raw = raw.get(skipped..).unwrap_or("");
                    let (line, column) = self.cursor.seek(text, value_start);
                    let offset = Offset {
                        lines: line - 1,
                        columns: column - 1,
                    };
                    let mode = Mode {
                        json: true,
                        ..Mode::default()
                    };
                    match parse_text(raw, mode, offset) {
                        Ok(docs) => self.read(docs),
                        Err(e) => {
                            self.broken(line, e, None);
                        }
                    }
                }
                Err(e) => {
                    let (line, column) = absolute(text, base, &e);
                    if self.yaml_after_bad_json && decoded <= 1 && self.yaml_after_json(text, end) {
                        return;
                    }
                    let error = Diagnostic::request(
                        "syntax",
                        "",
                        format!(
                            "line {line} column {column}: invalid JSON: {}",
                            serde_message(&e)
                        ),
                    )
                    .at(line, column);
                    let (doc_line, _) = self.cursor.seek(
                        text,
                        end + text.get(end..).map_or(0, |r| {
                            r.len() - r.trim_start_matches([' ', '\t', '\r', '\n']).len()
                        }),
                    );
                    self.broken(doc_line, error, Some(Stop::Json));
                    return;
                }
            }
        }
    }

    /// The decoder's fall back: from `end` (after the last JSON value), white space up to and
    /// including the first newline is passed over and the rest read as YAML. False when its
    /// first document fails too (the JSON error stands); the entries it added are then removed.
    fn yaml_after_json(&mut self, text: &str, end: usize) -> bool {
        // The decoder reads this white space 4 bytes at a time and gives up (the JSON error
        // stands) when fewer than 4 are left, even before a character that is not white space.
        let mut from = end;
        loop {
            if text.len().saturating_sub(from) < 4 {
                return false;
            }
            let Some(c) = text.get(from..).and_then(|r| r.chars().next()) else {
                return false;
            };
            if !c.is_whitespace() {
                break;
            }
            from += c.len_utf8();
            if c == '\n' {
                break;
            }
        }
        let kept = self.entries.len();
        if self.yaml(text, from, true) {
            true
        } else {
            self.entries.truncate(kept);
            self.stops.truncate(kept);
            false
        }
    }
}

/// The (line, column) of a serde_json error of the stream that starts at byte `base`.
fn absolute(text: &str, base: usize, e: &serde_json::Error) -> (u32, u32) {
    let (line, column) = (e.line(), e.column());
    let before = text.get(..base).unwrap_or("");
    let base_line = before.matches('\n').count();
    let base_column = before.rsplit('\n').next().map_or(0, |l| l.chars().count());
    let (line, column) = if line <= 1 {
        (base_line + 1, base_column + column)
    } else {
        (base_line + line, column)
    };
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

/// serde_json's message without the position it appends (the diagnostic says it).
fn serde_message(e: &serde_json::Error) -> String {
    let m = e.to_string();
    match m.rsplit_once(" at line ") {
        Some((head, _)) => head.to_owned(),
        None => m,
    }
}

/// Go's JSON decoder ends a number or a literal at the first byte that cannot continue it
/// (`true42` is `true` then `42`, `01` is `0` then `1`), where serde_json wants white space or
/// a delimiter after it. When serde_json fails at a byte that follows such a complete value
/// (from `start`, after white space), the byte offset where Go's value ends.
fn go_scalar_end(text: &str, start: usize, base: usize, e: &serde_json::Error) -> Option<usize> {
    let (line, column) = (e.line(), e.column());
    let slice = text.get(base..)?;
    let line_start = if line <= 1 {
        0
    } else {
        slice.match_indices('\n').nth(line - 2)?.0 + 1
    };
    // serde_json counts columns in bytes; the error is at the byte after the value.
    let at = base + line_start + column.checked_sub(1)?;
    let candidate = text
        .get(start..at)?
        .trim_start_matches([' ', '\t', '\r', '\n']);
    let number = |s: &str| {
        let s = s.strip_prefix('-').unwrap_or(s);
        let (int, rest) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
        let int_ok = int == "0" || (!int.is_empty() && !int.starts_with('0'));
        let rest = match rest.strip_prefix('.') {
            Some(r) => {
                let digits = r.len() - r.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                if digits == 0 {
                    return false;
                }
                r.get(digits..).unwrap_or("")
            }
            None => rest,
        };
        let rest = match rest.strip_prefix(['e', 'E']) {
            Some(r) => {
                let r = r.strip_prefix(['+', '-']).unwrap_or(r);
                if r.is_empty() || !r.chars().all(|c| c.is_ascii_digit()) {
                    return false;
                }
                ""
            }
            None => rest,
        };
        int_ok && rest.is_empty()
    };
    let complete = matches!(candidate, "true" | "false" | "null") || number(candidate);
    (complete && at > start).then_some(at)
}

/// Whether an error of a YAML document stops kubectl: everything but a key written twice,
/// which its non-strict decoder reads (the last value wins), unless the document has another
/// error too. A null key or a number beyond float64 stops it only when it is still there once
/// every key written twice has its last value: go-yaml replaces the earlier values before the
/// document is converted to JSON, the one step that refuses them.
fn stops_kubectl(piece: &str, mode: Mode, e: &Diagnostic) -> bool {
    if !matches!(
        e.code.as_deref(),
        Some("duplicate-key" | "invalid-key" | "invalid-number")
    ) {
        return true;
    }
    let lenient = Mode {
        lenient_keys: true,
        ..mode
    };
    parse_text(piece, lenient, Offset::default()).is_err()
}

/// The 1-based line (within the piece) of its first line that holds more than white space or a
/// comment: where a document starts for a reader.
fn first_line_of_content(piece: &str) -> Option<u32> {
    piece
        .lines()
        .position(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#') && !l.starts_with("---")
        })
        .and_then(|i| u32::try_from(i + 1).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// Per entry: the value, or (code, line, stops kubectl).
    fn read(text: &str) -> Vec<Result<Value, (String, u32, bool)>> {
        read_stream(text)
            .into_iter()
            .map(|e| match e {
                Ok(d) => Ok(d.value),
                Err(b) => Err((
                    b.error.code.clone().unwrap_or_default(),
                    b.error.line.unwrap_or(0),
                    b.stops_kubectl,
                )),
            })
            .collect()
    }

    #[test]
    fn concatenated_json_objects_are_read_one_by_one() {
        for text in [
            "{\"a\":1}{\"b\":2}",
            "{\"a\":1}\n{\"b\":2}\n",
            "  \n\t{\"a\":1}  \r\n\n   {\"b\":2}",
        ] {
            assert_eq!(
                read(text),
                vec![Ok(json!({"a": 1})), Ok(json!({"b": 2}))],
                "{text:?}"
            );
        }
        // Go's decoder ends a literal or a number where it cannot go on: `true42` is two values.
        assert_eq!(
            read("{\"a\":1}\n{\"b\":2}\ntrue42 01"),
            vec![
                Ok(json!({"a": 1})),
                Ok(json!({"b": 2})),
                Ok(json!(true)),
                Ok(json!(42)),
                Ok(json!(0)),
                Ok(json!(1))
            ]
        );
        // null values are passed over; other values are documents (refused later as objects).
        assert_eq!(
            read("{\"a\":1} null [1] 42"),
            vec![Ok(json!({"a": 1})), Ok(json!([1])), Ok(json!(42))]
        );
    }

    #[test]
    fn positions_of_json_objects_sharing_a_line() {
        let docs = read_stream("{\"a\":1} {\"b\": {\"c\": 2}}\n{\"d\":3}");
        let pos: Vec<(usize, u32, (u32, u32))> = docs
            .iter()
            .flatten()
            .map(|d| {
                let field = d
                    .value
                    .as_object()
                    .and_then(|m| m.keys().next())
                    .cloned()
                    .unwrap_or_default();
                (d.index, d.line, d.position_of(&field))
            })
            .collect();
        assert_eq!(pos, vec![(0, 1, (1, 2)), (1, 1, (1, 10)), (2, 2, (2, 2))]);
    }

    #[test]
    fn a_json_syntax_error_after_two_objects_stops_the_stream() {
        let r = read("{\"a\":1}\n{\"b\":2}\n{\"c\":}\n{\"d\":4}\n");
        assert_eq!(r.len(), 3);
        assert_eq!(r.get(2), Some(&Err(("syntax".to_owned(), 3, true))));
        let e = read_stream("{\"a\":1}\n{\"b\":2}\n{\"c\":}\n").pop();
        let message = e.and_then(Result::err).map(|b| b.error.message);
        assert!(
            message
                .as_deref()
                .is_some_and(|m| m.starts_with("document 2 (from line 3): line 3 column 6:")),
            "{message:?}"
        );
    }

    /// Before two JSON values, a failure hands the rest of the stream to the YAML reader.
    #[test]
    fn json_falls_back_to_yaml_before_two_values() {
        assert_eq!(
            read("{\"a\":1}\n---\nb: 2\n---\nc: 3\n"),
            vec![
                Ok(json!({"a": 1})),
                Ok(json!({"b": 2})),
                Ok(json!({"c": 3}))
            ]
        );
        // `{a: 1}` is not JSON but is YAML: read from the start as YAML.
        assert_eq!(
            read("{a: 1}\n---\n{b: 2}\n"),
            vec![Ok(json!({"a": 1})), Ok(json!({"b": 2}))]
        );
        // Text on the next line after one object is a YAML document of its own.
        assert_eq!(
            read("{\"a\":1}\nxyz"),
            vec![Ok(json!({"a": 1})), Ok(json!("xyz"))]
        );
        // The decoder reads the white space before it 4 bytes at a time and gives up when
        // fewer are left: the JSON error stands (apimachinery's consumeWhitespace).
        assert_eq!(
            read("{\"a\":1} xyz"),
            vec![Ok(json!({"a": 1})), Err(("syntax".to_owned(), 1, true))]
        );
        // When the YAML reading fails too, the JSON error stands.
        let r = read("{\"a\":1}\n{\"b\": [}\n");
        assert_eq!(r.len(), 2);
        assert_eq!(r.get(1), Some(&Err(("syntax".to_owned(), 2, true))));
    }

    #[test]
    fn a_broken_yaml_document_is_an_error_of_its_own() {
        let r = read("a: 1\n---\nb: [\n---\nc: 3\n");
        assert_eq!(
            r,
            vec![
                Ok(json!({"a": 1})),
                // The parser misses the `]` at the end of the piece: said at the end of line 3,
                // not on the `---` line after it.
                Err(("syntax".to_owned(), 3, true)),
                Ok(json!({"c": 3}))
            ]
        );
        // A key written twice: kubectl reads on, restartkit refuses that document alone.
        let r = read("a: 1\n---\nb: 1\nb: 2\n---\nc: 3\n");
        assert_eq!(r.get(1), Some(&Err(("duplicate-key".to_owned(), 4, false))));
        assert_eq!(r.get(2), Some(&Ok(json!({"c": 3}))));
        // A duplicate and a syntax error in one document: the syntax error stops kubectl.
        let r = read("b: 1\nb: 2\nc: [\n---\nd: 1\n");
        assert_eq!(
            r.first().map(|e| e.as_ref().err().map(|x| x.2)),
            Some(Some(true))
        );
        let first = read_stream("a: 1\n---\n# c\nb: 1\nb: 2\n").pop();
        let b = first.and_then(Result::err);
        assert_eq!(
            b.as_ref().map(|b| (b.index, b.line, b.error.document)),
            Some((1, 4, Some(1)))
        );
        assert!(b.is_some_and(|b| b.error.message.starts_with(
            "document 1 (from line 4): line 5 column 1: duplicate key \"b\" in the document (first at line 4)"
        )));
    }

    #[test]
    fn a_refusal_in_a_value_replaced_by_a_later_key_does_not_stop_kubectl() {
        // go-yaml's non-strict reading replaces the first value of `a` before the conversion to
        // JSON, the only step that refuses a null key or a number beyond float64: kubectl
        // reads on. restartkit still refuses the document (strictly, as the API server would).
        for text in [
            "a:\n  ~: 1\na: 2\n---\nb: 1\n",
            "a:\n  - .5e400\na: 2\n---\nb: 1\n",
            "a:\n  x:\n    y: .nan\n  x: 1\n---\nb: 1\n",
            "a: &n {~: 1}\na: 2\n---\nb: 1\n",
        ] {
            let r = read(text);
            assert!(
                matches!(r.first(), Some(Err((_, _, false)))),
                "{text:?}: {r:?}"
            );
            assert_eq!(r.get(1), Some(&Ok(json!({"b": 1}))), "{text:?}");
        }
        // Still there once every key has its last value: the conversion refuses it, kubectl
        // stops.
        for text in [
            "a: 2\na:\n  ~: 1\n---\nb: 1\n",
            "a:\n  ~: 1\n  x: 1\n  x: 2\n---\nb: 1\n",
            "a: .inf\n---\nb: 1\n",
            "x: &n {~: 1}\na: *n\na: 2\n---\nb: 1\n",
            "x: &n {y: .inf}\ny: 1\ny: *n\n---\nb: 1\n",
        ] {
            let r = read(text);
            assert!(
                matches!(r.first(), Some(Err((_, _, true)))),
                "{text:?}: {r:?}"
            );
        }
        // go-yaml's own refusals (a tag the text does not fit) stop kubectl even in a value that
        // is replaced: go-yaml decodes the value before it replaces it.
        let r = read("a:\n  - !!int abc\na: 2\n");
        assert!(matches!(r.first(), Some(Err((_, _, true)))), "{r:?}");
    }

    #[test]
    fn a_bad_separator_swallows_the_document_above_it() {
        let r = read("a: 1\n---\nb: 2\n--- x\nc: 3\n");
        assert_eq!(
            r,
            vec![
                Ok(json!({"a": 1})),
                Err(("syntax".to_owned(), 4, true)),
                Ok(json!({"c": 3}))
            ]
        );
        let r = read_stream("a: 1\n---\nb: 2\n--- x\nc: 3\n");
        assert_eq!(
            r.get(1).and_then(|e| e.as_ref().err()).map(|b| b.line),
            Some(3),
            "the document kubectl never decodes starts at line 3"
        );
    }

    /// go-yaml reads one document of a piece and stops: what follows its root is read only as
    /// far as libyaml's scanner looks for a key's `:` (the rest of a line).
    #[test]
    fn a_piece_is_read_as_far_as_go_yaml_reads_it() {
        // `{..}{..}` that is not a JSON stream (a byte order mark first) is YAML: one document.
        assert_eq!(
            read("\u{feff}{\"a\": 1}{\"b\": 2}\n{\"c\": 3}"),
            vec![Ok(json!({"a": 1}))]
        );
        // A `}` closing nothing after the root ends the document.
        assert_eq!(read("\u{feff}{\"a\": 1} }"), vec![Ok(json!({"a": 1}))]);
        // An escape YAML 1.1 lacks on the line the scanner reads past the root is an error...
        assert_eq!(
            read("\u{feff}{\"a\": 1} {\"b\": \"x\\/y\"}\n"),
            vec![Err(("syntax".to_owned(), 1, true))]
        );
        assert_eq!(
            read("a: 1\n---\n{\"a\": 1}\n{\"b\": [\"x\\/y\"]}\n"),
            vec![Ok(json!({"a": 1})), Err(("syntax".to_owned(), 4, true))]
        );
        // ...but not past a stray `}`, where libyaml stops looking, nor on later lines.
        assert_eq!(
            read("\u{feff}{\"a\": 1}} {\"b\": \"x\\/y\"}"),
            vec![Ok(json!({"a": 1}))]
        );
        assert_eq!(
            read("\u{feff}{\"a\": 1}\n{\"b\": 1}\n{\"c\": \"x\\/y\"}"),
            vec![Ok(json!({"a": 1}))]
        );
        // An empty flow collection deletes its own opener's possible key as it closes
        // (go-yaml v2.4.4's simple_keys_by_tok): the look ends there.
        assert_eq!(
            read("\u{feff}{\"a\": 1}\n[] {\"b\": \"x\\/y\"}\n"),
            vec![Ok(json!({"a": 1}))]
        );
        assert_eq!(
            read("\u{feff}{\"a\": 1}\n[1] {\"b\": \"x\\/y\"}\n"),
            vec![Err(("syntax".to_owned(), 2, true))]
        );
        // Empty is: no token inside that may be a key (`[,]`); a nested `[]` is such a token.
        for (text, stops) in [("[,]", false), ("{}", false), ("[[]]", true)] {
            let r = read(&format!("\u{feff}{{\"a\": 1}}\n{text} \"\\/\"\n"));
            assert_eq!(
                r.first().is_some_and(Result::is_err),
                stops,
                "{text}: {r:?}"
            );
        }
        // The same for an empty root: the scanner fetches the one token after it (a quoted one
        // whole), and nothing more.
        for (text, stops) in [
            ("{} [1] \"\\/\"", false),
            ("[] x \"\\/\"", false),
            ("{} \"\\/\"", true),
        ] {
            let r = read(&format!("\u{feff}{text}"));
            assert_eq!(
                r.first().is_some_and(Result::is_err),
                stops,
                "{text}: {r:?}"
            );
        }
        // Tokens are read in their flow context: a quoted scalar right after another one, or a
        // `:` inside braces, is nothing the scanner refuses.
        assert_eq!(
            read("\u{feff}{\"a\": 1}\n{\"a\": \"x {\"a\": 1, \"a\": 2}\n"),
            vec![Ok(json!({"a": 1}))]
        );
        assert_eq!(
            read("\u{feff}{\"a\": 1}{\"b\": \"x{\"c\": 1, \"d\": 2} true"),
            vec![Ok(json!({"a": 1}))]
        );
        // A line ending with the key still possible: libyaml fetches one more token, and reads a
        // quoted one whole (here to the end of the text, unterminated).
        assert_eq!(
            read("\u{feff}{\"a\": 1}\n  \"s\"\t{\"b\": \"x"),
            vec![Err(("syntax".to_owned(), 2, true))]
        );
        assert_eq!(
            read("\u{feff}{\"a\": 1}\n{\"b\": 1}\n\"\\/\""),
            vec![Err(("syntax".to_owned(), 3, true))]
        );
        // A document cannot open with `...` or with a directive kubectl's splitter left alone.
        assert_eq!(
            read("# c\n...\n"),
            vec![Err(("syntax".to_owned(), 2, true))]
        );
        assert_eq!(
            read("%YAML 1.1\na: 1\n"),
            vec![Err(("syntax".to_owned(), 2, true))]
        );
        // A leading `---` stays in its piece: the directive after it is then never read.
        assert_eq!(read("---\n%YAML 1.1\na: 1\n"), vec![]);
        // Characters YAML 1.1 refuses, and a tab where libyaml looks for a token.
        assert_eq!(
            read("a: \u{7f}\n"),
            vec![Err(("syntax".to_owned(), 1, true))]
        );
        assert_eq!(read("\t\n  xyz"), vec![Err(("syntax".to_owned(), 1, true))]);
    }

    #[test]
    fn the_sniff_is_kubectls() {
        assert!(looks_like_json(" \u{a0}\n{"));
        assert!(!looks_like_json("\u{feff}{"));
        assert!(!looks_like_json("[{}]"));
        assert!(!looks_like_json(&format!(
            "{}{{}}",
            " ".repeat(SNIFF_BYTES)
        )));
        // A YAML document that is a flow mapping later in a YAML stream stays YAML.
        assert_eq!(
            read("a: 1\n---\n{\"b\": \"x\\/y\"}\n"),
            vec![Ok(json!({"a": 1})), Err(("syntax".to_owned(), 3, true))]
        );
    }
}
