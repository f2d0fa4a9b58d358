//! The YAML reader: saphyr-parser's events into JSON values with each node's position, as
//! sigs.k8s.io/yaml resolves scalars (YAML 1.1), with the guards against hostile input.

use super::checks::{err_at, escaped_slash_check, scan_error};
use super::limits::{MAX_ALIAS_NODES, MAX_DEPTH, MAX_NODES};
use super::lookahead::{Lookahead, collection_end, parser_only_error};
use super::resolve::{self, CoreTag, Resolved};
use super::types::{Mode, Positions, ReadNote};
use crate::diag::Diagnostic;
use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;

pub(super) enum Frame {
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
    pub(super) fn path(&self) -> &str {
        match self {
            Frame::Seq { path, .. } | Frame::Map { path, .. } => path,
        }
    }
}

/// The JSON value of a scalar: plain ones resolve as go-yaml v2 does, quoted and block ones are
/// strings, and an explicit core tag (`!!int '010'`) resolves the text as that tag. Takes the
/// parser's text so that a string (most scalars of a manifest) keeps its buffer.
pub(super) fn scalar_value(
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
pub(super) struct Key {
    pub(super) name: String,
    /// It is the merge key `<<`.
    pub(super) merge: bool,
    /// The text as written, when a plain untagged key is renamed by YAML 1.1 (`on` → `true`).
    pub(super) renamed_from: Option<String>,
}

/// Why a key cannot name a JSON field.
pub(super) struct KeyError {
    pub(super) message: String,
    /// The key is null: go-yaml reads it (a nil key), only the conversion to JSON refuses it.
    pub(super) null: bool,
}

/// A mapping key as the JSON object names it. Err for a key go-yaml refuses (a tag its text does
/// not fit) or `sigs.k8s.io/yaml` refuses (null).
pub(super) fn scalar_key(
    text: Cow<'_, str>,
    style: ScalarStyle,
    tag: Option<&Tag>,
) -> Result<Key, KeyError> {
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
pub(super) const NULL_KEY: &str = "\u{0}null";

pub(super) fn child_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// A 1-based line and column.
type Position = (u32, u32);

/// What one reading of a stream gives, per document.
pub(super) struct Stream {
    /// (first line, value, where the root node starts): the root's position is what the
    /// tracking pass records for the field path `""`, found by the fast pass too.
    pub(super) docs: Vec<(u32, Value, Option<Position>)>,
    /// With `track`: where every field sits.
    pub(super) positions: Vec<Positions>,
    /// The YAML 1.1 readings (fields named only with `track`).
    pub(super) notes: Vec<Vec<ReadNote>>,
    /// With `first_only`: how far go-yaml reads (see [`Lookahead`]).
    pub(super) read: Option<Lookahead>,
}

/// With `lenient_keys`, the refusals only the conversion to JSON makes (a null key, a number
/// beyond float64), kept aside until the document is read: go-yaml's non-strict decoding
/// (kubectl's) replaces the value of a key written twice before `sigs.k8s.io/yaml` converts the
/// document, so a refusal inside a replaced value never reaches the conversion.
/// Per key of a mapping: the range of [`Deferred::errors`] its value's errors occupy.
pub(super) type ErrorsPerKey = HashMap<String, (usize, usize)>;

#[derive(Default)]
pub(super) struct Deferred {
    /// In document order; `None` once the value holding it was replaced.
    pub(super) errors: Vec<Option<Diagnostic>>,
    /// Per open collection (parallel to the frame stack): where its errors start, and for a
    /// mapping, per key, the errors of that key's value (a range of `errors`).
    pub(super) frames: Vec<(usize, ErrorsPerKey)>,
    /// Per anchor: the errors its node holds, which every alias to it holds again.
    pub(super) anchors: HashMap<usize, Vec<Diagnostic>>,
}

impl Deferred {
    pub(super) fn defer(&mut self, error: Diagnostic) {
        self.errors.push(Some(error));
    }

    /// The value whose errors start at `start` is placed in the innermost collection: under a
    /// key written before, it replaces that key's value, whose errors go with it.
    pub(super) fn placed(&mut self, stack: &[Frame], start: usize) {
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

    pub(super) fn anchored(&mut self, anchor: usize, start: usize) {
        let held = self.errors.get(start..).unwrap_or_default();
        self.anchors
            .insert(anchor, held.iter().flatten().cloned().collect());
    }

    pub(super) fn first(self) -> Option<Diagnostic> {
        self.errors.into_iter().flatten().next()
    }
}

/// Documents as (first line, value), and with `track` the positions of every field of each.
/// Without `track` no path string is built, and errors carry no field path.
pub(super) fn parse_stream(text: &str, mode: Mode) -> Result<Stream, Diagnostic> {
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
    // Where the current document's root node starts (see `Stream::docs`).
    let mut root_at: Option<Position> = None;
    let mut nodes: usize = 0;
    let mut alias_nodes: usize = 0;
    let mut deferred = Deferred::default();

    // Where a node that starts now belongs (its path: empty when not tracking).
    pub(super) fn slot_path(stack: &[Frame], track: bool) -> Option<String> {
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
                    docs.push((doc_line, v, root_at.take()));
                    all_positions.push(std::mem::take(&mut positions));
                    all_notes.push(std::mem::take(&mut notes));
                }
                positions.clear();
                notes.clear();
                root_at = None;
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
                    root_at.get_or_insert((line, col));
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
                        docs.push((doc_line, v, root_at.take()));
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
                if stack.is_empty() {
                    root_at.get_or_insert((line, col));
                }
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
                        docs.push((doc_line, v, root_at.take()));
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
                if stack.is_empty() {
                    root_at.get_or_insert((line, col));
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
                        docs.push((doc_line, v, root_at.take()));
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

pub(super) fn count_nodes(v: &Value, cap: usize) -> usize {
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

pub(super) fn place(
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
pub(super) fn merge_into(
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
