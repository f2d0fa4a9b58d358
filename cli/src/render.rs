//! Human and machine renderings of contract results.

use crate::{Target, call, options, print_json, read_input, report_errors};
use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use restartkit::{Diagnostic, Severity};
use serde_json::{Value, json};
use std::path::Path;
use std::process::ExitCode;

/// Byte range of the token a diagnostic points at (a key or a value), from its line and column.
fn span_of(text: &str, line: u32, column: u32) -> Option<std::ops::Range<usize>> {
    let mut offset = 0usize;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line as usize {
            let start = l
                .char_indices()
                .nth(column.saturating_sub(1) as usize)
                .map(|(b, _)| b)?;
            let rest = l.get(start..)?;
            let len = rest
                .char_indices()
                .find(|(_, c)| matches!(c, ':' | '\n' | '\r' | ',' | '}' | ']'))
                .map(|(b, _)| b)
                .unwrap_or(rest.len())
                .max(1);
            return Some(offset + start..offset + start + len.min(rest.trim_end().len().max(1)));
        }
        offset += l.len();
    }
    None
}

/// Prints diagnostics with the source line, a caret and the field path.
pub fn diagnostics(
    name: &str,
    text: &str,
    errors: &[Diagnostic],
    warnings: &[Diagnostic],
    infos: &[Diagnostic],
) {
    let mut out = String::new();
    diagnostics_into(&mut out, name, text, 1, errors, warnings, infos);
    eprint!("{out}");
}

/// [`diagnostics`] written to `out`; `text` is the part of the file from 1-based line
/// `first_line` (a document of a file read piece by piece).
pub fn diagnostics_into(
    out: &mut String,
    name: &str,
    text: &str,
    first_line: u32,
    errors: &[Diagnostic],
    warnings: &[Diagnostic],
    infos: &[Diagnostic],
) {
    diagnostics_at(out, name, text, (first_line, 1), errors, warnings, infos);
}

/// [`diagnostics_into`] for a piece of a stream that starts at 1-based `(line, column)`: a
/// List item or JSON value that starts mid-line (its first line's columns are counted from
/// `column`, so nothing before the piece needs to be copied in).
pub fn diagnostics_at(
    out: &mut String,
    name: &str,
    text: &str,
    (first_line, first_column): (u32, u32),
    errors: &[Diagnostic],
    warnings: &[Diagnostic],
    infos: &[Diagnostic],
) {
    use std::fmt::Write as _;
    let renderer = if std::env::var_os("NO_COLOR").is_none()
        && std::io::IsTerminal::is_terminal(&std::io::stderr())
    {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    // Lines are split once: scanning the text again for every diagnostic was quadratic with
    // 100,000 rules each carrying a warning (found by the bad-input corpus).
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for d in errors.iter().chain(warnings).chain(infos) {
        let level = match d.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
            Severity::Info => Level::INFO,
        };
        let label = match (&d.error_type, &d.code) {
            (Some(t), _) => format!("{t:?}"),
            (None, Some(c)) => c.clone(),
            (None, None) => format!("{:?}", d.origin).to_lowercase(),
        };
        let title = d.message.clone();
        let field_note = if d.field.is_empty() {
            String::new()
        } else {
            format!("field: {}", d.field)
        };
        // Only the diagnostic's own line goes to the renderer: handing it the whole file for
        // every diagnostic would be quadratic in the size of the input.
        let excerpt = d.line.zip(d.column).and_then(|(l, c)| {
            let local = l
                .checked_sub(first_line.saturating_sub(1))
                .filter(|l| *l > 0)?;
            let c = if local == 1 {
                c.checked_sub(first_column.saturating_sub(1))
                    .filter(|c| *c > 0)?
            } else {
                c
            };
            excerpt_of(&lines, local, c).map(|(at, src, span)| (at + l - local, src, span))
        });
        let rendered = match excerpt {
            Some((line, src, span)) => {
                let (src, span) = window(src, span);
                let report = &[level.primary_title(&title).element(
                    Snippet::source(src)
                        .line_start(line as usize)
                        .path(name)
                        .annotation(AnnotationKind::Primary.span(span).label(&label)),
                )];
                renderer.render(report)
            }
            None => {
                let report = &[level
                    .primary_title(&title)
                    .element(Snippet::<annotate_snippets::Annotation>::source("").path(name))];
                renderer.render(report)
            }
        };
        let _ = writeln!(out, "{rendered}");
        if !field_note.is_empty() {
            let _ = writeln!(out, "  = {field_note} ({:?})", d.origin);
        }
        for fix in &d.fixes {
            let _ = writeln!(out, "  = hint: {}{}", fix.description, fix_places(fix));
        }
        let _ = writeln!(out);
    }
}

