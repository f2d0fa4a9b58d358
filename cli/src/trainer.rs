//! Kubeflow Trainer in the CLI: `restartkit resolve`, and the runtimes a TrainJob may name when
//! it is validated, evaluated or simulated (the other files given, and `--runtime FILE`).

use crate::render;
use crate::{Target, call, options, print_json, read_input, report_errors};
use restartkit::Diagnostic;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// Whether a text may hold a TrainingRuntime or ClusterTrainingRuntime (both names end so).
pub fn may_hold_runtime(text: &str) -> bool {
    text.contains("TrainingRuntime")
}

/// The `runtimes` input of a request: the texts of `others` (each validated on its own by the
/// caller, or not) that may hold a runtime, by file name.
pub fn runtime_inputs(others: &[(&str, &str, bool)]) -> Vec<Value> {
    others
        .iter()
        .filter(|(_, text, _)| may_hold_runtime(text))
        .map(|(name, text, validated)| {
            json!({"source": text, "fileName": name, "validated": validated})
        })
        .collect()
}

/// The `--runtime FILE` files, read.
pub fn read_runtime_files(paths: &[PathBuf]) -> Result<Vec<(String, String)>, String> {
    paths
        .iter()
        .map(|p| Ok((p.display().to_string(), read_input(p)?)))
        .collect()
}

/// Prints diagnostics grouped by the file they point into: the file's own, then those in the
/// runtime files (`Diagnostic.file`).
pub fn diagnostics_by_file(
    name: &str,
    text: &str,
    texts: &BTreeMap<String, String>,
    errors: &[Diagnostic],
    warnings: &[Diagnostic],
    infos: &[Diagnostic],
) {
    let mut out = String::new();
    diagnostics_by_file_into(&mut out, name, text, texts, errors, warnings, infos);
    eprint!("{out}");
}

/// [`diagnostics_by_file`] written to `out`.
pub fn diagnostics_by_file_into(
    out: &mut String,
    name: &str,
    text: &str,
    texts: &BTreeMap<String, String>,
    errors: &[Diagnostic],
    warnings: &[Diagnostic],
    infos: &[Diagnostic],
) {
    let own = |d: &&Diagnostic| d.file.as_deref().is_none_or(|f| f == name);
    let pick = |list: &[Diagnostic], f: &dyn Fn(&&Diagnostic) -> bool| -> Vec<Diagnostic> {
        list.iter().filter(|d| f(d)).cloned().collect()
    };
    render::diagnostics_into(
        out,
        name,
        text,
        1,
        &pick(errors, &own),
        &pick(warnings, &own),
        &pick(infos, &own),
    );
    let mut others: Vec<&str> = errors
        .iter()
        .chain(warnings)
        .chain(infos)
        .filter_map(|d| d.file.as_deref())
        .filter(|f| *f != name)
        .collect();
    others.sort_unstable();
    others.dedup();
    for file in others {
        let in_file = |d: &&Diagnostic| d.file.as_deref() == Some(file);
        let body = texts.get(file).map(String::as_str).unwrap_or("");
        render::diagnostics_into(
            out,
            file,
            body,
            1,
            &pick(errors, &in_file),
            &pick(warnings, &in_file),
            &pick(infos, &in_file),
        );
    }
}

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum ResolveOutput {
    /// A `kind: List` of every JobSet and side object (JSON, which kubectl reads).
    Json,
    /// The whole `resolve` result: JobSets, side objects, diagnostics.
    Result,
}

