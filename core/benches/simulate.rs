//! Simulator throughput (issue 7's targets): a 1,024-pod training JobSet over 30 simulated days
//! with one fault per pod-hour, restarted in place (exit 42 -> restartPolicyRules) and, for
//! contrast, with Pod failures the Job's podFailurePolicy ignores (a replacement Pod each time);
//! and issue 20's recreate run: one fault per 1,000 Pod-hours, each failing its Job and
//! recreating the whole JobSet (about 700 times in 30 days), as examples/scenarios/
//! training-1024-30d.yaml with an unlimited maxRestarts.
//! Prints simulated container exits per second of wall time after criterion's figures.

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::Instant;

/// 256 Jobs of 4 Pods: `rule` decides what an exit 42 does.
fn jobset(in_place: bool) -> Value {
    let container = if in_place {
        json!({"name": "trainer", "image": "t", "restartPolicy": "Never",
               "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]})
    } else {
        json!({"name": "trainer", "image": "t"})
    };
    json!({
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "train", "namespace": "ml"},
        "spec": {
            "failurePolicy": {"maxRestarts": 3},
            "replicatedJobs": [{"name": "workers", "replicas": 256, "template": {"spec": {
                "parallelism": 4, "completions": 4, "completionMode": "Indexed", "backoffLimit": 1_000_000_000,
                "podFailurePolicy": {"rules": [
                    {"action": "Ignore", "onExitCodes": {"containerName": "trainer", "operator": "In", "values": [42]}}]},
                "template": {"spec": {"restartPolicy": "Never", "containers": [container]}}}}}]
        }
    })
}

/// training-1024-30d.yaml: every failure fails its Job (backoffLimit 0) and recreates the JobSet.
fn recreate_scenario() -> Value {
    json!({"scenario": {
        "kubernetesVersion": "1.35", "runFor": "30d", "startupSeconds": 20, "podRescheduleSeconds": 90, "seed": 1,
        "maxTimelineEvents": 0,
        "workload": {
            "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "llm-pretrain", "namespace": "training"},
            "spec": {
                "failurePolicy": {"maxRestarts": 100_000},
                "replicatedJobs": [{"name": "workers", "replicas": 256, "template": {"spec": {
                    "parallelism": 4, "completions": 4, "completionMode": "Indexed", "backoffLimit": 0,
                    "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "trainer", "image": "t"}]}}}}}]
            }
        },
        "faults": [{"kind": "containerExit", "container": "trainer", "ratePerHour": 0.001, "exitCodes": [42]}]
    }})
}

fn scenario(in_place: bool, run_for: &str) -> Value {
    json!({"scenario": {
        "kubernetesVersion": "1.35", "runFor": run_for, "startupSeconds": 20, "podRescheduleSeconds": 90, "seed": 7,
        "maxTimelineEvents": 0, "workload": jobset(in_place),
        "faults": [{"kind": "containerExit", "container": "trainer", "ratePerHour": 1, "exitCodes": [42]}]
    }})
}

fn simulate(input: &Value) -> Value {
    match restartkit::handle(restartkit::Request::new("simulate", input.clone())) {
        restartkit::Response::Ok { result, .. } => result,
        restartkit::Response::Error { errors, .. } => json!({"errors": errors}),
    }
}

fn exits(out: &Value) -> u64 {
    out.pointer("/summary/containerExits")
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("simulate");
    g.sample_size(10);
    for (name, input) in [
        ("jobset_1024_pods_30d_in_place", scenario(true, "30d")),
        ("jobset_1024_pods_30d_reschedule", scenario(false, "30d")),
        ("jobset_1024_pods_30d_recreate", recreate_scenario()),
    ] {
        let t = Instant::now();
        let out = simulate(&input);
        let secs = t.elapsed().as_secs_f64();
        let n = exits(&out);
        if n == 0 {
            eprintln!(
                "{name}: no exits simulated: {}",
                out.to_string().chars().take(400).collect::<String>()
            );
        }
        println!(
            "{name}: {n} container exits in {secs:.3} s = {:.2} M exits/s",
            n as f64 / secs / 1e6
        );
        g.bench_function(name, |b| b.iter(|| black_box(simulate(black_box(&input)))));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
