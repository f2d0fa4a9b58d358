//! `restartkit validate` over many files and large ones, in bounded memory.
//!
//! Files up to [`STREAM_BYTES`] are read whole and validated with the core's typed API
//! (`validate::run`, what the contract's `validate` op runs), a run of them at a time on every
//! core (rayon); a run's output is written in file order while the next run is validated. A
//! larger file (or standard input past that size) is read in chunks and cut into documents and
//! List items by the core (`restartkit::source::Splitter`, `validate::streaming::Session`):
//! what is held is one chunk at a time, whose pieces are validated on every core and taken in
//! order (`Session::ahead`), and the human output of each document is written as soon as it is
//! done. `--output json` writes each file's element of the array when the file is done; SARIF,
//! one document with a rule table, is written at the end.

use crate::{FieldValidationArg, Output, Target, located, options, render, trainer};
use rayon::prelude::*;
use restartkit::Diagnostic;
use restartkit::source::{Splitter, text_from_bytes};
use restartkit::validate::streaming::{Ahead, Outcome, Session};
use restartkit::validate::{DocumentSummary, ValidateInput};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Files larger than this are read piece by piece (8 MiB: every ordinary manifest, and every
/// case of the bad-input corpus, is read whole as before).
pub const STREAM_BYTES: usize = 8 * 1024 * 1024;

/// [`STREAM_BYTES`], or `RESTARTKIT_STREAM_BYTES` from the environment (for tests: the
/// piece-by-piece reading of small files).
fn stream_bytes() -> usize {
    static AT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *AT.get_or_init(|| {
        std::env::var("RESTARTKIT_STREAM_BYTES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(STREAM_BYTES)
    })
}

/// Bytes read at a time from a file read piece by piece.
const CHUNK_BYTES: usize = 1 << 20;

/// A List's items with findings held until its kind is known (`kubectl get -o json` writes
/// `kind` after the items), and the bytes of their human output: past either, they are written
/// as they come (the document is then taken for a List even if it turns out to have no kind).
const ITEMS_HELD: usize = 10_000;
const ITEMS_HELD_BYTES: usize = 8 * 1024 * 1024;

/// Bytes of the files read whole and validated together, at most (past it the batch is closed):
/// what is held at once stays bounded however many files there are.
const BATCH_BYTES: usize = 16 * 1024 * 1024;

/// Files validated together before their output is written.
const BATCH: usize = 64;

/// The files to validate: each argument, a directory standing for the `.yaml`, `.yml` and
/// `.json` files under it (in path order), and the lines of `--files-from` (`-`: standard
/// input) after them.
pub fn expand(files: &[PathBuf], files_from: Option<&Path>) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut listed = Vec::new();
    if let Some(list) = files_from {
        let text = if list.as_os_str() == "-" {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| format!("standard input: {e}"))?;
            s
        } else {
            std::fs::read_to_string(list).map_err(|e| format!("{}: {e}", list.display()))?
        };
        listed.extend(
            text.lines()
                .map(str::trim_end)
                .filter(|l| !l.is_empty())
                .map(PathBuf::from),
        );
    }
    for f in files.iter().chain(&listed) {
        if f.is_dir() {
            let mut found = Vec::new();
            walk(f, &mut found).map_err(|e| format!("{}: {e}", f.display()))?;
            found.sort();
            out.extend(found);
        } else {
            out.push(f.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
        {
            out.push(path);
        }
    }
    Ok(())
}

/// What a file gave: its result as the contract's `validate` op gives it, its findings, and
/// the human output written for it.
struct FileReport {
    name: String,
    result: Value,
    errors: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
    stderr: String,
    unreadable: Option<String>,
    /// Counts, where `errors` and `warnings` are not kept (a file read piece by piece).
    counts: Option<(usize, usize)>,
    /// `--output json` of a file read piece by piece: its result, spilled to temporary files.
    spilled: Option<Spill>,
}

impl FileReport {
    fn counts(&self) -> (usize, usize) {
        self.counts
            .unwrap_or((self.errors.len(), self.warnings.len()))
    }
}

/// A result's lists written as they grow to temporary files, each entry pretty-printed at the
/// depth `--output json` prints it: `errors`, `warnings`, `infos`, `documents`.
struct Spill {
    parts: Vec<(std::path::PathBuf, std::io::BufWriter<std::fs::File>, usize)>,
}

/// Depth of a result's list entries in `--output json` (`[ { "result": { "errors": [`).
const ENTRY_INDENT: &str = "        ";

impl Spill {
    const NAMES: [&'static str; 4] = ["errors", "warnings", "infos", "documents"];

    fn new() -> std::io::Result<Spill> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut parts = Vec::new();
        for name in Self::NAMES {
            let path = std::env::temp_dir()
                .join(format!("restartkit-{}-{n}-{name}.json", std::process::id()));
            let file = std::fs::File::create(&path)?;
            parts.push((path, std::io::BufWriter::new(file), 0));
        }
        Ok(Spill { parts })
    }

    /// Appends `v` to list `part` (an index into `NAMES`).
    fn push(&mut self, part: usize, v: &impl serde::Serialize) -> std::io::Result<()> {
        use std::io::Write as _;
        let Some((_, w, n)) = self.parts.get_mut(part) else {
            return Ok(());
        };
        let pretty = serde_json::to_string_pretty(v).map_err(std::io::Error::other)?;
        if *n > 0 {
            w.write_all(b",\n")?;
        }
        for (i, line) in pretty.split('\n').enumerate() {
            if i > 0 {
                w.write_all(b"\n")?;
            }
            w.write_all(ENTRY_INDENT.as_bytes())?;
            w.write_all(line.as_bytes())?;
        }
        *n += 1;
        Ok(())
    }

    /// Writes the file's element of the `--output json` array: `head` is the element as
    /// `to_string_pretty` prints it at depth 1 with a placeholder string for each list.
    fn write(mut self, head: &str) -> std::io::Result<()> {
        use std::io::Write as _;
        let mut rest = head;
        for (path, w, n) in &mut self.parts {
            w.flush()?;
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .and_then(|s| s.rsplit('-').next())
                .unwrap_or("")
                .to_owned();
            let marker = format!("\"{}\"", placeholder(&name));
            let Some(at) = rest.find(&marker) else {
                continue;
            };
            crate::write_raw(rest.get(..at).unwrap_or(""));
            rest = rest.get(at + marker.len()..).unwrap_or("");
            if *n == 0 {
                crate::write_raw("[]");
                continue;
            }
            crate::write_raw("[\n");
            let mut file = std::fs::File::open(&*path)?;
            let mut out = std::io::stdout().lock();
            std::io::copy(&mut file, &mut out)?;
            out.flush()?;
            drop(out);
            crate::write_raw(&format!("\n{}]", &ENTRY_INDENT[2..]));
        }
        crate::write_raw(rest);
        Ok(())
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        for (path, _, _) in &self.parts {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn placeholder(name: &str) -> String {
    format!("@@restartkit-spill-{name}@@")
}

/// How a file is read.
enum Input {
    /// Read whole (or could not be read: the message).
    Whole(Result<String, String>),
    /// Read piece by piece: the bytes already read, then the rest.
    Stream(Vec<u8>, Box<dyn Read + Send>),
}

fn open(path: &Path) -> Input {
    if path.as_os_str() == "-" {
        let mut head = Vec::new();
        let mut stdin = std::io::stdin();
        let limit = u64::try_from(stream_bytes()).unwrap_or(u64::MAX) + 1;
        if let Err(e) = (&mut stdin).take(limit).read_to_end(&mut head) {
            return Input::Whole(Err(format!("standard input: {e}")));
        }
        if head.len() > stream_bytes() {
            return Input::Stream(head, Box::new(stdin));
        }
        return Input::Whole(
            text_from_bytes(&head)
                .map(str::to_owned)
                .map_err(|d| located(path, &d)),
        );
    }
    let big = std::fs::metadata(path)
        .map(|m| m.is_file() && m.len() > stream_bytes() as u64)
        .unwrap_or(false);
    if big {
        match std::fs::File::open(path) {
            Ok(f) => Input::Stream(Vec::new(), Box::new(f)),
            Err(e) => Input::Whole(Err(format!("{}: {e}", path.display()))),
        }
    } else {
        Input::Whole(crate::read_input(&path.to_path_buf()))
    }
}

/// A file of a batch before it is read: standard input is read already.
enum Opened {
    Path(PathBuf),
    Read(Input),
}

/// A file of a batch once read: its report, or what must wait for the others (a TrainJob, for
/// the runtimes of the other files; a large file, read piece by piece in its turn).
enum Slot {
    Done(FileReport),
    Waiting(String, String),
    Large(String, Vec<u8>, Box<dyn Read + Send>),
}

/// The options of every file's request.
struct Request<'a> {
    target: &'a Target,
    output: Output,
    /// `--runtime` files.
    extra: Vec<(String, String)>,
    /// The options as the core's input (no source yet), or why the core refuses them
    /// (reported for each file, as the contract's `validate` op reports it).
    typed: Result<ValidateInput, Diagnostic>,
}

/// The command's options as the contract's `validate` input, decoded once with the contract's
/// own decoding; `crds`: the `--schema-location` files, as the contract's `crds` entries.
fn core_input(
    target: &Target,
    skip_defaulting: bool,
    field_validation: FieldValidationArg,
    crds: Vec<Value>,
) -> Result<ValidateInput, Diagnostic> {
    let mut input = options(target);
    crate::with_proposals(&mut input, &target.proposals);
    if skip_defaulting {
        input.insert("skipDefaulting".into(), json!(true));
    }
    input.insert(
        "fieldValidation".into(),
        json!(field_validation.api_value()),
    );
    if !crds.is_empty() {
        input.insert("crds".into(), Value::Array(crds));
    }
    restartkit::contract::decode(Value::Object(input))
}

impl Request<'_> {
    fn experimental(&self, name: &str, stderr: &mut String) {
        if !self.target.proposals.is_empty() && self.output == Output::Human {
            stderr.push_str(&format!(
                "EXPERIMENTAL: {name} judged under proposal(s) {} — not upstream behaviour\n",
                self.target.proposals.join(", ")
            ));
        }
    }
}

/// The texts of the other files and `--runtime` files that may hold a TrainingRuntime, read
/// once, when a file first holds a TrainJob.
struct Runtimes<'a> {
    files: &'a [PathBuf],
    stdin: Option<String>,
    read: Option<Vec<(String, String, bool)>>,
}

impl Runtimes<'_> {
    fn texts(&mut self, req: &Request) -> &[(String, String, bool)] {
        let files = self.files;
        let stdin = self.stdin.clone();
        self.read.get_or_insert_with(|| {
            let mut v: Vec<(String, String, bool)> = files
                .par_iter()
                .filter_map(|f| {
                    let text = if f.as_os_str() == "-" {
                        stdin.clone()?
                    } else {
                        let small = std::fs::metadata(f)
                            .map(|m| m.len() <= stream_bytes() as u64)
                            .unwrap_or(false);
                        if !small {
                            return None;
                        }
                        crate::read_input(f).ok()?
                    };
                    trainer::may_hold_runtime(&text).then(|| (f.display().to_string(), text, true))
                })
                .collect();
            v.extend(req.extra.iter().map(|(n, t)| (n.clone(), t.clone(), false)));
            v
        })
    }
}

/// Validates a file read whole with the core's typed API (`validate::run`, what the contract's
/// `validate` op runs); its result is the op's.
fn whole_file(
    name: &str,
    text: &str,
    req: &Request,
    runtimes: &[(String, String, bool)],
) -> FileReport {
    let validated = req.typed.clone().and_then(|mut input| {
        if text.contains("TrainJob") {
            // The other files are validated on their own; a --runtime file is not.
            let others: Vec<(&str, &str, bool)> = runtimes
                .iter()
                .filter(|(n, _, _)| n != name)
                .map(|(n, t, v)| (n.as_str(), t.as_str(), *v))
                .collect();
            input.runtimes =
                restartkit::contract::decode(Value::Array(trainer::runtime_inputs(&others)))?;
        }
        input.source = Some(text.to_owned());
        input.file_name = Some(name.to_owned());
        restartkit::validate::run(input)
    });
    let mut stderr = String::new();
    req.experimental(name, &mut stderr);
    let (result, errors, warnings, infos) = match validated {
        Ok(out) => {
            // The result as the op encodes it, for the JSON, JSON lines and SARIF outputs.
            let result = if req.output == Output::Human {
                Value::Null
            } else {
                serde_json::to_value(&out).unwrap_or(Value::Null)
            };
            (result, out.errors, out.warnings, out.infos)
        }
        Err(e) => (
            json!({"valid": false, "errors": [&e], "warnings": []}),
            vec![e],
            Vec::new(),
            Vec::new(),
        ),
    };
    if req.output == Output::Human {
        let texts: BTreeMap<String, String> = runtimes
            .iter()
            .map(|(n, t, _)| (n.clone(), t.clone()))
            .collect();
        trainer::diagnostics_by_file_into(
            &mut stderr,
            name,
            text,
            &texts,
            &errors,
            &warnings,
            &infos,
        );
    }
    FileReport {
        name: name.to_owned(),
        result,
        errors,
        warnings,
        stderr,
        unreadable: None,
        counts: None,
        spilled: None,
    }
}

/// Validates a large file piece by piece: human output is written (to `emit`) as each document
/// is done.
fn streamed_file(
    name: &str,
    head: Vec<u8>,
    mut rest: Box<dyn Read + Send>,
    req: &Request,
    emit: &mut dyn FnMut(&str),
) -> FileReport {
    let mut stderr = String::new();
    req.experimental(name, &mut stderr);
    emit(&std::mem::take(&mut stderr));
    let fail = |errs: Vec<Diagnostic>, stderr: String| FileReport {
        name: name.to_owned(),
        result: json!({"valid": false, "errors": errs, "warnings": []}),
        errors: errs,
        warnings: Vec::new(),
        stderr,
        unreadable: None,
        counts: None,
        spilled: None,
    };
    let mut input = match &req.typed {
        Ok(i) => i.clone(),
        Err(e) => return fail(vec![e.clone()], stderr),
    };
    input.file_name = Some(name.to_owned());
    // The settings comment is looked for in the first chunk.
    let mut buf = head;
    let mut at_end = false;
    if buf.len() < CHUNK_BYTES {
        let want = u64::try_from(CHUNK_BYTES - buf.len()).unwrap_or(0);
        if let Err(e) = (&mut rest).take(want).read_to_end(&mut buf) {
            return unreadable(name, format!("{name}: {e}"));
        }
        at_end = buf.len() < CHUNK_BYTES;
    }
    let head_text = String::from_utf8_lossy(&buf).into_owned();
    let (mut session, request) = match Session::new(&input, &head_text) {
        Ok(Ok(s)) => s,
        Ok(Err(output)) => {
            let result = serde_json::to_value(&output).unwrap_or(Value::Null);
            if req.output == Output::Human {
                render::diagnostics_into(
                    &mut stderr,
                    name,
                    &head_text,
                    1,
                    &output.errors,
                    &output.warnings,
                    &output.infos,
                );
            }
            return FileReport {
                name: name.to_owned(),
                result,
                errors: output.errors,
                warnings: output.warnings,
                stderr,
                unreadable: None,
                counts: None,
                spilled: None,
            };
        }
        Err(e) => return fail(vec![e], stderr),
    };
    drop(head_text);
    let human = req.output == Output::Human;
    let jsonl = req.output == Output::Jsonl;
    let mut keep = match Keep::new(req.output) {
        Ok(k) => k,
        Err(e) => return unreadable(name, format!("{name}: temporary file: {e}")),
    };
    if human {
        render::diagnostics_into(
            &mut stderr,
            name,
            "",
            1,
            &request.errors,
            &request.warnings,
            &request.infos,
        );
        emit(&std::mem::take(&mut stderr));
    }
    if let Err(e) = keep.findings(request) {
        return unreadable(name, format!("{name}: temporary file: {e}"));
    }
    let mut items: Vec<restartkit::Findings> = Vec::new();
    let mut items_out = String::new();
    let mut direct = false;
    let mut splitter = Splitter::new();
    let mut chunk = buf;
    loop {
        let pieces = if chunk.is_empty() && at_end {
            splitter.finish()
        } else {
            splitter.push(&chunk)
        };
        // The pieces of a chunk are validated on every core, then taken in order (a piece
        // whose guesses did not hold, after a CRD or an empty document, is done again then).
        let guesses = session.guesses(&pieces);
        let ahead: Vec<Option<Ahead>> = pieces
            .par_iter()
            .zip(guesses)
            .map(|(piece, index)| session.ahead(piece, index))
            .collect();
        for (piece, ahead) in pieces.into_iter().zip(ahead) {
            let (text, at) = match &piece {
                restartkit::source::Piece::Document {
                    text, line, column, ..
                }
                | restartkit::source::Piece::Item {
                    text, line, column, ..
                } if human => (String::from_utf8_lossy(text).into_owned(), (*line, *column)),
                restartkit::source::Piece::ListEnd {
                    skeleton,
                    line,
                    column,
                    ..
                } if human => (String::from_utf8_lossy(skeleton).into_owned(), (*line, *column)),
                _ => (String::new(), (1, 1)),
            };
            for out in session.piece_ahead(piece, ahead) {
                let (findings, summary) = match out {
                    Outcome::Item { findings } => {
                        // An item with only infos (most items: "kind not modelled") gets no
                        // line of its own; errors and warnings do.
                        if jsonl && !(findings.errors.is_empty() && findings.warnings.is_empty()) {
                            items_out.push_str(&jsonl_line(name, None, &findings));
                        }
                        if human {
                            render::diagnostics_at(
                                &mut items_out,
                                name,
                                &text,
                                at,
                                &findings.errors,
                                &findings.warnings,
                                &findings.infos,
                            );
                        }
                        // Kept until the List's kind is known (only findings: most items
                        // have none), up to a bound: past it the document is taken for the
                        // List it almost surely is and its items' findings go out as they come.
                        if !(findings.errors.is_empty()
                            && findings.warnings.is_empty()
                            && findings.infos.is_empty())
                        {
                            items.push(findings);
                        }
                        if direct || items.len() > ITEMS_HELD || items_out.len() > ITEMS_HELD_BYTES
                        {
                            direct = true;
                            if jsonl {
                                print!("{}", std::mem::take(&mut items_out));
                            } else {
                                emit(&std::mem::take(&mut items_out));
                            }
                            for f in std::mem::take(&mut items) {
                                if let Err(e) = keep.findings(f) {
                                    return unreadable(
                                        name,
                                        format!("{name}: temporary file: {e}"),
                                    );
                                }
                            }
                        }
                        continue;
                    }
                    Outcome::Document { findings, summary } => {
                        // A List a bad `---` line cut short never ends: its items do not count.
                        items.clear();
                        items_out.clear();
                        direct = false;
                        (findings, summary)
                    }
                    Outcome::ListEnd {
                        findings,
                        summary,
                        keep_items,
                    } => {
                        let kept = std::mem::take(&mut items);
                        let kept_out = std::mem::take(&mut items_out);
                        direct = false;
                        if keep_items && jsonl {
                            print!("{kept_out}");
                        }
                        if keep_items {
                            stderr.push_str(if jsonl { "" } else { &kept_out });
                            for f in kept {
                                if let Err(e) = keep.findings(f) {
                                    return unreadable(
                                        name,
                                        format!("{name}: temporary file: {e}"),
                                    );
                                }
                            }
                        }
                        (findings, summary)
                    }
                };
                if human {
                    render::diagnostics_at(
                        &mut stderr,
                        name,
                        &text,
                        at,
                        &findings.errors,
                        &findings.warnings,
                        &findings.infos,
                    );
                    emit(&std::mem::take(&mut stderr));
                }
                if jsonl {
                    print!("{}", jsonl_line(name, Some(&summary), &findings));
                }
                if let Err(e) = keep
                    .findings(findings)
                    .and_then(|()| keep.document(&summary))
                {
                    return unreadable(name, format!("{name}: temporary file: {e}"));
                }
            }
        }
        if chunk.is_empty() && at_end {
            break;
        }
        chunk = Vec::with_capacity(CHUNK_BYTES);
        if !at_end {
            let want = u64::try_from(CHUNK_BYTES).unwrap_or(u64::MAX);
            match (&mut rest).take(want).read_to_end(&mut chunk) {
                Ok(n) => at_end = n == 0,
                Err(e) => return unreadable(name, format!("{name}: {e}")),
            }
        }
    }
    let (n_errors, n_warnings) = (keep.errors, keep.warnings);
    let mut report = FileReport {
        name: name.to_owned(),
        result: Value::Null,
        errors: keep.kept_errors,
        warnings: keep.kept_warnings,
        stderr,
        unreadable: None,
        counts: Some((n_errors, n_warnings)),
        spilled: None,
    };
    if let Some(spill) = keep.spill {
        // The element as the op's result prints, each list a placeholder the spill fills.
        let mut result = serde_json::Map::new();
        result.insert("valid".into(), json!(n_errors == 0));
        result.insert("errors".into(), json!(placeholder("errors")));
        result.insert("warnings".into(), json!(placeholder("warnings")));
        if spill.parts.get(2).is_some_and(|p| p.2 > 0) {
            result.insert("infos".into(), json!(placeholder("infos")));
        }
        result.insert(
            "kubernetesVersion".into(),
            json!(session.kubernetes_version()),
        );
        if spill.parts.get(3).is_some_and(|p| p.2 > 0) {
            result.insert("documents".into(), json!(placeholder("documents")));
        }
        let proposals = restartkit::proposals::marker(&input.proposals);
        if !proposals.is_empty() {
            result.insert("proposals".into(), json!(proposals));
        }
        report.result = json!({"file": name, "result": Value::Object(result)});
        report.spilled = Some(spill);
    }
    report
}

fn findings_empty(f: &restartkit::Findings) -> bool {
    f.errors.is_empty() && f.warnings.is_empty() && f.infos.is_empty()
}

/// One line of `--output jsonl`: a document's file, summary (null for findings that belong to
/// no document, and for the items of a List read piece by piece, which come before the List's
/// own line) and findings.
fn jsonl_line(
    name: &str,
    summary: Option<&restartkit::validate::DocumentSummary>,
    findings: &restartkit::Findings,
) -> String {
    let line = json!({
        "file": name,
        "document": summary,
        "errors": findings.errors,
        "warnings": findings.warnings,
        "infos": findings.infos,
    });
    format!("{line}\n")
}

/// `--output jsonl` for a file validated whole: a line per document in order, after a line for
/// the findings of no document (a request error, a gate warning), if any.
fn jsonl_lines(name: &str, result: &Value) -> String {
    let mut by_document: BTreeMap<u64, restartkit::Findings> = BTreeMap::new();
    let mut loose = restartkit::Findings::default();
    for key in ["errors", "warnings", "infos"] {
        let list: Vec<Diagnostic> =
            serde_json::from_value(result.get(key).cloned().unwrap_or(json!([])))
                .unwrap_or_default();
        for d in list {
            let slot = match d.document.and_then(|i| u64::try_from(i).ok()) {
                Some(i) => by_document.entry(i).or_default(),
                None => &mut loose,
            };
            match key {
                "errors" => slot.errors.push(d),
                "warnings" => slot.warnings.push(d),
                _ => slot.infos.push(d),
            }
        }
    }
    let summaries: Vec<restartkit::validate::DocumentSummary> =
        serde_json::from_value(result.get("documents").cloned().unwrap_or(json!([])))
            .unwrap_or_default();
    let mut out = String::new();
    if !findings_empty(&loose) || summaries.is_empty() {
        out.push_str(&jsonl_line(name, None, &loose));
    }
    for s in &summaries {
        let f = u64::try_from(s.index)
            .ok()
            .and_then(|i| by_document.remove(&i))
            .unwrap_or_default();
        out.push_str(&jsonl_line(name, Some(s), &f));
    }
    // Findings placed in a document the summaries do not list (none expected) are not dropped.
    for (_, f) in by_document {
        out.push_str(&jsonl_line(name, None, &f));
    }
    out
}

/// What a file read piece by piece keeps of its findings: counts for the human output, the
/// errors and warnings for SARIF, a [`Spill`] for JSON.
struct Keep {
    errors: usize,
    warnings: usize,
    kept_errors: Vec<Diagnostic>,
    kept_warnings: Vec<Diagnostic>,
    sarif: bool,
    spill: Option<Spill>,
}

impl Keep {
    fn counting() -> Keep {
        Keep {
            errors: 0,
            warnings: 0,
            kept_errors: Vec::new(),
            kept_warnings: Vec::new(),
            sarif: false,
            spill: None,
        }
    }

    fn new(output: Output) -> std::io::Result<Keep> {
        Ok(Keep {
            sarif: output == Output::Sarif,
            spill: match output {
                Output::Json => Some(Spill::new()?),
                _ => None,
            },
            ..Keep::counting()
        })
    }

    fn findings(&mut self, f: restartkit::Findings) -> std::io::Result<()> {
        self.errors += f.errors.len();
        self.warnings += f.warnings.len();
        if let Some(spill) = &mut self.spill {
            for (part, list) in [&f.errors, &f.warnings, &f.infos].into_iter().enumerate() {
                for d in list {
                    spill.push(part, d)?;
                }
            }
        }
        if self.sarif {
            self.kept_errors.extend(f.errors);
            self.kept_warnings.extend(f.warnings);
        }
        Ok(())
    }

    fn document(&mut self, summary: &DocumentSummary) -> std::io::Result<()> {
        match &mut self.spill {
            Some(spill) => spill.push(3, summary),
            None => Ok(()),
        }
    }
}

fn unreadable(name: &str, why: String) -> FileReport {
    FileReport {
        name: name.to_owned(),
        result: Value::Null,
        errors: Vec::new(),
        warnings: Vec::new(),
        stderr: format!("error: {why}\n"),
        unreadable: Some(why),
        counts: None,
        spilled: None,
    }
}

/// `[` … `]` of `--output json`, one file's element at a time, the bytes
/// `serde_json::to_string_pretty` gives for the whole array.
struct JsonArray {
    started: bool,
}

impl JsonArray {
    fn element(&mut self, v: &Value) {
        let pretty =
            serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        let mut s = String::with_capacity(pretty.len() + pretty.len() / 8 + 4);
        s.push_str(if self.started { ",\n" } else { "[\n" });
        for (i, line) in pretty.split('\n').enumerate() {
            if i > 0 {
                s.push('\n');
            }
            s.push_str("  ");
            s.push_str(line);
        }
        self.started = true;
        crate::write_raw(&s);
    }

    /// A file read piece by piece: `head` with its lists' placeholders, filled from `spill`.
    fn spilled(&mut self, head: &Value, spill: Spill) {
        let pretty = serde_json::to_string_pretty(head).unwrap_or_default();
        let mut s = String::with_capacity(pretty.len() + pretty.len() / 8 + 4);
        for (i, line) in pretty.split('\n').enumerate() {
            if i > 0 {
                s.push('\n');
            }
            s.push_str("  ");
            s.push_str(line);
        }
        crate::write_raw(if self.started { ",\n" } else { "[\n" });
        self.started = true;
        if let Err(e) = spill.write(&s) {
            eprintln!("error: writing output: {e}");
            std::process::exit(2);
        }
    }

    fn end(self) {
        crate::write_raw(if self.started { "\n]\n" } else { "[]\n" });
    }
}

/// The CRD files of `--schema-location` (a directory stands for the manifests under it), as the
/// `crds` of the validate request; what cannot be read names the file.
fn read_schema_locations(paths: &[PathBuf]) -> Result<Vec<Value>, String> {
    let files = expand(paths, None)?;
    files
        .iter()
        .map(|f| {
            let text = crate::read_input(f)?;
            Ok(json!({"source": text, "fileName": f.display().to_string()}))
        })
        .collect()
}

/// `restartkit validate`.
pub fn validate(
    files: &[PathBuf],
    runtime_files: &[PathBuf],
    schema_locations: &[PathBuf],
    output: Output,
    skip_defaulting: bool,
    field_validation: FieldValidationArg,
    target: &Target,
) -> ExitCode {
    let extra = match trainer::read_runtime_files(runtime_files) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let crds = match read_schema_locations(schema_locations) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: --schema-location {e}");
            return ExitCode::from(2);
        }
    };
    let req = Request {
        target,
        output,
        extra,
        typed: core_input(target, skip_defaulting, field_validation, crds),
    };
    // Standard input is read first (once): a TrainJob in a file may name a runtime in it.
    let stdin_pos = files.iter().position(|f| f.as_os_str() == "-");
    let mut stdin_input = stdin_pos.map(|_| open(Path::new("-")));
    let mut runtimes = Runtimes {
        files,
        stdin: match &stdin_input {
            Some(Input::Whole(Ok(t))) => Some(t.clone()),
            _ => None,
        },
        read: None,
    };
    let mut json_out = JsonArray { started: false };
    let mut sarif: Vec<(String, Value, Vec<Diagnostic>, Vec<Diagnostic>)> = Vec::new();
    let mut not_read: Vec<(String, String)> = Vec::new();
    let (mut errors, mut warnings, mut read) = (0usize, 0usize, 0usize);
    let mut finish = |r: FileReport| {
        eprint!("{}", r.stderr);
        if let Some(why) = r.unreadable {
            not_read.push((r.name, why));
            return;
        }
        read += 1;
        let (e, w) = r.counts();
        errors += e;
        warnings += w;
        match output {
            Output::Human => {}
            Output::Json => match r.spilled {
                Some(spill) => json_out.spilled(&r.result, spill),
                None => json_out.element(&json!({"file": r.name, "result": r.result})),
            },
            Output::Sarif => sarif.push((r.name, r.result, r.errors, r.warnings)),
            // A file read piece by piece wrote its lines as it went (its counts are kept).
            Output::Jsonl if r.counts.is_none() => print!("{}", jsonl_lines(&r.name, &r.result)),
            Output::Jsonl => {}
        }
    };
    let mut i = 0;
    let mut stdin_used = false;
    // The next run of files: what is held at once stays bounded however many files there are
    // (a file past the streaming size is read piece by piece later, and counts for nothing).
    let mut next_batch = || {
        let mut batch: Vec<(String, Opened)> = Vec::new();
        let mut batch_bytes = 0usize;
        while i < files.len() && batch.len() < BATCH && batch_bytes < BATCH_BYTES {
            let f = files.get(i).cloned().unwrap_or_default();
            let name = f.display().to_string();
            let opened = if Some(i) == stdin_pos && !stdin_used {
                stdin_used = true;
                Opened::Read(
                    stdin_input
                        .take()
                        .unwrap_or(Input::Whole(Err("standard input: read already".into()))),
                )
            } else if f.as_os_str() == "-" {
                Opened::Read(Input::Whole(Ok(String::new())))
            } else {
                batch_bytes += std::fs::metadata(&f)
                    .ok()
                    .and_then(|m| usize::try_from(m.len()).ok())
                    .filter(|n| *n <= stream_bytes())
                    .unwrap_or(0);
                Opened::Path(f)
            };
            i += 1;
            batch.push((name, opened));
        }
        batch
    };
    // A run of files read and validated on every core (a TrainJob waits for the runtimes of
    // the other files, a large file for its turn).
    let validate_batch = |batch: Vec<(String, Opened)>| -> Vec<Slot> {
        batch
            .into_par_iter()
            .map(|(name, opened)| {
                let input = match opened {
                    Opened::Read(input) => input,
                    Opened::Path(p) => open(&p),
                };
                match input {
                    Input::Whole(Ok(t)) if t.contains("TrainJob") => Slot::Waiting(name, t),
                    Input::Whole(Ok(t)) => Slot::Done(whole_file(&name, &t, &req, &[])),
                    Input::Whole(Err(e)) => Slot::Done(unreadable(&name, e)),
                    Input::Stream(head, rest) => Slot::Large(name, head, rest),
                }
            })
            .collect()
    };
    // A validated run finished and reported, in file order.
    let mut report = |mut slots: Vec<Slot>| {
        let waiting = slots.iter().any(|s| matches!(s, Slot::Waiting(..)));
        let rt: &[(String, String, bool)] = if waiting { runtimes.texts(&req) } else { &[] };
        if waiting {
            slots = slots
                .into_par_iter()
                .map(|s| match s {
                    Slot::Waiting(name, t) => Slot::Done(whole_file(&name, &t, &req, rt)),
                    other => other,
                })
                .collect();
        }
        for slot in slots {
            let r = match slot {
                Slot::Done(r) => r,
                Slot::Waiting(name, t) => whole_file(&name, &t, &req, rt),
                Slot::Large(name, head, rest) => {
                    streamed_file(&name, head, rest, &req, &mut |s: &str| eprint!("{s}"))
                }
            };
            finish(r);
        }
    };
    // Each run is reported while the next is validated.
    let mut pending: Vec<Slot> = Vec::new();
    loop {
        let batch = next_batch();
        if batch.is_empty() && pending.is_empty() {
            break;
        }
        let done = std::mem::take(&mut pending);
        let ((), validated) = rayon::join(|| report(done), || validate_batch(batch));
        pending = validated;
    }
    match output {
        Output::Human => {
            let unreadable = files.len() - read;
            let not_read_note = if unreadable > 0 {
                format!(" ({unreadable} could not be read)")
            } else {
                String::new()
            };
            eprintln!(
                "{} file(s){not_read_note}: {errors} error(s), {warnings} warning(s)",
                files.len()
            );
        }
        Output::Json => json_out.end(),
        Output::Sarif => crate::print_json(&render::sarif(&sarif, &not_read)),
        Output::Jsonl => {}
    }
    if !not_read.is_empty() {
        ExitCode::from(2)
    } else if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
