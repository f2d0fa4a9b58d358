//! Reading manifests: YAML or JSON text, one or more documents, into JSON values with the line
//! and column of every field, so a diagnostic about `spec.containers[0].restartPolicy` can point
//! at its line.
//!
//! The YAML is read with `saphyr-parser` (a maintained YAML parser) event by event, so this
//! module decides what is safe: duplicate keys, nesting deeper than [`MAX_DEPTH`], alias
//! expansion beyond [`MAX_ALIAS_NODES`] and non-finite numbers are errors with a line, never a hang or
//! a crash. JSON is YAML, so the same reader serves both.
//!
//! What each scalar means is decided as the API server decides it, not by YAML 1.2: kubectl and
//! kube-apiserver convert YAML to JSON with `sigs.k8s.io/yaml`, i.e. go-yaml v2's YAML 1.1 rules
//! (`yes` is true, `010` is 8, `<<` merges a mapping) and Go's JSON encoder (`6.0` arrives as
//! `6`); see [`resolve`]. Duplicate keys, merged ones included, are errors, as in the strict field
//! validation kubectl asks for by default.

mod resolve;
mod span;
mod stream;

pub use span::{LineIndex, Part, attach_range, token_range};
pub use stream::{BrokenDocument, read_stream, read_stream_at};

use crate::diag::Diagnostic;
use resolve::{CoreTag, Resolved};
use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// Deepest nesting accepted (Kubernetes objects need about 20 levels).
pub const MAX_DEPTH: usize = 256;
/// Most nodes one stream may produce, aliases expanded (a billion-laughs guard).
pub const MAX_NODES: usize = 5_000_000;
/// Most places one stream may hold where go-yaml (libyaml) reads what saphyr-parser refuses (a
/// `\'` escape, a lone `-` in a flow collection): each is one more parse of the text; beyond it
/// the parser's error stands.
const MAX_QUOTE_PATCHES: usize = 100;
/// Most nodes aliases may add to one stream. Manifests use anchors for a few shared snippets;
/// a larger expansion is an alias bomb, refused while it is still small in memory.
pub const MAX_ALIAS_NODES: usize = 100_000;

/// Where each field of each document of a stream sits, by field path.
type Positions = HashMap<String, (u32, u32)>;

/// The positions of a whole stream, found on first use: most inputs are valid and never ask
/// for a line, and building a path string for every node costs as much as parsing the YAML.
/// Every document of a stream shares one, so the stream is parsed again at most once.
#[derive(Debug)]
struct LazyPositions {
    text: Box<str>,
    mode: Mode,
    /// Where `text` sits in the whole stream (see [`Offset`]).
    offset: Offset,
    per_document: OnceLock<Vec<Positions>>,
}

impl LazyPositions {
    fn of(&self, index: usize) -> Option<&Positions> {
        self.per_document
            .get_or_init(|| {
                parse_stream(&self.text, self.mode.tracking())
                    .map(|s| s.positions)
                    .unwrap_or_default()
            })
            .get(index)
    }
}

/// How a piece of text is read.
#[derive(Debug, Clone, Copy, Default)]
struct Mode {
    /// Record where every field sits (slower; for error messages and positions).
    track: bool,
    /// The text is a JSON value from kubectl's JSON stream decoder, not YAML: `\/` is an escape
    /// and go-yaml's quirks are not patched in.
    json: bool,
    /// Only the first YAML document of the text counts, as `yaml.Unmarshal` (go-yaml v2) reads
    /// one chunk of kubectl's splitter.
    first_only: bool,
    /// A key set twice keeps the last value instead of failing: go-yaml v2's non-strict reading,
    /// which kubectl's stream decoder uses. Only asked to learn whether a document with a
    /// duplicate key has another error too.
    lenient_keys: bool,
}

impl Mode {
    fn tracking(self) -> Self {
        Mode {
            track: true,
            ..self
        }
    }
}

/// Where a piece of text starts in the whole stream: lines before it, and characters before it
/// on its first line (a JSON object can start after another on the same line).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Offset {
    pub lines: u32,
    pub columns: u32,
}

impl Offset {
    /// A 1-based (line, column) of the piece, as a position in the whole stream.
    fn apply(self, (line, column): (u32, u32)) -> (u32, u32) {
        let column = if line <= 1 {
            column.saturating_add(self.columns)
        } else {
            column
        };
        (line.saturating_add(self.lines), column)
    }

    /// The diagnostic's line and column, and the `line L column C:` its message starts with,
    /// moved from the piece to the whole stream.
    fn shift(self, d: &mut Diagnostic) {
        if self == Offset::default() {
            return;
        }
        let Some(line) = d.line else { return };
        let column = d.column.unwrap_or(1);
        // A duplicate key's message names the line of the first one too.
        if let Some((head, first)) = d.message.rsplit_once(" (first at line ")
            && let Some(Ok(first)) = first.strip_suffix(')').map(str::parse::<u32>)
        {
            d.message = format!(
                "{head} (first at line {})",
                first.saturating_add(self.lines)
            );
        }
        let (new_line, new_column) = self.apply((line, column));
        move_diagnostic(d, new_line, new_column);
    }
}

/// Puts a diagnostic at another line and column, the `line L column C:` its message starts
/// with too.
pub(crate) fn move_diagnostic(d: &mut Diagnostic, line: u32, column: u32) {
    if let (Some(old_line), Some(old_column)) = (d.line, d.column) {
        let old_prefix = format!("line {old_line} column {old_column}: ");
        if let Some(rest) = d.message.strip_prefix(&old_prefix) {
            d.message = format!("line {line} column {column}: {rest}");
        }
    }
    d.line = Some(line);
    if d.column.is_some() {
        d.column = Some(column);
    }
}

/// A plain scalar the API server reads differently from what YAML 1.2 says (`yes` is true,
/// `010` is 8, `0b11` is 3, `1_000` is 1000; a key `on` is `"true"`), found while reading.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadNote {
    pub line: u32,
    pub column: u32,
    /// The field path of the value, or of the key's field.
    pub field: String,
    /// The scalar as written.
    pub text: String,
    /// What the API server reads (for a key: the key it becomes).
    pub read_as: Value,
    pub key: bool,
}

/// One document of a stream, with where each field sits.
#[derive(Debug, Clone)]
pub struct Document {
    /// 0-based index among the stream's non-empty documents.
    pub index: usize,
    /// 1-based line of the document's first node.
    pub line: u32,
    pub value: Value,
    /// Plain scalars read by YAML 1.1's rules where YAML 1.2 reads them otherwise.
    pub notes: Vec<ReadNote>,
    /// The 1-based line from which text of this document's piece is never read: go-yaml reads
    /// one YAML document of each piece of kubectl's splitter (what follows a `...` line, or a
    /// second flow mapping after the first, is passed over, by kubectl too).
    pub unread_from: Option<u32>,
    positions: Arc<LazyPositions>,
    /// The document's index among those of the text its positions were read from.
    chunk_index: usize,
}

/// Positions of one piece, answered in the whole stream's lines and columns.
struct Located<'a> {
    positions: &'a Positions,
    offset: Offset,
}

impl Located<'_> {
    fn get(&self, field: &str) -> Option<(u32, u32)> {
        self.positions.get(field).map(|p| self.offset.apply(*p))
    }
}

impl Document {
    /// The line and column (1-based) of a field path such as `spec.containers[0].name`, or of
    /// its nearest ancestor the source has.
    pub fn position_of(&self, field: &str) -> (u32, u32) {
        let offset = self.positions.offset;
        // A chunk of kubectl's splitter holds one document: its positions are the first set.
        let Some(positions) = self.positions.of(self.chunk_index) else {
            return (self.line, 1);
        };
        let positions = Located { positions, offset };
        let mut f = field.to_owned();
        loop {
            if let Some(p) = positions.get(&f) {
                return p;
            }
            // Map keys are written `labels[key]` by apimachinery and `labels.key` here.
            if f.ends_with(']')
                && let Some(open) = f.rfind('[')
            {
                let inner = f.get(open + 1..f.len() - 1).unwrap_or("");
                if inner.parse::<usize>().is_err() {
                    let alt = format!("{}.{}", f.get(..open).unwrap_or(""), inner);
                    if let Some(p) = positions.get(&alt) {
                        return p;
                    }
                }
                f.truncate(open);
                continue;
            }
            match f.rfind('.') {
                Some(dot) => f.truncate(dot),
                None if !f.is_empty() => f.clear(),
                None => return (self.line, 1),
            }
        }
    }
}

impl Document {
    /// The text edit that gives `field` (a path within this document) the value `value`: the
    /// field's value replaced where it is written on its key's line (a scalar or a flow
    /// sequence), or, for a field the mapping lacks, a new key written before the mapping's
    /// first key. None where the text does not allow a one-line edit (a block value, a flow
    /// mapping): a front end then applies the fix's field edits, not text.
    pub fn text_edit(&self, field: &str, value: &Value) -> Option<crate::diag::TextEdit> {
        let positions = self.positions.of(self.chunk_index)?;
        let text = &self.positions.text;
        let edit = match positions.get(field) {
            Some(&(line, column)) => replace_value_at(text, line, column, value)?,
            None => insert_key(text, positions, field, value)?,
        };
        let offset = self.positions.offset;
        let (line, column) = offset.apply((edit.line, edit.column));
        let (end_line, end_column) = offset.apply((edit.end_line, edit.end_column));
        Some(crate::diag::TextEdit {
            line,
            column,
            end_line,
            end_column,
            ..edit
        })
    }
}

/// The characters of 1-based line `line` of `text`.
fn line_chars(text: &str, line: u32) -> Option<Vec<char>> {
    let n = usize::try_from(line).ok()?.checked_sub(1)?;
    text.lines().nth(n).map(|l| l.chars().collect())
}

