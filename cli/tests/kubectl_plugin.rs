//! `kubectl restartkit explain` (the binary run as `kubectl-restartkit`): it fetches the
//! workload's objects with kubectl and explains them exactly as `restartkit explain` explains the
//! same objects from a file. kubectl here is a stand-in (tests/kubectl/fake-kubectl.sh) that
//! answers as a cluster holding examples/explain/job-sweep-drained.yaml would.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The binary under kubectl's plugin name, in a directory of its own, and the log of the
/// stand-in kubectl's command lines.
fn plugin(dir: &Path) -> (PathBuf, PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let exe = dir.join("kubectl-restartkit");
    let _ = std::fs::remove_file(&exe);
    // A link, not a copy: a copy's write handle, inherited by a process another test forks at
    // that moment, makes exec fail with ETXTBSY. kubectl runs a linked plugin the same way.
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_restartkit"), &exe).unwrap();
    (exe, dir.join("kubectl.log"))
}

fn run(exe: &Path, log: &Path, args: &[&str]) -> Output {
    Command::new(exe)
        .args(args)
        .env(
            "RESTARTKIT_KUBECTL",
            root().join("cli/tests/kubectl/fake-kubectl.sh"),
        )
        .env("FAKE_KUBECTL_LOG", log)
        .output()
        .unwrap()
}

#[test]
fn the_plugin_fetches_the_job_and_its_pods_and_explains_them_as_explain_does() {
    let dir = std::env::temp_dir().join(format!("rk-kubectl-plugin-{}", std::process::id()));
    let (exe, log) = plugin(&dir);
    let now = "2026-03-02T09:05:10Z";
    let args = [
        "explain",
        "job/sweep-lr",
        "-n",
        "ml",
        "--context",
        "lab",
        "--now",
        now,
    ];
    let json_args: Vec<&str> = args.iter().copied().chain(["-o", "json"]).collect();
    let o = run(&exe, &log, &json_args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let calls = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        calls.lines().collect::<Vec<_>>(),
        [
            "get job/sweep-lr -o json --namespace ml --context lab",
            "get pods -l batch.kubernetes.io/job-name=sweep-lr -o json --namespace ml --context lab"
        ]
    );
    let from_file = Command::new(env!("CARGO_BIN_EXE_restartkit"))
        .args([
            "explain",
            "examples/explain/job-sweep-drained.yaml",
            "--now",
            now,
            "-o",
            "json",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    let got: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let want: serde_json::Value = serde_json::from_slice(&from_file.stdout).unwrap();
    assert_eq!(got, want);
    // The human text too, and `restartkit kubectl explain` is the same command.
    let text = run(&exe, &log, &args);
    let direct = run(
        Path::new(env!("CARGO_BIN_EXE_restartkit")),
        &log,
        &[
            "kubectl",
            "explain",
            "job/sweep-lr",
            "-n",
            "ml",
            "--context",
            "lab",
            "--now",
            now,
        ],
    );
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("Job ml/sweep-lr"),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );
    assert_eq!(text.stdout, direct.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn kubectl_failures_and_other_kinds_are_named() {
    let dir = std::env::temp_dir().join(format!("rk-kubectl-plugin-bad-{}", std::process::id()));
    let (exe, log) = plugin(&dir);
    let o = run(
        &exe,
        &log,
        &["explain", "job/missing", "-n", "ml", "--context", "lab"],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("get job/missing -o json failed") && err.contains("NotFound"),
        "{err}"
    );
    let o = run(&exe, &log, &["explain", "deployment/web"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("pods, jobs and jobsets"));
    let o = run(&exe, &log, &["explain", "web"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("TYPE/NAME"));
    std::fs::remove_dir_all(&dir).unwrap();
}
