//! One piece of text read into documents: the fast pass, go-yaml's quirks patched in, the
//! tracking pass for an error's field and line, and what go-yaml reads past the first
//! document's root. Above the event reader (`yaml`), below kubectl's splitting (`stream`).

use super::checks::{
    byte_offset, directives_without_document_check, flow_dash_patch, quote_escape_patch,
    unprintable, yaml_version_check,
};
use super::document::{Document, LazyPositions};
use super::limits::MAX_QUOTE_PATCHES;
use super::lookahead::{Lookahead, lookahead_error, parser_only_error, unread_after};
use super::types::{Mode, Offset};
use super::yaml::{Stream, parse_stream};
use crate::diag::Diagnostic;
use std::sync::{Arc, OnceLock};

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
pub(super) fn parse_text(
    text: &str,
    mode: Mode,
    offset: Offset,
) -> Result<Vec<Document>, Diagnostic> {
    parse_text_at(text, mode, offset).map_err(|mut d| {
        offset.shift(&mut d);
        d
    })
}

pub(super) fn parse_text_at(
    text: &str,
    mode: Mode,
    offset: Offset,
) -> Result<Vec<Document>, Diagnostic> {
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
        .map(|(index, (line, value, root_at))| {
            let mut notes = notes.next().unwrap_or_default();
            for n in &mut notes {
                (n.line, n.column) = offset.apply((n.line, n.column));
            }
            // A root mapping with the key "" gives that key the path "" as well (the tracking
            // pass places it there): only without one is the root's position the path's.
            let root = root_at.filter(|_| value.as_object().is_none_or(|m| !m.contains_key("")));
            Document {
                index,
                line: offset.apply((line, 1)).0,
                root,
                value,
                notes,
                unread_from,
                positions: Arc::clone(&positions),
                chunk_index: index,
            }
        })
        .collect())
}

/// saphyr-parser's scanner looks past the end of the first document's root as libyaml's does,
/// but refuses some things there that libyaml does not (a `}` closing nothing, text right after
/// a quoted scalar), before it hands out the root's end. When the text up to the error reads as
/// a whole first document, the error lies past it: the error stands only when libyaml's
/// scanner reads that far and refuses it too. Otherwise that reading (the text up to the
/// error, and the stream as go-yaml reads it) is returned.
pub(super) fn error_past_the_root(
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
