//! `validate` over a stream read in bounded memory: the caller cuts the stream into pieces
//! ([`crate::source::Splitter`], fed the bytes as they are read) and hands each to a
//! [`Session`], which answers with the findings of each document as it is done. A List comes
//! item by item, each item validated as its own object (its fields named `items[i]…`, its lines
//! and columns those of the stream), and the object limits apply per item.
//!
//! The same reading and checks as [`super::run`] over a whole `source` (it shares
//! [`super::check_entry`]); what a whole text allows beyond that is left out here: a TrainJob is
//! validated without runtimes from the stream, and an alias cannot name an anchor of another
//! List item.

use super::{Ctx, DocumentSummary, ValidateInput, ValidateOutput, check_entry, place_findings};
use crate::diag::{Diagnostic, Findings, Severity};
use crate::source::{self, LineIndex, Piece};
use serde_json::Value;

/// What a piece gives.
#[derive(Debug)]
pub enum Outcome {
    /// A document: its findings (placed in the stream) and its summary.
    Document {
        findings: Findings,
        summary: DocumentSummary,
    },
    /// An item of the List being read: its findings, fields under `items[i]`. They count only
    /// if the List's end says so (`keep_items`): whether a document is a List is known once
    /// its `kind` is read, which `kubectl get -o yaml` writes after the items.
    Item { findings: Findings },
    /// The end of a List: the findings of its other fields and its summary; `keep_items`: the
    /// items' findings count (false: the document is not an object with a kind, and what it
    /// holds is not validated, as for any such document).
    ListEnd {
        findings: Findings,
        summary: DocumentSummary,
        keep_items: bool,
    },
}

#[derive(Debug)]
struct OpenList {
    index: usize,
    modelled: bool,
    valid: bool,
}

/// One stream's validation, piece by piece.
#[derive(Debug)]
pub struct Session {
    ctx: Ctx,
    /// The CRDs given with the request and those read so far in the stream.
    crds: super::crd_schema::CrdSet,
    /// The kinds whose CEL note was given already.
    cel_told: std::collections::BTreeSet<String>,
    /// Counts the CRDs read in the stream: a piece validated [`Session::ahead`] of its turn
    /// holds if no CRD came between.
    crds_learned: u64,
    next_index: usize,
    list: Option<OpenList>,
    /// Bytes looked at so far, see [`Session::scanned`] (atomic: [`Session::ahead`] runs on
    /// several threads).
    scanned: std::sync::atomic::AtomicU64,
}

/// A piece validated ahead of its turn ([`Session::ahead`]), with what it took for granted.
#[derive(Debug)]
pub struct Ahead {
    /// The document index it was read at (its List's, for an item).
    index: usize,
    /// [`Session::crds_learned`] when it was validated.
    crds_learned: u64,
    checked: Checked,
}

#[derive(Debug)]
enum Checked {
    /// A document piece's outcomes, one per document in it.
    Documents(Vec<Outcome>),
    /// A List item's findings, and whether its kind is modelled.
    Item { findings: Findings, modelled: bool },
}

impl Session {
    /// A CRD read in the stream: its schema checks the documents after it (a stream read in
    /// pieces cannot look ahead). Returns what makes it unusable, placed at its document.
    fn learn_crd(
        &mut self,
        entry: &Result<source::Document, source::BrokenDocument>,
    ) -> Option<Diagnostic> {
        let doc = entry.as_ref().ok()?;
        if !super::crd_schema::is_crd(&doc.value) {
            return None;
        }
        let minor = self.ctx.gates.version.minor;
        self.crds_learned += 1;
        self.crds.add_value(&doc.value, minor).err().map(|d| {
            let mut d = super::crd_schema::unusable_in_stream(d);
            d.document = Some(doc.index);
            d.line = Some(doc.line);
            d
        })
    }

    /// The session for `input` (its `source` is not read; `head`, the start of the stream,
    /// is where a settings comment is looked for). Besides it, the request's own findings
    /// (settings and gate warnings); `Err(output)` when the file's settings cannot be met.
    #[allow(clippy::type_complexity)]
    pub fn new(
        input: &ValidateInput,
        head: &str,
    ) -> Result<Result<(Session, Findings), ValidateOutput>, Diagnostic> {
        Ok(
            super::prepare(input, Some(head))?.map(|(ctx, mut findings)| {
                let (crds, problems) = super::request_crds(input, ctx.gates.version.minor);
                findings.extend(problems);
                (
                    Session {
                        ctx,
                        crds,
                        cel_told: Default::default(),
                        crds_learned: 0,
                        next_index: 0,
                        list: None,
                        scanned: Default::default(),
                    },
                    findings,
                )
            }),
        )
    }