/// A value as it is written in the text: JSON when the key was quoted (a JSON document), else
/// YAML flow style, with a string plain where YAML 1.1 reads it back as the same string.
fn written(value: &Value, json: bool) -> String {
    match value {
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(|v| written(v, json)).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::String(s) if !json && plain_is_string(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether a plain scalar `s` reads back as the string `s` (letters first, no YAML 1.1 word).
fn plain_is_string(s: &str) -> bool {
    let starts_with_letter = s.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    let simple = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    starts_with_letter
        && simple
        && !matches!(
            resolve::resolve(s),
            resolve::Resolved::Bool(_) | resolve::Resolved::Null
        )
}

/// Replaces the value written after the key at (line, column) on the same line.
fn replace_value_at(
    text: &str,
    line: u32,
    column: u32,
    value: &Value,
) -> Option<crate::diag::TextEdit> {
    let chars = line_chars(text, line)?;
    let at = |j: usize| chars.get(j).copied();
    let mut i = usize::try_from(column).ok()?.checked_sub(1)?;
    let json = at(i) == Some('"');
    // The key: quoted, or plain up to its colon.
    if json {
        i += 1;
        while let Some(c) = at(i).filter(|&c| c != '"') {
            i += if c == '\\' { 2 } else { 1 };
        }
        i += 1;
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
    } else {
        while at(i).is_some_and(|c| !(c == ':' && at(i + 1).is_none_or(char::is_whitespace))) {
            i += 1;
        }
    }
    if chars.get(i) != Some(&':') {
        return None;
    }
    i += 1;
    while chars.get(i).is_some_and(|c| *c == ' ' || *c == '\t') {
        i += 1;
    }
    let start = i;
    let end = match chars.get(start)? {
        '[' => {
            let mut depth = 0usize;
            let mut quote: Option<char> = None;
            let mut j = start;
            loop {
                let c = *chars.get(j)?;
                match (quote, c) {
                    (Some(q), c) if c == q => quote = None,
                    (Some(_), _) => {}
                    (None, '"' | '\'') => quote = Some(c),
                    (None, '[') => depth += 1,
                    (None, ']') => {
                        depth -= 1;
                        if depth == 0 {
                            break j + 1;
                        }
                    }
                    (None, '{') => return None,
                    _ => {}
                }
                j += 1;
            }
        }
        q @ ('"' | '\'') => {
            let q = *q;
            let mut j = start + 1;
            while let Some(c) = at(j).filter(|&c| c != q) {
                j += if q == '"' && c == '\\' { 2 } else { 1 };
            }
            at(j)?;
            j + 1
        }
        '#' | '{' | '|' | '>' | '&' | '*' | '!' => return None,
        _ => {
            let mut j = start;
            while let Some(c) = at(j) {
                let comment = c == '#'
                    && j.checked_sub(1)
                        .and_then(at)
                        .is_some_and(char::is_whitespace);
                if matches!(c, ',' | '}' | ']') || comment {
                    break;
                }
                j += 1;
            }
            while j > start
                && j.checked_sub(1)
                    .and_then(at)
                    .is_some_and(char::is_whitespace)
            {
                j -= 1;
            }
            j
        }
    };
    Some(crate::diag::TextEdit {
        line,
        column: u32::try_from(start + 1).ok()?,
        end_line: line,
        end_column: u32::try_from(end + 1).ok()?,
        new_text: written(value, json),
    })
}

/// Writes a new key `field` (absent from its mapping) before the mapping's first key.
fn insert_key(
    text: &str,
    positions: &Positions,
    field: &str,
    value: &Value,
) -> Option<crate::diag::TextEdit> {
    let (parent, name) = field.rsplit_once('.')?;
    let prefix = format!("{parent}.");
    let &(line, column) = positions
        .iter()
        .filter(|(k, _)| {
            k.strip_prefix(&prefix)
                .is_some_and(|rest| !rest.contains(['.', '[']))
        })
        .map(|(_, p)| p)
        .min()?;
    let chars = line_chars(text, line)?;
    let col = usize::try_from(column).ok()?.checked_sub(1)?;
    let json = chars.get(col) == Some(&'"');
    let before: String = chars.get(..col)?.iter().collect();
    let block = !json && (before.trim().is_empty() || before.trim_end().ends_with('-'));
    let new_text = if json {
        format!("\"{name}\": {}, ", written(value, true))
    } else if block {
        format!("{name}: {}\n{}", written(value, false), " ".repeat(col))
    } else {
        format!("{name}: {}, ", written(value, false))
    };
    Some(crate::diag::TextEdit {
        line,
        column,
        end_line: line,
        end_column: column,
        new_text,
    })
}

fn scan_error(e: &saphyr_parser::ScanError) -> Diagnostic {
    let m = e.marker();
    let line = m.line() as u32;
    let col = m.col() as u32 + 1;
    // The scanner has its own nesting limit for flow collections, below MAX_DEPTH; it is the
    // same problem as ours, so it gets the same code.
    if e.info().contains("recursion limit") {
        return Diagnostic::request(
            "too-deep",
            "",
            format!("line {line} column {col}: nesting too deep ({})", e.info()),
        )
        .at(line, col);
    }
    Diagnostic::request(
        "syntax",
        "",
        format!("line {line} column {col}: {}", e.info()),
    )
    .at(line, col)
}

fn err_at(span: &Span, code: &str, path: &str, msg: String) -> Diagnostic {
    let line = span.start.line() as u32;
    let col = span.start.col() as u32 + 1;
    Diagnostic::request(code, path, format!("line {line} column {col}: {msg}")).at(line, col)
}

enum Frame {
    Seq {
        items: Vec<Value>,
        path: String,
        anchor: usize,
    },
    Map {
        map: Map<String, Value>,
        path: String,
        key: Option<String>,
        /// The pending key is a merge key (`<<`): its value's entries are merged in.
        merging: bool,
        anchor: usize,
    },
}

impl Frame {
    fn path(&self) -> &str {
        match self {
            Frame::Seq { path, .. } | Frame::Map { path, .. } => path,
        }
    }
}

/// A `syntax` error about the whole line with 0-based index `i`.
fn line_syntax_error(i: usize, detail: &str) -> Diagnostic {
    let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
    Diagnostic::request("syntax", "", format!("line {line} column 1: {detail}")).at(line, 1)
}

/// go-yaml v2 reads YAML 1.1 only: a `%YAML` directive for any other version is refused
/// ("found incompatible YAML document"), which a YAML 1.2 parser would accept.
fn yaml_version_check(text: &str) -> Result<(), Diagnostic> {
    if !(text.starts_with('%') || text.contains("\n%")) {
        return Ok(());
    }
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.strip_prefix("%YAML") else {
            continue;
        };
        let version = rest
            .split('#')
            .next()
            .unwrap_or("")
            .trim_matches([' ', '\t', '\r']);
        if version != "1.1" {
            return Err(line_syntax_error(
                i,
                &format!(
                    "found incompatible YAML document (%YAML {version}: kubectl and the API server read YAML 1.1)"
                ),
            ));
        }
    }
    Ok(())
}

/// A YAML directive (`%YAML 1.1`, `%TAG …`) must be followed by a `---` line, and a piece of
/// kubectl's splitter never holds one (each `---` line ends a piece): go-yaml refuses a piece
/// that opens with directives ("did not find expected <document start>"), where a YAML parser
/// given the whole stream would read on.
fn directives_without_document_check(text: &str) -> Result<(), Diagnostic> {
    // libyaml skips a tab only where no key can start: before a piece's first token, a line
    // whose indentation holds a tab (a blank line too) is refused.
    for (i, l) in text.lines().enumerate() {
        let indent = l.len() - l.trim_start_matches([' ', '\t']).len();
        if let Some(tab) = l.get(..indent).and_then(|w| w.find('\t')) {
            let (line, column) = (
                u32::try_from(i + 1).unwrap_or(u32::MAX),
                u32::try_from(tab + 1).unwrap_or(u32::MAX),
            );
            return Err(Diagnostic::request(
                "syntax",
                "",
                format!("line {line} column {column}: found character that cannot start any token (a tab in the indentation)"),
            )
            .at(line, column));
        }
        let t = l.trim();
        if !t.is_empty() && !t.starts_with('#') {
            break;
        }
    }
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    match lines.next() {
        Some((_, l)) if l.starts_with('%') => {}
        // An implicit document cannot open with `...`: libyaml finds no node there.
        Some((i, l))
            if l.starts_with("...")
                && l[3..]
                    .chars()
                    .next()
                    .is_none_or(|c| c.is_ascii_whitespace()) =>
        {
            return Err(line_syntax_error(
                i,
                "while parsing a block node, did not find expected node content (a document may not open with ...)",
            ));
        }
        _ => return Ok(()),
    }
    let after = lines
        .find(|(_, l)| !l.starts_with('%'))
        .map_or_else(|| text.lines().count(), |(i, _)| i);
    Err(line_syntax_error(
        after,
        "did not find expected <document start> (a YAML directive must be followed by a --- line, and kubectl splits the stream at every --- line before go-yaml reads it)",
    ))
}

/// libyaml (so go-yaml) reads a lone `-` inside a flow collection (`[cat, -]`, `{a: -}`) as the
/// string "-"; YAML 1.2 and saphyr-parser refuse it. When the parser stops there, the text with
/// that dash quoted (the same value) is what gets read; columns after it on its line are two
/// more. None when the error is anything else.
fn flow_dash_patch(text: &str, error: &Diagnostic) -> Option<String> {
    if !error
        .message
        .ends_with("plain scalar cannot start with '-' followed by ,[]{}")
    {
        return None;
    }
    let at = byte_offset(text, error.line?, error.column?)?;
    let mut rest = text.get(at..)?.chars();
    if rest.next() != Some('-') || !matches!(rest.next(), Some(',' | '[' | ']' | '{' | '}')) {
        return None;
    }
    Some(format!("{}\"-\"{}", text.get(..at)?, text.get(at + 1..)?))
}

/// The first character YAML 1.1 does not allow in a stream (C0 and C1 controls but tab, line
/// feed, carriage return and NEL; DEL; surrogates and U+FFFE/U+FFFF), which libyaml refuses
/// ("control characters are not allowed") and saphyr-parser reads. With `before_line`, only
/// such a character before the end of that line (where a parser error was found).
fn unprintable(text: &str, before_line: Option<u32>) -> Option<Diagnostic> {
    let printable = |c: char| {
        matches!(c, '\t' | '\n' | '\r' | '\u{85}')
            || ('\u{20}'..='\u{7e}').contains(&c)
            || ('\u{a0}'..='\u{d7ff}').contains(&c)
            || ('\u{e000}'..='\u{fffd}').contains(&c)
            || c >= '\u{10000}'
    };
    if text
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) || matches!(b, b'\t' | b'\n' | b'\r'))
    {
        return None;
    }
    let (mut line, mut column) = (1u32, 1u32);
    for c in text.chars() {
        if before_line.is_some_and(|l| line > l) {
            return None;
        }
        if !printable(c) {
            return Some(
                Diagnostic::request(
                    "syntax",
                    "",
                    format!(
                        "line {line} column {column}: control characters are not allowed (U+{:04X}; kubectl and the API server read YAML 1.1)",
                        c as u32
                    ),
                )
                .at(line, column),
            );
        }
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    None
}

/// The byte offset of a 1-based line and column as the parser counts them (characters, a
/// leading byte order mark not counted).
fn byte_offset(text: &str, line: u32, column: u32) -> Option<usize> {
    let line_start = if line <= 1 {
        if text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        }
    } else {
        text.match_indices('\n')
            .nth(usize::try_from(line).ok()? - 2)
            .map(|(i, _)| i + 1)?
    };
    Some(
        line_start
            + text
                .get(line_start..)?
                .char_indices()
                .nth(usize::try_from(column).ok()?.checked_sub(1)?)
                .map(|(i, _)| i)?,
    )
}