/// Where a fix's text edits go and what they write, or the field edits when it has none:
/// ` (line 16 column 22: write `Never`)`.
fn fix_places(fix: &restartkit::diag::Fix) -> String {
    let parts: Vec<String> = if fix.text_edits.is_empty() {
        fix.edits
            .iter()
            .map(|e| format!("set {} to {}", e.field, e.value))
            .collect()
    } else {
        fix.text_edits
            .iter()
            .map(|e| {
                format!(
                    "line {} column {}: write `{}`",
                    e.line,
                    e.column,
                    e.new_text.trim_end()
                )
            })
            .collect()
    };
    format!(" ({})", parts.join("; "))
}

/// The source line a diagnostic points at, with the span to underline. A parser reports an
/// unexpected end of the text on the line after the last one, or past the end of a line: the
/// excerpt is then the text's last line (or the line itself), underlined at its end, rather
/// than nothing.
fn excerpt_of<'a>(
    lines: &[&'a str],
    line: u32,
    column: u32,
) -> Option<(u32, &'a str, std::ops::Range<usize>)> {
    let index = line.saturating_sub(1) as usize;
    let (line, src, at_end) = match lines.get(index) {
        Some(src) => (line, *src, false),
        None if index == lines.len() && index > 0 => (line - 1, *lines.get(index - 1)?, true),
        None => return None,
    };
    let end = src.trim_end_matches(['\n', '\r']).len();
    let span = if at_end {
        end..end
    } else {
        span_of(src, 1, column).unwrap_or(end..end)
    };
    Some((line, src, span))
}

/// Bytes of context kept on each side of the underlined span when a line is long.
const EXCERPT_CONTEXT: usize = 80;

/// A long line cut to a window around the span, marked with "…" where text was left out. A
/// file of 10,000 JSON objects on one line gives 10,000 diagnostics on that line: handing the
/// renderer the whole line for each was quadratic (53 s for 10,000 objects).
fn window(
    src: &str,
    span: std::ops::Range<usize>,
) -> (std::borrow::Cow<'_, str>, std::ops::Range<usize>) {
    let body = src.trim_end_matches(['\n', '\r']);
    if body.len() <= 2 * EXCERPT_CONTEXT + (span.end - span.start) {
        return (src.into(), span);
    }
    let mut from = span.start.saturating_sub(EXCERPT_CONTEXT);
    while !body.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (span.end + EXCERPT_CONTEXT).min(body.len());
    while !body.is_char_boundary(to) {
        to += 1;
    }
    let head = if from > 0 { "…" } else { "" };
    let tail = if to < body.len() { "…" } else { "" };
    let shift = head.len();
    (
        format!("{head}{}{tail}", &body[from..to]).into(),
        span.start - from + shift..span.end - from + shift,
    )
}

/// The characters a SARIF `artifactLocation.uri` (an RFC 3986 URI reference) may not hold as
/// they are: everything but the unreserved characters and the path separator. Code scanning
/// matches the reference against repository paths, so `deploy/my job.yaml` must arrive as
/// `deploy/my%20job.yaml`.
const URI_PATH: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// What a rule id names, for the log's rule table.
fn rule_description(rule: &str, d: &Diagnostic) -> String {
    if d.error_type.is_some() {
        format!(
            "Kubernetes validation error of type {rule} (field.ErrorType), as the API server reports it"
        )
    } else {
        format!("restartkit finding `{rule}`")
    }
}

