//! The small types the reader's parts share: how a piece of text is read ([`Mode`]), where it
//! starts in the whole stream ([`Offset`]), a stream's field positions ([`Positions`]) and the
//! YAML 1.1 readings it notes ([`ReadNote`]). A leaf of the reader's parts (it imports none of
//! them), so that each part can name them without importing another.

use crate::diag::Diagnostic;
use serde_json::Value;
use std::collections::HashMap;

/// Where each field of each document of a stream sits, by field path.
pub(super) type Positions = HashMap<String, (u32, u32)>;

/// How a piece of text is read.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Mode {
    /// Record where every field sits (slower; for error messages and positions).
    pub(super) track: bool,
    /// The text is a JSON value from kubectl's JSON stream decoder, not YAML: `\/` is an escape
    /// and go-yaml's quirks are not patched in.
    pub(super) json: bool,
    /// Only the first YAML document of the text counts, as `yaml.Unmarshal` (go-yaml v2) reads
    /// one chunk of kubectl's splitter.
    pub(super) first_only: bool,
    /// A key set twice keeps the last value instead of failing: go-yaml v2's non-strict reading,
    /// which kubectl's stream decoder uses. Only asked to learn whether a document with a
    /// duplicate key has another error too.
    pub(super) lenient_keys: bool,
}

impl Mode {
    pub(super) fn tracking(self) -> Self {
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
    pub(super) fn apply(self, (line, column): (u32, u32)) -> (u32, u32) {
        let column = if line <= 1 {
            column.saturating_add(self.columns)
        } else {
            column
        };
        (line.saturating_add(self.lines), column)
    }

    /// The diagnostic's line and column, and the `line L column C:` its message starts with,
    /// moved from the piece to the whole stream.
    pub(super) fn shift(self, d: &mut Diagnostic) {
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
