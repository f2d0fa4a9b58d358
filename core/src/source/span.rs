//! What an editor underlines for a diagnostic: the stretch of text a finding is about.
//!
//! A field's position (see [`Document::position_of`]) is where its key starts; an editor wants
//! more: the refused value for a value error (`Unsupported value: "Within"` underlines `Within`),
//! the key for a field that is required, forbidden or unknown. The range is found in the text
//! the document was read from, on the field's line; where the text does not allow it (a block
//! value, an anchor), the key is underlined.

use super::document::{Document, replace_value_at};
use super::types::Positions;
use crate::diag::{Diagnostic, ErrorType, Range};

/// Which part of a `key: value` entry a diagnostic is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Key,
    Value,
}

impl Part {
    /// The part a diagnostic is about: the value for errors that name a refused value, the key
    /// for the rest (required, forbidden, unknown fields; lists with too many items; messages of
    /// webhooks and restartkit's own notes, which are about a field as a whole).
    pub fn of(d: &Diagnostic) -> Part {
        match d.error_type {
            Some(
                ErrorType::FieldValueInvalid
                | ErrorType::FieldValueNotSupported
                | ErrorType::FieldValueDuplicate
                | ErrorType::FieldValueTypeInvalid
                | ErrorType::FieldValueNotFound
                | ErrorType::FieldValueTooLong,
            ) => Part::Value,
            _ => Part::Key,
        }
    }
}

/// A text's lines, found once when first asked for (a stream with many diagnostics must not
/// be rescanned for each, and a valid one, most often, asks for none).
pub struct LineIndex<'a> {
    text: &'a str,
    starts: std::cell::OnceCell<Vec<usize>>,
    /// Whether `text` is ASCII (a column is then a byte offset), found when first needed.
    ascii: std::cell::OnceCell<bool>,
    /// Lines of the stream before `text` (a piece read alone).
    base: u32,
    /// Columns of the stream before `text` on its first line: a List item or a JSON value
    /// that starts mid-line (compact JSON puts a whole List on one line).
    first_columns: u32,
    /// Bytes (or characters) looked at so far, see [`LineIndex::scanned`].
    scanned: std::cell::Cell<u64>,
}

/// Characters read from a diagnostic's column on, at most: what its range can cover. A line of
/// compact JSON can be the whole input; reading all of it for each diagnostic was quadratic.
const WINDOW_CHARS: usize = 64 * 1024;

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        LineIndex {
            text,
            starts: std::cell::OnceCell::new(),
            ascii: std::cell::OnceCell::new(),
            base: 0,
            first_columns: 0,
            scanned: std::cell::Cell::new(0),
        }
    }

    /// How much of the text answering positions has looked at so far, each look counted:
    /// finding the line starts and whether the text is ASCII (once each), then per range the
    /// characters up to its column and its window. A stream is read in linear time when the
    /// sum over its pieces stays a small multiple of its size.
    pub fn scanned(&self) -> u64 {
        self.scanned.get()
    }

    fn scan(&self, n: usize) {
        self.scanned
            .set(self.scanned.get().saturating_add(n as u64));
    }

    fn is_ascii(&self) -> bool {
        *self.ascii.get_or_init(|| {
            self.scan(self.text.len());
            self.text.is_ascii()
        })
    }

    /// Where each line starts.
    fn starts(&self) -> &[usize] {
        self.starts.get_or_init(|| {
            self.scan(self.text.len());
            let mut starts = vec![0];
            starts.extend(self.text.match_indices('\n').map(|(i, _)| i + 1));
            starts
        })
    }

    /// The lines of a piece of a stream that starts at 1-based `line`, answered in the
    /// stream's line numbers (`text` starts at the start of that line).
    pub fn at(text: &'a str, line: u32) -> Self {
        LineIndex::at_column(text, line, 1)
    }

    /// The lines of a piece of a stream that starts at 1-based `line` and `column`, answered
    /// in the stream's line and column numbers. Nothing is copied: the columns before the
    /// piece are counted, not blanked in.
    pub fn at_column(text: &'a str, line: u32, column: u32) -> Self {
        LineIndex {
            base: line.saturating_sub(1),
            first_columns: column.saturating_sub(1),
            ..LineIndex::new(text)
        }
    }

    /// 1-based line `line` of the stream (without its line break) and the columns before
    /// its first character.
    fn line(&self, line: u32) -> Option<(&'a str, usize)> {
        let n = usize::try_from(line.checked_sub(self.base)?)
            .ok()?
            .checked_sub(1)?;
        let starts = self.starts();
        let start = *starts.get(n)?;
        let end = starts.get(n + 1).map_or(self.text.len(), |e| e - 1);
        let l = self.text.get(start..end)?;
        let before = if n == 0 { self.first_columns as usize } else { 0 };
        Some((l.strip_suffix('\r').unwrap_or(l), before))
    }

    /// The characters of 1-based `line` from 1-based `column` on (at most [`WINDOW_CHARS`]);
    /// None for a column before the text's start.
    fn window(&self, line: u32, column: u32) -> Option<Vec<char>> {
        let (l, before) = self.line(line)?;
        let skip = usize::try_from(column)
            .ok()?
            .checked_sub(1)?
            .checked_sub(before)?;
        let from = if self.is_ascii() {
            skip.min(l.len())
        } else {
            self.scan(skip);
            l.char_indices().nth(skip).map_or(l.len(), |(i, _)| i)
        };
        let window: Vec<char> = l[from..].chars().take(WINDOW_CHARS).collect();
        self.scan(window.len());
        Some(window)
    }

    /// How many characters 1-based `line` holds, the columns before the text's start counted.
    fn line_len(&self, line: u32) -> Option<usize> {
        let (l, before) = self.line(line)?;
        self.scan(l.len());
        Some(before + l.chars().count())
    }
}

