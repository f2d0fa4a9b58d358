//! Checks and repairs around the YAML parser: what go-yaml (kubectl's reader) refuses that
//! saphyr-parser reads (YAML version directives, unprintable characters), and what go-yaml reads
//! that saphyr-parser refuses (`\'` escapes, a lone `-` in a flow collection), patched and read
//! again.

use crate::diag::Diagnostic;
use saphyr_parser::Span;

pub(super) fn scan_error(e: &saphyr_parser::ScanError) -> Diagnostic {
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

pub(super) fn err_at(span: &Span, code: &str, path: &str, msg: String) -> Diagnostic {
    let line = span.start.line() as u32;
    let col = span.start.col() as u32 + 1;
    Diagnostic::request(code, path, format!("line {line} column {col}: {msg}")).at(line, col)
}

/// A `syntax` error about the whole line with 0-based index `i`.
pub(super) fn line_syntax_error(i: usize, detail: &str) -> Diagnostic {
    let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
    Diagnostic::request("syntax", "", format!("line {line} column 1: {detail}")).at(line, 1)
}

/// go-yaml v2 reads YAML 1.1 only: a `%YAML` directive for any other version is refused
/// ("found incompatible YAML document"), which a YAML 1.2 parser would accept.
pub(super) fn yaml_version_check(text: &str) -> Result<(), Diagnostic> {
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
pub(super) fn directives_without_document_check(text: &str) -> Result<(), Diagnostic> {
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
pub(super) fn flow_dash_patch(text: &str, error: &Diagnostic) -> Option<String> {
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
pub(super) fn unprintable(text: &str, before_line: Option<u32>) -> Option<Diagnostic> {
    let printable = |c: char| {
        matches!(c, '\t' | '\n' | '\r' | '\u{85}')
            || ('\u{20}'..='\u{7e}').contains(&c)
            || ('\u{a0}'..='\u{d7ff}').contains(&c)
            || ('\u{e000}'..='\u{fffd}').contains(&c)
            || c >= '\u{10000}'
    };
    // Printable ASCII throughout (most manifests): checked a block at a time without an early
    // exit inside a block, which the compiler turns into vector instructions.
    let plain = |b: &u8| (0x20..0x7f).contains(b) || matches!(b, b'\t' | b'\n' | b'\r');
    if text
        .as_bytes()
        .chunks(64)
        .all(|block| block.iter().fold(true, |all, b| all & plain(b)))
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
pub(super) fn byte_offset(text: &str, line: u32, column: u32) -> Option<usize> {
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
pub(super) fn quote_escape_patch(text: &str, error: &Diagnostic) -> Option<String> {
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
pub(super) fn escaped_slash_check(source: &str, span: &Span) -> Result<(), Diagnostic> {
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
