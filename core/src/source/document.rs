//! A read document: its JSON value, where each field sits (found on first use), and the edits
//! a quick fix makes to the text while keeping its layout.

use super::resolve;
use super::types::{Mode, Offset, Positions, ReadNote};
use super::yaml::parse_stream;
use serde_json::Value;
use std::sync::{Arc, OnceLock};

/// The positions of a whole stream, found on first use: most inputs are valid and never ask
/// for a line, and building a path string for every node costs as much as parsing the YAML.
/// Every document of a stream shares one, so the stream is parsed again at most once.
#[derive(Debug)]
pub(super) struct LazyPositions {
    pub(super) text: Box<str>,
    pub(super) mode: Mode,
    /// Where `text` sits in the whole stream (see [`Offset`]).
    pub(super) offset: Offset,
    pub(super) per_document: OnceLock<Vec<Positions>>,
}

impl LazyPositions {
    pub(super) fn of(&self, index: usize) -> Option<&Positions> {
        self.per_document
            .get_or_init(|| {
                parse_stream(&self.text, self.mode.tracking())
                    .map(|s| s.positions)
                    .unwrap_or_default()
            })
            .get(index)
    }
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
    pub(super) positions: Arc<LazyPositions>,
    /// Where the root node starts (in the text of `positions`), when that is the position of
    /// the field path `""`: diagnostics of the whole object (most often the only ones of a
    /// valid document) are placed without finding every field's position.
    pub(super) root: Option<(u32, u32)>,
    /// The document's index among those of the text its positions were read from.
    pub(super) chunk_index: usize,
}

/// Positions of one piece, answered in the whole stream's lines and columns.
pub(super) struct Located<'a> {
    pub(super) positions: &'a Positions,
    pub(super) offset: Offset,
}

impl Located<'_> {
    pub(super) fn get(&self, field: &str) -> Option<(u32, u32)> {
        self.positions.get(field).map(|p| self.offset.apply(*p))
    }
}

impl Document {
    /// The line and column (1-based) of a field path such as `spec.containers[0].name`, or of
    /// its nearest ancestor the source has.
    pub fn position_of(&self, field: &str) -> (u32, u32) {
        let offset = self.positions.offset;
        if let Some(root) = self.root.filter(|_| field.is_empty()) {
            return offset.apply(root);
        }
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
pub(super) fn line_chars(text: &str, line: u32) -> Option<Vec<char>> {
    let n = usize::try_from(line).ok()?.checked_sub(1)?;
    text.lines().nth(n).map(|l| l.chars().collect())
}

/// A value as it is written in the text: JSON when the key was quoted (a JSON document), else
/// YAML flow style, with a string plain where YAML 1.1 reads it back as the same string.
pub(super) fn written(value: &Value, json: bool) -> String {
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
pub(super) fn plain_is_string(s: &str) -> bool {
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
pub(super) fn replace_value_at(
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
pub(super) fn insert_key(
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