/// SARIF 2.1.0: one run, one result per diagnostic, the rule table the results index, and one
/// invocation that says whether every file could be read (`unreadable`: file and why).
pub fn sarif(
    reports: &[(String, Value, Vec<Diagnostic>, Vec<Diagnostic>)],
    unreadable: &[(String, String)],
) -> Value {
    let mut rules: Vec<Value> = Vec::new();
    let mut rule_index: std::collections::BTreeMap<String, usize> = Default::default();
    let mut results = Vec::new();
    for (file, _, errors, warnings) in reports {
        for d in errors.iter().chain(warnings) {
            // A TrainJob's diagnostic may sit in its runtime's file.
            let uri =
                percent_encoding::utf8_percent_encode(d.file.as_deref().unwrap_or(file), URI_PATH)
                    .to_string();
            let rule = d
                .error_type
                .map(|t| format!("{t:?}"))
                .or_else(|| d.code.clone())
                .unwrap_or_else(|| "upstream".to_owned());
            let index = *rule_index.entry(rule.clone()).or_insert_with(|| {
                rules.push(json!({
                    "id": rule,
                    "shortDescription": {"text": rule_description(&rule, d)},
                }));
                rules.len() - 1
            });
            let mut physical = json!({"artifactLocation": {"uri": uri}});
            if let (Some(l), Some(c), Some(m)) = (d.line, d.column, physical.as_object_mut()) {
                m.insert("region".into(), json!({"startLine": l, "startColumn": c}));
            }
            let mut loc = json!({"physicalLocation": physical});
            if let (false, Some(m)) = (d.field.is_empty(), loc.as_object_mut()) {
                m.insert(
                    "logicalLocations".into(),
                    json!([{"fullyQualifiedName": d.field, "kind": "member"}]),
                );
            }
            let mut result = json!({
                "ruleId": rule,
                "ruleIndex": index,
                "level": if d.severity == Severity::Error { "error" } else { "warning" },
                "message": {"text": d.message},
                "locations": [loc],
            });
            // SARIF fix objects: the core's fixes that it could place in the text.
            let fixes: Vec<Value> = d
                .fixes
                .iter()
                .filter(|f| !f.text_edits.is_empty())
                .map(|f| json!({
                    "description": {"text": f.description},
                    "artifactChanges": [{
                        "artifactLocation": {"uri": uri},
                        "replacements": f.text_edits.iter().map(|e| json!({
                            "deletedRegion": {"startLine": e.line, "startColumn": e.column, "endLine": e.end_line, "endColumn": e.end_column},
                            "insertedContent": {"text": e.new_text},
                        })).collect::<Vec<_>>(),
                    }],
                }))
                .collect();
            if let (false, Some(m)) = (fixes.is_empty(), result.as_object_mut()) {
                m.insert("fixes".into(), Value::from(fixes));
            }
            results.push(result);
        }
    }
    let notifications: Vec<Value> = unreadable
        .iter()
        .map(|(file, why)| {
            json!({
                "level": "error",
                "message": {"text": why},
                "locations": [{"physicalLocation": {"artifactLocation": {
                    "uri": percent_encoding::utf8_percent_encode(file, URI_PATH).to_string()}}}],
            })
        })
        .collect();
    json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {"driver": {
                "name": "restartkit",
                "version": restartkit::VERSION,
                "informationUri": "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/",
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": unreadable.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }]
    })
}

fn num(v: Option<&Value>) -> String {
    v.and_then(Value::as_f64)
        .map(|f| format!("{f}"))
        .unwrap_or_else(|| "-".to_owned())
}

pub fn backoff_table(r: &Value) {
    outln!(
        "CrashLoopBackOff: initial {}s, max {}s, reset after a run of more than {}s",
        num(r.get("initialSeconds")),
        num(r.get("maxSeconds")),
        num(r.get("resetAfterRunSeconds"))
    );
    let delays = r
        .get("delaysSeconds")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let times = r
        .get("restartTimesSeconds")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    outln!(
        "{:>8}  {:>10}  {:>14}",
        "restart",
        "delay (s)",
        "at time (s)"
    );
    for (i, d) in delays.iter().enumerate() {
        outln!(
            "{:>8}  {:>10}  {:>14}",
            i + 1,
            num(Some(d)),
            num(times.get(i))
        );
    }
}