/// go-yaml v2 (libyaml) accepts `\'` in a double-quoted scalar (an apostrophe), which YAML and
/// saphyr-parser do not. When the parser stops on an unknown escape in a scalar whose unknown
/// escapes are all `\'`, the text with each written as `'` (the same value) is what gets read;
/// columns after them on their line are one less. None when the error is anything else.
fn quote_escape_patch(text: &str, error: &Diagnostic) -> Option<String> {
    if !error.message.ends_with("found unknown escape character") {
        return None;
    }
    let from = byte_offset(text, error.line?, error.column?)?;
    let mut chars = text.get(from..)?.char_indices();
    if chars.next().map(|(_, c)| c) != Some('"') {
        return None;
    }
    // Byte offsets of the backslashes to drop.
    let mut cut = Vec::new();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' if cut.is_empty() => return None,
            '"' => {
                let mut out = String::with_capacity(text.len());
                let mut last = 0;
                for at in cut {
                    out.push_str(text.get(last..at)?);
                    last = at + 1;
                }
                out.push_str(text.get(last..)?);
                return Some(out);
            }
            '\\' => match chars.next() {
                Some((_, '\'')) => cut.push(from + i),
                // Escapes both parsers know (go-yaml's list), and line continuations.
                Some((_, e)) if "0abt\tnvfre \"/\\N_LPxuU\r\n".contains(e) => {}
                // An escape neither knows: the parser's error stands.
                _ => return None,
            },
            _ => {}
        }
    }
    None
}

/// go-yaml v2 knows no `\/` escape (YAML 1.2 added it): a double-quoted YAML scalar holding one
/// is refused. Called only for double-quoted scalars whose value has a `/`.
fn escaped_slash_check(source: &str, span: &Span) -> Result<(), Diagnostic> {
    let (start, end) = (span.start.index(), span.end.index());
    // Marker indices count characters.
    let raw: String = if source.is_ascii() {
        source.get(start..end).unwrap_or("").to_owned()
    } else {
        source
            .chars()
            .skip(start)
            .take(end.saturating_sub(start))
            .collect()
    };
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.next() == Some('/') {
            return Err(err_at(
                span,
                "syntax",
                "",
                "found unknown escape character (\\/ is YAML 1.2; kubectl and the API server read YAML 1.1)"
                    .to_owned(),
            ));
        }
    }
    Ok(())
}

/// The JSON value of a scalar: plain ones resolve as go-yaml v2 does, quoted and block ones are
/// strings, and an explicit core tag (`!!int '010'`) resolves the text as that tag. Takes the
/// parser's text so that a string (most scalars of a manifest) keeps its buffer.
fn scalar_value(
    text: Cow<'_, str>,
    style: ScalarStyle,
    tag: Option<&Tag>,
) -> Result<Value, (&'static str, String)> {
    let resolved = match tag {
        Some(t) if t.is_yaml_core_schema() && t.suffix == "binary" => {
            return resolve::binary(&text)
                .map(Value::String)
                .map_err(|m| ("invalid-value", m));
        }
        Some(t) if t.is_yaml_core_schema() => match CoreTag::from_suffix(&t.suffix) {
            Some(core) => resolve::resolve_tagged(core, &text).map_err(|m| ("invalid-value", m))?,
            None => Resolved::Str,
        },
        // Local tags (`!foo`) are not resolvable: the text is kept.
        Some(_) => Resolved::Str,
        None if style == ScalarStyle::Plain => resolve::resolve(&text),
        None => Resolved::Str,
    };
    match resolved {
        Resolved::Str | Resolved::Merge => Ok(Value::String(text.into_owned())),
        Resolved::NonFinite => Err((
            "invalid-number",
            format!("{text} is not a finite number, which Kubernetes objects cannot hold"),
        )),
        r => Ok(resolve::json_value(r, &text)),
    }
}

/// A mapping key as the JSON object names it.
struct Key {
    name: String,
    /// It is the merge key `<<`.
    merge: bool,
    /// The text as written, when a plain untagged key is renamed by YAML 1.1 (`on` → `true`).
    renamed_from: Option<String>,
}

/// Why a key cannot name a JSON field.
struct KeyError {
    message: String,
    /// The key is null: go-yaml reads it (a nil key), only the conversion to JSON refuses it.
    null: bool,
}

/// A mapping key as the JSON object names it. Err for a key go-yaml refuses (a tag its text does
/// not fit) or `sigs.k8s.io/yaml` refuses (null).
fn scalar_key(text: Cow<'_, str>, style: ScalarStyle, tag: Option<&Tag>) -> Result<Key, KeyError> {
    let resolved = match tag {
        Some(t) if t.is_yaml_core_schema() => match CoreTag::from_suffix(&t.suffix) {
            Some(core) => resolve::resolve_tagged(core, &text).map_err(|message| KeyError {
                message,
                null: false,
            })?,
            None => Resolved::Str,
        },
        Some(_) => Resolved::Str,
        None if style == ScalarStyle::Plain => resolve::resolve(&text),
        None => Resolved::Str,
    };
    let plain = style == ScalarStyle::Plain && tag.is_none();
    match resolved {
        Resolved::Str => Ok(Key {
            name: text.into_owned(),
            merge: false,
            renamed_from: None,
        }),
        Resolved::Merge => Ok(Key {
            name: text.into_owned(),
            merge: true,
            renamed_from: None,
        }),
        r => {
            let name = resolve::key_string(r, &text).ok_or_else(|| KeyError {
                message: format!("a mapping key cannot be null ({text:?})"),
                null: true,
            })?;
            let renamed_from = (plain && name != text).then(|| text.into_owned());
            Ok(Key {
                name,
                merge: false,
                renamed_from,
            })
        }
    }
}

/// Where the lenient reading (see [`Deferred`]) files the value of a null key: any name would do,
/// as that reading only learns whether the document has an error.
const NULL_KEY: &str = "\u{0}null";

fn child_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
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

/// The whole text read as one YAML stream (JSON when it starts with `{`), without kubectl's
/// splitting: what the API server reads of a request body (`sigs.k8s.io/yaml` on the whole
/// body). The differential oracle's YAML leg compares this reading (docs/oracle.md).
pub fn parse_whole(text: &str) -> Result<Vec<Document>, Diagnostic> {
    let json = text
        .trim_start_matches(char::is_whitespace)
        .starts_with('{');
    parse_text(
        text,
        Mode {
            json,
            ..Mode::default()
        },
        Offset::default(),
    )
}

/// Reads one piece of text (a chunk of kubectl's YAML splitter, or one value of its JSON
/// stream) that starts at `offset` in the whole stream; lines and columns of what it gives are
/// the whole stream's.
fn parse_text(text: &str, mode: Mode, offset: Offset) -> Result<Vec<Document>, Diagnostic> {
    parse_text_at(text, mode, offset).map_err(|mut d| {
        offset.shift(&mut d);
        d
    })
}

fn parse_text_at(text: &str, mode: Mode, offset: Offset) -> Result<Vec<Document>, Diagnostic> {
    if !mode.json {
        yaml_version_check(text)?;
        if mode.first_only {
            directives_without_document_check(text)?;
        }
    }
    // The fast pass records no positions; an error (rare, and it needs its path and line)
    // comes from the tracking pass, so both passes report exactly the same errors.
    let mut patched: Option<String> = None;
    let mut patches = 0;
    let stream = loop {
        let current = patched.as_deref().unwrap_or(text);
        match parse_stream(current, mode) {
            Ok(stream) => break stream,
            Err(fast) => {
                // Each patch costs a parse: bounded, so a text full of them cannot take long.
                patches += 1;
                if patches <= MAX_QUOTE_PATCHES
                    && !mode.json
                    && let Some(p) = quote_escape_patch(current, &fast)
                        .or_else(|| flow_dash_patch(current, &fast))
                {
                    patched = Some(p);
                    continue;
                }
                if mode.first_only
                    && !mode.json
                    && let Some(past) = error_past_the_root(current, mode, &fast)
                {
                    let (prefix, stream) = past?;
                    patched = Some(prefix);
                    break stream;
                }
                let error = parse_stream(current, mode.tracking()).err().unwrap_or(fast);
                return Err(unprintable(text, error.line).unwrap_or(error));
            }
        }
    };
    if let Some(e) = stream.read.and_then(|read| lookahead_error(text, &read)) {
        return Err(e);
    }
    let until = stream.read.map_or(text.len(), |r| r.until_byte);
    if !mode.json
        && let Some(e) = unprintable(text.get(..until).unwrap_or(text), None)
    {
        return Err(e);
    }
    let read = patched.as_deref().unwrap_or(text);
    let per_document = OnceLock::new();
    let mut notes = stream.notes;
    if notes.iter().any(|n| !n.is_empty())
        && let Ok(tracked) = parse_stream(read, mode.tracking())
    {
        // Rare (most manifests have no such scalar): the tracking pass names their fields, and
        // its positions are kept rather than found again later.
        notes = tracked.notes;
        let _ = per_document.set(tracked.positions);
    }
    let positions = Arc::new(LazyPositions {
        text: read.into(),
        mode,
        offset,
        per_document,
    });
    let unread_from = stream
        .read
        .and_then(|r| unread_after(text, r.root_end_marker))
        .map(|l| offset.apply((l, 1)).0);
    let mut notes = notes.into_iter();
    Ok(stream
        .docs
        .into_iter()
        .enumerate()
        .map(|(index, (line, value))| {
            let mut notes = notes.next().unwrap_or_default();
            for n in &mut notes {
                (n.line, n.column) = offset.apply((n.line, n.column));
            }
            Document {
                index,
                line: offset.apply((line, 1)).0,
                value,
                notes,
                unread_from,
                positions: Arc::clone(&positions),
                chunk_index: index,
            }
        })
        .collect())
}