/// `restartkit resolve FILE... [--runtime FILE]...`.
pub fn resolve(
    files: &[PathBuf],
    runtime_files: &[PathBuf],
    output: ResolveOutput,
    target: &Target,
) -> ExitCode {
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    let mut order = Vec::new();
    for f in files {
        let name = f.display().to_string();
        match read_input(f) {
            Ok(t) => {
                texts.insert(name.clone(), t);
                order.push(name);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let extra = match read_runtime_files(runtime_files) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    for (n, t) in &extra {
        texts.insert(n.clone(), t.clone());
    }
    let mut items = Vec::new();
    let mut results = Vec::new();
    let mut any_error = false;
    let mut found = 0;
    for name in &order {
        let text = texts.get(name).cloned().unwrap_or_default();
        if !text.contains("TrainJob") {
            continue;
        }
        let others: Vec<(&str, &str, bool)> = order
            .iter()
            .filter(|n| *n != name)
            .map(|n| (n.as_str(), texts.get(n).map_or("", String::as_str), false))
            .chain(extra.iter().map(|(n, t)| (n.as_str(), t.as_str(), false)))
            .collect();
        let mut input = options(target);
        input.insert("source".into(), json!(text));
        input.insert("fileName".into(), json!(name));
        input.insert("runtimes".into(), Value::Array(runtime_inputs(&others)));
        let (r, _) = match call("resolve", Value::Object(input)) {
            Ok(x) => x,
            Err(errs) => {
                if errs
                    .iter()
                    .any(|e| e.code.as_deref() == Some("invalid-input"))
                {
                    continue;
                }
                return report_errors(&errs);
            }
        };
        let list = |k: &str| -> Vec<Diagnostic> {
            r.get(k)
                .and_then(|v| serde_json::from_value(v.clone()).ok())
                .unwrap_or_default()
        };
        let (errors, warnings, infos) = (list("errors"), list("warnings"), list("infos"));
        any_error |= !errors.is_empty();
        diagnostics_by_file(name, &text, &texts, &errors, &warnings, &infos);
        for tj in r
            .get("trainJobs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            found += 1;
            let tj_name = tj.get("name").and_then(Value::as_str).unwrap_or("");
            match tj.get("jobSet").filter(|j| !j.is_null()) {
                Some(js) => items.push(js.clone()),
                None => {
                    let why = tj
                        .pointer("/notBuilt/message")
                        .and_then(Value::as_str)
                        .unwrap_or("no JobSet");
                    eprintln!("{name}: TrainJob {tj_name:?}: no JobSet: {why}");
                }
            }
            for o in tj
                .get("objects")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(obj) = o.get("object") {
                    items.push(obj.clone());
                }
                for om in o
                    .get("omitted")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    let what = o
                        .pointer("/object/metadata/name")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    eprintln!("note: {what}: {om} (left out, null)");
                }
            }
        }
        results.push(json!({"file": name, "result": r}));
    }
    if found == 0 {
        eprintln!("error: no TrainJob in the files given");
        return ExitCode::from(2);
    }
    match output {
        ResolveOutput::Json => {
            print_json(&json!({"apiVersion": "v1", "kind": "List", "items": items}))
        }
        ResolveOutput::Result => print_json(&results),
    }
    if any_error {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// A scenario's TrainJob and its runtime: `runtimeFile` (relative to the scenario) read into
/// `runtime`, or, when the workload file holds the runtime too, that one.
pub fn scenario_runtime(
    doc: &mut Value,
    base: &std::path::Path,
    workload_docs: &[restartkit::source::Document],
) -> Result<(), String> {
    let Some(m) = doc.as_object_mut() else {
        return Ok(());
    };
    let is_train_job = m
        .get("workload")
        .is_some_and(restartkit::trainer::op::is_train_job);
    let wanted = m
        .get("workload")
        .and_then(|w| w.pointer("/spec/runtimeRef/name"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let pick = |docs: &[restartkit::source::Document]| -> Option<Value> {
        let runtimes: Vec<&Value> = docs
            .iter()
            .map(|d| &d.value)
            .filter(|v| {
                matches!(
                    v.get("kind").and_then(Value::as_str),
                    Some("TrainingRuntime" | "ClusterTrainingRuntime")
                )
            })
            .collect();
        runtimes
            .iter()
            .find(|v| v.pointer("/metadata/name").and_then(Value::as_str) == wanted.as_deref())
            .or(runtimes.first())
            .map(|v| (*v).clone())
    };
    if let Some(rf) = m
        .remove("runtimeFile")
        .and_then(|v| v.as_str().map(str::to_owned))
    {
        let rp = base.join(&rf);
        let text = read_input(&rp)?;
        let docs = restartkit::source::parse_documents(&text)
            .map_err(|d| format!("{}: {}", rp.display(), d.message))?;
        let rt = pick(&docs).ok_or_else(|| {
            format!(
                "{}: no TrainingRuntime or ClusterTrainingRuntime",
                rp.display()
            )
        })?;
        m.insert("runtime".into(), rt);
    } else if is_train_job
        && !m.contains_key("runtime")
        && let Some(rt) = pick(workload_docs)
    {
        m.insert("runtime".into(), rt);
    }
    Ok(())
}