#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    file: &Path,
    runtime_files: &[std::path::PathBuf],
    container: Option<String>,
    exit_code: i32,
    replicated_job: Option<String>,
    conditions: &[String],
    human: bool,
    target: &Target,
) -> ExitCode {
    let text = match read_input(&file.to_path_buf()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let doc = match restartkit::source::parse_documents(&text) {
        // A TrainJob is evaluated when the file holds no Pod, Job or JobSet.
        Ok(docs) => restartkit::eval::whatif::evaluated_document(&docs, |d| &d.value).cloned(),
        Err(d) => {
            eprintln!("error: {}: {}", file.display(), d.message);
            return ExitCode::from(2);
        }
    };
    let Some(mut doc) = doc else {
        eprintln!(
            "error: {}: no Pod, Job, JobSet or TrainJob document",
            file.display()
        );
        return ExitCode::from(2);
    };
    let name = file.display().to_string();
    let train_job = restartkit::trainer::op::is_train_job(&doc.value);
    let mut runtimes = Vec::new();
    if train_job {
        let extra = match crate::trainer::read_runtime_files(runtime_files) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        let mut others = vec![(name.as_str(), text.as_str(), true)];
        others.extend(extra.iter().map(|(n, t)| (n.as_str(), t.as_str(), false)));
        runtimes = crate::trainer::runtime_inputs(&others);
    }
    let kind = doc
        .value
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("object")
        .to_owned();
    let mut input = options(target);
    input.insert("object".into(), std::mem::take(&mut doc.value));
    input.insert("exitCode".into(), json!(exit_code));
    if !target.proposals.is_empty() {
        input.insert("proposals".into(), json!(target.proposals));
    }
    if let Some(c) = container {
        input.insert("container".into(), json!(c));
    }
    if let Some(r) = replicated_job {
        input.insert("replicatedJob".into(), json!(r));
    }
    if !conditions.is_empty() {
        input.insert("podConditions".into(), json!(conditions));
    }
    if !runtimes.is_empty() {
        input.insert("runtimes".into(), Value::Array(runtimes.clone()));
    }
    match call("whatIf", Value::Object(input)) {
        Ok((mut r, _)) => {
            // The object's validation errors, pointed at their lines in the file.
            let mut warnings: Vec<Diagnostic> = r
                .get("warnings")
                .and_then(|w| serde_json::from_value(w.clone()).ok())
                .unwrap_or_default();
            for w in &mut warnings {
                restartkit::validate::attach_position(w, &doc);
            }
            if train_job {
                // For a TrainJob, what validate says of it and of the JobSet built from it,
                // each at the line of the TrainJob or runtime it comes from.
                warnings = train_job_errors(&name, &text, runtimes, target);
            }
            if let (Some(m), Ok(w)) = (r.as_object_mut(), serde_json::to_value(&warnings)) {
                m.insert("warnings".into(), w);
            }
            invalid_object_warnings(&file.display().to_string(), &text, &kind, &warnings);
            if human {
                for line in r
                    .get("story")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    outln!("{}", line.as_str().unwrap_or(""));
                }
            } else {
                print_json(&r);
            }
            ExitCode::SUCCESS
        }
        Err(errs) => report_errors(&errs),
    }
}

/// How many of an evaluated object's validation errors `evaluate` shows; `validate` shows all.
const SHOWN_OBJECT_ERRORS: usize = 3;

/// The errors `validate` reports for a TrainJob file (with its runtimes), as warnings.
fn train_job_errors(
    name: &str,
    text: &str,
    runtimes: Vec<Value>,
    target: &Target,
) -> Vec<Diagnostic> {
    let mut input = options(target);
    input.insert("source".into(), json!(text));
    input.insert("fileName".into(), json!(name));
    input.insert("runtimes".into(), Value::Array(runtimes));
    let Ok((r, _)) = call("validate", Value::Object(input)) else {
        return Vec::new();
    };
    let mut errs: Vec<Diagnostic> = r
        .get("errors")
        .and_then(|e| serde_json::from_value(e.clone()).ok())
        .unwrap_or_default();
    for d in &mut errs {
        d.severity = restartkit::Severity::Warning;
        d.code = Some(restartkit::eval::object_warnings::INVALID_OBJECT.into());
    }
    errs
}