/// What one reading of a stream gives, per document.
struct Stream {
    /// (first line, value)
    docs: Vec<(u32, Value)>,
    /// With `track`: where every field sits.
    positions: Vec<Positions>,
    /// The YAML 1.1 readings (fields named only with `track`).
    notes: Vec<Vec<ReadNote>>,
    /// With `first_only`: how far go-yaml reads (see [`Lookahead`]).
    read: Option<Lookahead>,
}

/// How far go-yaml (libyaml) reads a text it takes one document from: the root node, then the
/// token after it, which ends the document. A token that could start a mapping key (most do)
/// makes libyaml's scanner look for its `:` up to the end of that line; so does a flow
/// collection at the root, from its first line. Scanner errors there are errors (an escape
/// YAML 1.1 lacks, a `:` where no key may be); what lies beyond is never read. (libyaml also
/// stops looking 1024 characters after a key's start; restartkit reads the whole line.)
#[derive(Debug, Clone, Copy)]
struct Lookahead {
    /// (line, 0-based column) up to which (inclusive) the scanner reads.
    until: (usize, usize),
    /// Byte offset where reading stops (for the check of characters YAML 1.1 refuses).
    until_byte: usize,
    /// The token after the root, when the scanner reads on from it: (line, 0-based column,
    /// byte offset).
    next_token: Option<(usize, usize, usize)>,
    /// `next_token` is a possible key of its own (on a line after the root's end), rather than
    /// the rest of the root's line.
    next_is_key: bool,
    /// `next_token` is the one token the scanner fetches after the root (on the root's line,
    /// where no key may start).
    single_token: bool,
    /// The root's first character index, and its end (to compute this again on a longer text).
    root_start: usize,
    root_end_marker: saphyr_parser::Marker,
    /// The root is a block collection: it ends where a token that cannot continue it starts,
    /// which libyaml's parser reads as part of the document.
    block_collection: bool,
}

impl Lookahead {
    /// Computes it once the root node has ended at `end` (saphyr marker: 1-based line,
    /// 0-based column, character index). `root_start` is the root's first character index.
    fn after_root(
        text: &str,
        root_start: usize,
        end: &saphyr_parser::Marker,
        block_collection: bool,
    ) -> Lookahead {
        let (end_line, end_col) = (end.line(), end.col());
        let byte_of = |char_index: usize| {
            if text.is_ascii() {
                char_index.min(text.len())
            } else {
                text.char_indices()
                    .nth(char_index)
                    .map_or(text.len(), |(b, _)| b)
            }
        };
        let line_end = |from: usize| {
            text.get(from..)
                .and_then(|r| r.find('\n'))
                .map_or(text.len(), |i| from + i)
        };
        let start_byte = byte_of(root_start);
        let end_byte = byte_of(end.index());
        let mut until = (end_line, end_col);
        let mut until_byte = end_byte;
        let flow_root = matches!(
            text.get(start_byte..).and_then(|r| r.chars().next()),
            Some('{' | '[')
        );
        let start_line = text
            .get(..start_byte)
            .map_or(0, |t| t.matches('\n').count())
            + 1;
        // Where the scanner's look past the root starts: the rest of the root's line, for a
        // flow collection on one line (its `{` could be a key until the line ends).
        let mut region_start = None;
        // The look ends at the end of the line, or where the key it looks for finds its `:`.
        let look_end = |from: usize, head: bool| {
            let rest = text.get(from..line_end(from)).unwrap_or("");
            let cut = key_resolved_at(rest, head);
            let columns = rest.get(..cut).map_or(0, |r| r.chars().count());
            (from + cut, columns)
        };
        // An empty root collection deleted its own possible key as it closed (see `key_look`):
        // only the token after it is read.
        let root_key_deleted = flow_root
            && text
                .get(start_byte..line_end(start_byte))
                .is_some_and(|r| start_byte + key_resolved_at(r, true) == end_byte);
        if flow_root && start_line == end_line && !root_key_deleted {
            let (byte, columns) = look_end(end_byte, false);
            until = (end_line, end_col + columns);
            until_byte = byte;
            region_start = Some((end_line, end_col, end_byte));
        }
        // The next token: past white space and comments.
        let (mut line, mut col, mut at) = (end_line, end_col, end_byte);
        let mut next_token = region_start;
        let mut next_is_key = false;
        let mut single_token = false;
        let rest = text.get(end_byte..).unwrap_or("");
        let mut chars = rest.char_indices().peekable();
        let mut after_space = true;
        let next = loop {
            let Some((i, c)) = chars.next() else {
                break None;
            };
            match c {
                '\n' => {
                    line += 1;
                    col = 0;
                    after_space = true;
                }
                ' ' | '\t' | '\r' => {
                    col += 1;
                    after_space = true;
                }
                '#' if after_space => while chars.next_if(|(_, c)| *c != '\n').is_some() {},
                _ => {
                    at = end_byte + i;
                    break Some(c);
                }
            }
        };
        if let Some(c) = next {
            let follow = text.get(at..).and_then(|r| r.chars().nth(1));
            let blank_after = follow.is_none_or(|f| matches!(f, ' ' | '\t' | '\r' | '\n'));
            let starts = |m: &str| {
                col == 0
                    && text.get(at..).is_some_and(|r| r.starts_with(m))
                    && text
                        .get(at + 3..)
                        .and_then(|r| r.chars().next())
                        .is_none_or(|f| matches!(f, ' ' | '\t' | '\r' | '\n'))
            };
            // After the root's last token a key may start only on a new line (libyaml's
            // `simple_key_allowed`).
            let key_candidate = line > end_line
                && !(matches!(c, '}' | ']' | ',')
                    || (matches!(c, '-' | '?' | ':') && blank_after)
                    || (c == '%' && col == 0)
                    || starts("---")
                    || starts("..."));
            let (token_end, token_end_byte) = if key_candidate {
                let (byte, columns) = look_end(at, true);
                ((line, col + columns), byte)
            } else {
                ((line, col), at + c.len_utf8())
            };
            if token_end > until {
                until = token_end;
                until_byte = token_end_byte;
            }
            if key_candidate {
                next_token = Some((line, col, at));
                next_is_key = true;
            } else if region_start.is_none() && line == end_line {
                // Fetched alone (a quoted scalar whole): nothing after it is a key.
                next_token = Some((line, col, at));
                single_token = true;
            }
        }
        Lookahead {
            until,
            until_byte,
            next_token,
            next_is_key,
            single_token,
            root_start,
            root_end_marker: *end,
            block_collection,
        }
    }
}

/// The line of the first text after the root (`end`) that go-yaml never reads: anything but
/// white space, comments and a `...` line.
fn unread_after(text: &str, end: saphyr_parser::Marker) -> Option<u32> {
    let from = if text.is_ascii() {
        end.index().min(text.len())
    } else {
        text.char_indices()
            .nth(end.index())
            .map_or(text.len(), |(b, _)| b)
    };
    let rest = text.get(from..)?;
    for (i, l) in rest.split('\n').enumerate() {
        let at_line_start = i > 0 || end.col() == 0;
        let t = l.trim();
        let end_marker = at_line_start
            && l.starts_with("...")
            && l.get(3..)
                .is_some_and(|r| r.trim().is_empty() || r.trim().starts_with('#'));
        if !t.is_empty() && !t.starts_with('#') && !end_marker {
            return u32::try_from(end.line() + i).ok();
        }
    }
    None
}

/// Where the root collection ends, from its end event, and whether it is a block collection.
/// saphyr-parser's span of a flow collection's end may start before its `}` or `]` (at a
/// trailing `,`) and runs on to the next token, so the end is just after the first closing
/// bracket from there; a block collection ends where the token that ends it starts.
fn collection_end(text: &str, root_start: usize, span: &Span) -> (saphyr_parser::Marker, bool) {
    let start = span.start;
    let mut chars = text.chars().skip(root_start);
    if !matches!(chars.next(), Some('{' | '[')) {
        return (start, true);
    }
    let mut at = start;
    for c in text.chars().skip(start.index()) {
        let next = if c == '\n' {
            saphyr_parser::Marker::new(at.index() + 1, at.line() + 1, 0)
        } else {
            saphyr_parser::Marker::new(at.index() + 1, at.line(), at.col() + 1)
        };
        if matches!(c, '}' | ']') {
            return (next, false);
        }
        at = next;
    }
    (start, false)
}

/// saphyr-parser's scanner looks past the end of the first document's root as libyaml's does,
/// but refuses some things there that libyaml does not (a `}` closing nothing, text right after
/// a quoted scalar), before it hands out the root's end. When the text up to the error reads as
/// a whole first document, the error lies past it: the error stands only when libyaml's
/// scanner reads that far and refuses it too. Otherwise that reading (the text up to the
/// error, and the stream as go-yaml reads it) is returned.
fn error_past_the_root(
    text: &str,
    mode: Mode,
    error: &Diagnostic,
) -> Option<Result<(String, Stream), Diagnostic>> {
    let at = byte_offset(text, error.line?, error.column?)?;
    let prefix = text.get(..at)?;
    let mut stream = match parse_stream(prefix, mode) {
        Ok(stream) => stream,
        // An error inside the document, before the one saphyr-parser met first while looking
        // ahead: libyaml meets it first.
        Err(e) if (e.line, e.column) < (error.line, error.column) => {
            return Some(Err(parse_stream(prefix, mode.tracking())
                .err()
                .unwrap_or(e)));
        }
        Err(_) => return None,
    };
    let read = stream.read.filter(|r| !r.block_collection)?;
    let read = Lookahead::after_root(text, read.root_start, &read.root_end_marker, false);
    let past = (error.line? as usize, error.column? as usize - 1);
    let info = error.message.split_once(": ").map_or("", |(_, i)| i);
    if past <= read.until && !parser_only_error(info) {
        return None;
    }
    stream.read = Some(read);
    Some(Ok((prefix.to_owned(), stream)))
}

