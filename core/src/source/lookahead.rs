//! Errors the parser reports late or not at all: looking ahead in the text past what it has
//! read, to name the line and the cause go-yaml names.

use crate::diag::Diagnostic;
use saphyr_parser::Span;

/// How far go-yaml (libyaml) reads a text it takes one document from: the root node, then the
/// token after it, which ends the document. A token that could start a mapping key (most do)
/// makes libyaml's scanner look for its `:` up to the end of that line; so does a flow
/// collection at the root, from its first line. Scanner errors there are errors (an escape
/// YAML 1.1 lacks, a `:` where no key may be); what lies beyond is never read. (libyaml also
/// stops looking 1024 characters after a key's start; restartkit reads the whole line.)
#[derive(Debug, Clone, Copy)]
pub(super) struct Lookahead {
    /// (line, 0-based column) up to which (inclusive) the scanner reads.
    pub(super) until: (usize, usize),
    /// Byte offset where reading stops (for the check of characters YAML 1.1 refuses).
    pub(super) until_byte: usize,
    /// The token after the root, when the scanner reads on from it: (line, 0-based column,
    /// byte offset).
    pub(super) next_token: Option<(usize, usize, usize)>,
    /// `next_token` is a possible key of its own (on a line after the root's end), rather than
    /// the rest of the root's line.
    pub(super) next_is_key: bool,
    /// `next_token` is the one token the scanner fetches after the root (on the root's line,
    /// where no key may start).
    pub(super) single_token: bool,
    /// The root's first character index, and its end (to compute this again on a longer text).
    pub(super) root_start: usize,
    pub(super) root_end_marker: saphyr_parser::Marker,
    /// The root is a block collection: it ends where a token that cannot continue it starts,
    /// which libyaml's parser reads as part of the document.
    pub(super) block_collection: bool,
}

impl Lookahead {
    /// Computes it once the root node has ended at `end` (saphyr marker: 1-based line,
    /// 0-based column, character index). `root_start` is the root's first character index.
    pub(super) fn after_root(
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
pub(super) fn unread_after(text: &str, end: saphyr_parser::Marker) -> Option<u32> {
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
pub(super) fn collection_end(
    text: &str,
    root_start: usize,
    span: &Span,
) -> (saphyr_parser::Marker, bool) {
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

/// A scanner error libyaml meets in what it reads past the root (`Lookahead`): from the next
/// token to where its look ends (see [`key_look`]), and when the look runs to the end of the
/// line with the key still possible, the one token after it. Only scanner errors count
/// (go-yaml parses nothing there).
pub(super) fn lookahead_error(text: &str, read: &Lookahead) -> Option<Diagnostic> {
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
pub(super) fn look_error_from(text: &str, at: usize, head: bool) -> Option<(usize, &'static str)> {
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
pub(super) struct KeyLook {
    /// Where the look ends: that `:` outside flow collections, where the key is dropped, or the
    /// end of the region.
    pub(super) end: usize,
    /// The line ended with the key still possible: libyaml fetches one more token, wherever it
    /// starts (its staleness check comes before each fetch, on where the last token ended).
    pub(super) open_at_line_end: bool,
    /// The line ended inside a plain scalar, which goes on over the next lines.
    pub(super) in_plain: bool,
}

/// See [`KeyLook`].
/// `head`: the region's first token is the possible key itself (not the rest of the root's
/// line, whose key is the root's).
pub(super) fn key_look(region: &str, head: bool) -> KeyLook {
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
pub(super) fn next_token_error(text: &str, from: usize) -> Option<(usize, &'static str)> {
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
pub(super) fn quoted_error(text: &str, at: usize, single: bool) -> Option<(usize, &'static str)> {
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
pub(super) fn look_error(text: &str, from: usize, end: usize) -> Option<(usize, &'static str)> {
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
pub(super) fn key_resolved_at(region: &str, head: bool) -> usize {
    key_look(region, head).end
}

/// Errors saphyr-parser's parser (not its scanner) raises, and two refusals of its scanner that
/// libyaml's lacks (a `}` or `]` closing nothing, which libyaml makes a token of; text right
/// after a double-quoted scalar, which libyaml leaves to its parser): after the first
/// document's root, go-yaml parses nothing more, so none of these is one of its errors there.
pub(super) fn parser_only_error(info: &str) -> bool {
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