    /// How many bytes of the pieces' texts the session has looked at so far, a byte looked
    /// at twice counted twice: the UTF-8 check and the reader of each piece read (a piece read
    /// again after a guess failed counts again), and what answering positions scanned
    /// ([`LineIndex::scanned`]). With [`crate::source::Splitter::scanned`] it shows that a
    /// stream is read in linear time: a compact one-line List once copied each item with as many
    /// spaces as its column, which made this grow with the square of the List.
    pub fn scanned(&self) -> u64 {
        self.scanned.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A piece's text of `len` bytes checked and read, and its positions answered by `lines`.
    fn count_read(&self, len: usize, lines: Option<&LineIndex>) {
        let n = (2 * len as u64).saturating_add(lines.map_or(0, LineIndex::scanned));
        self.scanned
            .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }

    /// The Kubernetes version the stream is judged by (`x.y`).
    pub fn kubernetes_version(&self) -> String {
        self.ctx.gates.version.as_string()
    }

    /// Validates one piece.
    pub fn piece(&mut self, piece: Piece) -> Vec<Outcome> {
        match piece {
            Piece::Document {
                text,
                line,
                column,
                json,
                separated,
            } => self.document(&text, line, column, json, separated),
            Piece::Separator {
                doc_line,
                sep_line,
                rest,
                swallowed,
            } => {
                // A List above the line is never decoded: its items do not count.
                let index = match self.list.take() {
                    Some(list) => list.index,
                    None => self.take_index(),
                };
                let broken = source::separator_error(doc_line, sep_line, &rest, swallowed, index);
                vec![self.refused(broken)]
            }
            Piece::Item {
                index,
                text,
                line,
                column,
                json,
            } => vec![self.item(index, &text, line, column, json)],
            Piece::ListEnd {
                skeleton,
                line,
                column,
                json,
                items_line,
                removed_lines,
                items: _,
            } => vec![self.list_end(&skeleton, line, column, json, items_line, removed_lines)],
            Piece::TooLarge {
                line,
                column,
                bytes,
                item,
            } => vec![self.too_large(line, column, bytes, item)],
        }
    }

    /// The outcome of a document that cannot be read (it gets no line index: its error carries
    /// its place).
    fn refused(&self, broken: source::BrokenDocument) -> Outcome {
        let (findings, summary) = check_entry(
            Err(broken),
            &self.ctx,
            &self.crds,
            &LineIndex::new(""),
            None,
        );
        Outcome::Document { findings, summary }
    }

    fn take_index(&mut self) -> usize {
        let i = self.next_index;
        self.next_index += 1;
        i
    }

    fn list_index(&mut self) -> usize {
        if let Some(list) = &self.list {
            return list.index;
        }
        let index = self.take_index();
        self.list = Some(OpenList {
            index,
            modelled: false,
            valid: true,
        });
        index
    }

    /// The document index each of `pieces` will be read at, if every document piece before it
    /// holds one document (as kubectl's splitter cuts them, all but a piece of a YAML stream
    /// with a bare `...` or an empty one): what [`Session::ahead`] takes for granted.
    pub fn guesses(&self, pieces: &[Piece]) -> Vec<usize> {
        let mut next = self.next_index;
        let mut list = self.list.as_ref().map(|l| l.index);
        let take = |next: &mut usize| {
            let i = *next;
            *next += 1;
            i
        };
        pieces
            .iter()
            .map(|piece| match piece {
                Piece::Document { .. } | Piece::TooLarge { item: None, .. } => take(&mut next),
                Piece::Item { .. } | Piece::TooLarge { item: Some(_), .. } => {
                    *list.get_or_insert_with(|| take(&mut next))
                }
                Piece::Separator { .. } | Piece::ListEnd { .. } => {
                    list.take().unwrap_or_else(|| take(&mut next))
                }
            })
            .collect()
    }

    /// Validates a document or List item piece ahead of its turn, as read at document `index`
    /// ([`Session::guesses`]) with the CRDs known now. It takes `&self`, so that a caller can
    /// validate a batch of pieces on several threads and then hand each, in order, to
    /// [`Session::piece_ahead`], which keeps the result only if what it took for granted held.
    /// None for the pieces not validated ahead (separators, a List's end, over-large pieces,
    /// and a piece holding a CRD, whose schema the documents after it need).
    pub fn ahead(&self, piece: &Piece, index: usize) -> Option<Ahead> {
        let checked = match piece {
            Piece::Document {
                text,
                line,
                column,
                json,
                separated,
            } => {
                let read = self.read_document(text, *line, *column, *json, *separated, index);
                let outcomes = match read {
                    Err(refused) => vec![refused],
                    Ok((entries, text)) => {
                        let lines = LineIndex::at_column(text, *line, *column);
                        let has_crd = entries.iter().any(|e| {
                            e.as_ref()
                                .is_ok_and(|d| super::crd_schema::is_crd(&d.value))
                        });
                        if has_crd {
                            self.count_read(text.len(), None);
                            return None;
                        }
                        let outcomes = entries
                            .into_iter()
                            .map(|entry| self.check_document(entry, &lines))
                            .collect();
                        self.count_read(text.len(), Some(&lines));
                        outcomes
                    }
                };
                Checked::Documents(outcomes)
            }
            Piece::Item {
                index: i,
                text,
                line,
                column,
                json,
            } => {
                let (findings, modelled) = self.check_item(index, *i, text, *line, *column, *json);
                Checked::Item { findings, modelled }
            }
            _ => return None,
        };
        Some(Ahead {
            index,
            crds_learned: self.crds_learned,
            checked,
        })
    }

    /// [`Session::piece`], given what [`Session::ahead`] validated of it: the same outcomes,
    /// taken from `ahead` where its guesses held (the document index, no CRD read since), and
    /// computed here otherwise.
    pub fn piece_ahead(&mut self, piece: Piece, ahead: Option<Ahead>) -> Vec<Outcome> {
        self.take_ahead(piece, ahead).0
    }

    /// [`Session::piece_ahead`], and whether `ahead` was kept.
    fn take_ahead(&mut self, piece: Piece, ahead: Option<Ahead>) -> (Vec<Outcome>, bool) {
        let Some(ahead) = ahead.filter(|a| a.crds_learned == self.crds_learned) else {
            return (self.piece(piece), false);
        };
        match (ahead.checked, &piece) {
            (Checked::Documents(outcomes), Piece::Document { .. })
                if ahead.index == self.next_index =>
            {
                self.next_index += outcomes.len();
                let outcomes = outcomes
                    .into_iter()
                    .map(|outcome| self.tell_cel_once(outcome))
                    .collect();
                (outcomes, true)
            }
            (Checked::Item { findings, modelled }, Piece::Item { .. })
                if ahead.index == self.list.as_ref().map_or(self.next_index, |l| l.index) =>
            {
                self.list_index();
                (vec![self.item_done(findings, modelled)], true)
            }
            _ => (self.piece(piece), false),
        }
    }

    /// A document piece's text read into its documents from index `first`, with the piece's
    /// text; the outcome of its refusal when it is not UTF-8.
    #[allow(clippy::type_complexity)]
    fn read_document<'b>(
        &self,
        bytes: &'b [u8],
        line: u32,
        column: u32,
        json: bool,
        separated: bool,
        first: usize,
    ) -> Result<
        (
            Vec<Result<source::Document, source::BrokenDocument>>,
            &'b str,
        ),
        Outcome,
    > {
        let text = utf8(bytes, line, column).map_err(|e| {
            self.count_read(bytes.len(), None);
            self.refused(broken(first, line, e))
        })?;
        Ok((
            source::read_piece(text, json, separated, line, column, first),
            text,
        ))
    }

