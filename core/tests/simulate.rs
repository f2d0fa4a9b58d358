//! Simulated timelines against upstream's figures and semantics.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::{Value, json};

fn simulate(scenario: Value) -> Value {
    let r = restartkit::handle(restartkit::Request {
        op: "simulate".into(),
        input: json!({"scenario": scenario}),
    });
    match r {
        restartkit::Response::Ok { result, .. } => result,
        restartkit::Response::Error { errors, .. } => panic!("simulate failed: {errors:?}"),
    }
}

fn starts(out: &Value, container: &str) -> Vec<f64> {
    out["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "Started" && e["container"] == container)
        .map(|e| e["t"].as_f64().unwrap())
        .collect()
}

fn pod(restart_policy: &str, container: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"restartPolicy": restart_policy, "containers": [container]}})
}

#[test]
fn crash_looping_container_follows_the_legacy_curve() {
    let out = simulate(json!({
        "kubernetesVersion": "1.33", "runFor": "11m",
        "workload": pod("Always", json!({"name": "app", "image": "busybox"})),
        "exits": [{"container": "app", "afterSeconds": 0, "exitCode": 1}],
    }));
    // The first start, then restarts at 0, 10, 30, 70, 150, 310, 610 s (backoff vectors kl-*).
    assert_eq!(
        starts(&out, "app"),
        vec![0.0, 0.0, 10.0, 30.0, 70.0, 150.0, 310.0, 610.0]
    );
    assert_eq!(out["pods"][0]["containers"][0]["restartCount"], 7);
}

#[test]
fn the_reduced_curve_with_the_node_max_restarts_faster() {
    let out = simulate(json!({
        "kubernetesVersion": "1.35", "featureGates": {"ReduceDefaultCrashLoopBackOffDecay": true}, "runFor": "70s",
        "workload": pod("Always", json!({"name": "app", "image": "busybox"})),
        "exits": [{"afterSeconds": 0, "exitCode": 1}],
    }));
    assert_eq!(
        starts(&out, "app"),
        vec![0.0, 0.0, 1.0, 3.0, 7.0, 15.0, 31.0, 63.0]
    );
}

#[test]
fn a_long_run_resets_the_backoff() {
    let out = simulate(json!({
        "kubernetesVersion": "1.33", "runFor": "2000s",
        "workload": pod("Always", json!({"name": "app", "image": "busybox"})),
        "exits": [
            {"afterSeconds": 0, "exitCode": 1, "times": 3},
            {"afterSeconds": 700, "exitCode": 1, "times": 1},
            {"afterSeconds": 0, "exitCode": 1, "times": 2}
        ],
    }));
    // 0 (start), 0, 10, 30 (three crashes), then a 700 s run ends at 730 and restarts at once
    // (ran more than 600 s), then 10 s later, then 20 s later.
    assert_eq!(
        starts(&out, "app"),
        vec![0.0, 0.0, 10.0, 30.0, 730.0, 740.0, 760.0]
    );
}

