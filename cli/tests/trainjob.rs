//! Kubeflow Trainer through the CLI: `resolve`, and a TrainJob in validate, evaluate, simulate
//! and sweep, its runtime in the same file, another file or `--runtime FILE`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_restartkit"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run restartkit")
}

fn temp_dir(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("restartkit-trainjob-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The example's two documents, split into a TrainJob file and a runtime file.
fn split_example(test: &str) -> (PathBuf, PathBuf) {
    let text = std::fs::read_to_string(root().join("examples/trainjob-torch.yaml")).unwrap();
    let (runtime, train_job) = text.split_once("\n---\n").unwrap();
    let dir = temp_dir(test);
    let (rt, tj) = (dir.join("runtime.yaml"), dir.join("trainjob.yaml"));
    std::fs::write(&rt, runtime).unwrap();
    std::fs::write(&tj, train_job).unwrap();
    (tj, rt)
}

#[test]
fn resolve_prints_the_jobset_the_trainer_builds() {
    let o = run(&["resolve", "examples/trainjob-torch.yaml"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let list: Value = serde_json::from_slice(&o.stdout).unwrap();
    let js = &list["items"][0];
    assert_eq!(js["kind"], "JobSet");
    assert_eq!(js["metadata"]["name"], "llm-finetune");
    assert_eq!(js["metadata"]["namespace"], "training");
    let rj = &js["spec"]["replicatedJobs"][0];
    assert_eq!(rj["template"]["spec"]["parallelism"], 4);
    let c = &rj["template"]["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["image"], "ghcr.io/example/llm-finetune:1.0");
    let nproc = c["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "PET_NPROC_PER_NODE")
        .unwrap();
    // resourcesPerNode's 8 GPUs leave numProcPerNode at "auto".
    assert_eq!(nproc["value"], "auto");
    // The runtime snapshot ConfigMap comes too.
    assert!(
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["kind"] == "ConfigMap")
    );
}

#[test]
fn runtime_in_another_file_or_by_option() {
    let (tj, rt) = split_example("files");
    let (tj, rt) = (tj.to_str().unwrap(), rt.to_str().unwrap());
    let by_option = run(&["resolve", tj, "--runtime", rt]);
    assert_eq!(by_option.status.code(), Some(0));
    let by_file = run(&["resolve", tj, rt]);
    assert_eq!(by_option.stdout, by_file.stdout);
    let alone = run(&["resolve", tj]);
    assert_eq!(alone.status.code(), Some(1));
    let err = String::from_utf8_lossy(&alone.stderr);
    assert!(
        err.contains(
            "specified clusterTrainingRuntime must be created before the TrainJob is created"
        ),
        "{err}"
    );
    assert!(err.contains("trainjob.yaml"), "{err}");
    // validate: both files together are fine; the TrainJob alone is refused by the webhook.
    assert_eq!(run(&["validate", tj, rt]).status.code(), Some(0));
    assert_eq!(run(&["validate", tj]).status.code(), Some(1));
}

/// An error of the JobSet built from the two files is shown at the line of the runtime file it
/// comes from, and a TrainJob field's at the TrainJob's.
#[test]
fn errors_point_into_the_file_they_come_from() {
    let (tj, rt) = split_example("errors");
    let runtime = std::fs::read_to_string(&rt).unwrap();
    // restartPolicy OnFailure with a podFailurePolicy: kube-apiserver refuses the Jobs.
    std::fs::write(
        &rt,
        runtime.replace("restartPolicy: Never", "restartPolicy: OnFailure"),
    )
    .unwrap();
    let tjt = std::fs::read_to_string(&tj).unwrap();
    std::fs::write(&tj, tjt.replace("numNodes: 4", "numNodes: -1")).unwrap();
    let o = run(&[
        "validate",
        "-o",
        "json",
        tj.to_str().unwrap(),
        rt.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let reports: Value = serde_json::from_slice(&o.stdout).unwrap();
    let errs = reports[0]["result"]["errors"].as_array().unwrap();
    // The runtime's error holds for any TrainJob: it is reported with the runtime's file, once.
    let only_never = |d: &&Value| {
        d["message"]
            .as_str()
            .unwrap()
            .contains("only \"Never\" is supported")
    };
    assert!(!errs.iter().any(|d| only_never(&d)));
    let rt_errs = reports[1]["result"]["errors"].as_array().unwrap();
    let rp = rt_errs.iter().find(only_never).unwrap();
    let line = rp["line"].as_u64().unwrap() as usize;
    assert!(
        runtime
            .lines()
            .nth(line - 1)
            .unwrap()
            .contains("restartPolicy"),
        "{rp}"
    );
    // Its fix names the runtime's field, placed in the runtime's text.
    let edit = &rp["fixes"][0]["edits"][0];
    assert_eq!(
        edit["field"],
        "spec.template.spec.replicatedJobs[0].template.spec.template.spec.restartPolicy"
    );
    assert!(rp["fixes"][0]["textEdits"][0]["line"].as_u64().unwrap() as usize == line);
    let nn = errs
        .iter()
        .find(|d| d["field"] == "spec.trainer.numNodes")
        .unwrap();
    assert!(nn.get("file").is_none());
    let line = nn["line"].as_u64().unwrap() as usize;
    assert!(
        tjt.lines().nth(line - 1).unwrap().contains("numNodes"),
        "{nn}"
    );
}

#[test]
fn evaluate_simulate_and_sweep_a_trainjob() {
    let o = run(&[
        "evaluate",
        "examples/trainjob-torch.yaml",
        "--exit-code",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("container \"node\" exited with code 2"),
        "{out}"
    );
    assert!(out.contains("FailJobSet"), "{out}");
    let o = run(&[
        "simulate",
        "examples/scenarios/trainjob-torch.yaml",
        "-o",
        "json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["trainJob"]["phase"], "Failed");
    assert_eq!(r["trainJob"]["reason"], "DeadlineExceeded");
    assert_eq!(r["summary"]["endSeconds"], 86400.0);
    let o = run(&[
        "sweep",
        "examples/scenarios/trainjob-torch.yaml",
        "--seeds",
        "20",
        "-o",
        "json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let phases = &r["variants"][0]["phases"];
    assert!(
        phases.get("Complete").is_some() && phases.get("Failed").is_some(),
        "{phases}"
    );
}
