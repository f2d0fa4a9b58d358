//! `restartkit explain FILE|-`: the `explain` op on what `kubectl get pod,job,jobset -o yaml`
//! prints, one block per workload.

use crate::{Target, call, options, print_json, read_input, report_errors};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) fn explain(
    file: &PathBuf,
    kubelet_config: Option<&PathBuf>,
    now: Option<&str>,
    human: bool,
    target: &Target,
) -> ExitCode {
    let text = match read_input(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut input = options(target);
    input.insert("source".into(), json!(text));
    input.insert("fileName".into(), json!(file.display().to_string()));
    explain_input(input, kubelet_config, now, human)
}

/// The `explain` op on `input` (its objects or source, and the target's options), with the
/// command line's `--now`, `--kubelet-config` and output; printed.
pub(crate) fn explain_input(
    mut input: serde_json::Map<String, serde_json::Value>,
    kubelet_config: Option<&PathBuf>,
    now: Option<&str>,
    human: bool,
) -> ExitCode {
    if let Some(n) = now {
        input.insert("now".into(), json!(n));
    }
    if let Some(path) = kubelet_config {
        let cfg = match read_input(path).map(|t| restartkit::source::read_stream(&t)) {
            Ok(docs) => match docs.into_iter().next() {
                Some(Ok(d)) => d.value,
                Some(Err(b)) => {
                    eprintln!("error: {}: {}", path.display(), b.error.message);
                    return ExitCode::from(2);
                }
                None => {
                    eprintln!("error: {}: no KubeletConfiguration in it", path.display());
                    return ExitCode::from(2);
                }
            },
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        input.insert("kubeletConfig".into(), cfg);
    }
    if human {
        input.insert("text".into(), json!(true));
    }
    let result = match call("explain", input.into()) {
        Ok((r, _)) => r,
        Err(errs) => return report_errors(&errs),
    };
    if !human {
        print_json(&result);
        return ExitCode::SUCCESS;
    }
    // Only the text is printed: no need to decode the whole explanation for it.
    match result.get("text").and_then(serde_json::Value::as_str) {
        Some(t) => {
            outln!("{}", t.trim_end());
            ExitCode::SUCCESS
        }
        None => {
            eprintln!("error: the explanation came without its text");
            ExitCode::from(2)
        }
    }
}