impl Document {
    /// The range of `field`'s key or value in the whole stream (`lines`: the whole stream's).
    /// For a field the text does not hold (a required field left out), the key of its nearest
    /// ancestor that it holds.
    pub fn range_of(&self, field: &str, part: Part, lines: &LineIndex) -> Option<Range> {
        let offset = self.positions.offset;
        let (exact, local) = match self.root.filter(|_| field.is_empty()) {
            Some(root) => (true, root),
            None => {
                let positions = self.positions.of(self.chunk_index)?;
                match lookup(positions, field) {
                    Some(p) => (true, p),
                    None => (false, nearest_ancestor(positions, field)?),
                }
            }
        };
        let (line, column) = offset.apply(local);
        // Indices below are in the characters from the field's column on.
        let chars = lines.window(line, column)?;
        let shift = usize::try_from(column).ok()?.checked_sub(1)?;
        let key_end = key_end(&chars, 0);
        let (from, to) = match (key_end, part, exact) {
            (Some(end), Part::Value, true) => {
                // The value written after the key on its line (the same scan a fix's text edit
                // makes), on that line alone.
                let text: String = chars.iter().collect();
                match replace_value_at(&text, 1, 1, &serde_json::Value::Null) {
                    Some(edit) if edit.end_column > edit.column => (
                        usize::try_from(edit.column).ok()? - 1,
                        usize::try_from(edit.end_column).ok()? - 1,
                    ),
                    // No value on the key's line (a block, nothing at all): the key.
                    _ => (0, end),
                }
            }
            (Some(end), _, _) => (0, end),
            // A list item or a value on its own: its token.
            (None, _, _) => (0, token_end(&chars, 0)),
        };
        let to = to.max(from + 1).min(chars.len().max(from + 1));
        Some(Range {
            line,
            column: u32::try_from(shift + from + 1).ok()?,
            end_line: line,
            end_column: u32::try_from(shift + to + 1).ok()?,
        })
    }
}

/// The range of the token at 1-based `line`:`column` (a scalar, a key, a bracket), for
/// diagnostics that carry their own position (errors of the text, YAML 1.1 readings).
pub fn token_range(lines: &LineIndex, line: u32, column: u32) -> Option<Range> {
    let chars = lines.window(line, column)?;
    if chars.is_empty() {
        // At the end of the line (or past it): the last character, or an empty line's start.
        let last = u32::try_from(lines.line_len(line)?).ok()?;
        return Some(Range {
            line,
            column: last.max(1),
            end_line: line,
            end_column: last.max(1) + u32::from(last > 0),
        });
    }
    let end = key_end(&chars, 0).unwrap_or_else(|| token_end(&chars, 0));
    Some(Range {
        line,
        column,
        end_line: line,
        end_column: column + u32::try_from(end.max(1)).ok()?,
    })
}

/// Sets `d.range` from its field (when `d` has no position of its own) or from its position.
pub fn attach_range(
    d: &mut Diagnostic,
    doc: Option<&Document>,
    lines: &LineIndex,
    own_position: bool,
) {
    if d.range.is_some() {
        return;
    }
    d.range = match (own_position, doc) {
        (false, Some(doc)) => doc.range_of(&d.field, Part::of(d), lines),
        _ => match (d.line, d.column) {
            (Some(line), Some(column)) => token_range(lines, line, column),
            (Some(line), None) => token_range(lines, line, 1),
            _ => None,
        },
    };
}