#[test]
fn a_restart_rule_restarts_on_42_and_the_pod_fails_on_1() {
    let out = simulate(json!({
        "kubernetesVersion": "1.35", "runFor": "1h",
        "featureGates": {"KubeletCrashLoopBackOffMax": false},
        "workload": pod("Never", json!({"name": "main", "image": "busybox", "restartPolicy": "Never",
            "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]})),
        "exits": [
            {"container": "main", "afterSeconds": 5, "exitCode": 42, "times": 3},
            {"container": "main", "afterSeconds": 5, "exitCode": 1}
        ],
    }));
    // Runs of 5 s: exits at 5, restarts at once (first restart), exits at 10, restarts 10 s later,
    // exits at 25, restarts 20 s later; then exit 1 fails the Pod.
    assert_eq!(starts(&out, "main"), vec![0.0, 5.0, 20.0, 45.0]);
    assert_eq!(out["pods"][0]["phase"], "Failed");
    assert_eq!(out["pods"][0]["containers"][0]["restartCount"], 3);
    assert_eq!(out["pods"][0]["containers"][0]["lastExitCode"], 1);
}

fn job(pfp: Value, backoff_limit: i64) -> Value {
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train", "namespace": "ml"},
        "spec": {"backoffLimit": backoff_limit, "podFailurePolicy": pfp,
          "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "trainer"}]}}}})
}

#[test]
fn a_fail_job_rule_fails_the_job_with_upstreams_message() {
    let out = simulate(json!({
        "runFor": "1h",
        "workload": job(json!({"rules": [{"action": "FailJob", "onExitCodes": {"containerName": "main", "operator": "In", "values": [42]}}]}), 6),
        "exits": [{"container": "main", "afterSeconds": 30, "exitCode": 42}],
    }));
    let j = &out["jobs"][0];
    assert_eq!(j["phase"], "Failed");
    assert_eq!(j["reason"], "PodFailurePolicy");
    let pod = out["pods"][0]["name"].as_str().unwrap();
    assert_eq!(
        j["message"],
        format!(
            "Container main for pod ml/{pod} failed with exit code 42 matching FailJob rule at index 0"
        )
    );
    assert_eq!(out["summary"]["podsReplaced"], 0);
}

#[test]
fn counted_failures_use_the_backoff_limit_and_the_pod_failure_backoff() {
    let out = simulate(json!({
        "runFor": "1h",
        "workload": job(json!({"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}), 2),
        "exits": [{"container": "main", "afterSeconds": 1, "exitCode": 3}],
    }));
    let j = &out["jobs"][0];
    assert_eq!(j["phase"], "Failed");
    assert_eq!(j["reason"], "BackoffLimitExceeded");
    assert_eq!(j["failed"], 3);
    // Pods at 0, then 10 s and 20 s after each failure (the Job's pod-failure backoff).
    let created: Vec<f64> = out["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "Scheduled")
        .map(|e| e["t"].as_f64().unwrap())
        .collect();
    assert_eq!(created, vec![0.0, 11.0, 32.0]);
}

#[test]
fn an_ignore_rule_on_disruption_does_not_consume_the_backoff_limit() {
    let out = simulate(json!({
        "runFor": "30m", "seed": 3,
        "workload": job(json!({"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}), 0),
        "faults": [{"kind": "nodeFailure", "ratePerHour": 20}],
    }));
    assert!(
        out["summary"]["podsReplaced"].as_u64().unwrap() >= 2,
        "{}",
        out["summary"]
    );
    assert_eq!(out["jobs"][0]["phase"], "Running");
    assert_eq!(out["jobs"][0]["failed"], 0);
}

#[test]
fn a_jobset_restarts_until_max_restarts_then_fails() {
    let js = json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "train", "namespace": "default"},
        "spec": {"failurePolicy": {"maxRestarts": 2},
          "replicatedJobs": [{"name": "workers", "replicas": 2, "template": {"spec": {"backoffLimit": 0, "parallelism": 1, "completions": 1,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "trainer"}]}}}}}]}});
    let out = simulate(json!({
        "runFor": "1h",
        "workload": js,
        "exits": [{"container": "main", "replicatedJob": "workers", "jobIndex": 0, "afterSeconds": 10, "exitCode": 1}],
    }));
    let s = &out["jobset"];
    assert_eq!(s["phase"], "Failed", "{s}");
    assert_eq!(s["reason"], "ReachedMaxRestarts");
    assert_eq!(s["restarts"], 2);
    assert!(
        s["message"].as_str().unwrap().starts_with(
            "jobset failed due to reaching max number of restarts (first failed job: "
        ),
        "{s}"
    );
    assert_eq!(out["summary"]["jobsetRestarts"], 2);
}

#[test]
fn the_same_seed_gives_the_same_timeline() {
    let sc = json!({
        "runFor": "6h", "seed": 11,
        "workload": pod("Always", json!({"name": "app", "image": "busybox"})),
        "faults": [{"kind": "containerExit", "ratePerHour": 4, "exitCodes": [1, 2, 137]}],
    });
    let a = simulate(sc.clone());
    let b = simulate(sc.clone());
    assert_eq!(a, b);
    let mut other = sc;
    other["seed"] = json!(12);
    assert_ne!(a["timeline"], simulate(other)["timeline"]);
}

#[test]
fn a_workload_upstream_rejects_is_not_simulated() {
    let bad = job(
        json!({"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [0]}}]}),
        1,
    );
    let r = restartkit::handle(restartkit::Request {
        op: "simulate".into(),
        input: json!({"scenario": {"workload": bad}}),
    });
    match r {
        restartkit::Response::Error { errors, .. } => assert!(
            errors[0].message.contains("rejected at admission"),
            "{errors:?}"
        ),
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn a_jobset_restart_counts_every_slot_until_its_new_pod_starts() {
    let js = json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "train", "namespace": "default"},
        "spec": {"failurePolicy": {"maxRestarts": 2},
          "replicatedJobs": [{"name": "workers", "replicas": 2, "template": {"spec": {"backoffLimit": 0, "parallelism": 1, "completions": 1,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "trainer"}]}}}}}]}});
    let out = simulate(json!({
        "runFor": "1h", "startupSeconds": 5, "podRescheduleSeconds": 30,
        "workload": js,
        "exits": [{"container": "main", "replicatedJob": "workers", "jobIndex": 0, "afterSeconds": 10, "exitCode": 1}],
    }));
    assert_eq!(out["summary"]["jobsetRestarts"], 2);
    // Two restarts, each: 2 Jobs x 1 Pod slot x (30 s to recreate the Jobs + 30 s to create
    // their Pods + 5 s start-up). Nothing else waits: backoffLimit 0 replaces no Pod.
    assert_eq!(
        out["summary"]["timeLostSeconds"],
        2.0 * 2.0 * 65.0,
        "{}",
        out["summary"]
    );
    // Only the last attempt's Pods are listed, and no two Pods ever share a name.
    let pods: Vec<&str> = out["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(pods, vec!["train-workers-0-0-2", "train-workers-1-0-2"]);
    let mut created: Vec<&str> = out["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "Scheduled")
        .map(|e| e["object"].as_str().unwrap())
        .collect();
    let n = created.len();
    created.sort_unstable();
    created.dedup();
    assert_eq!((n, created.len()), (6, 6), "{created:?}");
}