    fn check_document(
        &self,
        entry: Result<source::Document, source::BrokenDocument>,
        lines: &LineIndex,
    ) -> Outcome {
        let (findings, summary) = check_entry(entry, &self.ctx, &self.crds, lines, None);
        Outcome::Document { findings, summary }
    }

    /// The CEL note once per kind in the stream, as for a stream read whole.
    fn tell_cel_once(&mut self, mut outcome: Outcome) -> Outcome {
        if let Outcome::Document { findings, .. } = &mut outcome {
            findings.infos.retain(|d| {
                d.code.as_deref() != Some("cel-not-evaluated")
                    || self.cel_told.insert(d.message.clone())
            });
        }
        outcome
    }

    fn document(
        &mut self,
        bytes: &[u8],
        line: u32,
        column: u32,
        json: bool,
        separated: bool,
    ) -> Vec<Outcome> {
        let first = self.next_index;
        let (entries, text) =
            match self.read_document(bytes, line, column, json, separated, first) {
                Ok(read) => read,
                Err(refused) => {
                    self.next_index += 1;
                    return vec![refused];
                }
            };
        let lines = LineIndex::at_column(text, line, column);
        self.next_index += entries.len();
        let outcomes = entries
            .into_iter()
            .map(|entry| {
                // A CRD's schema checks the documents after it.
                let crd_problem = self.learn_crd(&entry);
                let mut outcome = self.check_document(entry, &lines);
                if let Outcome::Document { findings, .. } = &mut outcome {
                    findings.extend(crd_problem);
                }
                self.tell_cel_once(outcome)
            })
            .collect();
        self.count_read(text.len(), Some(&lines));
        outcomes
    }

    fn item(&mut self, i: usize, bytes: &[u8], line: u32, column: u32, json: bool) -> Outcome {
        let list = self.list_index();
        let (findings, modelled) = self.check_item(list, i, bytes, line, column, json);
        self.item_done(findings, modelled)
    }

