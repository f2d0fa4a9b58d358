//! `restartkit kubectl explain TYPE/NAME`, which is also `kubectl restartkit explain TYPE/NAME`
//! (the binary run as `kubectl-restartkit`, kubectl's plugin name): fetches the workload's live
//! objects with the user's kubectl, kubeconfig and context, and explains them.
//!
//! A Pod is fetched alone; a Job with its Pods (label `batch.kubernetes.io/job-name`); a JobSet
//! with its Jobs and their Pods (label `jobset.sigs.k8s.io/jobset-name`). `now` is the wall
//! clock unless `--now` says otherwise: the objects were read at that instant.

use crate::explain::explain_input;
use crate::{Target, options};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// The kubectl to run: `RESTARTKIT_KUBECTL`, else `kubectl` on the PATH.
const KUBECTL_ENV: &str = "RESTARTKIT_KUBECTL";

/// What kubectl is asked for, per kind: the resource and the label that selects what it owns.
struct Kind {
    resource: &'static str,
    owned: Option<(&'static str, &'static str)>,
}

fn kind_of(resource_type: &str) -> Option<Kind> {
    match resource_type {
        "pod" | "pods" | "po" => Some(Kind {
            resource: "pod",
            owned: None,
        }),
        "job" | "jobs" | "job.batch" | "jobs.batch" => Some(Kind {
            resource: "job",
            owned: Some(("pods", "batch.kubernetes.io/job-name")),
        }),
        "jobset" | "jobsets" | "jobset.jobset.x-k8s.io" | "jobsets.jobset.x-k8s.io" => Some(Kind {
            resource: "jobsets.jobset.x-k8s.io",
            owned: Some(("jobs,pods", "jobset.sigs.k8s.io/jobset-name")),
        }),
        _ => None,
    }
}

/// The connection flags every kubectl call gets.
pub(crate) struct Connection {
    pub namespace: Option<String>,
    pub context: Option<String>,
    pub kubeconfig: Option<PathBuf>,
}

/// Runs `kubectl get ARGS -o json` and gives its JSON, or the error to print.
fn kubectl_get(conn: &Connection, args: &[&str]) -> Result<Value, String> {
    let program = std::env::var_os(KUBECTL_ENV).unwrap_or_else(|| "kubectl".into());
    let mut cmd = Command::new(&program);
    cmd.arg("get").args(args).args(["-o", "json"]);
    if let Some(ns) = &conn.namespace {
        cmd.args(["--namespace", ns]);
    }
    if let Some(c) = &conn.context {
        cmd.args(["--context", c]);
    }
    if let Some(k) = &conn.kubeconfig {
        cmd.arg("--kubeconfig").arg(k);
    }
    let shown = format!(
        "{} get {} -o json",
        program.to_string_lossy(),
        args.join(" ")
    );
    let out = cmd.output().map_err(|e| {
        format!("cannot run {shown:?}: {e} (set {KUBECTL_ENV} to the kubectl to use)")
    })?;
    if !out.status.success() {
        return Err(format!(
            "{shown} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("{shown} printed no JSON: {e}"))
}

/// The wall clock as RFC 3339 (the instant the objects were read).
fn wall_clock() -> String {
    let ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    restartkit::backoff::job::format_rfc3339(ns)
}

pub(crate) fn explain(
    workload: &str,
    conn: &Connection,
    kubelet_config: Option<&PathBuf>,
    now: Option<&str>,
    human: bool,
    target: &Target,
) -> ExitCode {
    let Some((type_, name)) = workload
        .split_once('/')
        .filter(|(t, n)| !t.is_empty() && !n.is_empty())
    else {
        eprintln!("error: {workload:?}: name the workload as TYPE/NAME, e.g. job/train");
        return ExitCode::from(2);
    };
    let Some(kind) = kind_of(&type_.to_ascii_lowercase()) else {
        eprintln!("error: {workload:?}: restartkit explains pods, jobs and jobsets, not {type_:?}");
        return ExitCode::from(2);
    };
    let read_at = now.map_or_else(wall_clock, str::to_owned);
    let object = match kubectl_get(conn, &[&format!("{}/{name}", kind.resource)]) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut items = vec![object];
    if let Some((resources, label)) = kind.owned {
        match kubectl_get(conn, &[resources, "-l", &format!("{label}={name}")]) {
            Ok(Value::Object(mut list)) => {
                if let Some(Value::Array(owned)) = list.remove("items") {
                    items.extend(owned);
                }
            }
            Ok(_) => {
                eprintln!("error: kubectl get {resources} printed no List");
                return ExitCode::from(2);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let mut input = options(target);
    input.insert(
        "objects".into(),
        json!({"apiVersion": "v1", "kind": "List", "items": items}),
    );
    input.insert("fileName".into(), json!(workload));
    explain_input(input, kubelet_config, Some(&read_at), human)
}