impl Document {
    /// The field whose key (or list item) is at 1-based `line` and `column` of the whole stream:
    /// the deepest field written on that line that starts at or before the column.
    pub fn field_at(&self, line: u32, column: u32) -> Option<String> {
        let positions = self.positions.of(self.chunk_index)?;
        let offset = self.positions.offset;
        positions
            .iter()
            .map(|(f, p)| (f, offset.apply(*p)))
            .filter(|(_, (l, c))| *l == line && *c <= column)
            .max_by(|(fa, (_, ca)), (fb, (_, cb))| ca.cmp(cb).then(fa.len().cmp(&fb.len())))
            .map(|(f, _)| f.clone())
    }
}

/// The exact position of `field`, map keys written either way (`labels[a]` or `labels.a`).
fn lookup(positions: &Positions, field: &str) -> Option<(u32, u32)> {
    if let Some(p) = positions.get(field) {
        return Some(*p);
    }
    let open = field.rfind('[')?;
    let inner = field.get(open + 1..field.len().checked_sub(1)?)?;
    if !field.ends_with(']') || inner.parse::<usize>().is_ok() {
        return None;
    }
    positions
        .get(&format!("{}.{}", field.get(..open)?, inner))
        .copied()
}

fn nearest_ancestor(positions: &Positions, field: &str) -> Option<(u32, u32)> {
    let mut f = field.to_owned();
    loop {
        let cut = match (f.rfind('.'), f.rfind('[')) {
            (Some(d), Some(b)) => d.max(b),
            (Some(d), None) => d,
            (None, Some(b)) => b,
            (None, None) => return None,
        };
        f.truncate(cut);
        if let Some(p) = lookup(positions, &f) {
            return Some(p);
        }
    }
}

/// Where the key starting at `start` ends (exclusive), when a key starts there: a quoted key
/// followed by `:`, or a plain one up to its `:` (followed by white space or the line's end).
fn key_end(chars: &[char], start: usize) -> Option<usize> {
    let at = |j: usize| chars.get(j).copied();
    let end = match at(start)? {
        q @ ('"' | '\'') => {
            let j = quoted_end(chars, start, q);
            at(j)?;
            j + 1
        }
        '-' | '[' | '{' | '#' | '&' | '*' | '!' | '|' | '>' => return None,
        _ => {
            let mut j = start;
            while let Some(c) = at(j) {
                if c == ':' && at(j + 1).is_none_or(char::is_whitespace) {
                    break;
                }
                if matches!(c, ',' | '[' | ']' | '{' | '}')
                    || (c == '#' && j > start && at(j - 1).is_some_and(char::is_whitespace))
                {
                    return None;
                }
                j += 1;
            }
            j
        }
    };
    let mut colon = end;
    while at(colon).is_some_and(|c| c == ' ' || c == '\t') {
        colon += 1;
    }
    (at(colon) == Some(':')).then_some(end)
}

/// The index of the quote that closes the scalar opened by `q` at `start` (past the line when
/// it does not close on it): `\"` escapes in double quotes, `''` in single ones.
fn quoted_end(chars: &[char], start: usize, q: char) -> usize {
    let mut j = start + 1;
    while let Some(&c) = chars.get(j) {
        let escaped =
            (q == '"' && c == '\\') || (c == q && q == '\'' && chars.get(j + 1) == Some(&'\''));
        if escaped {
            j += 2;
        } else if c == q {
            return j;
        } else {
            j += 1;
        }
    }
    j
}