/// A scanner error libyaml meets in what it reads past the root (`Lookahead`): from the next
/// token to where its look ends (see [`key_look`]), and when the look runs to the end of the
/// line with the key still possible, the one token after it. Only scanner errors count
/// (go-yaml parses nothing there).
fn lookahead_error(text: &str, read: &Lookahead) -> Option<Diagnostic> {
    let (_, _, at) = read.next_token?;
    let found = if read.single_token {
        next_token_error(text, at)
    } else {
        look_error_from(text, at, read.next_is_key)
    };
    let (found, message) = found?;
    let before = text.get(..found)?;
    let line = u32::try_from(before.matches('\n').count() + 1).ok()?;
    let column = u32::try_from(before.rsplit('\n').next()?.chars().count() + 1).ok()?;
    let message = if message == "found unknown escape character"
        && text.get(found..).is_some_and(|r| r.starts_with("\\/"))
    {
        "found unknown escape character (\\/ is YAML 1.2; kubectl and the API server read YAML 1.1)"
    } else {
        message
    };
    Some(
        Diagnostic::request(
            "syntax",
            "",
            format!("line {line} column {column}: {message}"),
        )
        .at(line, column),
    )
}

/// The scanner error in the look from a possible key (or the rest of the root's line) at `at`,
/// and in the one token after it when the line ends with the key still possible.
fn look_error_from(text: &str, at: usize, head: bool) -> Option<(usize, &'static str)> {
    let line_end = text
        .get(at..)
        .and_then(|r| r.find('\n'))
        .map_or(text.len(), |i| at + i);
    let look = key_look(text.get(at..line_end)?, head);
    look_error(text, at, at + look.end).or_else(|| {
        (look.open_at_line_end && !look.in_plain)
            .then(|| next_token_error(text, line_end))
            .flatten()
    })
}

/// What libyaml's scanner meets looking ahead for a possible key's `:` in `region` (the key's
/// line from its first token), read token by token as its scanner reads them.
#[derive(Debug, Clone, Copy)]
struct KeyLook {
    /// Where the look ends: that `:` outside flow collections, where the key is dropped, or the
    /// end of the region.
    end: usize,
    /// The line ended with the key still possible: libyaml fetches one more token, wherever it
    /// starts (its staleness check comes before each fetch, on where the last token ended).
    open_at_line_end: bool,
    /// The line ended inside a plain scalar, which goes on over the next lines.
    in_plain: bool,
}