    /// An item's findings counted towards its List.
    fn item_done(&mut self, findings: Findings, modelled: bool) -> Outcome {
        if let Some(l) = &mut self.list {
            l.modelled |= modelled;
            l.valid &= findings.errors.is_empty();
        }
        Outcome::Item { findings }
    }

    /// Item `i` of the List that is document `list`: its findings (fields under `items[i]`)
    /// and whether its kind is modelled.
    fn check_item(
        &self,
        list: usize,
        i: usize,
        bytes: &[u8],
        line: u32,
        column: u32,
        json: bool,
    ) -> (Findings, bool) {
        let prefix = format!("items[{i}]");
        let mut findings = Findings::default();
        let mut modelled = false;
        let read = utf8(bytes, line, column).and_then(|text| {
            let docs = source::read_item(text, json, line, column)?;
            Ok((text, docs))
        });
        match read {
            Ok((text, docs)) => {
                let lines = LineIndex::at_column(text, line, column);
                match docs.into_iter().next() {
                    Some(mut doc) => {
                        doc.index = list;
                        let (mut f, m) =
                            super::validate_value_with(&doc.value, &self.ctx, &self.crds);
                        modelled = m;
                        place_findings(&mut f, &doc, &lines);
                        findings = f;
                    }
                    None => {
                        let (mut f, _) = super::validate_value(&Value::Null, &self.ctx);
                        for d in f.all_mut() {
                            d.document = Some(list);
                            if d.line.is_none() {
                                *d = d.clone().at(line, column);
                            }
                        }
                        findings = f;
                    }
                }
                self.count_read(text.len(), Some(&lines));
            }
            Err(mut e) => {
                self.count_read(bytes.len(), None);
                e.message = format!(
                    "document {list}, {prefix} (from line {line}): {}",
                    e.message
                );
                e.severity = Severity::Error;
                e.document = Some(list);
                findings.push(e);
            }
        }
        for d in findings.all_mut() {
            d.field = if d.field.is_empty() {
                prefix.clone()
            } else {
                format!("{prefix}.{}", d.field)
            };
        }
        (findings, modelled)
    }

    fn list_end(
        &mut self,
        bytes: &[u8],
        line: u32,
        column: u32,
        json: bool,
        items_line: u32,
        removed_lines: u32,
    ) -> Outcome {
        let index = self.list_index();
        let list = self.list.take();
        let entry = match utf8(bytes, line, column) {
            Ok(text) => {
                let mut entries = source::read_piece(text, json, false, line, column, index);
                let entry = if entries.is_empty() {
                    None
                } else {
                    Some(entries.remove(0))
                };
                entry.map(|e| (e, text))
            }
            Err(e) => Some((Err(broken(index, line, e)), "")),
        };
        let Some((entry, text)) = entry else {
            // Nothing but `items: []` cannot be: the skeleton holds the items key.
            let summary = DocumentSummary {
                index,
                api_version: None,
                kind: None,
                name: None,
                line,
                modelled: false,
                valid: true,
            };
            return Outcome::ListEnd {
                findings: Findings::default(),
                summary,
                keep_items: false,
            };
        };
        // The same test as `validate_value`: a string kind (not empty), an apiVersion that is
        // a string or null, and the items sequence.
        let is_list = entry.as_ref().is_ok_and(|doc| {
            doc.value
                .get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| !k.is_empty())
                && doc
                    .value
                    .get("apiVersion")
                    .is_none_or(|v| v.is_string() || v.is_null())
                && doc.value.get("items").is_some_and(Value::is_array)
        });
        let lines = LineIndex::at_column(text, line, column);
        let (mut findings, mut summary) = check_entry(entry, &self.ctx, &self.crds, &lines, None);
        self.count_read(text.len(), Some(&lines));
        // The skeleton lacks the items' lines: what sits after them is further down.
        for d in findings.all_mut() {
            if let Some(l) = d.line.filter(|l| *l > items_line) {
                d.line = Some(l + removed_lines);
            }
            if let Some(r) = &mut d.range
                && r.line > items_line
            {
                r.line += removed_lines;
                r.end_line += removed_lines;
            }
        }
        if let Some(list) = list.filter(|_| is_list) {
            summary.modelled |= list.modelled;
            summary.valid &= list.valid;
        }
        Outcome::ListEnd {
            findings,
            summary,
            keep_items: is_list,
        }
    }

    fn too_large(&mut self, line: u32, column: u32, bytes: u64, item: Option<usize>) -> Outcome {
        let limit = source::MAX_OBJECT_BYTES;
        match item {
            None => {
                let index = self.take_index();
                let error = Diagnostic::request(
                    "too-large",
                    "",
                    format!(
                        "document {index} (from line {line}) is {bytes} bytes, more than the {limit} bytes (3 MiB) kube-apiserver accepts in one request body: passed over, the documents after it are still validated"
                    ),
                )
                .at(line, column);
                let broken = source::BrokenDocument {
                    index,
                    line,
                    error: Diagnostic {
                        document: Some(index),
                        ..error
                    },
                    stops_kubectl: false,
                };
                self.refused(broken)
            }
            Some(i) => {
                let list = self.list_index();
                let mut error = Diagnostic::request(
                    "too-large",
                    &format!("items[{i}]"),
                    format!(
                        "document {list}, items[{i}] (from line {line}) is {bytes} bytes, more than the {limit} bytes (3 MiB) kube-apiserver accepts for one object: passed over, the other items are still validated"
                    ),
                )
                .at(line, column);
                error.document = Some(list);
                if let Some(l) = &mut self.list {
                    l.valid = false;
                }
                let mut findings = Findings::default();
                findings.push(error);
                Outcome::Item { findings }
            }
        }
    }
}