/// On stderr: the evaluated object would be refused by the API server, its first errors, and
/// `restartkit validate FILE` as the next step. The decision is still printed (exit status 0).
fn invalid_object_warnings(name: &str, text: &str, kind: &str, warnings: &[Diagnostic]) {
    if warnings.is_empty() {
        return;
    }
    let n = warnings.len();
    eprintln!(
        "warning: the API server would refuse this {kind} ({n} validation error{}); the decision printed is what upstream's code makes for an object that cannot exist",
        if n == 1 { "" } else { "s" }
    );
    let shown: Vec<Diagnostic> = warnings.iter().take(SHOWN_OBJECT_ERRORS).cloned().collect();
    diagnostics(name, text, &[], &shown, &[]);
    let validate = format!("restartkit validate {name}");
    if n > SHOWN_OBJECT_ERRORS {
        eprintln!(
            "{} more; run `{validate}` for every error",
            n - SHOWN_OBJECT_ERRORS
        );
    } else {
        eprintln!("run `{validate}` for the full report");
    }
}

fn sim_block(r: &Value) {
    if let Some(n) = r.get("name").and_then(Value::as_str) {
        outln!(
            "== {n} (Kubernetes {})",
            r.get("kubernetesVersion")
                .and_then(Value::as_str)
                .unwrap_or("")
        );
    }
    if let Some(p) = r.get("proposals").and_then(Value::as_array) {
        let names: Vec<&str> = p.iter().filter_map(Value::as_str).collect();
        outln!(
            "EXPERIMENTAL: simulated under proposal(s) {} — not upstream behaviour",
            names.join(", ")
        );
    }
    outln!(
        "{:>10}  {:<44} {:<14} {:<22} message",
        "time (s)",
        "object",
        "event",
        "reason"
    );
    for e in r
        .get("timeline")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let obj = match e.get("container").and_then(Value::as_str) {
            Some(c) => format!(
                "{} [{c}]",
                e.get("object").and_then(Value::as_str).unwrap_or("")
            ),
            None => e
                .get("object")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        };
        outln!(
            "{:>10}  {:<44} {:<14} {:<22} {}",
            num(e.get("t")),
            obj,
            e.get("event").and_then(Value::as_str).unwrap_or(""),
            e.get("reason").and_then(Value::as_str).unwrap_or(""),
            e.get("message").and_then(Value::as_str).unwrap_or("")
        );
    }
    let s = r.get("summary").cloned().unwrap_or(Value::Null);
    outln!(
        "summary: {}s simulated, {} container exits, {} in-place restarts, {} whole-pod restarts, {} pods created ({} replacements), {} JobSet restarts, {}s lost",
        num(s.get("endSeconds")),
        num(s.get("containerExits")),
        num(s.get("inPlaceRestarts")),
        num(s.get("wholePodRestarts")),
        num(s.get("podsCreated")),
        num(s.get("podsReplaced")),
        num(s.get("jobsetRestarts")),
        num(s.get("timeLostSeconds"))
    );
    let lost = s.get("nodesLost").and_then(Value::as_u64).unwrap_or(0);
    if lost > 0 {
        let stuck = s
            .get("podsStuckOnLostNodes")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        outln!("  nodes lost: {lost}; Pods on lost nodes not failed at the end: {stuck}");
        if stuck > 0 {
            outln!(
                "  (a Pod on a lost node fails only once its Node is deleted or tainted out-of-service: nodeLoss in the scenario, docs/simulation.md)"
            );
        }
    }
    for p in r
        .get("pods")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let cs: Vec<String> = p
            .get("containers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|c| {
                format!(
                    "{}={}",
                    c.get("name").and_then(Value::as_str).unwrap_or(""),
                    num(c.get("restartCount"))
                )
            })
            .collect();
        outln!(
            "  pod {}: {} (restarts: {})",
            p.get("name").and_then(Value::as_str).unwrap_or(""),
            p.get("phase").and_then(Value::as_str).unwrap_or(""),
            cs.join(", ")
        );
    }
    for j in r
        .get("jobs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        outln!(
            "  job {}: {} {} {}",
            j.get("name").and_then(Value::as_str).unwrap_or(""),
            j.get("phase").and_then(Value::as_str).unwrap_or(""),
            j.get("reason").and_then(Value::as_str).unwrap_or(""),
            j.get("message")
                .and_then(Value::as_str)
                .map(|m| format!("({m})"))
                .unwrap_or_default()
        );
    }
    if let Some(js) = r.get("jobset").filter(|v| !v.is_null()) {
        outln!(
            "  jobset {}: {} {} restarts={} {}",
            js.get("name").and_then(Value::as_str).unwrap_or(""),
            js.get("phase").and_then(Value::as_str).unwrap_or(""),
            js.get("reason").and_then(Value::as_str).unwrap_or(""),
            num(js.get("restarts")),
            js.get("message")
                .and_then(Value::as_str)
                .map(|m| format!("({m})"))
                .unwrap_or_default()
        );
    }
    if let Some(tj) = r.get("trainJob").filter(|v| !v.is_null()) {
        outln!(
            "  trainjob {}: {} {} {}",
            tj.get("name").and_then(Value::as_str).unwrap_or(""),
            tj.get("phase").and_then(Value::as_str).unwrap_or(""),
            tj.get("reason").and_then(Value::as_str).unwrap_or(""),
            tj.get("message")
                .and_then(Value::as_str)
                .map(|m| format!("({m})"))
                .unwrap_or_default()
        );
    }
}