/// Where the token starting at `start` ends (exclusive): a quoted scalar, a bracketed flow
/// collection on the line, or a plain scalar up to a flow indicator, `: ` or a comment.
fn token_end(chars: &[char], start: usize) -> usize {
    let at = |j: usize| chars.get(j).copied();
    match at(start) {
        Some(q @ ('"' | '\'')) => (quoted_end(chars, start, q) + 1).min(chars.len()),
        Some(open @ ('[' | '{')) => {
            let close = if open == '[' { ']' } else { '}' };
            let mut depth = 0usize;
            for (j, c) in chars.iter().enumerate().skip(start) {
                if *c == open {
                    depth += 1;
                } else if *c == close {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return j + 1;
                    }
                }
            }
            chars.len()
        }
        _ => {
            let mut j = start;
            while let Some(c) = at(j) {
                let comment = c == '#' && j > start && at(j - 1).is_some_and(char::is_whitespace);
                let key_colon = c == ':' && at(j + 1).is_none_or(char::is_whitespace);
                if matches!(c, ',' | ']' | '}') || comment || key_colon {
                    break;
                }
                j += 1;
            }
            while j > start && at(j - 1).is_some_and(char::is_whitespace) {
                j -= 1;
            }
            j.max(start + 1).min(chars.len().max(start + 1))
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn doc(text: &str) -> Document {
        super::super::parse_documents(text)
            .unwrap()
            .into_iter()
            .next()
            .unwrap()
    }

    fn range(d: &Document, text: &str, field: &str, part: Part) -> Option<Range> {
        d.range_of(field, part, &LineIndex::new(text))
    }

    fn r(line: u32, column: u32, end_column: u32) -> Option<Range> {
        Some(Range {
            line,
            column,
            end_line: line,
            end_column,
        })
    }

    #[test]
    fn value_errors_underline_the_value_and_others_the_key() {
        const TEXT: &str =
            "kind: Job\nspec:\n  completionMode: Within  # x\n  \"q\": 'v'\n  items: [1, 2]\n";
        let d = doc(TEXT);
        assert_eq!(
            range(&d, TEXT, "spec.completionMode", Part::Value),
            r(3, 19, 25)
        );
        assert_eq!(
            range(&d, TEXT, "spec.completionMode", Part::Key),
            r(3, 3, 17)
        );
        assert_eq!(range(&d, TEXT, "spec.q", Part::Value), r(4, 8, 11));
        assert_eq!(range(&d, TEXT, "spec.q", Part::Key), r(4, 3, 6));
        assert_eq!(range(&d, TEXT, "spec.items", Part::Value), r(5, 10, 16));
        assert_eq!(range(&d, TEXT, "spec.items[1]", Part::Value), r(5, 14, 15));
        // Absent: the nearest ancestor's key.
        assert_eq!(range(&d, TEXT, "spec.template.spec", Part::Key), r(2, 1, 5));
    }

    #[test]
    fn block_values_and_empty_values_underline_the_key() {
        const TEXT: &str = "spec:\n  rules:\n  - action: \n    name: x\n";
        let d = doc(TEXT);
        assert_eq!(range(&d, TEXT, "spec.rules", Part::Value), r(2, 3, 8));
        assert_eq!(
            range(&d, TEXT, "spec.rules[0].action", Part::Value),
            r(3, 5, 11)
        );
    }

    #[test]
    fn later_documents_are_in_the_whole_streams_lines() {
        const TWO: &str = "a: 1\n---\nb:\n  c: [x, \"y\"]\n";
        let docs = super::super::parse_documents(TWO).unwrap();
        assert_eq!(
            docs[1].range_of("b.c[1]", Part::Value, &LineIndex::new(TWO)),
            r(4, 10, 13)
        );
    }

    #[test]
    fn tokens_at_a_position() {
        let t = "a: yes\n- [1, 2] # c\nkey: 'it''s'\n\n";
        assert_eq!(token_range(&LineIndex::new(t), 1, 4), r(1, 4, 7));
        assert_eq!(token_range(&LineIndex::new(t), 2, 3), r(2, 3, 9));
        assert_eq!(token_range(&LineIndex::new(t), 3, 1), r(3, 1, 4));
        assert_eq!(token_range(&LineIndex::new(t), 3, 6), r(3, 6, 13));
        assert_eq!(token_range(&LineIndex::new(t), 4, 1), r(4, 1, 1));
        assert_eq!(token_range(&LineIndex::new(t), 9, 1), None);
    }

    #[test]
    fn a_piece_that_starts_mid_line_is_answered_in_the_streams_columns() {
        // A List item of compact JSON: the stream's line 3 holds `[{"kind": ...` from column 9.
        const ITEM: &str = "{\"kind\": \"Jöb\", \"spec\": {\"x\": \"Within\"}}";
        let padded = format!("{}{ITEM}\n", " ".repeat(8));
        let blanked = LineIndex::at(&padded, 3);
        let counted = LineIndex::at_column(ITEM, 3, 9);
        for column in 1..=60 {
            assert_eq!(
                token_range(&counted, 3, column).filter(|_| column >= 9),
                token_range(&blanked, 3, column).filter(|_| column >= 9),
                "column {column}"
            );
        }
        // Past the end of the line: its last character, the columns before the piece counted.
        let end = u32::try_from(8 + ITEM.chars().count()).unwrap();
        assert_eq!(token_range(&counted, 3, end + 5), r(3, end, end + 1));
        // Before the piece, or on a line it does not hold: no range.
        assert_eq!(token_range(&counted, 3, 4), None);
        assert_eq!(token_range(&counted, 2, 1), None);
    }
}
