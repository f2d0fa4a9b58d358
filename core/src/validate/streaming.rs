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
    next_index: usize,
    list: Option<OpenList>,
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
        self.crds.add_value(&doc.value, minor).err().map(|mut d| {
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
                        next_index: 0,
                        list: None,
                    },
                    findings,
                )
            }),
        )
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

    fn document(
        &mut self,
        bytes: &[u8],
        line: u32,
        column: u32,
        json: bool,
        separated: bool,
    ) -> Vec<Outcome> {
        let text = match utf8(bytes, line, column) {
            Ok(t) => t,
            Err(e) => {
                let index = self.take_index();
                let broken = broken(index, line, e);
                return vec![self.refused(broken)];
            }
        };
        let padded = padded(text, column);
        let lines = LineIndex::at(&padded, line);
        let entries = source::read_piece(text, json, separated, line, column, self.next_index);
        self.next_index += entries.len();
        entries
            .into_iter()
            .map(|entry| {
                let crd_problem = self.learn_crd(&entry);
                let (mut findings, summary) =
                    check_entry(entry, &self.ctx, &self.crds, &lines, None);
                findings.extend(crd_problem);
                // The CEL note once per kind in the stream, as for a stream read whole.
                findings.infos.retain(|d| {
                    d.code.as_deref() != Some("cel-not-evaluated")
                        || self.cel_told.insert(d.message.clone())
                });
                Outcome::Document { findings, summary }
            })
            .collect()
    }

    fn item(&mut self, i: usize, bytes: &[u8], line: u32, column: u32, json: bool) -> Outcome {
        let list = self.list_index();
        let prefix = format!("items[{i}]");
        let mut findings = Findings::default();
        let mut modelled = false;
        let read = utf8(bytes, line, column).and_then(|text| {
            let padded = padded(text, column);
            let docs = source::read_item(text, json, line, column)?;
            Ok((padded, docs))
        });
        match read {
            Ok((padded, docs)) => {
                let lines = LineIndex::at(&padded, line);
                match docs.into_iter().next() {
                    Some(mut doc) => {
                        doc.index = list;
                        let (mut f, m) = super::validate_value(&doc.value, &self.ctx);
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
            }
            Err(mut e) => {
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
        if let Some(l) = &mut self.list {
            l.modelled |= modelled;
            l.valid &= findings.errors.is_empty();
        }
        Outcome::Item { findings }
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
                let padded = padded(text, column);
                let mut entries = source::read_piece(text, json, false, line, column, index);
                let entry = if entries.is_empty() {
                    None
                } else {
                    Some(entries.remove(0))
                };
                entry.map(|e| (e, padded))
            }
            Err(e) => Some((Err(broken(index, line, e)), String::new())),
        };
        let Some((entry, padded)) = entry else {
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
        let lines = LineIndex::at(&padded, line);
        let (mut findings, mut summary) = check_entry(entry, &self.ctx, &self.crds, &lines, None);
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

/// A piece that starts at `column` of its first line, with that line's start blanked in, so
/// that line and column arithmetic over it is the stream's.
fn padded(text: &str, column: u32) -> String {
    let pad = usize::try_from(column.saturating_sub(1)).unwrap_or(0);
    let mut s = String::with_capacity(pad + text.len());
    s.extend(std::iter::repeat_n(' ', pad));
    s.push_str(text);
    s
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
    fn streamed(text: &str, chunk: usize) -> (Findings, Vec<DocumentSummary>) {
        let input = ValidateInput::default();
        let Ok(Ok((mut session, mut all))) = Session::new(&input, text) else {
            return (Findings::default(), Vec::new());
        };
        let mut docs = Vec::new();
        let mut items = Findings::default();
        let mut pieces = Vec::new();
        let mut splitter = Splitter::new();
        for c in text.as_bytes().chunks(chunk.max(1)) {
            pieces.extend(splitter.push(c));
        }
        pieces.extend(splitter.finish());
        for piece in pieces {
            for out in session.piece(piece) {
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
        (all, docs)
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
}