/// See [`KeyLook`].
/// `head`: the region's first token is the possible key itself (not the rest of the root's
/// line, whose key is the root's).
fn key_look(region: &str, head: bool) -> KeyLook {
    let bytes = region.as_bytes();
    let blank_at = |i: usize| {
        bytes
            .get(i)
            .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    };
    let look = |end: usize| KeyLook {
        end,
        open_at_line_end: false,
        in_plain: false,
    };
    // go-yaml v2.4.4 (scannerc.go, yaml_parser_increase_flow_level / decrease_flow_level):
    // opening a flow collection files an empty key slot under the opener's own token number,
    // and closing it deletes the key registered under the slot's number. When no key was saved
    // inside (`[]`, `{}`, `[,]`), that number is still the opener's, so closing the collection
    // deletes the opener's own possible key: the look ends there.
    let head_opener = head && matches!(bytes.first(), Some(b'{' | b'['));
    let mut head_open = head_opener;
    let mut saved_inside = false;
    // Whether a token starting now may be a key (libyaml's `simple_key_allowed`), tracked in the
    // head's collection.
    let mut allowed = true;
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if head_open
            && depth == 1
            && allowed
            && !matches!(
                b,
                b' ' | b'\t' | b'\r' | b'\n' | b'#' | b'}' | b']' | b',' | b':' | b'?' | b'-'
            )
        {
            saved_inside = true;
        }
        match b {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'#' => break,
            b'{' | b'[' => {
                depth += 1;
                i += 1;
                allowed = true;
                continue;
            }
            // Closing nothing, or a `,` outside a collection: libyaml drops the possible key
            // and looks no further.
            b'}' | b']' | b',' if depth == 0 => return look(i + 1),
            b'}' | b']' => {
                depth -= 1;
                i += 1;
                if depth == 0 && head_open {
                    head_open = false;
                    if !saved_inside {
                        return look(i);
                    }
                }
                allowed = false;
                continue;
            }
            b',' => {
                i += 1;
                allowed = true;
                continue;
            }
            b':' if depth == 0 && blank_at(i + 1) => return look(i),
            b':' if depth > 0 => {
                i += 1;
                allowed = false;
                continue;
            }
            b'?' | b'-' if depth > 0 && blank_at(i + 1) => {
                i += 1;
                allowed = true;
                continue;
            }
            b'"' => {
                i += 1;
                while let Some(&q) = bytes.get(i) {
                    match q {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            b'\'' => {
                i += 1;
                while let Some(&q) = bytes.get(i) {
                    if q == b'\'' {
                        if bytes.get(i + 1) == Some(&b'\'') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
            }
            _ => {
                // A plain scalar: in a flow collection it ends at a flow indicator; outside, only
                // at `: `, ` #` or the end of the line.
                let mut ended = false;
                while let Some(&p) = bytes.get(i) {
                    if p == b':'
                        && (blank_at(i + 1)
                            || (depth > 0
                                && matches!(
                                    bytes.get(i + 1),
                                    Some(b',' | b'[' | b']' | b'{' | b'}')
                                )))
                    {
                        ended = true;
                        break;
                    }
                    if depth > 0 && matches!(p, b',' | b'[' | b']' | b'{' | b'}') {
                        ended = true;
                        break;
                    }
                    if p == b'#' && i > 0 && blank_at(i - 1) {
                        ended = true;
                        break;
                    }
                    if p == b'\n' {
                        break;
                    }
                    i += 1;
                }
                if !ended {
                    // Trailing blanks end the line, not the scalar.
                    return KeyLook {
                        end: region.len(),
                        open_at_line_end: true,
                        in_plain: true,
                    };
                }
            }
        }
        allowed = false;
    }
    KeyLook {
        end: region.len(),
        open_at_line_end: true,
        in_plain: false,
    }
}

/// The first token libyaml fetches after `from` (past blanks, line breaks and comments), read
/// as its scanner reads it: the byte offset and message of a scanner error in it. A quoted
/// scalar is read whole, over as many lines as it takes.
fn next_token_error(text: &str, from: usize) -> Option<(usize, &'static str)> {
    let bytes = text.as_bytes();
    let mut i = from;
    let mut line_start = from == 0 || bytes.get(from - 1) == Some(&b'\n');
    loop {
        match bytes.get(i)? {
            b' ' | b'\t' | b'\r' => i += 1,
            b'\n' => {
                i += 1;
                line_start = true;
            }
            b'#' => {
                while bytes.get(i).is_some_and(|b| *b != b'\n') {
                    i += 1;
                }
            }
            _ => break,
        }
    }
    let column0 = line_start && (i == 0 || bytes.get(i - 1) == Some(&b'\n'));
    match bytes.get(i)? {
        b'@' | b'`' => Some((i, "found character that cannot start any token")),
        b'%' if !column0 => Some((i, "found character that cannot start any token")),
        b'"' => quoted_error(text, i, false),
        b'\'' => quoted_error(text, i, true),
        _ => None,
    }
}

/// A scanner error in the quoted scalar opening at `at` (go-yaml v2 scannerc.go,
/// yaml_parser_scan_flow_scalar): an escape libyaml lacks, a document marker at the start of a
/// line inside it, or no closing quote before the end of the text.
fn quoted_error(text: &str, at: usize, single: bool) -> Option<(usize, &'static str)> {
    let bytes = text.as_bytes();
    let mut i = at + 1;
    loop {
        let Some(&b) = bytes.get(i) else {
            return Some((at, "found unexpected end of stream"));
        };
        if bytes.get(i.wrapping_sub(1)) == Some(&b'\n')
            && (text
                .get(i..)
                .is_some_and(|r| r.starts_with("---") || r.starts_with("...")))
            && bytes
                .get(i + 3)
                .is_none_or(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
        {
            return Some((at, "found unexpected document indicator"));
        }
        match b {
            b'\'' if single => {
                if bytes.get(i + 1) == Some(&b'\'') {
                    i += 2;
                    continue;
                }
                return None;
            }
            b'"' if !single => return None,
            b'\\' if !single => {
                let Some(&e) = bytes.get(i + 1) else {
                    return Some((at, "found unexpected end of stream"));
                };
                let digits = match e {
                    b'\r' | b'\n' => 0,
                    b'0' | b'a' | b'b' | b't' | b'\t' | b'n' | b'v' | b'f' | b'r' | b'e' | b' '
                    | b'"' | b'\'' | b'\\' | b'N' | b'_' | b'L' | b'P' => 0,
                    b'x' => 2,
                    b'u' => 4,
                    b'U' => 8,
                    _ => return Some((i, "found unknown escape character")),
                };
                let code = text.get(i + 2..i + 2 + digits);
                match code.map(|c| u32::from_str_radix(c, 16)) {
                    Some(Ok(v))
                        if digits > 0 && ((0xD800..=0xDFFF).contains(&v) || v > 0x10FFFF) =>
                    {
                        return Some((at, "found invalid Unicode character escape code"));
                    }
                    Some(Ok(_)) => {}
                    _ => return Some((at, "did not find expected hexdecimal number")),
                }
                i += 2 + digits;
            }
            _ => {
                i += text
                    .get(i..)
                    .and_then(|r| r.chars().next())
                    .map_or(1, char::len_utf8)
            }
        }
    }
}

/// Scanner errors libyaml meets in `region` (from the head token to where its look ends, see
/// [`key_look`]): quoted scalars (read whole, wherever they end) and characters that cannot
/// start a token. Byte offsets are `text`'s; `region` starts at `from`.
fn look_error(text: &str, from: usize, end: usize) -> Option<(usize, &'static str)> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = from;
    while i < end {
        let b = *bytes.get(i)?;
        match b {
            b' ' | b'\t' | b'\r' | b'\n' | b',' | b':' | b'?' | b'-' => i += 1,
            b'#' => return None,
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'@' | b'`' | b'%' => return Some((i, "found character that cannot start any token")),
            b'"' | b'\'' => {
                if let Some(e) = quoted_error(text, i, b == b'\'') {
                    return Some(e);
                }
                // Past the closing quote.
                i += 1;
                while let Some(&q) = bytes.get(i) {
                    i += 1;
                    // An escape, or a doubled single quote, is skipped whole.
                    if (b == b'"' && q == b'\\')
                        || (q == b && b == b'\'' && bytes.get(i) == Some(&b'\''))
                    {
                        i += 1;
                    } else if q == b {
                        break;
                    }
                }
            }
            _ => {
                while let Some(&p) = bytes.get(i) {
                    if i >= end
                        || p == b'\n'
                        || (p == b':'
                            && bytes
                                .get(i + 1)
                                .is_none_or(|n| matches!(n, b' ' | b'\t' | b'\r' | b'\n')))
                        || (depth > 0 && matches!(p, b',' | b'[' | b']' | b'{' | b'}'))
                        || (p == b'#' && matches!(bytes.get(i.wrapping_sub(1)), Some(b' ' | b'\t')))
                    {
                        break;
                    }
                    i += 1;
                }
            }
        }
    }
    None
}

/// Where libyaml's look ahead for a possible key ends (see [`key_look`]).
fn key_resolved_at(region: &str, head: bool) -> usize {
    key_look(region, head).end
}

/// Errors saphyr-parser's parser (not its scanner) raises, and two refusals of its scanner that
/// libyaml's lacks (a `}` or `]` closing nothing, which libyaml makes a token of; text right
/// after a double-quoted scalar, which libyaml leaves to its parser): after the first
/// document's root, go-yaml parses nothing more, so none of these is one of its errors there.
fn parser_only_error(info: &str) -> bool {
    info == "misplaced bracket"
        || info == "invalid trailing content after double-quoted scalar"
        || info == "unexpected eof"
        || info.starts_with("did not find expected")
        || info.starts_with("while parsing")
        || info.starts_with("missing explicit document end")
        || info.starts_with("a byte order mark")
        || info.starts_with("duplicate version")
        || info.starts_with("found incompatible")
        || info.starts_with("the TAG directive")
        || info.starts_with("the handle wasn't")
}

/// With `lenient_keys`, the refusals only the conversion to JSON makes (a null key, a number
/// beyond float64), kept aside until the document is read: go-yaml's non-strict decoding
/// (kubectl's) replaces the value of a key written twice before `sigs.k8s.io/yaml` converts the
/// document, so a refusal inside a replaced value never reaches the conversion.
/// Per key of a mapping: the range of [`Deferred::errors`] its value's errors occupy.
type ErrorsPerKey = HashMap<String, (usize, usize)>;

#[derive(Default)]
struct Deferred {
    /// In document order; `None` once the value holding it was replaced.
    errors: Vec<Option<Diagnostic>>,
    /// Per open collection (parallel to the frame stack): where its errors start, and for a
    /// mapping, per key, the errors of that key's value (a range of `errors`).
    frames: Vec<(usize, ErrorsPerKey)>,
    /// Per anchor: the errors its node holds, which every alias to it holds again.
    anchors: HashMap<usize, Vec<Diagnostic>>,
}

impl Deferred {
    fn defer(&mut self, error: Diagnostic) {
        self.errors.push(Some(error));
    }

    /// The value whose errors start at `start` is placed in the innermost collection: under a
    /// key written before, it replaces that key's value, whose errors go with it.
    fn placed(&mut self, stack: &[Frame], start: usize) {
        let end = self.errors.len();
        if let (
            Some(Frame::Map {
                key: Some(k),
                merging: false,
                ..
            }),
            Some((_, owned)),
        ) = (stack.last(), self.frames.last_mut())
            && let Some((from, to)) = owned.insert(k.clone(), (start, end))
        {
            for e in self.errors.get_mut(from..to).unwrap_or_default() {
                *e = None;
            }
        }
    }

    fn anchored(&mut self, anchor: usize, start: usize) {
        let held = self.errors.get(start..).unwrap_or_default();
        self.anchors
            .insert(anchor, held.iter().flatten().cloned().collect());
    }

    fn first(self) -> Option<Diagnostic> {
        self.errors.into_iter().flatten().next()
    }
}

/// Documents as (first line, value), and with `track` the positions of every field of each.
/// Without `track` no path string is built, and errors carry no field path.
fn parse_stream(text: &str, mode: Mode) -> Result<Stream, Diagnostic> {
    let Mode {
        track,
        json,
        first_only,
        lenient_keys,
    } = mode;
    let source = text;
    let mut parser = Parser::new_from_str(text);
    let mut docs = Vec::new();
    let mut all_positions = Vec::new();
    // Manifests nest about 10-20 levels; sized once so the hot loop never regrows it.
    let mut stack: Vec<Frame> = Vec::with_capacity(32);
    let mut anchors: HashMap<usize, Value> = HashMap::new();
    let mut positions: Positions = HashMap::new();
    let mut notes: Vec<ReadNote> = Vec::new();
    let mut all_notes = Vec::new();
    let mut root: Option<Value> = None;
    // With `first_only`, once the root node has ended: how far go-yaml reads on.
    let mut lookahead: Option<Lookahead> = None;
    let mut root_start: usize = 0;
    let mut doc_line: u32 = 1;
    let mut nodes: usize = 0;
    let mut alias_nodes: usize = 0;
    let mut deferred = Deferred::default();

    // Where a node that starts now belongs (its path: empty when not tracking).
    fn slot_path(stack: &[Frame], track: bool) -> Option<String> {
        match stack.last() {
            Some(Frame::Map { key: None, .. }) => None, // the node is a key
            _ if !track => Some(String::new()),
            None => Some(String::new()),
            Some(Frame::Seq { items, path, .. }) => Some(format!("{path}[{}]", items.len())),
            Some(Frame::Map {
                key: Some(k), path, ..
            }) => Some(child_path(path, k)),
        }
    }

    while let Some(ev) = parser.next_event() {
        if let Some(read) = lookahead {
            // The first document is whole: only the scanner's look past it remains (see
            // `Lookahead`).
            match ev {
                Ok((event, span)) => {
                    if (span.start.line(), span.start.col()) > read.until {
                        break;
                    }
                    if let Event::Scalar(text, ScalarStyle::DoubleQuoted, ..) = &event
                        && !json
                        && text.contains('/')
                    {
                        escaped_slash_check(source, &span)?;
                    }
                    continue;
                }
                Err(e) => {
                    let at = (e.marker().line(), e.marker().col());
                    if at <= read.until && !parser_only_error(e.info()) {
                        return Err(scan_error(&e));
                    }
                    break;
                }
            }
        }
        let (event, span) = ev.map_err(|e| scan_error(&e))?;
        if first_only && stack.is_empty() && root.is_none() {
            root_start = span.start.index();
        }
        let line = span.start.line() as u32;
        let col = span.start.col() as u32 + 1;
        match event {
            Event::StreamStart | Event::StreamEnd | Event::Nothing => {}
            Event::DocumentStart(_) => {
                root = None;
                anchors.clear();
                doc_line = line.max(1);
            }
            Event::DocumentEnd => {
                if let Some(v) = root.take()
                    && !v.is_null()
                {
                    docs.push((doc_line, v));
                    all_positions.push(std::mem::take(&mut positions));
                    all_notes.push(std::mem::take(&mut notes));
                }
                positions.clear();
                notes.clear();
                if first_only {
                    // go-yaml's Unmarshal reads one document and never looks past its end.
                    break;
                }
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(err_at(
                        &span,
                        "too-deep",
                        stack.last().map(Frame::path).unwrap_or(""),
                        format!("nesting deeper than {MAX_DEPTH} levels"),
                    ));
                }
                let Some(path) = slot_path(&stack, track) else {
                    return Err(err_at(
                        &span,
                        "complex-key",
                        stack.last().map(Frame::path).unwrap_or(""),
                        "a mapping key must be a plain value, not a list or mapping".to_owned(),
                    ));
                };
                if stack.is_empty() {
                    doc_line = line;
                }
                if track {
                    positions.entry(path.clone()).or_insert((line, col));
                }
                nodes += 1;
                if lenient_keys {
                    deferred
                        .frames
                        .push((deferred.errors.len(), HashMap::new()));
                }
                if matches!(event, Event::SequenceStart(..)) {
                    stack.push(Frame::Seq {
                        items: Vec::new(),
                        path,
                        anchor,
                    });
                } else {
                    stack.push(Frame::Map {
                        // Most manifest mappings hold a handful of keys: sized for them up front
                        // rather than regrown (and rehashed) key by key.
                        map: Map::with_capacity(4),
                        path,
                        key: None,
                        merging: false,
                        anchor,
                    });
                }
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (value, anchor) = match stack.pop() {
                    Some(Frame::Seq { items, anchor, .. }) => (Value::Array(items), anchor),
                    Some(Frame::Map { map, anchor, .. }) => (Value::Object(map), anchor),
                    None => continue,
                };
                if anchor > 0 {
                    anchors.insert(anchor, value.clone());
                }
                if lenient_keys && let Some((start, _)) = deferred.frames.pop() {
                    if anchor > 0 {
                        deferred.anchored(anchor, start);
                    }
                    deferred.placed(&stack, start);
                }
                place(&mut stack, &mut root, value, &span, lenient_keys)?;
                if first_only && stack.is_empty() && root.is_some() {
                    let (end, block) = collection_end(source, root_start, &span);
                    lookahead = Some(Lookahead::after_root(source, root_start, &end, block));
                    if let Some(v) = root.take().filter(|v| !v.is_null()) {
                        docs.push((doc_line, v));
                        all_positions.push(std::mem::take(&mut positions));
                        all_notes.push(std::mem::take(&mut notes));
                    }
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                nodes += 1;
                if nodes > MAX_NODES {
                    return Err(err_at(
                        &span,
                        "too-large",
                        "",
                        format!("more than {MAX_NODES} nodes"),
                    ));
                }
                let is_key = matches!(stack.last(), Some(Frame::Map { key: None, .. }));
                if is_key {
                    if let Some(Frame::Map {
                        map,
                        key,
                        path,
                        merging,
                        ..
                    }) = stack.last_mut()
                    {
                        let Key {
                            name: k,
                            merge,
                            renamed_from,
                        } = match scalar_key(text, style, tag.as_deref()) {
                            Ok(key) => key,
                            // Kept aside: the map holding it may yet be replaced.
                            Err(KeyError {
                                message,
                                null: true,
                            }) if lenient_keys => {
                                deferred.defer(err_at(&span, "invalid-key", path, message));
                                Key {
                                    name: NULL_KEY.to_owned(),
                                    merge: false,
                                    renamed_from: None,
                                }
                            }
                            Err(KeyError { message, .. }) => {
                                return Err(err_at(&span, "invalid-key", path, message));
                            }
                        };
                        if let Some(w) = renamed_from {
                            notes.push(ReadNote {
                                line,
                                column: col,
                                field: if track {
                                    child_path(path, &k)
                                } else {
                                    String::new()
                                },
                                text: w,
                                read_as: Value::String(k.clone()),
                                key: true,
                            });
                        }
                        if merge {
                            *merging = true;
                            *key = Some(k);
                            continue;
                        }
                        // The fast pass finds a duplicate when it inserts (see `place`) and the
                        // tracking pass reports it here, with both lines.
                        if track && !lenient_keys && map.contains_key(&k) {
                            let p = child_path(path, &k);
                            let first = positions
                                .get(&p)
                                .map(|(l, _)| format!(" (first at line {l})"))
                                .unwrap_or_default();
                            return Err(err_at(
                                &span,
                                "duplicate-key",
                                &p,
                                format!(
                                    "duplicate key {k:?} in {}{first}",
                                    if path.is_empty() {
                                        "the document"
                                    } else {
                                        path.as_str()
                                    }
                                ),
                            ));
                        }
                        if track {
                            positions.insert(child_path(path, &k), (line, col));
                        }
                        *key = Some(k);
                    }
                    continue;
                }
                let path = slot_path(&stack, track).unwrap_or_default();
                if track {
                    positions.entry(path.clone()).or_insert((line, col));
                }
                if !json && style == ScalarStyle::DoubleQuoted && text.contains('/') {
                    escaped_slash_check(source, &span)?;
                }
                let written = (style == ScalarStyle::Plain
                    && tag.is_none()
                    && resolve::may_differ_from_yaml_1_2(&text))
                .then(|| text.to_string());
                let value_errors = deferred.errors.len();
                let value = match scalar_value(text, style, tag.as_deref()) {
                    Ok(value) => value,
                    // Kept aside: the key holding it may yet be written again.
                    Err(("invalid-number", m)) if lenient_keys => {
                        deferred.defer(err_at(
                            &span,
                            "invalid-number",
                            &path,
                            format!("{path}: {m}"),
                        ));
                        Value::Null
                    }
                    Err((code, m)) => {
                        return Err(err_at(&span, code, &path, format!("{path}: {m}")));
                    }
                };
                // Unquoted JSON is a number, true, false or null; one YAML keeps as a string is a
                // number beyond float64, which Go's JSON decoder refuses.
                if json && style == ScalarStyle::Plain && tag.is_none() && value.is_string() {
                    return Err(err_at(
                        &span,
                        "invalid-number",
                        &path,
                        format!("{path}: the number {value} is out of range (float64)"),
                    ));
                }
                if let Some(w) = written
                    && resolve::differs_from_yaml_1_2(&w, &value)
                {
                    notes.push(ReadNote {
                        line,
                        column: col,
                        field: path.clone(),
                        text: w,
                        read_as: value.clone(),
                        key: false,
                    });
                }
                if anchor > 0 {
                    anchors.insert(anchor, value.clone());
                }
                if lenient_keys {
                    if anchor > 0 {
                        deferred.anchored(anchor, value_errors);
                    }
                    deferred.placed(&stack, value_errors);
                }
                place(&mut stack, &mut root, value, &span, lenient_keys)?;
                if first_only && stack.is_empty() && root.is_some() {
                    lookahead = Some(Lookahead::after_root(source, root_start, &span.end, false));
                    if let Some(v) = root.take().filter(|v| !v.is_null()) {
                        docs.push((doc_line, v));
                        all_positions.push(std::mem::take(&mut positions));
                        all_notes.push(std::mem::take(&mut notes));
                    }
                }
            }
            Event::Alias(id) => {
                let Some(anchored) = anchors.get(&id) else {
                    return Err(err_at(
                        &span,
                        "unknown-alias",
                        "",
                        "alias to an unknown anchor".to_owned(),
                    ));
                };
                // Counted before the copy: a billion-laughs document must fail before it has
                // filled memory (it reached 700 MB natively, and the plugin's memory cap, when
                // the check came after the clone).
                let expanded = count_nodes(anchored, MAX_ALIAS_NODES);
                alias_nodes += expanded;
                nodes += expanded;
                if alias_nodes > MAX_ALIAS_NODES || nodes > MAX_NODES {
                    return Err(err_at(
                        &span,
                        "too-large",
                        "",
                        format!("aliases expand to more than {MAX_ALIAS_NODES} nodes"),
                    ));
                }
                let v = anchored.clone();
                let alias_errors = deferred.errors.len();
                if lenient_keys && let Some(held) = deferred.anchors.get(&id) {
                    let held = held.clone();
                    deferred.errors.extend(held.into_iter().map(Some));
                }
                if track && let Some(path) = slot_path(&stack, true) {
                    positions.entry(path).or_insert((line, col));
                }
                if matches!(stack.last(), Some(Frame::Map { key: None, .. })) {
                    let Value::String(k) = v else {
                        return Err(err_at(
                            &span,
                            "complex-key",
                            "",
                            "a mapping key must be a plain value".to_owned(),
                        ));
                    };
                    if let Some(Frame::Map { key, .. }) = stack.last_mut() {
                        *key = Some(k);
                    }
                    continue;
                }
                if lenient_keys {
                    deferred.placed(&stack, alias_errors);
                }
                place(&mut stack, &mut root, v, &span, lenient_keys)?;
                if first_only && stack.is_empty() && root.is_some() {
                    lookahead = Some(Lookahead::after_root(source, root_start, &span.end, false));
                    if let Some(v) = root.take().filter(|v| !v.is_null()) {
                        docs.push((doc_line, v));
                        all_positions.push(std::mem::take(&mut positions));
                        all_notes.push(std::mem::take(&mut notes));
                    }
                }
            }
        }
    }
    if let Some(e) = deferred.first() {
        return Err(e);
    }
    Ok(Stream {
        docs,
        positions: all_positions,
        notes: all_notes,
        read: lookahead,
    })
}

fn count_nodes(v: &Value, cap: usize) -> usize {
    let mut n = 0usize;
    let mut todo = vec![v];
    while let Some(x) = todo.pop() {
        n += 1;
        if n > cap {
            break;
        }
        match x {
            Value::Array(a) => todo.extend(a.iter()),
            Value::Object(o) => todo.extend(o.values()),
            _ => {}
        }
    }
    n
}

fn place(
    stack: &mut [Frame],
    root: &mut Option<Value>,
    value: Value,
    span: &Span,
    lenient_keys: bool,
) -> Result<(), Diagnostic> {
    match stack.last_mut() {
        None => {
            *root = Some(value);
            Ok(())
        }
        Some(Frame::Seq { items, .. }) => {
            items.push(value);
            Ok(())
        }
        Some(Frame::Map {
            map,
            key,
            path,
            merging,
            ..
        }) if *merging => {
            *merging = false;
            *key = None;
            merge_into(map, value, path, span, lenient_keys)
        }
        Some(Frame::Map { map, key, path, .. }) => match key.take() {
            Some(k) => match map.insert(k, value) {
                None => Ok(()),
                Some(_) if lenient_keys => Ok(()),
                // Only the fast pass gets here; its caller re-reads with tracking for the message.
                Some(_) => Err(err_at(
                    span,
                    "duplicate-key",
                    path,
                    "duplicate key".to_owned(),
                )),
            },
            None => Err(err_at(
                span,
                "complex-key",
                path,
                "a mapping key must be a plain value".to_owned(),
            )),
        },
    }
}

/// The value of a merge key (`<<: *defaults`, or a list of such mappings) merged into `map`, as
/// go-yaml does. A key set twice, by the merge or around it, is an error, as strict decoding
/// (kubectl's default) makes it.
fn merge_into(
    map: &mut Map<String, Value>,
    value: Value,
    path: &str,
    span: &Span,
    lenient_keys: bool,
) -> Result<(), Diagnostic> {
    let not_mergeable = || {
        err_at(
            span,
            "invalid-merge",
            path,
            "map merge requires map or sequence of maps as the value".to_owned(),
        )
    };
    let sources = match value {
        Value::Object(m) => vec![m],
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::Object(m) => Ok(m),
                _ => Err(not_mergeable()),
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(not_mergeable()),
    };
    for source in sources {
        for (k, v) in source {
            if map.contains_key(&k) {
                if lenient_keys {
                    continue;
                }
                let at = child_path(path, &k);
                return Err(err_at(
                    span,
                    "duplicate-key",
                    &at,
                    format!("key {k:?} already set in map (merged from `<<`)"),
                ));
            }
            map.insert(k, v);
        }
    }
    Ok(())
}

/// Text from bytes, or an `invalid-utf8` error naming the line and column (1-based, counted in
/// characters as the YAML reader counts them) of the first byte that is not UTF-8. For the front
/// ends that receive bytes (the CLI's files, the plugin's linear memory).
pub fn text_from_bytes(bytes: &[u8]) -> Result<&str, Diagnostic> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let good = String::from_utf8_lossy(bytes.get(..at).unwrap_or_default());
        let line = good.matches('\n').count() + 1;
        let col = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        let (line, col) = (
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(col).unwrap_or(u32::MAX),
        );
        Diagnostic::request(
            "invalid-utf8",
            "",
            format!("line {line} column {col}: not UTF-8 text (byte {at})"),
        )
        .at(line, col)
    })
}

/// Parses one JSON value (a request), rejecting duplicate keys, which serde_json would otherwise
/// resolve silently by keeping the last.
pub fn parse_json_strict(text: &str) -> Result<Value, Diagnostic> {
    let mut de = serde_json::Deserializer::from_str(text);
    let v = StrictValue::deserialize_from(&mut de).map_err(json_error)?;
    de.end().map_err(json_error)?;
    Ok(v)
}

fn json_error(e: serde_json::Error) -> Diagnostic {
    let (line, col) = (e.line() as u32, e.column() as u32);
    Diagnostic::request("invalid-json", "", format!("invalid JSON: {e}")).at(line, col)
}

struct StrictValue;

impl StrictValue {
    fn deserialize_from<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

struct Strict(Value);

impl<'de> de::Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("not a finite number"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = m.next_key::<String>()? {
            let Strict(v) = m.next_value()?;
            if out.contains_key(&k) {
                return Err(de::Error::custom(format!("duplicate key {k:?}")));
            }
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Document {
        let mut d = parse_documents(text).unwrap_or_default();
        assert_eq!(d.len(), 1, "{text}");
        d.remove(0)
    }

    #[test]
    fn positions_of_fields() {
        let d = one(
            "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    restartPolicy: Never\n",
        );
        assert_eq!(d.position_of("spec.containers[0].restartPolicy"), (6, 5));
        assert_eq!(
            d.position_of("spec.containers[0].restartPolicyRules[3].action"),
            (5, 5)
        );
        assert_eq!(d.position_of("kind"), (2, 1));
    }

    #[test]
    fn yaml_and_json_agree() {
        let y = one("a: 1\nb: [x, 2, true, null, 1.5]\nc: {d: '3'}\n");
        let j = one(r#"{"a": 1, "b": ["x", 2, true, null, 1.5], "c": {"d": "3"}}"#);
        assert_eq!(y.value, j.value);
    }

    #[test]
    fn multi_document_streams() {
        let d = parse_documents("---\na: 1\n---\n---\nb: 2\n...\n").unwrap_or_default();
        assert_eq!(d.len(), 2);
        assert_eq!(d.get(1).map(|x| x.line), Some(5));
    }

    #[test]
    fn positions_of_later_documents_come_from_the_shared_lazy_pass() {
        let d =
            parse_documents("a: 1\n---\n# note\nb:\n  c: [1, 2]\n---\nd: x\n").unwrap_or_default();
        assert_eq!(d.len(), 3);
        // Asked out of order: the stream is re-read once, and each document keeps its own map.
        assert_eq!(d.get(2).map(|x| x.position_of("d")), Some((7, 1)));
        assert_eq!(d.get(1).map(|x| x.position_of("b.c[1]")), Some((5, 10)));
        assert_eq!(d.first().map(|x| x.position_of("a")), Some((1, 1)));
        assert_eq!(
            d.get(1).map(|x| x.position_of("a")),
            Some((4, 1)),
            "a field the document lacks falls back to its first line"
        );
    }

    #[test]
    fn duplicate_keys_are_errors_with_a_line() {
        let e = parse_documents("a: 1\nb:\n  c: 1\n  c: 2\n").err();
        let e = e.map(|e| (e.line, e.field, e.code)).unwrap_or_default();
        assert_eq!(
            e,
            (Some(4), "b.c".to_owned(), Some("duplicate-key".to_owned()))
        );
        assert!(parse_json_strict(r#"{"a":1,"a":2}"#).is_err());
    }

    #[test]
    fn deep_nesting_and_alias_bombs_are_errors() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(parse_documents(&deep).is_err());
        let mut bomb = String::from("a: &a [x,x,x,x,x,x,x,x,x,x]\n");
        for i in 0..9 {
            let prev = if i == 0 {
                "a".to_owned()
            } else {
                format!("a{}", i - 1)
            };
            bomb.push_str(&format!("a{i}: &a{i} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        }
        assert!(parse_documents(&bomb).is_err());
    }

    #[test]
    fn non_utf8_bytes_name_their_line_and_column() {
        let e = text_from_bytes(b"a: 1\nb: \xc3\xa9\xff\n")
            .err()
            .map(|d| (d.line, d.column, d.code));
        assert_eq!(e, Some((Some(2), Some(5), Some("invalid-utf8".to_owned()))));
        assert_eq!(text_from_bytes(b"ok").ok(), Some("ok"));
    }

    /// Scalars that YAML 1.1 (the API server) and YAML 1.2 read differently are noted with their
    /// field; those both read alike (`true`, `08`, `0x1F`, `6.0`, quoted ones) are not.
    #[test]
    fn yaml_1_1_readings_are_noted_with_their_field() {
        let d = one(
            "a: yes\nb: [010, 08, 0x1F, 6.0, '010', true]\non: 1\nc: {d: 1_000, e: 0b11, f: Off}\n",
        );
        let notes: Vec<(String, String, Value, bool)> = d
            .notes
            .iter()
            .map(|n| (n.field.clone(), n.text.clone(), n.read_as.clone(), n.key))
            .collect();
        assert_eq!(
            notes,
            vec![
                ("a".to_owned(), "yes".to_owned(), Value::Bool(true), false),
                ("b[0]".to_owned(), "010".to_owned(), Value::from(8), false),
                (
                    "true".to_owned(),
                    "on".to_owned(),
                    Value::from("true"),
                    true
                ),
                (
                    "c.d".to_owned(),
                    "1_000".to_owned(),
                    Value::from(1000),
                    false
                ),
                ("c.e".to_owned(), "0b11".to_owned(), Value::from(3), false),
                (
                    "c.f".to_owned(),
                    "Off".to_owned(),
                    Value::Bool(false),
                    false
                ),
            ]
        );
        assert_eq!(d.notes.get(1).map(|n| (n.line, n.column)), Some((2, 5)));
        assert!(
            one("a: true\nb: [08, 0x1F, 6.0, '010', 12]\n")
                .notes
                .is_empty()
        );
    }

    /// Where go-yaml's YAML 1.1 syntax differs from YAML 1.2 (checked against sigs.k8s.io/yaml
    /// v1.6.0): `\'` is an escape and `\/` is not, `%YAML 1.2` is refused, `!!binary` decodes.
    #[test]
    fn syntax_differences_follow_go_yaml() {
        let code = |text: &str| parse_documents(text).err().and_then(|e| e.code);
        assert_eq!(
            one("a: \"it\\'s \\' \"\nb: 'x\\'\nc: \"\\\\'\"\n").value,
            serde_json::json!({"a": "it's ' ", "b": "x\\", "c": "\\'"})
        );
        assert_eq!(code("a: \"\\'\\q\"\n").as_deref(), Some("syntax"));
        assert_eq!(code("a: \"http:\\/\\/x\"\n").as_deref(), Some("syntax"));
        // JSON (kubectl reads a stream starting with `{` as JSON) has `\/`.
        assert_eq!(
            one("{\"a\": \"http:\\/\\/x\"}").value,
            serde_json::json!({"a": "http://x"})
        );
        assert_eq!(
            one("a: 'x\\/'\nb: x\\/\n").value,
            serde_json::json!({"a": "x\\/", "b": "x\\/"})
        );
        assert_eq!(code("%YAML 1.2\n---\na: 1\n").as_deref(), Some("syntax"));
        // kubectl's document splitter: only spaces or a comment after `---`.
        assert_eq!(code("a: 1\n--- {b: 2}\n").as_deref(), Some("syntax"));
        assert_eq!(code("a: 1\n----\nb: 2\n").as_deref(), Some("syntax"));
        assert_eq!(
            parse_documents("--- # first\na: 1\n---   \nb: 2\n")
                .map(|d| d.len())
                .ok(),
            Some(2)
        );
        // kubectl cuts the stream at the `---` line first: the directive is a piece of its own,
        // which go-yaml refuses.
        assert_eq!(code("%YAML 1.1\n---\na: 1\n").as_deref(), Some("syntax"));
        assert_eq!(
            one("a: !!binary aGk=\nb: !!binary |\n  aG\n  k=\n").value,
            serde_json::json!({"a": "hi", "b": "hi"})
        );
        assert_eq!(code("a: !!binary '%%'\n").as_deref(), Some("invalid-value"));
        assert_eq!(
            one("a: [cat, -]\nb: {c: -, d: [-]}\ne: [-x, '-']\n").value,
            serde_json::json!({"a": ["cat", "-"], "b": {"c": "-", "d": ["-"]}, "e": ["-x", "-"]})
        );
        // Bounded: each `\'` scalar costs a parse.
        assert_eq!(
            one("\u{feff}a: \"\\'\"\n").value,
            serde_json::json!({"a": "'"})
        );
        let many = format!("a: [{}]\n", vec!["\"\\'\""; 150].join(", "));
        assert_eq!(code(&many).as_deref(), Some("syntax"));
    }

    /// Documents as `sigs.k8s.io/yaml` v1.6.0 `YAMLToJSONStrict` converts them (each expected
    /// value was read off it), the conversion kube-apiserver and kubectl make.
    #[test]
    fn documents_convert_as_the_api_server_converts_them() {
        let d = one("a: 0x10\nb: '42'\nc: -7\nd: 99999999999999999999\ne: yes\nf: 010\ng: 6.0\n");
        assert_eq!(
            d.value,
            serde_json::json!({"a": 16, "b": "42", "c": -7, "d": 1e20, "e": true, "f": 8, "g": 6})
        );
        let keys = one("1: a\nyes: b\n010: c\n0x1F: d\n1.50: e\n-1: f\n1e3: g\n'y': h\n");
        assert_eq!(
            keys.value,
            serde_json::json!({"1": "a", "true": "b", "8": "c", "31": "d", "1.5": "e", "-1": "f", "1000": "g", "y": "h"})
        );
        let tags = one("a: !!str 010\nb: !!int '010'\nc: !!float 1\nd: !!bool yes\ne: !foo bar\n");
        assert_eq!(
            tags.value,
            serde_json::json!({"a": "010", "b": 8, "c": 1, "d": true, "e": "bar"})
        );
        let merged = one("x: &x {a: 1}\nm:\n  <<: [*x, {d: 1}]\n  b: 2\nz:\n  <<: {c: 3}\n");
        assert_eq!(
            merged.value,
            serde_json::json!({"x": {"a": 1}, "m": {"a": 1, "d": 1, "b": 2}, "z": {"c": 3}})
        );
        // A quoted `<<` is an ordinary key.
        assert_eq!(
            one("'<<': {a: 1}\n").value,
            serde_json::json!({"<<": {"a": 1}})
        );
        let code = |text: &str| parse_documents(text).err().and_then(|e| e.code);
        assert_eq!(code("a: !!int abc\n").as_deref(), Some("invalid-value"));
        assert_eq!(code("~: a\n").as_deref(), Some("invalid-key"));
        assert_eq!(code("<<: 5\n").as_deref(), Some("invalid-merge"));
        assert_eq!(code("<<: [1]\n").as_deref(), Some("invalid-merge"));
        // Strict decoding refuses a key set twice, by a merge too.
        assert_eq!(code("a: 1\n<<: {a: 2}\n").as_deref(), Some("duplicate-key"));
        assert_eq!(code("<<: {a: 2}\na: 1\n").as_deref(), Some("duplicate-key"));
        assert_eq!(
            code("<<: [{a: 1}, {a: 2}]\n").as_deref(),
            Some("duplicate-key")
        );
        assert!(parse_documents("a: .nan\n").is_err());
        let merge_error = parse_documents("spec:\n  a: 1\n  <<: {a: 2}\n").err();
        assert_eq!(
            merge_error.map(|e| (e.field, e.line)),
            Some(("spec.a".to_owned(), Some(3)))
        );
    }
}