pub fn simulation(r: &Value) {
    sim_block(r);
    if let Some(c) = r.get("compare").filter(|v| !v.is_null()) {
        outln!();
        sim_block(c);
    }
}

pub fn backoff_comparison(r: &Value) {
    outln!(
        "{} crashing pods on a node, {} API requests per restart",
        num(r.get("pods")),
        num(r.get("requestsPerRestart"))
    );
    let marker = r.get("proposals").and_then(Value::as_array).map(|v| {
        v.iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    });
    if let Some(m) = &marker {
        outln!("EXPERIMENTAL: curves marked * model proposals upstream has not adopted ({m})");
    }
    outln!(
        "{:<40} {:>8} {:>8} | restarts within (excess over legacy): {:>9} {:>9} {:>9} {:>9} {:>9} | {:>12}",
        "curve",
        "initial",
        "max",
        "10s",
        "30s",
        "70s",
        "5min",
        "30min",
        "peak req/10s"
    );
    for c in r
        .get("curves")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let w: Vec<String> = c
            .get("windows")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|x| {
                format!(
                    "{} ({:+})",
                    num(x.get("restarts")),
                    x.get("excessOverLegacy")
                        .and_then(Value::as_i64)
                        .unwrap_or(0)
                )
            })
            .collect();
        outln!(
            "{:<40} {:>7}s {:>7}s | {:>49} {:>9} {:>9} {:>9} {:>9} | {:>12}",
            format!(
                "{}{}",
                if c.get("proposal").is_some() {
                    "* "
                } else {
                    ""
                },
                c.get("label").and_then(Value::as_str).unwrap_or("")
            ),
            num(c.get("initialSeconds")),
            num(c.get("maxSeconds")),
            w.first().cloned().unwrap_or_default(),
            w.get(1).cloned().unwrap_or_default(),
            w.get(2).cloned().unwrap_or_default(),
            w.get(3).cloned().unwrap_or_default(),
            w.get(4).cloned().unwrap_or_default(),
            num(c.get("peakRequestsPer10s"))
        );
    }
    if let Some(f) = r.get("kepLoadFigures") {
        outln!();
        outln!(
            "KEP-4603 load figures, recomputed for the adopted 1s/60s curve (docs/proposals.md):"
        );
        outln!(
            "  today (10s/300s), busiest 10 s:               {:>8} requests/10s   (KEP: ~550)",
            num(f.get("todayRequestsPer10s"))
        );
        outln!(
            "  1 s initial at one restart per Pod per second: {:>8} requests/10s   (KEP: ~5500)",
            num(f.get("kepRateBoundRequestsPer10s"))
        );
        outln!(
            "  1s/60s curve itself, busiest 10 s:           {:>8} requests/10s",
            num(f.get("recomputedPeakRequestsPer10s"))
        );
        outln!(
            "  excess in the first 5 min:                   {:>8} restarts/Pod, {} requests/node   (KEP: 5, 2750)",
            num(f.get("excessRestartsFirst5min")),
            num(f.get("excessRequestsFirst5min"))
        );
        outln!(
            "  excess per 5 min at the caps:                {:>8} restarts/Pod, {} requests/node",
            num(f.get("steadyExcessRestartsPer5min")),
            num(f.get("steadyExcessRequestsPer5min"))
        );
    }
}