/// A piece's text, or the error naming where its bytes are not UTF-8 (in the stream's lines).
fn utf8(bytes: &[u8], line: u32, column: u32) -> Result<&str, Diagnostic> {
    source::text_from_bytes(bytes).map_err(|mut e| {
        let (l, c) = (e.line.unwrap_or(1), e.column.unwrap_or(1));
        let (l, c) = if l <= 1 {
            (line, c + column.saturating_sub(1))
        } else {
            (l + line.saturating_sub(1), c)
        };
        crate::source::move_diagnostic(&mut e, l, c);
        e
    })
}

fn broken(index: usize, line: u32, mut error: Diagnostic) -> source::BrokenDocument {
    error.message = format!("document {index} (from line {line}): {}", error.message);
    error.document = Some(index);
    error.severity = Severity::Error;
    source::BrokenDocument {
        index,
        line,
        error,
        stops_kubectl: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Splitter;

    /// What a caller of [`Session`] prints: every finding in stream order (a List's items'
    /// only when it is a List) and the summaries.
    ///
    /// It is read twice, piece by piece ([`Session::piece`]) and in batches of pieces validated
    /// ahead ([`Session::ahead`], as the CLI does on several threads), and both must say the
    /// same.
    fn streamed(text: &str, chunk: usize) -> (Findings, Vec<DocumentSummary>) {
        streamed_with(text, chunk, ValidateInput::default())
    }

    fn streamed_with(
        text: &str,
        chunk: usize,
        input: ValidateInput,
    ) -> (Findings, Vec<DocumentSummary>) {
        let one_by_one = streamed_in_batches(text, chunk, &input, None);
        for batch in [1, 2, 5, 64] {
            let (ahead, _) = streamed_in_batches(text, chunk, &input, Some(batch));
            assert_eq!(
                format!("{ahead:?}"),
                format!("{:?}", one_by_one.0),
                "batches of {batch}, chunk {chunk}: {text}"
            );
        }
        one_by_one.0
    }

    /// The findings and summaries, and how many pieces validated ahead were kept (`batch`:
    /// pieces are validated ahead that many at a time).
    fn streamed_in_batches(
        text: &str,
        chunk: usize,
        input: &ValidateInput,
        batch: Option<usize>,
    ) -> ((Findings, Vec<DocumentSummary>), usize) {
        let Ok(Ok((mut session, mut all))) = Session::new(input, text) else {
            return ((Findings::default(), Vec::new()), 0);
        };
        let mut docs = Vec::new();
        let mut items = Findings::default();
        let mut pieces = Vec::new();
        let mut splitter = Splitter::new();
        for c in text.as_bytes().chunks(chunk.max(1)) {
            pieces.extend(splitter.push(c));
        }
        pieces.extend(splitter.finish());
        let mut kept = 0;
        let mut outcomes = Vec::new();
        match batch {
            None => outcomes.extend(pieces.into_iter().flat_map(|p| session.piece(p))),
            Some(n) => {
                let mut pieces = pieces.into_iter().peekable();
                while pieces.peek().is_some() {
                    let batch: Vec<Piece> = pieces.by_ref().take(n).collect();
                    let guesses = session.guesses(&batch);
                    let ahead: Vec<Option<Ahead>> = batch
                        .iter()
                        .zip(guesses)
                        .map(|(p, i)| session.ahead(p, i))
                        .collect();
                    for (piece, ahead) in batch.into_iter().zip(ahead) {
                        let (out, k) = session.take_ahead(piece, ahead);
                        kept += usize::from(k);
                        outcomes.extend(out);
                    }
                }
            }
        }
        {
            for out in outcomes {
                match out {
                    Outcome::Document { findings, summary } => {
                        // A List cut short by a bad `---` line: its items do not count.
                        items = Findings::default();
                        all.merge(findings);
                        docs.push(summary);
                    }
                    Outcome::Item { findings } => items.merge(findings),
                    Outcome::ListEnd {
                        findings,
                        summary,
                        keep_items,
                    } => {
                        if keep_items {
                            all.merge(std::mem::take(&mut items));
                        }
                        items = Findings::default();
                        all.merge(findings);
                        docs.push(summary);
                    }
                }
            }
        }
        ((all, docs), kept)
    }

    fn whole(text: &str) -> (Findings, Vec<DocumentSummary>) {
        let out = super::super::run(ValidateInput {
            source: Some(text.to_owned()),
            ..ValidateInput::default()
        });
        let out = out.unwrap_or_else(|e| ValidateOutput {
            valid: false,
            errors: vec![e],
            warnings: Vec::new(),
            infos: Vec::new(),
            kubernetes_version: String::new(),
            documents: Vec::new(),
            proposals: Vec::new(),
        });
        (
            Findings {
                errors: out.errors,
                warnings: out.warnings,
                infos: out.infos,
            },
            out.documents,
        )
    }

    /// (field, line, column, code, message) of a diagnostic.
    type Key = (String, Option<u32>, Option<u32>, Option<String>, String);

    /// The [`Key`] of each diagnostic, by severity.
    fn key(f: &Findings) -> Vec<Vec<Key>> {
        [&f.errors, &f.warnings, &f.infos]
            .iter()
            .map(|l| {
                l.iter()
                    .map(|d| {
                        (
                            d.field.clone(),
                            d.line,
                            d.column,
                            d.code.clone(),
                            d.message.clone(),
                        )
                    })
                    .collect()
            })
            .collect()
    }

    fn job(name: &str, restart: &str) -> String {
        format!(
            "{{\"apiVersion\": \"batch/v1\", \"kind\": \"Job\", \"metadata\": {{\"name\": \"{name}\"}},\n \"spec\": {{\"template\": {{\"spec\": {{\"restartPolicy\": \"{restart}\",\n  \"containers\": [{{\"name\": \"c\", \"image\": \"busybox\"}}]}}}}}}}}"
        )
    }

    const YAML_LIST: &str = "apiVersion: v1\nitems:\n- apiVersion: batch/v1\n  kind: Job\n  metadata:\n    name: a\n  spec:\n    template:\n      spec:\n        restartPolicy: Never\n        containers:\n        - name: c\n          image: busybox\n# a comment\n\n- apiVersion: batch/v1\n  kind: Job\n  metadata:\n    name: b\n  spec:\n    template:\n      spec:\n        restartPolicy: Sometimes\n        containers:\n        - name: c\n          image: busybox\nkind: List\nmetadata:\n  resourceVersion: \"\"\n  x: yes\n";

    #[test]
    fn a_list_item_by_item_says_what_the_whole_list_says() {
        let json_list = format!(
            "{{\"apiVersion\": \"v1\", \"items\": [\n{},\n{}, {}\n], \"kind\": \"List\", \"metadata\": {{}}}}\n",
            job("a", "Never"),
            job("b", "Sometimes"),
            job("c", "Always")
        );
        for text in [json_list.as_str(), YAML_LIST] {
            let (w, wd) = whole(text);
            assert!(!w.errors.is_empty(), "{text}");
            for chunk in [1, 7, 4096] {
                let (s, sd) = streamed(text, chunk);
                assert_eq!(key(&s), key(&w), "chunk {chunk}: {text}");
                assert_eq!(sd, wd, "chunk {chunk}");
            }
        }
        let (s, _) = streamed(YAML_LIST, 5);
        let e = s.errors.first().map(|d| (d.field.as_str(), d.line));
        assert_eq!(
            e,
            Some(("items[1].spec.template.spec.restartPolicy", Some(23)))
        );
        // The warning after the items is at its own line of the stream.
        assert_eq!(s.warnings.last().map(|d| d.line), Some(Some(30)));
    }

    #[test]
    fn a_compact_list_on_one_line_gets_the_ranges_of_the_whole_read() {
        // `kubectl get --raw` and most clients write a List on one line: each item's columns
        // are counted from where it starts, not blanked in (that copy was quadratic).
        let flat = |s: String| s.replace('\n', "");
        let text = format!(
            "{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{},{},{}]}}",
            flat(job("a", "Never")),
            flat(job("b", "Sometimes")),
            flat(job("c", "Sometimes"))
        );
        let ranges = |f: &Findings| -> Vec<(String, Option<crate::diag::Range>)> {
            f.errors
                .iter()
                .chain(&f.warnings)
                .map(|d| (d.field.clone(), d.range))
                .collect()
        };
        let (w, _) = whole(&text);
        for chunk in [3, 4096] {
            let (s, _) = streamed(&text, chunk);
            assert_eq!(key(&s), key(&w), "chunk {chunk}");
            assert_eq!(ranges(&s), ranges(&w), "chunk {chunk}");
        }
        // The last item's refused value is underlined where it is written on the line.
        let last = w
            .errors
            .iter()
            .find(|d| d.field == "items[2].spec.template.spec.restartPolicy")
            .and_then(|d| d.range);
        let at = u32::try_from(text.rfind("\"Sometimes\"").unwrap_or(0) + 1).unwrap_or(0);
        assert_eq!(last.map(|r| (r.line, r.column)), Some((1, at)));
    }

    #[test]
    fn a_stream_document_by_document_says_what_the_whole_stream_says() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/realworld");
        let mut n = 0;
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "yaml") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if text.contains("TrainJob") || text.contains("\nitems:") {
                continue;
            }
            let (w, wd) = whole(&text);
            let (s, sd) = streamed(&text, 1000);
            assert_eq!(key(&s), key(&w), "{}", path.display());
            assert_eq!(sd, wd, "{}", path.display());
            n += 1;
        }
        assert!(n > 20, "{n} files");
        for text in [
            "a: 1\n---\nb: [\n---\nkind: Pod\n",
            "{\"kind\": \"Pod\"}\n{\"kind\": 4}\n  {\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"spec\": {\"restartPolicy\": \"x\"}}",
            "kind: Pod\nspec:\n  restartPolicy: x\n---\nkind: Job\n",
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  spec:\n    restartPolicy: x\n--- x\napiVersion: v1\nkind: Pod\nspec:\n  restartPolicy: y\n",
        ] {
            let (w, wd) = whole(text);
            let (s, sd) = streamed(text, 3);
            assert_eq!(sd, wd, "{text}");
            let fields = |f: &Findings| {
                f.errors
                    .iter()
                    .map(|d| (d.field.clone(), d.line, d.code.clone()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(fields(&s), fields(&w), "{text}");
        }
    }

    #[test]
    fn an_item_over_3_mib_is_refused_by_name_and_the_others_validated() {
        let big = job(&"x".repeat(source::MAX_OBJECT_BYTES), "Never");
        let text = format!(
            "{{\"kind\": \"List\", \"apiVersion\": \"v1\", \"items\": [{}, {big}, {}]}}",
            job("a", "Never"),
            job("c", "Sometimes")
        );
        let (s, docs) = streamed(&text, 65536);
        let errors: Vec<(&str, Option<&str>)> = s
            .errors
            .iter()
            .map(|d| (d.field.as_str(), d.code.as_deref()))
            .collect();
        assert_eq!(errors.first(), Some(&("items[1]", Some("too-large"))));
        assert!(errors.len() > 1);
        assert!(
            errors
                .iter()
                .skip(1)
                .all(|(f, _)| f.starts_with("items[2].spec.template.spec")),
            "{errors:?}"
        );
        assert!(
            s.errors
                .first()
                .is_some_and(|d| d.message.contains("items[1]") && d.message.contains("3 MiB"))
        );
        assert_eq!(docs.len(), 1);
        assert_eq!(docs.first().map(|d| d.valid), Some(false));
    }

    #[test]
    fn a_document_over_3_mib_is_refused_and_the_next_validated() {
        let text = format!(
            "kind: ConfigMap\ndata:\n  a: {}\n---\napiVersion: v1\nkind: Pod\nspec:\n  restartPolicy: x\n",
            "y".repeat(source::MAX_OBJECT_BYTES + 10)
        );
        let (s, docs) = streamed(&text, 100_000);
        let errors: Vec<(Option<u32>, Option<&str>)> = s
            .errors
            .iter()
            .map(|d| (d.line, d.code.as_deref()))
            .collect();
        assert_eq!(errors.first(), Some(&(Some(1), Some("too-large"))));
        assert!(errors.len() > 1, "{errors:?}");
        assert!(
            errors
                .iter()
                .skip(1)
                .all(|(l, _)| l.is_some_and(|l| l >= 5))
        );
        assert_eq!(docs.len(), 2);
        assert_eq!(docs.get(1).and_then(|d| d.kind.as_deref()), Some("Pod"));
    }

    #[test]
    fn an_alias_bomb_in_a_stream_is_refused_with_a_clear_message() {
        let mut bomb = String::from("kind: Pod\na: &a [x,x,x,x,x,x,x,x,x,x]\n");
        for i in 0..9 {
            let prev = if i == 0 {
                "a".to_owned()
            } else {
                format!("a{}", i - 1)
            };
            bomb.push_str(&format!(
                "a{i}: &a{i} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
            ));
        }
        let text = format!("{bomb}---\nkind: Pod\nspec:\n  restartPolicy: x\n");
        let (s, docs) = streamed(&text, 64);
        let first = s.errors.first();
        assert_eq!(first.and_then(|d| d.code.as_deref()), Some("too-large"));
        assert!(
            first.is_some_and(|d| d.message.contains("aliases expand to more than")),
            "{first:?}"
        );
        assert_eq!(docs.len(), 2);
    }

    #[test]
    fn a_list_without_kind_is_passed_over_like_any_document_without_one() {
        let text = format!(
            "{{\"items\": [{}], \"apiVersion\": \"v1\"}}",
            job("b", "Sometimes")
        );
        let (w, wd) = whole(&text);
        let (s, sd) = streamed(&text, 10);
        assert_eq!(key(&s), key(&w));
        assert_eq!(sd, wd);
        assert!(s.errors.is_empty());
    }

    const WIDGET_CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size: {type: integer}\n";

    fn widget(name: &str, size: &str) -> String {
        format!(
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {name}\nspec:\n  size: {size}\n"
        )
    }

    #[test]
    fn pieces_validated_ahead_are_kept_when_their_guesses_hold() {
        let docs: Vec<String> = (0..10)
            .map(|i| {
                job(
                    &format!("j{i}"),
                    if i % 3 == 0 { "Sometimes" } else { "Never" },
                )
            })
            .collect();
        let stream = docs.join("\n");
        let input = ValidateInput::default();
        let (seq, _) = streamed_in_batches(&stream, 4096, &input, None);
        let (ahead, kept) = streamed_in_batches(&stream, 4096, &input, Some(4));
        assert_eq!(format!("{ahead:?}"), format!("{seq:?}"));
        assert_eq!(kept, 10);
        let mut refused: Vec<Option<usize>> = seq.0.errors.iter().map(|d| d.document).collect();
        refused.dedup();
        assert_eq!(refused, [Some(0), Some(3), Some(6), Some(9)]);
        // A List's items: each item is kept, its end is not validated ahead.
        let (_, kept) = streamed_in_batches(YAML_LIST, 4096, &input, Some(64));
        assert_eq!(kept, 2);
    }

    #[test]
    fn a_crd_read_mid_batch_sends_the_pieces_after_it_back_to_be_validated_again() {
        let stream = [
            widget("before", "\"1\""),
            WIDGET_CRD.to_owned(),
            widget("after", "\"2\""),
            widget("fine", "3"),
        ]
        .join("---\n");
        let input = ValidateInput::default();
        let (seq, _) = streamed_in_batches(&stream, 4096, &input, None);
        let (ahead, kept) = streamed_in_batches(&stream, 4096, &input, Some(64));
        assert_eq!(format!("{ahead:?}"), format!("{seq:?}"));
        // The widget before the CRD was kept; the CRD and what follows it in the batch were
        // validated again, with its schema.
        assert_eq!(kept, 1);
        let fields: Vec<(&str, Option<usize>)> = seq
            .0
            .errors
            .iter()
            .map(|d| (d.field.as_str(), d.document))
            .collect();
        assert_eq!(fields, [("spec.size", Some(2))]);
    }

    #[test]
    fn pieces_holding_no_document_or_two_leave_the_guesses_after_them_to_be_redone() {
        // An empty document (only a comment) and a `...` end holding two documents in one
        // piece move the indices of the documents after them.
        let stream = format!(
            "{}---\n# nothing\n---\n{}...\n{}---\n{}",
            job("a", "Never"),
            job("b", "Sometimes"),
            job("c", "Sometimes"),
            job("d", "Never")
        );
        let input = ValidateInput::default();
        let (seq, _) = streamed_in_batches(&stream, 4096, &input, None);
        for batch in [1, 3, 64] {
            let (ahead, _) = streamed_in_batches(&stream, 4096, &input, Some(batch));
            assert_eq!(format!("{ahead:?}"), format!("{seq:?}"), "batch {batch}");
        }
        let docs: Vec<usize> = seq.1.iter().map(|d| d.index).collect();
        assert_eq!(docs, (0..docs.len()).collect::<Vec<_>>());
    }

    #[test]
    fn list_items_are_checked_against_the_crds_of_the_request() {
        let list = format!(
            "apiVersion: v1\nkind: List\nitems:\n{}",
            [widget("a", "\"1\""), widget("b", "2")]
                .iter()
                .map(|w| {
                    let mut lines = w.lines();
                    let first = lines.next().unwrap_or_default();
                    let rest: String = lines.map(|l| format!("  {l}\n")).collect();
                    format!("- {first}\n{rest}")
                })
                .collect::<String>()
        );
        let input = || ValidateInput {
            crds: vec![crate::validate::crd_schema::CrdInput {
                source: WIDGET_CRD.to_owned(),
                file_name: Some("widget.yaml".to_owned()),
            }],
            ..ValidateInput::default()
        };
        let whole = super::super::run(ValidateInput {
            source: Some(list.clone()),
            ..input()
        })
        .map(|o| o.errors)
        .unwrap_or_default();
        let (s, _) = streamed_with(&list, 16, input());
        let fields = |e: &[Diagnostic]| e.iter().map(|d| d.field.clone()).collect::<Vec<_>>();
        assert_eq!(fields(&s.errors), ["items[0].spec.size"]);
        assert_eq!(fields(&s.errors), fields(&whole));
    }
}
