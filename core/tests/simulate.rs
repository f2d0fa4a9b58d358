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

/// The simulate op's errors, as one string (code, field, message of each).
fn simulate_err(scenario: Value) -> String {
    let r = restartkit::handle(restartkit::Request {
        op: "simulate".into(),
        input: json!({"scenario": scenario}),
    });
    match r {
        restartkit::Response::Ok { .. } => panic!("simulate accepted {scenario}"),
        restartkit::Response::Error { errors, .. } => format!("{errors:?}"),
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
        // The policy waits for the Pod's Failed phase: Pod GC gives it once the Node is gone.
        "nodeLoss": {"nodeDeletedAfterSeconds": 0},
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

fn jobset(spec: Value) -> Value {
    json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "train", "namespace": "default"},
        "spec": spec})
}

fn workers(replicas: u32, grace: Option<u32>) -> Value {
    let mut pod =
        json!({"restartPolicy": "Never", "containers": [{"name": "main", "image": "trainer"}]});
    if let Some(g) = grace {
        pod["terminationGracePeriodSeconds"] = json!(g);
    }
    json!({"name": "workers", "replicas": replicas, "template": {"spec": {"backoffLimit": 0, "parallelism": 1, "completions": 1,
        "completionMode": "Indexed", "template": {"spec": pod}}}})
}

/// (t, object, event, reason) of the Job- and JobSet-level events: Jobs created, deleted and
/// gone, Job conditions, the JobSet's restarts and end.
fn jobset_events(out: &Value) -> Vec<(f64, String, String, String)> {
    out["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            let o = e["object"].as_str().unwrap();
            o.starts_with("jobset/")
                || (o.starts_with("job/")
                    && ["Created", "Deleted", "Gone", "Failed"]
                        .contains(&e["event"].as_str().unwrap()))
        })
        .map(|e| {
            let o = e["object"].as_str().unwrap();
            (
                e["t"].as_f64().unwrap(),
                o[o.rfind('/').unwrap() + 1..].to_owned(),
                e["event"].as_str().unwrap().to_owned(),
                e["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Two one-Pod workers Jobs under `failure_policy`: workers-0's Pod exits 1 at 10 s of every
/// run (5 s start-up, 30 s to reschedule a replacement), workers-1's runs on (30 s grace).
fn two_workers_restarted(failure_policy: Value) -> Value {
    simulate(json!({
        "runFor": "1h", "startupSeconds": 5, "podRescheduleSeconds": 30,
        "workload": jobset(json!({"failurePolicy": failure_policy, "replicatedJobs": [workers(2, None)]})),
        "exits": [{"container": "main", "replicatedJob": "workers", "jobIndex": 0, "afterSeconds": 10, "exitCode": 1}],
    }))
}

#[test]
fn a_jobset_restart_deletes_the_jobs_and_recreates_each_once_its_pods_are_gone() {
    // Upstream (the oracle's timeline leg): the failed Job's Pods have all ended, so it goes at
    // once and is created again in that instant; the other Job's running Pod is deleted, gets
    // its grace period (30 s by default), and its Job is created again only when it is gone.
    let out = two_workers_restarted(json!({"maxRestarts": 2}));
    let events = jobset_events(&out);
    assert_eq!(
        events[..12].to_vec(),
        vec![
            ev(0.0, "train-workers-0", "Created", "JobCreated"),
            ev(0.0, "train-workers-1", "Created", "JobCreated"),
            ev(15.0, "train-workers-0", "Failed", "BackoffLimitExceeded"),
            ev(15.0, "train", "Restarting", "DefaultFailurePolicy"),
            ev(15.0, "train-workers-0", "Deleted", "Deleting"),
            ev(15.0, "train-workers-1", "Deleted", "Deleting"),
            ev(15.0, "train-workers-0", "Gone", "Deleted"),
            ev(15.0, "train-workers-0", "Created", "JobCreated"),
            ev(45.0, "train-workers-1", "Gone", "Deleted"),
            ev(45.0, "train-workers-1", "Created", "JobCreated"),
            // The recreated workers-0's Pod is a replacement: 30 s to reschedule, 5 s start-up.
            ev(60.0, "train-workers-0", "Failed", "BackoffLimitExceeded"),
            ev(60.0, "train", "Restarting", "DefaultFailurePolicy"),
        ],
        "{events:#?}"
    );
    // A recreated Job carries the restart attempt it belongs to.
    let labels: Vec<&str> = out["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "Created" && e["object"] == "job/default/train-workers-1")
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        vec![
            "jobset.sigs.k8s.io/restart-attempt=0",
            "jobset.sigs.k8s.io/restart-attempt=1",
            "jobset.sigs.k8s.io/restart-attempt=2"
        ]
    );
    assert_eq!(out["summary"]["jobsetRestarts"], 2);
    assert_eq!(out["jobset"]["phase"], "Failed");
    assert_eq!(out["jobset"]["reason"], "ReachedMaxRestarts");
    assert_eq!(out["jobset"]["restarts"], 2);
    assert_eq!(out["jobset"]["restartsCountTowardsMax"], 2);
    // Each slot waits from the deletion until its new Pod starts: workers-0 15 -> 50 and
    // 60 -> 95, workers-1 15 -> 80 (its grace period first) and 60 -> 95 (its new Pod had not
    // started: it ends at once).
    assert_eq!(
        out["summary"]["timeLostSeconds"],
        35.0 + 65.0 + 35.0 + 35.0,
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

#[test]
fn blocking_recreate_creates_no_job_until_every_job_of_the_restart_is_gone() {
    // jobset_controller.go constructJobsFromTemplate (v0.12.0): with BlockingRecreate nothing
    // is created while a Job of the earlier attempt exists. The failed workers-0 goes at once, as
    // under Recreate, but waits for workers-1's running Pod and its 30 s grace period.
    let out =
        two_workers_restarted(json!({"maxRestarts": 1, "restartStrategy": "BlockingRecreate"}));
    let events = jobset_events(&out);
    assert_eq!(
        events[..10].to_vec(),
        vec![
            ev(0.0, "train-workers-0", "Created", "JobCreated"),
            ev(0.0, "train-workers-1", "Created", "JobCreated"),
            ev(15.0, "train-workers-0", "Failed", "BackoffLimitExceeded"),
            ev(15.0, "train", "Restarting", "DefaultFailurePolicy"),
            ev(15.0, "train-workers-0", "Deleted", "Deleting"),
            ev(15.0, "train-workers-1", "Deleted", "Deleting"),
            ev(15.0, "train-workers-0", "Gone", "Deleted"),
            ev(45.0, "train-workers-1", "Gone", "Deleted"),
            ev(45.0, "train-workers-0", "Created", "JobCreated"),
            ev(45.0, "train-workers-1", "Created", "JobCreated"),
        ],
        "{events:#?}"
    );
    // workers-0's slot now waits 15 -> 80 as well (30 s longer than under Recreate).
    let recreate = two_workers_restarted(json!({"maxRestarts": 1}));
    let lost = |o: &Value| o["summary"]["timeLostSeconds"].as_f64().unwrap();
    assert!(
        lost(&out) > lost(&recreate),
        "{} vs {}",
        out["summary"],
        recreate["summary"]
    );
    assert_eq!(out["jobset"]["phase"], "Failed");
    assert_eq!(out["jobset"]["restarts"], 1);
}

#[test]
fn a_job_in_deletion_does_not_count_a_pod_that_ends_after_its_deletion() {
    // workers-1's Pod (podFailurePolicy: podReplacementPolicy Failed, so a terminating Pod is
    // not counted at once) fails by itself during its grace period: the Job being deleted
    // dropped its finalizer at the deletion, so no condition follows; the Job goes with it.
    let mut w = workers(2, Some(60));
    w["template"]["spec"]["podFailurePolicy"] =
        json!({"rules": [{"action": "Ignore", "onExitCodes": {"operator": "In", "values": [42]}}]});
    let out = simulate(json!({
        "runFor": "10m",
        "workload": jobset(json!({"failurePolicy": {"maxRestarts": 1}, "replicatedJobs": [w]})),
        "exits": [
            {"replicatedJob": "workers", "jobIndex": 0, "afterSeconds": 10, "exitCode": 1, "times": 1},
            {"replicatedJob": "workers", "jobIndex": 1, "afterSeconds": 30, "exitCode": 1, "times": 1},
        ],
    }));
    let w1: Vec<(f64, String, String, String)> = jobset_events(&out)
        .into_iter()
        .filter(|e| e.1 == "train-workers-1" || e.1 == "train")
        .collect();
    let e = |t: f64, o: &str, ev: &str, r: &str| (t, o.to_owned(), ev.to_owned(), r.to_owned());
    assert_eq!(
        w1[..5].to_vec(),
        vec![
            e(0.0, "train-workers-1", "Created", "JobCreated"),
            e(10.0, "train", "Restarting", "DefaultFailurePolicy"),
            e(10.0, "train-workers-1", "Deleted", "Deleting"),
            e(30.0, "train-workers-1", "Gone", "Deleted"),
            e(30.0, "train-workers-1", "Created", "JobCreated"),
        ],
        "{w1:#?}"
    );
}

#[test]
fn jobs_that_fail_at_one_instant_are_seen_together_and_the_first_by_name_is_named() {
    // Both Jobs fail at 10 s; the controller reconciles after both syncs and names the first
    // in its list (same failure time), as upstream's findFirstFailedJob does.
    let out = simulate(json!({
        "runFor": "10m",
        "workload": jobset(json!({"failurePolicy": {"maxRestarts": 0}, "replicatedJobs": [workers(2, Some(0))]})),
        "exits": [{"afterSeconds": 10, "exitCode": 1}],
    }));
    assert_eq!(out["jobset"]["phase"], "Failed");
    assert_eq!(
        out["jobset"]["message"],
        "jobset failed due to reaching max number of restarts (first failed job: train-workers-0)"
    );
}

#[test]
fn a_success_policy_any_on_a_target_completes_the_jobset_with_that_job() {
    let leader = json!({"name": "leader", "replicas": 1, "template": {"spec": {"parallelism": 1, "completions": 1,
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "trainer"}]}}}}});
    let out = simulate(json!({
        "runFor": "10m",
        "workload": jobset(json!({"successPolicy": {"operator": "Any", "targetReplicatedJobs": ["leader"]},
            "replicatedJobs": [leader, workers(2, None)]})),
        "exits": [
            {"replicatedJob": "workers", "afterSeconds": 20, "exitCode": 0},
            {"replicatedJob": "leader", "afterSeconds": 50, "exitCode": 0},
        ],
    }));
    // The workers completing first is not enough: the policy names the leader.
    let ends: Vec<(f64, String, String, String)> = jobset_events(&out)
        .into_iter()
        .filter(|e| e.1 == "train")
        .collect();
    assert_eq!(
        ends,
        vec![(
            50.0,
            "train".to_owned(),
            "Completed".to_owned(),
            "AllJobsCompleted".to_owned()
        )]
    );
    assert_eq!(out["jobset"]["message"], "jobset completed successfully");
}

#[test]
fn a_restart_that_ignores_max_restarts_does_not_count_towards_it() {
    let out = simulate(json!({
        "runFor": "200s",
        "workload": jobset(json!({"failurePolicy": {"maxRestarts": 1, "rules": [
            {"name": "infra", "action": "RestartJobSetAndIgnoreMaxRestarts", "onJobFailureReasons": ["BackoffLimitExceeded"]}]},
            "replicatedJobs": [workers(1, Some(0))]})),
        "exits": [{"afterSeconds": 60, "exitCode": 1}],
    }));
    // Failures at 60, 120, 180: three restarts, none counting towards maxRestarts.
    assert_eq!(out["jobset"]["phase"], "Running");
    assert_eq!(out["jobset"]["restarts"], 3);
    assert_eq!(out["jobset"]["restartsCountTowardsMax"], 0);
    let reasons: Vec<String> = jobset_events(&out)
        .into_iter()
        .filter(|e| e.2 == "Restarting")
        .map(|e| e.3)
        .collect();
    assert_eq!(reasons, vec!["FailurePolicy_infra"; 3]);
}

#[test]
fn restart_job_actions_count_per_job_towards_max_restarts() {
    // RestartJob (alpha gate in JobSet v0.12.0) recreates only the failed Job; its restarts
    // count in replicatedJobsStatus, and the third failure finds maxRestarts reached.
    let out = simulate(json!({
        "runFor": "5m", "featureGates": {"RestartJob": true},
        "workload": jobset(json!({"failurePolicy": {"maxRestarts": 2, "rules": [{"name": "r", "action": "RestartJob"}]},
            "replicatedJobs": [workers(2, Some(0))]})),
        "exits": [{"jobIndex": 0, "afterSeconds": 10, "exitCode": 1}],
    }));
    let e = |t: f64, o: &str, ev: &str, r: &str| (t, o.to_owned(), ev.to_owned(), r.to_owned());
    let events: Vec<(f64, String, String, String)> = jobset_events(&out)
        .into_iter()
        .filter(|x| x.1 != "train-workers-1")
        .collect();
    assert_eq!(
        events,
        vec![
            e(0.0, "train-workers-0", "Created", "JobCreated"),
            e(10.0, "train-workers-0", "Failed", "BackoffLimitExceeded"),
            e(10.0, "train", "RestartJob", "RestartJob"),
            e(10.0, "train-workers-0", "Deleted", "Deleting"),
            e(10.0, "train-workers-0", "Gone", "Deleted"),
            e(10.0, "train-workers-0", "Created", "JobCreated"),
            e(20.0, "train-workers-0", "Failed", "BackoffLimitExceeded"),
            e(20.0, "train", "RestartJob", "RestartJob"),
            e(20.0, "train-workers-0", "Deleted", "Deleting"),
            e(20.0, "train-workers-0", "Gone", "Deleted"),
            e(20.0, "train-workers-0", "Created", "JobCreated"),
            e(30.0, "train-workers-0", "Failed", "BackoffLimitExceeded"),
            e(30.0, "train", "Failed", "ReachedMaxRestarts"),
        ],
        "{events:#?}"
    );
    assert_eq!(out["summary"]["jobRestarts"], 2);
    assert_eq!(out["jobset"]["restarts"], 0);
}

#[test]
fn a_job_restarted_by_restart_job_is_deleted_by_the_next_reconcile_before_its_pods() {
    // workers-0 fails by its podFailurePolicy (RestartJob), workers-1 by its backoff limit, at
    // one instant. The first reconcile restarts workers-0; the next deletes it and, with
    // workers-1 still failed, fails the JobSet (maxRestarts 1 is used up); the garbage collector
    // acts after that reconcile: workers-0 is not gone before the JobSet has failed.
    let mut w = workers(2, Some(0));
    w["template"]["spec"]["podFailurePolicy"] = json!({"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]});
    let out = simulate(json!({
        "runFor": "5m", "featureGates": {"RestartJob": true},
        "workload": jobset(json!({"failurePolicy": {"maxRestarts": 1, "rules": [
            {"name": "r", "action": "RestartJob", "onJobFailureReasons": ["PodFailurePolicy"]}]},
            "replicatedJobs": [w]})),
        "exits": [
            {"jobIndex": 0, "afterSeconds": 10, "exitCode": 42},
            {"jobIndex": 1, "afterSeconds": 10, "exitCode": 1},
        ],
    }));
    let e = |t: f64, o: &str, ev: &str, r: &str| (t, o.to_owned(), ev.to_owned(), r.to_owned());
    let events = jobset_events(&out);
    assert_eq!(
        events[2..].to_vec(),
        vec![
            e(10.0, "train-workers-0", "Failed", "PodFailurePolicy"),
            e(10.0, "train-workers-1", "Failed", "BackoffLimitExceeded"),
            e(10.0, "train", "RestartJob", "RestartJob"),
            e(10.0, "train-workers-0", "Deleted", "Deleting"),
            e(10.0, "train", "Failed", "ReachedMaxRestarts"),
        ],
        "{events:#?}"
    );
}

// ---- The Job controller's timeline (each checked against the real controller by the oracle's
// timeline leg; the figures below are upstream's, from that leg's runs) ----

/// (t, object kind, event, reason) of every Job-level event: Pods created and deleted, Pods
/// ending, the Job's conditions.
fn job_events(out: &Value) -> Vec<(f64, String, String, String)> {
    out["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            let o = e["object"].as_str().unwrap();
            (o.starts_with("pod/")
                && ["Scheduled", "Deleted", "Failed", "Succeeded"]
                    .contains(&e["event"].as_str().unwrap()))
                || (o.starts_with("job/")
                    && ["FailureTarget", "Failed", "SuccessCriteriaMet", "Complete"]
                        .contains(&e["event"].as_str().unwrap()))
        })
        .map(|e| {
            let kind = e["object"].as_str().unwrap().split('/').next().unwrap();
            let who = match e["podIndex"].as_u64() {
                Some(i) => format!("{kind}[{i}]"),
                None => kind.to_owned(),
            };
            (
                e["t"].as_f64().unwrap(),
                who,
                e["event"].as_str().unwrap().to_owned(),
                e["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn indexed_job(spec: Value) -> Value {
    let mut s = json!({"completionMode": "Indexed",
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "trainer"}]}}});
    for (k, v) in spec.as_object().unwrap() {
        if k == "terminationGracePeriodSeconds" {
            s["template"]["spec"][k] = v.clone();
        } else {
            s[k] = v.clone();
        }
    }
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"}, "spec": s})
}

fn ev(t: f64, who: &str, event: &str, reason: &str) -> (f64, String, String, String) {
    (t, who.into(), event.into(), reason.into())
}

#[test]
fn a_failing_job_gets_failure_target_at_once_and_failed_when_its_pods_have_terminated() {
    // backoffLimit 0: index 0 fails at 35 s. Upstream adds FailureTarget, deletes index 1's Pod
    // (counted as failed), and adds Failed only when that Pod has terminated: 30 s later, its
    // default grace period.
    let out = simulate(json!({
        "runFor": "10m",
        "workload": indexed_job(json!({"completions": 2, "parallelism": 2, "backoffLimit": 0})),
        "exits": [{"podIndex": 0, "afterSeconds": 35, "exitCode": 1}],
    }));
    assert_eq!(
        job_events(&out),
        vec![
            ev(0.0, "pod[0]", "Scheduled", "Scheduled"),
            ev(0.0, "pod[1]", "Scheduled", "Scheduled"),
            ev(35.0, "pod[0]", "Failed", "Failed"),
            ev(35.0, "job", "FailureTarget", "BackoffLimitExceeded"),
            ev(35.0, "pod[1]", "Deleted", "Terminating"),
            ev(65.0, "pod[1]", "Failed", "Killed"),
            ev(65.0, "job", "Failed", "BackoffLimitExceeded"),
        ]
    );
    assert_eq!(out["jobs"][0]["failed"], 2);
    assert_eq!(out["summary"]["endSeconds"], 65.0);
}

#[test]
fn a_pod_deleted_without_grace_period_goes_at_once_and_the_job_fails_in_the_same_instant() {
    let out = simulate(json!({
        "runFor": "10m",
        "workload": indexed_job(json!({"completions": 2, "parallelism": 2, "backoffLimit": 0,
            "terminationGracePeriodSeconds": 0})),
        "exits": [{"podIndex": 0, "afterSeconds": 35, "exitCode": 1}],
    }));
    assert_eq!(
        job_events(&out)[2..],
        [
            ev(35.0, "pod[0]", "Failed", "Failed"),
            ev(35.0, "job", "FailureTarget", "BackoffLimitExceeded"),
            ev(35.0, "pod[1]", "Deleted", "Terminating"),
            ev(35.0, "job", "Failed", "BackoffLimitExceeded"),
        ]
    );
    // The API server removed it before the kubelet reported a phase.
    assert_eq!(out["pods"][1]["phase"], "Deleted");
}

#[test]
fn replacements_wait_for_the_back_off_of_every_failure_since_the_last_success() {
    // Two Pods fail at 10 s and 15 s: the controller's one back-off record then holds 2
    // failures (20 s) from the last one, so neither is replaced before 35 s (not 20 s for the
    // first, as a per-Pod back-off would).
    let out = simulate(json!({
        "runFor": "10m",
        "workload": indexed_job(json!({"completions": 2, "parallelism": 2, "backoffLimit": 6})),
        "exits": [
            {"podIndex": 0, "afterSeconds": 10, "exitCode": 1, "times": 1},
            {"podIndex": 1, "afterSeconds": 15, "exitCode": 1, "times": 1},
            {"afterSeconds": 5, "exitCode": 0},
        ],
    }));
    let created: Vec<f64> = job_events(&out)
        .into_iter()
        .filter(|e| e.2 == "Scheduled")
        .map(|e| e.0)
        .collect();
    assert_eq!(created, vec![0.0, 0.0, 35.0, 35.0]);
    assert_eq!(out["jobs"][0]["phase"], "Complete");
    assert_eq!(
        job_events(&out).last().unwrap(),
        &ev(40.0, "job", "Complete", "CompletionsReached")
    );
}

#[test]
fn an_index_in_back_off_is_replaced_when_its_own_back_off_ends() {
    // backoffLimitPerIndex: index 0 fails at 20 s (ready at 30 s), index 2 at 25 s (ready at
    // 35 s). Creating index 0's Pod at 30 s makes the controller sync again, which asks for a
    // wake-up at 35 s for index 2 (upstream: timeline-330 of the oracle's leg).
    let out = simulate(json!({
        "runFor": "10m",
        "workload": indexed_job(json!({"completions": 3, "parallelism": 3, "backoffLimitPerIndex": 2})),
        "exits": [
            {"podIndex": 0, "afterSeconds": 20, "exitCode": 1, "times": 1},
            {"podIndex": 2, "afterSeconds": 25, "exitCode": 1, "times": 1},
        ],
    }));
    let created: Vec<(f64, String)> = job_events(&out)
        .into_iter()
        .filter(|e| e.2 == "Scheduled")
        .map(|e| (e.0, e.1))
        .collect();
    assert_eq!(
        created[3..],
        [(30.0, "pod[0]".to_owned()), (35.0, "pod[2]".to_owned())]
    );
}

#[test]
fn a_success_policy_completes_the_job_once_the_other_pods_have_terminated() {
    let out = simulate(json!({
        "runFor": "10m",
        "workload": indexed_job(json!({"completions": 3, "parallelism": 3,
            "successPolicy": {"rules": [{"succeededIndexes": "0"}]}, "terminationGracePeriodSeconds": 5})),
        "exits": [{"podIndex": 0, "afterSeconds": 40, "exitCode": 0}],
    }));
    assert_eq!(
        job_events(&out)[3..],
        [
            ev(40.0, "pod[0]", "Succeeded", "Succeeded"),
            ev(40.0, "job", "SuccessCriteriaMet", "SuccessPolicy"),
            ev(40.0, "pod[1]", "Deleted", "Terminating"),
            ev(40.0, "pod[2]", "Deleted", "Terminating"),
            ev(45.0, "pod[1]", "Failed", "Killed"),
            ev(45.0, "pod[2]", "Failed", "Killed"),
            ev(45.0, "job", "Complete", "SuccessPolicy"),
        ]
    );
    let j = &out["jobs"][0];
    assert_eq!(j["message"], "Matched rules at index 0");
    // Pods deleted because the Job succeeded are not failures.
    assert_eq!(
        (j["failed"].clone(), j["succeeded"].clone()),
        (json!(0), json!(1))
    );
}

#[test]
fn a_failure_at_the_deadline_instant_is_seen_before_the_deadline() {
    // The Pod fails at 150 s, the instant activeDeadlineSeconds runs out: the controller's sync
    // sees the failure first, and the backoff limit is what fails the Job.
    let out = simulate(json!({
        "runFor": "10m",
        "workload": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"},
            "spec": {"completions": 2, "activeDeadlineSeconds": 150, "backoffLimit": 3,
              "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "x"}]}}}},
        "exits": [{"afterSeconds": 20, "exitCode": 1}],
    }));
    let created: Vec<f64> = job_events(&out)
        .into_iter()
        .filter(|e| e.2 == "Scheduled")
        .map(|e| e.0)
        .collect();
    assert_eq!(created, vec![0.0, 30.0, 70.0, 130.0]);
    assert_eq!(out["jobs"][0]["reason"], "BackoffLimitExceeded");
    assert_eq!(out["summary"]["endSeconds"], 150.0);
}

/// (time, event, reason) of Pod `pod`'s node events in the timeline.
fn node_events(out: &Value) -> Vec<(f64, String, String)> {
    out["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["object"].as_str().unwrap().starts_with("pod/"))
        .filter(|e| {
            [
                "NodeLost",
                "NodeNotReady",
                "Tainted",
                "Evicted",
                "NodeDeleted",
                "Failed",
            ]
            .contains(&e["event"].as_str().unwrap())
        })
        .map(|e| {
            (
                e["t"].as_f64().unwrap(),
                e["event"].as_str().unwrap().to_owned(),
                e["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn nev(t: f64, event: &str, reason: &str) -> (f64, String, String) {
    (t, event.to_owned(), reason.to_owned())
}

#[test]
fn a_lost_node_fails_its_pod_only_through_pod_gc_once_the_node_is_deleted() {
    // Lost at 50 s: last Lease renewal 50 s; Ready would go Unknown at the first 5 s tick after
    // 50 + 50 (1.37's grace period), but the Node is deleted at 80 s, before: a Node no longer
    // listed is never marked. Pod GC's pass at 80 s quarantines it, the pass at 120 s fails the
    // Pod with DisruptionTarget (DeletionByPodGC), which the FailJob rule matches.
    let out = simulate(json!({
        "runFor": "10m",
        "workload": job(json!({"rules": [{"action": "FailJob", "onPodConditions": [{"type": "DisruptionTarget"}]}]}), 6),
        "exits": [{"afterSeconds": 50, "exitCode": 137, "nodeFailure": true}],
        "nodeLoss": {"nodeDeletedAfterSeconds": 30},
    }));
    assert_eq!(
        node_events(&out),
        vec![
            nev(50.0, "NodeLost", "NodeLost"),
            nev(80.0, "NodeDeleted", "NodeDeleted"),
            nev(120.0, "Failed", "DeletionByPodGC"),
        ]
    );
    let j = &out["jobs"][0];
    assert_eq!(j["phase"], "Failed");
    assert_eq!(j["reason"], "PodFailurePolicy");
    let pod = out["pods"][0]["name"].as_str().unwrap();
    assert_eq!(
        j["message"],
        format!("Pod ml/{pod} has condition DisruptionTarget matching FailJob rule at index 0")
    );
    assert_eq!(out["summary"]["endSeconds"], 120.0);
    assert_eq!(out["summary"]["nodesLost"], 1);
    assert_eq!(out["summary"]["podsStuckOnLostNodes"], 0);
}

#[test]
fn with_a_pod_failure_policy_a_pod_evicted_from_a_lost_node_is_never_counted_while_its_node_stays()
{
    // Nothing deletes the Node: taint eviction deletes the Pod 300 s after the taint (the
    // default toleration), but it stays Terminating; the policy waits for a Failed phase.
    let out = simulate(json!({
        "runFor": "20m",
        "workload": job(json!({"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}), 6),
        "exits": [{"afterSeconds": 123, "exitCode": 137, "nodeFailure": true}],
    }));
    assert_eq!(
        node_events(&out),
        vec![
            nev(123.0, "NodeLost", "NodeLost"),
            // Last renewal at 120 s: Unknown at 175 s (120 + 50, then the next 5 s tick).
            nev(175.0, "NodeNotReady", "NodeStatusUnknown"),
            nev(175.0, "Tainted", "node.kubernetes.io/unreachable"),
            nev(475.0, "Evicted", "DeletionByTaintManager"),
        ]
    );
    assert_eq!(out["jobs"][0]["phase"], "Running");
    assert_eq!(out["summary"]["podsReplaced"], 0);
    assert_eq!(out["summary"]["podsStuckOnLostNodes"], 1);
    // The slot waited from the loss to the end of the run.
    assert_eq!(out["summary"]["timeLostSeconds"], 1200.0 - 123.0);
}

#[test]
fn without_a_pod_failure_policy_the_evicted_pod_counts_as_failed_at_its_deletion() {
    // 1.31's grace period is 40 s, and up to 1.33 the taint comes one monitor pass (5 s) after
    // the node went Unknown; the Pod tolerates unreachable for 30 s only.
    let out = simulate(json!({
        "kubernetesVersion": "1.31", "runFor": "10m",
        "workload": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"},
            "spec": {"backoffLimit": 3,
                "template": {"spec": {"restartPolicy": "Never",
                    "tolerations": [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}],
                    "containers": [{"name": "main", "image": "busybox"}]}}}},
        "exits": [{"afterSeconds": 15, "exitCode": 137, "nodeFailure": true, "times": 1}, {"afterSeconds": 60, "exitCode": 0}],
    }));
    assert_eq!(
        node_events(&out)[..4],
        [
            nev(15.0, "NodeLost", "NodeLost"),
            nev(55.0, "NodeNotReady", "NodeStatusUnknown"),
            nev(60.0, "Tainted", "node.kubernetes.io/unreachable"),
            nev(90.0, "Evicted", "DeletionByTaintManager"),
        ]
    );
    // Counted at 90 s; its finish time is when it stopped being ready (55 s), so the
    // replacement waits out the first back-off (10 s) from there: none left at 90 s.
    assert_eq!(times_of(&out, "Scheduled"), vec![0.0, 90.0]);
    assert_eq!(out["jobs"][0]["failed"], 1);
    // The replacement succeeds at 150 s, but the evicted Pod is still Terminating (its node
    // never returns): the Job's Complete condition waits for it (JobPodReplacementPolicy).
    assert_eq!(times_of(&out, "SuccessCriteriaMet"), vec![150.0]);
    assert_eq!(out["jobs"][0]["phase"], "Running");
    assert_eq!(out["summary"]["podsStuckOnLostNodes"], 1);
}

#[test]
fn an_out_of_service_taint_lets_pod_gc_fail_the_terminating_pod() {
    let out = simulate(json!({
        "runFor": "20m",
        "workload": job(json!({"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}), 6),
        "exits": [{"afterSeconds": 123, "exitCode": 137, "nodeFailure": true, "times": 1}, {"afterSeconds": 60, "exitCode": 0}],
        "nodeLoss": {"outOfServiceAfterSeconds": 600},
    }));
    assert_eq!(
        node_events(&out)[3..],
        [
            nev(475.0, "Evicted", "DeletionByTaintManager"),
            nev(723.0, "Tainted", "node.kubernetes.io/out-of-service"),
            // Pod GC's next pass (every 20 s from the start).
            nev(740.0, "Failed", "TerminatingOutOfService"),
        ]
    );
    assert_eq!(times_of(&out, "Scheduled"), vec![0.0, 740.0]);
    assert_eq!(out["jobs"][0]["phase"], "Complete");
}

#[test]
fn lost_nodes_are_tainted_one_per_ten_seconds() {
    // Two Pods lose their nodes at the same instant: the zone's taint queue lets the second
    // node through 10 s after the first, and its Pod is evicted 10 s later.
    let out = simulate(json!({
        "runFor": "10m",
        "workload": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"},
            "spec": {"completions": 2, "parallelism": 2, "completionMode": "Indexed",
                "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]}}}},
        "exits": [{"afterSeconds": 20, "exitCode": 137, "nodeFailure": true}],
    }));
    let evicted: Vec<f64> = node_events(&out)
        .into_iter()
        .filter(|e| e.1 == "Evicted")
        .map(|e| e.0)
        .collect();
    assert_eq!(evicted, vec![375.0, 385.0]);
}

/// A JobSet of Indexed Jobs (one replica each) for the lost-node tests: each entry is (name,
/// completions, backoffLimit, Pod spec additions); every rule-less failure restarts the JobSet
/// once.
fn node_loss_jobset(rjs: &[(&str, u32, u32, Value)]) -> Value {
    let rjs: Vec<Value> = rjs
        .iter()
        .map(|(name, completions, backoff, extra)| {
            let mut pod = json!({"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]});
            for (k, v) in extra.as_object().unwrap() {
                pod[k] = v.clone();
            }
            json!({"name": name, "replicas": 1, "template": {"spec": {
                "completions": completions, "parallelism": completions, "completionMode": "Indexed",
                "backoffLimit": backoff, "template": {"spec": pod}}}})
        })
        .collect();
    json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "js", "namespace": "default"},
        "spec": {"replicatedJobs": rjs, "failurePolicy": {"maxRestarts": 1}}})
}

/// (time, object, event, reason) of the timeline's events.
fn all_events(out: &Value) -> Vec<(f64, String, String, String)> {
    out["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["t"].as_f64().unwrap(),
                e["object"].as_str().unwrap().to_owned(),
                e["event"].as_str().unwrap().to_owned(),
                e["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_pod_that_pod_gc_failed_is_gone_when_a_jobset_restart_deletes_its_job() {
    // The oracle's JobSet timeline with the real node chain (1.37): Pod GC fails and
    // force-deletes the lost node's Pod at 60 s (its Node deleted at the loss, 20 s); the Job
    // drops its finalizer and it is gone. The JobSet's restart at 100 s deletes the Job: the
    // garbage collector deletes the replacement only, not the gone Pod again.
    let out = simulate(json!({
        "kubernetesVersion": "1.37", "runFor": "600s",
        "workload": node_loss_jobset(&[("a", 1, 1, json!({"terminationGracePeriodSeconds": 5}))]),
        "exits": [
            {"replicatedJob": "a", "podIndex": 0, "afterSeconds": 20, "exitCode": 137, "nodeFailure": true, "times": 1},
            {"replicatedJob": "a", "podIndex": 0, "afterSeconds": 30, "exitCode": 1}
        ],
        "nodeLoss": {"nodeDeletedAfterSeconds": 0},
    }));
    let deleted: Vec<(f64, String)> = all_events(&out)
        .into_iter()
        .filter(|e| e.1.starts_with("pod/") && e.2 == "Deleted")
        .map(|e| (e.0, e.1))
        .collect();
    assert_eq!(deleted, vec![(100.0, "pod/default/js-a-0-0-1".to_owned())]);
    assert!(all_events(&out).contains(&(
        60.0,
        "pod/default/js-a-0-0-0".into(),
        "Failed".into(),
        "DeletionByPodGC".into()
    )));
}

#[test]
fn a_lost_node_goes_on_after_a_jobset_restart_removed_its_pod_and_job() {
    // Lost at 15 s (renewed at 10 s: Unknown at 65 s, 1.37). The JobSet restarts at 30 s; the
    // lost Pod (no grace period) goes with its Job, but the node is still there, still lost:
    // it goes Unknown and is tainted at 65 s, as upstream's node lifecycle controller does.
    let out = simulate(json!({
        "kubernetesVersion": "1.37", "runFor": "600s",
        "workload": node_loss_jobset(&[("a", 2, 0, json!({"terminationGracePeriodSeconds": 0}))]),
        "exits": [
            {"replicatedJob": "a", "podIndex": 0, "afterSeconds": 15, "exitCode": 137, "nodeFailure": true, "times": 1},
            {"replicatedJob": "a", "podIndex": 1, "afterSeconds": 30, "exitCode": 1, "times": 1}
        ],
    }));
    let lost: Vec<(f64, String, String)> = all_events(&out)
        .into_iter()
        .filter(|e| e.1 == "pod/default/js-a-0-0-0")
        .map(|e| (e.0, e.2, e.3))
        .filter(|e| e.1 != "Scheduled" && e.1 != "Started")
        .collect();
    assert_eq!(
        lost,
        vec![
            nev(15.0, "NodeLost", "NodeLost"),
            nev(30.0, "Deleted", "Terminating"),
            nev(65.0, "NodeNotReady", "NodeStatusUnknown"),
            nev(65.0, "Tainted", "node.kubernetes.io/unreachable"),
        ]
    );
}

#[test]
fn a_job_in_deletion_that_counts_its_lost_pod_failed_is_gone_before_it_is_failed() {
    // Job b's Pod (no grace period, tolerating the taint for good) is on a node lost at 10 s.
    // Job a fails at 30 s and the JobSet restarts: the garbage collector deletes b's Pod, b's
    // sync counts it failed (FailureTarget) and drops its finalizer. Upstream counted the Pod
    // terminating at the start of that sync (jobCtx.terminating), so Failed waits for the next
    // sync, and the collector removes b first: b never gets Failed.
    let forever = json!([{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"}]);
    let out = simulate(json!({
        "kubernetesVersion": "1.37", "runFor": "600s",
        "workload": node_loss_jobset(&[
            ("a", 1, 0, json!({})),
            ("b", 1, 0, json!({"terminationGracePeriodSeconds": 0, "tolerations": forever})),
        ]),
        "exits": [
            {"replicatedJob": "a", "podIndex": 0, "afterSeconds": 30, "exitCode": 1, "times": 1},
            {"replicatedJob": "b", "podIndex": 0, "afterSeconds": 10, "exitCode": 137, "nodeFailure": true, "times": 1}
        ],
    }));
    let b: Vec<(f64, String, String)> = all_events(&out)
        .into_iter()
        .filter(|e| e.1 == "job/default/js-b-0")
        .map(|e| (e.0, e.2, e.3))
        .collect();
    assert_eq!(
        b,
        vec![
            nev(0.0, "Created", "JobCreated"),
            nev(30.0, "Deleted", "Deleting"),
            nev(30.0, "PodFailed", "Count"),
            nev(30.0, "FailureTarget", "BackoffLimitExceeded"),
            nev(30.0, "Gone", "Deleted"),
            nev(30.0, "Created", "JobCreated"),
        ]
    );
}

#[test]
fn node_loss_settings_are_checked() {
    let err = simulate_err(json!({
        "runFor": "10m", "workload": job(json!({"rules": []}), 1),
        "nodeLoss": {"nodeDeletedAfterSeconds": 10, "outOfServiceAfterSeconds": 10},
    }));
    assert!(
        err.contains("not-modelled") && err.contains("nodeLoss"),
        "{err}"
    );
    let err = simulate_err(json!({
        "runFor": "10m", "workload": job(json!({"rules": []}), 1),
        "nodeLoss": {"nodeMonitorPeriodSeconds": 0},
    }));
    assert!(err.contains("nodeLoss.nodeMonitorPeriodSeconds"), "{err}");
}

#[test]
fn the_idealised_instant_failure_is_kept_for_controller_tests() {
    let out = simulate(json!({
        "runFor": "10m",
        "workload": job(json!({"rules": [{"action": "FailJob", "onPodConditions": [{"type": "DisruptionTarget"}]}]}), 6),
        "exits": [{"afterSeconds": 50, "exitCode": 137, "nodeFailure": true}],
        "nodeLoss": {"idealisedInstantFailure": true},
    }));
    assert_eq!(out["jobs"][0]["reason"], "PodFailurePolicy");
    assert_eq!(out["summary"]["endSeconds"], 50.0);
}

#[test]
fn a_work_queue_job_completes_when_its_last_pod_has_ended_after_a_success() {
    // No completions: two Pods run; the first succeeds at 30 s, and the Job waits for the other
    // (no new Pod, no deletion) until it succeeds at 100 s (upstream syncJob: "complete when any
    // pod exits with success ... and active == 0").
    let out = simulate(json!({
        "runFor": "10m",
        "workload": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "queue", "namespace": "default"},
            "spec": {"parallelism": 2,
              "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "x"}]}}}},
        "exits": [
            {"podIndex": 0, "afterSeconds": 30, "exitCode": 0},
            {"podIndex": 1, "afterSeconds": 100, "exitCode": 0},
        ],
    }));
    assert_eq!(
        job_events(&out),
        vec![
            ev(0.0, "pod[0]", "Scheduled", "Scheduled"),
            ev(0.0, "pod[1]", "Scheduled", "Scheduled"),
            ev(30.0, "pod[0]", "Succeeded", "Succeeded"),
            ev(100.0, "pod[1]", "Succeeded", "Succeeded"),
            ev(100.0, "job", "SuccessCriteriaMet", "CompletionsReached"),
            ev(100.0, "job", "Complete", "CompletionsReached"),
        ]
    );
    assert_eq!(out["jobs"][0]["succeeded"], 2);
}

#[test]
fn a_pod_deleted_before_its_container_started_never_starts() {
    // Index 0's replacement is created at 20 s and would start at 30 s (podRescheduleSeconds);
    // index 1 fails at 25 s, the Job (backoffLimit 1) fails and deletes it: the kubelet starts
    // nothing in a Pod being deleted, and with no container running it ends at once.
    let out = simulate(json!({
        "runFor": "10m", "podRescheduleSeconds": 10,
        "workload": indexed_job(json!({"completions": 2, "parallelism": 2, "backoffLimit": 1})),
        "exits": [
            {"podIndex": 0, "afterSeconds": 10, "exitCode": 1, "times": 1},
            {"podIndex": 0, "afterSeconds": 1, "exitCode": 0},
            {"podIndex": 1, "afterSeconds": 25, "exitCode": 1},
        ],
    }));
    assert_eq!(
        job_events(&out)[2..],
        [
            ev(10.0, "pod[0]", "Failed", "Failed"),
            ev(20.0, "pod[0]", "Scheduled", "Scheduled"),
            ev(25.0, "pod[1]", "Failed", "Failed"),
            ev(25.0, "job", "FailureTarget", "BackoffLimitExceeded"),
            ev(25.0, "pod[0]", "Deleted", "Terminating"),
            ev(25.0, "pod[0]", "Failed", "Killed"),
            ev(25.0, "job", "Failed", "BackoffLimitExceeded"),
        ]
    );
    let started_after_20 = out["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "Started" && e["t"].as_f64().unwrap() > 20.0)
        .count();
    assert_eq!(started_after_20, 0);
}

#[test]
fn an_on_failure_job_counts_restarts_when_they_happen_and_a_deleted_pod_is_not_restarted() {
    // backoffLimit 0, restartPolicy OnFailure: the container exits 1 at 25 s and restarts at
    // once; its restartCount (1) exceeds the limit, so FailureTarget at 25 s. The restarted
    // container exits again at 50 s: the kubelet restarts nothing in a Pod being deleted, so
    // the Pod (and the Job) end then, before the 30 s grace period would have.
    let out = simulate(json!({
        "runFor": "10m",
        "workload": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"},
            "spec": {"backoffLimit": 0,
              "template": {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "main", "image": "x"}]}}}},
        "exits": [{"afterSeconds": 25, "exitCode": 1}],
    }));
    assert_eq!(
        job_events(&out),
        vec![
            ev(0.0, "pod[0]", "Scheduled", "Scheduled"),
            ev(25.0, "job", "FailureTarget", "BackoffLimitExceeded"),
            ev(25.0, "pod[0]", "Deleted", "Terminating"),
            ev(50.0, "pod[0]", "Failed", "Failed"),
            ev(50.0, "job", "Failed", "BackoffLimitExceeded"),
        ]
    );
    assert_eq!(out["pods"][0]["containers"][0]["restartCount"], 1);
}

#[test]
fn a_pod_deleted_while_its_container_waits_in_crash_loop_back_off_ends_at_once() {
    // Exits at 25 s (restarted at once) and 50 s (back-off 10 s: waiting until 60 s); the
    // deadline at 55 s deletes the Pod, which has no running container: it ends at 55 s, and
    // the restart due at 60 s never happens.
    let out = simulate(json!({
        "runFor": "10m",
        "workload": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"},
            "spec": {"backoffLimit": 6, "activeDeadlineSeconds": 55,
              "template": {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "main", "image": "x"}]}}}},
        "exits": [{"afterSeconds": 25, "exitCode": 1}],
    }));
    assert_eq!(
        job_events(&out)[1..],
        [
            ev(55.0, "job", "FailureTarget", "DeadlineExceeded"),
            ev(55.0, "pod[0]", "Deleted", "Terminating"),
            ev(55.0, "pod[0]", "Failed", "Killed"),
            ev(55.0, "job", "Failed", "DeadlineExceeded"),
        ]
    );
    assert_eq!(out["pods"][0]["containers"][0]["restartCount"], 1);
}

/// One contract request's result, or its first error.
fn request(op: &str, input: Value) -> Result<Value, restartkit::Diagnostic> {
    match restartkit::handle(restartkit::Request::new(op, input)) {
        restartkit::Response::Ok { result, .. } => Ok(result),
        restartkit::Response::Error { mut errors, .. } => Err(errors.remove(0)),
    }
}

#[test]
fn the_sweep_ops_round_trip_through_the_contract() {
    let scenario = json!({
        "kubernetesVersion": "1.35", "runFor": "6h", "startupSeconds": 20, "podRescheduleSeconds": 90,
        "seed": 3,
        "faults": [{"kind": "containerExit", "container": "trainer", "ratePerHour": 0.3, "exitCodes": [42]}],
        "exits": [{"container": "trainer", "afterSeconds": 7200, "exitCode": 0}],
        "workload": jobset(json!({
            "failurePolicy": {"maxRestarts": 1},
            "replicatedJobs": [{"name": "workers", "replicas": 1, "template": {"spec": {
                "parallelism": 2, "completions": 2, "completionMode": "Indexed", "backoffLimit": 0,
                "template": {"spec": {"restartPolicy": "Never", "containers": [
                    {"name": "trainer", "image": "trainer:1"}]}}}}}]
        })),
    });
    let inp = json!({"scenario": scenario, "seeds": 3, "runs": true,
        "grid": [{"path": "workload.spec.failurePolicy.maxRestarts", "values": [0, 3]}]});
    let whole = request("sweep", inp.clone()).unwrap();
    let plan = request("sweepPlan", inp.clone()).unwrap();
    assert_eq!(plan["variants"].as_array().unwrap().len(), 2);
    let mut partials = Vec::new();
    for v in 0..2 {
        for (start, count) in [(0, 2), (2, 1)] {
            partials.push(
                request(
                    "sweepChunk",
                    json!({"sweep": inp, "variant": v, "start": start, "count": count}),
                )
                .unwrap(),
            );
        }
    }
    let merged = request("sweepMerge", json!({"partials": partials})).unwrap();
    assert_eq!(merged, whole);
    let e = request("sweep", json!({"scenario": scenario, "seeds": 0})).unwrap_err();
    assert_eq!(e.field, "seeds");
}

/// A JobSet recreated many times (the simulator reuses the slots of gone Pods and Jobs): the
/// result still lists the newest Pod of each Job index, in creation order, and the Jobs of the
/// last run, as the timeline shows them.
#[test]
fn a_jobset_recreated_many_times_reports_its_newest_pods_and_jobs() {
    let out = simulate(json!({
        "runFor": "1d", "startupSeconds": 5, "podRescheduleSeconds": 10,
        "workload": jobset(json!({
            "failurePolicy": {"maxRestarts": 25},
            "replicatedJobs": [
                {"name": "a", "replicas": 2, "template": {"spec": {"backoffLimit": 0, "parallelism": 2,
                    "completions": 2, "completionMode": "Indexed",
                    "template": {"spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 5,
                        "containers": [{"name": "main", "image": "t"}]}}}}},
                {"name": "b", "replicas": 1, "template": {"spec": {"backoffLimit": 0, "parallelism": 3,
                    "completions": 3, "completionMode": "Indexed",
                    "template": {"spec": {"restartPolicy": "Never",
                        "initContainers": [{"name": "setup", "image": "t"}],
                        "containers": [{"name": "main", "image": "t"}]}}}}}]
        })),
        "exits": [{"container": "main", "replicatedJob": "a", "jobIndex": 1, "podIndex": 1, "afterSeconds": 60, "exitCode": 1}],
    }));
    assert_eq!(out["jobset"]["phase"], "Failed", "{}", out["jobset"]);
    assert_eq!(out["summary"]["jobsetRestarts"], 25);
    // From the timeline: each Job's newest Pod per index, in the order they were scheduled.
    let mut newest: Vec<(String, String)> = Vec::new();
    for e in out["timeline"].as_array().unwrap() {
        if e["event"] != "Scheduled" {
            continue;
        }
        let pod = e["object"]
            .as_str()
            .unwrap()
            .trim_start_matches("pod/default/");
        let index = e["podIndex"].as_u64().unwrap().to_string();
        let job = pod.rsplitn(3, '-').nth(2).unwrap().to_owned();
        newest.retain(|(j, p)| !(j == &job && p.rsplit('-').nth(1) == Some(index.as_str())));
        newest.push((job, pod.to_owned()));
    }
    let names: Vec<&str> = out["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 7, "{names:?}");
    assert_eq!(
        names,
        newest.iter().map(|(_, p)| p.as_str()).collect::<Vec<_>>()
    );
    let jobs: Vec<&str> = out["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["name"].as_str().unwrap())
        .collect();
    // In the order the last run created them (each Job once its predecessor was gone).
    let mut created: Vec<&str> = Vec::new();
    for e in out["timeline"].as_array().unwrap() {
        if e["event"] == "Created" {
            let job = e["object"]
                .as_str()
                .unwrap()
                .trim_start_matches("job/default/");
            created.retain(|j| *j != job);
            created.push(job);
        }
    }
    assert_eq!(jobs, created);
    let mut sorted = jobs.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["train-a-0", "train-a-1", "train-b-0"]);
    // Pod names go on counting across the recreations: 26 runs of 2 Pods for Job train-a-0.
    assert!(names.contains(&"train-a-0-0-50"), "{names:?}");
}

/// A Job whose Pods have a sidecar (`init0`, restartable) before `main`, and `grace` seconds
/// of termination grace period.
fn job_with_sidecar(spec: Value, grace: u32) -> Value {
    let mut job = indexed_job(spec);
    job["spec"]["template"]["spec"]["initContainers"] =
        json!([{"name": "init0", "image": "proxy", "restartPolicy": "Always"}]);
    job["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = json!(grace);
    job
}

#[test]
fn a_pod_whose_sidecar_runs_is_given_its_grace_period_even_before_its_containers_start() {
    // startupSeconds 5: the sidecar runs 5 s after a Pod's creation, `main` 5 s later. Index 0
    // fails at 20 s; its replacement (created at 30 s, after the 10 s back-off) has its sidecar
    // running from 35 s. Index 1 fails at 37 s: the Job (backoffLimit 1) fails and deletes the
    // replacement, whose `main` never started — but its sidecar runs, so the Pod takes its
    // 20 s grace period (without the sidecar it ends at once: the test above). The oracle's
    // timeline leg checks the same scenario against the real Job controller
    // (conformance/oracle/testdata/timeline-scenarios.jsonl, "sidecar-keeps-a-deleted-pod").
    let out = simulate(json!({
        "runFor": "10m", "startupSeconds": 5,
        "workload": job_with_sidecar(json!({"completions": 2, "parallelism": 2, "backoffLimit": 1}), 20),
        "exits": [
            {"container": "main", "podIndex": 0, "afterSeconds": 10, "exitCode": 1, "times": 1},
            {"container": "main", "podIndex": 0, "afterSeconds": 1, "exitCode": 0},
            {"container": "main", "podIndex": 1, "afterSeconds": 27, "exitCode": 1},
        ],
    }));
    assert_eq!(
        job_events(&out)[2..],
        [
            ev(20.0, "pod[0]", "Failed", "Failed"),
            ev(30.0, "pod[0]", "Scheduled", "Scheduled"),
            ev(37.0, "pod[1]", "Failed", "Failed"),
            ev(37.0, "job", "FailureTarget", "BackoffLimitExceeded"),
            ev(37.0, "pod[0]", "Deleted", "Terminating"),
            ev(57.0, "pod[0]", "Failed", "Killed"),
            ev(57.0, "job", "Failed", "BackoffLimitExceeded"),
        ]
    );
    // Both first Pods' sidecars at 5 s, the replacement's at 35 s; its `main` never starts.
    assert_eq!(starts(&out, "init0"), vec![5.0, 5.0, 35.0]);
    assert_eq!(starts(&out, "main"), vec![10.0, 10.0]);
}

#[test]
fn init_containers_delay_the_pods_containers_by_a_start_up_each() {
    // Two init containers that complete at once, startupSeconds 20: `main` starts at 60 s
    // (20 s per container), so its 30 s run ends at 90 s and the Job completes then.
    let mut job = indexed_job(json!({"completions": 1, "parallelism": 1}));
    job["spec"]["template"]["spec"]["initContainers"] = json!([
        {"name": "init0", "image": "setup"}, {"name": "init1", "image": "setup"}]);
    let out = simulate(json!({
        "runFor": "10m", "startupSeconds": 20, "workload": job,
        "exits": [{"container": "main", "afterSeconds": 30, "exitCode": 0}],
    }));
    assert_eq!(starts(&out, "init0"), vec![20.0]);
    assert_eq!(starts(&out, "init1"), vec![40.0]);
    assert_eq!(starts(&out, "main"), vec![60.0]);
    assert_eq!(
        job_events(&out),
        vec![
            ev(0.0, "pod[0]", "Scheduled", "Scheduled"),
            ev(90.0, "pod[0]", "Succeeded", "Succeeded"),
            ev(90.0, "job", "SuccessCriteriaMet", "CompletionsReached"),
            ev(90.0, "job", "Complete", "CompletionsReached"),
        ]
    );
}

#[test]
fn each_nonindexed_job_of_a_jobset_has_its_own_slots() {
    // Two NonIndexed Jobs of one replicatedJob, one Pod each: both Pods are slot 0 of their own
    // Job (the oracle's harness first shared slots across the JobSet's Jobs and disagreed), so
    // the script for Job 1's slot 0 fails that Job at 40 s and the default failure policy fails
    // the JobSet.
    let mut rj = workers(2, Some(0));
    rj["template"]["spec"]["completionMode"] = json!("NonIndexed");
    let out = simulate(json!({
        "runFor": "10m", "workload": jobset(json!({"replicatedJobs": [rj]})),
        "exits": [
            {"replicatedJob": "workers", "jobIndex": 0, "podIndex": 0, "afterSeconds": 60, "exitCode": 0},
            {"replicatedJob": "workers", "jobIndex": 1, "podIndex": 0, "afterSeconds": 40, "exitCode": 1},
        ],
    }));
    let events = jobset_events(&out);
    assert!(
        events.contains(&ev(
            40.0,
            "train-workers-1",
            "Failed",
            "BackoffLimitExceeded"
        )),
        "{events:?}"
    );
    assert_eq!(events.last().unwrap().0, 40.0, "{events:?}");
    assert_eq!(events.last().unwrap().2, "Failed", "{events:?}");
    let failed_pods: Vec<_> = out["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "Failed" && e["object"].as_str().unwrap().starts_with("pod/"))
        .map(|e| (e["t"].as_f64().unwrap(), e["podIndex"].as_u64().unwrap()))
        .collect();
    assert_eq!(failed_pods, vec![(40.0, 0)]);
}

/// What the JobSet and Job controllers would do with these fields (wait for readiness, keep
/// Jobs suspended, restart in place) is not modelled: the simulator refuses them, naming the
/// field, instead of simulating the workload as if they were absent.
#[test]
fn fields_whose_behaviour_is_not_modelled_are_refused_by_name() {
    let jobset = |patch: Value| {
        let mut js = json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "js", "namespace": "default"},
            "spec": {"replicatedJobs": [
                {"name": "a", "replicas": 1, "template": {"spec": {"template": {"spec": {
                    "restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}},
                {"name": "b", "replicas": 1, "template": {"spec": {"template": {"spec": {
                    "restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}}]}});
        for (k, v) in patch.as_object().unwrap() {
            js["spec"][k] = v.clone();
        }
        js
    };
    let refusal = |workload: Value| {
        let r = restartkit::handle(restartkit::Request {
            op: "simulate".into(),
            input: json!({"scenario": {"runFor": "10m", "workload": workload}}),
        });
        match r {
            restartkit::Response::Error { errors, .. } => {
                assert_eq!(
                    errors[0].code.as_deref(),
                    Some("not-modelled"),
                    "{errors:?}"
                );
                errors[0].field.clone()
            }
            restartkit::Response::Ok { .. } => panic!("simulated a workload it cannot model"),
        }
    };
    assert_eq!(
        refusal(jobset(
            json!({"startupPolicy": {"startupPolicyOrder": "InOrder"}})
        )),
        "scenario.workload.spec.startupPolicy.startupPolicyOrder"
    );
    // InPlaceRestart, admitted (its gate on, the Jobs shaped as the webhook demands).
    let mut in_place =
        jobset(json!({"failurePolicy": {"maxRestarts": 1, "restartStrategy": "InPlaceRestart"}}));
    for rj in in_place["spec"]["replicatedJobs"].as_array_mut().unwrap() {
        let spec = &mut rj["template"]["spec"];
        spec["backoffLimit"] = json!(i32::MAX);
        spec["podReplacementPolicy"] = json!("Failed");
        spec["completions"] = json!(1);
        spec["parallelism"] = json!(1);
    }
    let r = restartkit::handle(restartkit::Request {
        op: "simulate".into(),
        input: json!({"scenario": {"runFor": "10m", "featureGates": {"InPlaceRestart": true},
            "workload": in_place}}),
    });
    let restartkit::Response::Error { errors, .. } = r else {
        panic!("simulated InPlaceRestart, which is not modelled")
    };
    assert_eq!(
        (errors[0].code.as_deref(), errors[0].field.as_str()),
        (
            Some("not-modelled"),
            "scenario.workload.spec.failurePolicy.restartStrategy"
        ),
        "{errors:?}"
    );
    assert_eq!(
        refusal(jobset(json!({"suspend": true}))),
        "scenario.workload.spec.suspend"
    );
    let mut depends = jobset(json!({}));
    depends["spec"]["replicatedJobs"][1]["dependsOn"] = json!([{"name": "a", "status": "Ready"}]);
    assert_eq!(
        refusal(depends),
        "scenario.workload.spec.replicatedJobs[1].dependsOn"
    );
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "default"},
        "spec": {"suspend": true, "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}});
    assert_eq!(refusal(job), "scenario.workload.spec.suspend");
    // A Pod's own deadline (the kubelet's DeadlineExceeded) is refused wherever the Pod spec is.
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "default"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "activeDeadlineSeconds": 60,
            "containers": [{"name": "c", "image": "i"}]}}}});
    assert_eq!(
        refusal(job),
        "scenario.workload.spec.template.spec.activeDeadlineSeconds"
    );
    let mut deadline = jobset(json!({}));
    deadline["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["activeDeadlineSeconds"] =
        json!(60);
    assert_eq!(
        refusal(deadline),
        "scenario.workload.spec.replicatedJobs[0].template.spec.template.spec.activeDeadlineSeconds"
    );
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
        "spec": {"activeDeadlineSeconds": 60, "containers": [{"name": "c", "image": "i"}]}});
    assert_eq!(refusal(pod), "scenario.workload.spec.activeDeadlineSeconds");
    // The defaults are modelled: AnyOrder, Recreate, suspend false are simulated.
    simulate(json!({"runFor": "10m", "workload": jobset(json!({
        "startupPolicy": {"startupPolicyOrder": "AnyOrder"}, "suspend": false,
        "failurePolicy": {"maxRestarts": 1, "restartStrategy": "Recreate"}}))}));
}

/// The oracle's scenario timeline-433, whose timelines upstream's Job controllers gave (v1.33.13
/// and v1.37.2): two Pods, a sidecar-like second container lost to a node failure (DisruptionTarget,
/// ignored), a counted failure later.
fn status_refusal_scenario(version: &str) -> Value {
    json!({
        "kubernetesVersion": version, "runFor": "1800s",
        // Found with the idealised node failure of the oracle's first timeline leg.
        "nodeLoss": {"idealisedInstantFailure": true},
        "exits": [
            {"container": "main", "podIndex": 0, "afterSeconds": 70, "exitCode": 3},
            {"container": "side", "podIndex": 0, "afterSeconds": 110, "exitCode": 1, "times": 2},
            {"container": "side", "podIndex": 0, "afterSeconds": 100, "exitCode": 0},
            {"container": "main", "podIndex": 1, "afterSeconds": 10, "exitCode": 42, "times": 1},
            {"container": "main", "podIndex": 1, "afterSeconds": 115, "exitCode": 0},
            {"container": "side", "podIndex": 1, "afterSeconds": 35, "exitCode": 137, "nodeFailure": true},
            {"podIndex": 2, "afterSeconds": 10, "exitCode": 1, "times": 1},
            {"podIndex": 2, "afterSeconds": 5, "exitCode": 42}
        ],
        "workload": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"},
            "spec": {"backoffLimit": 0, "completions": 3, "parallelism": 2, "podReplacementPolicy": "Failed",
                "podFailurePolicy": {"rules": [
                    {"action": "Count", "onExitCodes": {"operator": "In", "values": [3]}},
                    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]},
                "template": {"spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 45,
                    "containers": [{"name": "main", "image": "busybox"}, {"name": "side", "image": "busybox"}]}}}}
    })
}

fn times_of(out: &Value, event: &str) -> Vec<f64> {
    out["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == event)
        .map(|e| e["t"].as_f64().unwrap())
        .collect()
}

#[test]
fn up_to_1_35_a_held_back_replacement_gets_the_status_update_refused() {
    // 1.33: while the pod-failure back-off holds the replacement back, the Job controller writes
    // active 0 with a Pod still ready; the API server refuses it and the work queue retries
    // (1 s, 2 s, 4 s). The failure the policy ignored is never stored in the back-off record
    // (the sync that finally succeeds writes nothing), so the next replacement waits 10 s, not 20.
    let old = simulate(status_refusal_scenario("1.33"));
    assert_eq!(times_of(&old, "SyncError"), vec![35.0, 36.0, 38.0, 42.0]);
    let refused = old["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event"] == "SyncError")
        .unwrap();
    assert_eq!(
        refused["message"],
        "tracking status: adding uncounted pods to status: Job.batch \"job\" is invalid: status.ready: Invalid value: 1: cannot set more ready pods than active"
    );
    assert_eq!(times_of(&old, "Scheduled"), vec![0.0, 0.0, 45.0, 90.0]);
    // 1.37 (fixed in 1.36): no refusal, and the ignored failure counts in the back-off.
    let new = simulate(status_refusal_scenario("1.37"));
    assert!(times_of(&new, "SyncError").is_empty());
    assert_eq!(times_of(&new, "Scheduled"), vec![0.0, 0.0, 45.0, 100.0]);
}

#[test]
fn refused_syncs_leave_their_failures_to_the_next_back_off_record() {
    // The oracle's timeline-521 (seed 1, v1.32.13 to v1.34.4): Pod 1 fails for the fourth time
    // at 375 s while the back-off holds its replacement, so every sync is refused and none
    // stores the back-off record. At 405 s the taint manager deletes Pod 2 (its node lost at
    // 55 s, NotReady since 105 s): upstream's sync finds both failures again and builds the
    // record from them together, the last failure being Pod 1's at 375 s: 5 failures, 160 s,
    // both replacements at 535 s. Taking Pod 2's alone as the last failure (105 s) ended the
    // back-off at once.
    let out = simulate(json!({
        "kubernetesVersion": "1.34", "runFor": "1800s",
        "exits": [
            {"container": "main", "podIndex": 1, "afterSeconds": 55, "exitCode": 137, "times": 2},
            {"container": "main", "podIndex": 1, "afterSeconds": 75, "exitCode": 1, "times": 2},
            {"container": "main", "podIndex": 1, "afterSeconds": 45, "exitCode": 137, "nodeFailure": true},
            {"container": "side", "podIndex": 1, "afterSeconds": 100, "exitCode": 1, "times": 1},
            {"container": "side", "podIndex": 1, "afterSeconds": 40, "exitCode": 0, "times": 1},
            {"container": "side", "podIndex": 1, "afterSeconds": 45, "exitCode": 137},
            {"container": "main", "podIndex": 2, "afterSeconds": 55, "exitCode": 137, "times": 1, "nodeFailure": true},
            {"container": "main", "podIndex": 2, "afterSeconds": 80, "exitCode": 42},
            {"container": "side", "podIndex": 2, "afterSeconds": 55, "exitCode": 1},
            {"container": "main", "podIndex": 3, "afterSeconds": 60, "exitCode": 0},
            {"container": "side", "podIndex": 3, "afterSeconds": 45, "exitCode": 0}
        ],
        "workload": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"},
            "spec": {"completions": 4, "parallelism": 4,
                "template": {"spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 45,
                    "containers": [{"name": "main", "image": "busybox"}, {"name": "side", "image": "busybox"}]}}}}
    }));
    let scheduled = times_of(&out, "Scheduled");
    assert!(!scheduled.contains(&405.0), "{scheduled:?}");
    assert_eq!(
        scheduled.iter().filter(|t| **t == 535.0).count(),
        2,
        "{scheduled:?}"
    );
}

#[test]
fn a_refused_sync_writes_nothing_for_the_pod_updates_of_its_instant() {
    // 1.31 with JobManagedBy on (found by the oracle, seed 11, timeline-57): the Pod's containers
    // end at 50 s and its update and the Job's sync at that instant are one sync, which the API
    // server refuses (ready 1 > active 0). The status stays as written at 0 s (2 active, 2 ready),
    // so the sync that creates the replacement at 60 s writes (2 active, 1 ready) and stores the
    // ignored failure in the back-off record: after the second failure (110 s) the replacement
    // waits 20 s, as kube-controller-manager 1.31.13 makes it wait.
    let out = simulate(json!({
        "kubernetesVersion": "1.31", "runFor": "1800s",
        "featureGates": {"JobManagedBy": true},
        "exits": [{"podIndex": 0, "afterSeconds": 50, "exitCode": 3}],
        "workload": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"},
            "spec": {"activeDeadlineSeconds": 220, "backoffLimit": 2, "completions": 2, "parallelism": 2,
                "podFailurePolicy": {"rules": [{"action": "Ignore", "onExitCodes": {"operator": "In", "values": [3]}}]},
                "template": {"spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 5,
                    "containers": [{"name": "main", "image": "busybox"}, {"name": "side", "image": "busybox"}]}}}}
    }));
    assert_eq!(times_of(&out, "Scheduled"), vec![0.0, 0.0, 60.0, 130.0]);
    assert_eq!(
        times_of(&out, "SyncError"),
        vec![
            50.0, 51.0, 53.0, 57.0, 110.0, 111.0, 113.0, 117.0, 125.0, 180.0, 181.0, 183.0, 187.0,
            195.0, 211.0
        ]
    );
}

#[test]
fn a_pod_update_and_a_sync_of_one_instant_write_once_and_keep_the_back_off_record() {
    // 1.37 (found by the oracle, seed 11, timeline-1816): at 110 s a Pod the policy ignores
    // fails; its update and the Job's sync at that instant are one sync, which writes active 3
    // (was 4) and so stores the back-off record (2 failures, the last at 110 s). The replacement
    // waits 20 s, as kube-controller-manager 1.37.2 makes it wait, not 0 s.
    let out = simulate(json!({
        "kubernetesVersion": "1.37", "runFor": "1800s", "startupSeconds": 5,
        "nodeLoss": {"idealisedInstantFailure": true},
        "exits": [
            {"container": "main", "podIndex": 2, "afterSeconds": 70, "exitCode": 137, "times": 1, "nodeFailure": true},
            {"container": "main", "podIndex": 2, "afterSeconds": 110, "exitCode": 42},
            {"container": "main", "podIndex": 3, "afterSeconds": 95, "exitCode": 3, "times": 1},
            {"container": "main", "podIndex": 3, "afterSeconds": 120, "exitCode": 137, "times": 1, "nodeFailure": true},
            {"container": "main", "podIndex": 3, "afterSeconds": 80, "exitCode": 3}
        ],
        "workload": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"},
            "spec": {"backoffLimit": 2, "completions": 4, "parallelism": 4,
                "podFailurePolicy": {"rules": [
                    {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}},
                    {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [3]}},
                    {"action": "Count", "onPodConditions": [{"type": "DisruptionTarget"}]}]},
                "template": {"spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 5,
                    "initContainers": [{"name": "init0", "image": "busybox"}, {"name": "init1", "image": "busybox"}],
                    "containers": [{"name": "main", "image": "busybox"}]}}}}
    }));
    assert_eq!(
        times_of(&out, "Scheduled"),
        vec![0.0, 0.0, 0.0, 0.0, 95.0, 130.0]
    );
}

#[test]
fn all_pods_running_counts_only_the_time_every_slot_runs_on_a_live_node() {
    // Two workers: index 1 fails at 100 s and its replacement starts 10 s later (the Job's
    // back-off); index 0's node is lost at 200 s: its slot does no work until taint eviction
    // (not ready at 255 s, evicted 300 s later) lets the Job replace it at 555 s.
    let out = simulate(json!({
        "runFor": "10m",
        "workload": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"},
            "spec": {"completions": 2, "parallelism": 2, "completionMode": "Indexed", "backoffLimit": 3,
                "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]}}}},
        "exits": [
            {"podIndex": 1, "afterSeconds": 100, "exitCode": 1, "times": 1},
            {"podIndex": 0, "afterSeconds": 200, "exitCode": 137, "nodeFailure": true, "times": 1}
        ],
    }));
    assert_eq!(times_of(&out, "Scheduled"), vec![0.0, 0.0, 110.0, 555.0]);
    assert_eq!(out["summary"]["allPodsRunningSeconds"], 100.0 + 90.0 + 45.0);
}

#[test]
fn the_kubelets_housekeeping_drops_a_back_off_entry_unchanged_for_ten_minutes() {
    // Restarted at 316 s after five crashes (back-off now 300 s), the container runs 450 s and
    // fails at 766 s: not a run of more than 600 s, so the back-off holds it until 1,066 s. But
    // the entry was last updated at 316 s, and the housekeeping pass at 918 s (every 2 s, the
    // first more than 600 s later) deletes it: the kubelet restarts the container then, with a
    // fresh entry (the next failure waits 10 s).
    let out = simulate(json!({
        "kubernetesVersion": "1.37", "runFor": "20m",
        "workload": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"restartPolicy": "Always", "containers": [{"name": "c", "image": "busybox"}]}},
        "exits": [
            {"container": "c", "afterSeconds": 1, "exitCode": 1, "times": 6},
            {"container": "c", "afterSeconds": 450, "exitCode": 1, "times": 1},
            {"container": "c", "afterSeconds": 1, "exitCode": 1}
        ],
    }));
    assert_eq!(
        starts(&out, "c")[..9],
        [0.0, 1.0, 12.0, 33.0, 74.0, 155.0, 316.0, 918.0, 929.0]
    );
}

#[test]
fn a_node_deleted_while_it_waits_for_the_taint_still_spends_the_token() {
    // Three Pods lose their nodes at 20 s; all go Unknown at 75 s. The zone's queue taints one
    // node every 10 s (ties: in the order they were lost, here their Pods' creation): 75 s, 85 s, 95 s. With the Nodes
    // deleted 60 s after the loss (80 s), the first is tainted, the second's token is spent on
    // a Node gone, and nothing is left for the third.
    let scenario = |deleted: Option<f64>| {
        let mut s = json!({
            "runFor": "10m",
            "workload": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"},
                "spec": {"completions": 3, "parallelism": 3, "completionMode": "Indexed",
                    "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]}}}},
            "exits": [{"afterSeconds": 20, "exitCode": 137, "nodeFailure": true, "times": 1}],
        });
        if let Some(d) = deleted {
            s["nodeLoss"] = json!({"nodeDeletedAfterSeconds": d});
        }
        simulate(s)
    };
    let tainted = |out: &Value| times_of(out, "Tainted");
    assert_eq!(tainted(&scenario(None)), vec![75.0, 85.0, 95.0]);
    assert_eq!(tainted(&scenario(Some(60.0))), vec![75.0]);
}

#[test]
fn a_sidecar_that_restarts_starts_nothing_else_and_the_pod_is_pending_until_its_containers_start() {
    // Found by the oracle's Pod leg (the real kubelet, 1.37): a restarted sidecar does not start
    // the containers after it again; the Pod is Pending while its init containers run.
    let out = simulate(json!({
        "kubernetesVersion": "1.37", "runFor": "10m",
        "workload": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"restartPolicy": "Always",
                "initContainers": [{"name": "side", "image": "busybox", "restartPolicy": "Always"}, {"name": "init", "image": "busybox"}],
                "containers": [{"name": "main", "image": "busybox"}]}},
        "exits": [
            {"container": "side", "afterSeconds": 30, "exitCode": 0},
            {"container": "init", "afterSeconds": 5, "exitCode": 0}
        ],
    }));
    assert_eq!(starts(&out, "init"), vec![0.0]);
    assert_eq!(starts(&out, "main"), vec![5.0]);
    // Exit 0 or not, a sidecar restarts with the back-off: at once, then 10 s after its exit.
    assert_eq!(starts(&out, "side")[..3], [0.0, 30.0, 70.0]);
    let stuck = simulate(json!({
        "kubernetesVersion": "1.37", "runFor": "10m",
        "workload": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"restartPolicy": "Always",
                "initContainers": [{"name": "init", "image": "busybox"}],
                "containers": [{"name": "main", "image": "busybox"}]}},
        "exits": [{"container": "init", "afterSeconds": 5, "exitCode": 1}],
    }));
    assert_eq!(stuck["pods"][0]["phase"], "Pending");
}

#[test]
fn restart_all_containers_acts_after_the_instants_other_exits_and_counts_at_the_reset() {
    // Found by the oracle's Pod leg (1.37, pod-timeline-172): c0's RestartAllContainers rule and
    // c1's exit at the same instant (the kubelet's sync sees both); the removed containers'
    // restart counts go up at the reset, so a Pod whose init container then crash-loops shows
    // them counted although they never start again.
    let out = simulate(json!({
        "kubernetesVersion": "1.37", "runFor": "10m",
        "workload": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"restartPolicy": "OnFailure",
                "initContainers": [{"name": "init", "image": "busybox"}],
                "containers": [
                    {"name": "c0", "image": "busybox", "restartPolicy": "Always",
                     "restartPolicyRules": [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [1]}}]},
                    {"name": "c1", "image": "busybox"}]}},
        "exits": [
            {"container": "init", "afterSeconds": 1, "exitCode": 0, "times": 1},
            {"container": "init", "afterSeconds": 1, "exitCode": 3},
            {"container": "c0", "afterSeconds": 5, "exitCode": 1},
            {"container": "c1", "afterSeconds": 5, "exitCode": 0}
        ],
    }));
    let at6: Vec<(String, String)> = out["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["t"] == 6.0)
        .map(|e| {
            (
                e["event"].as_str().unwrap().to_owned(),
                e["container"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert!(at6.contains(&("Terminated".into(), "c1".into())), "{at6:?}");
    assert_eq!(
        at6.iter().filter(|e| e.0 == "RestartAllContainers").count(),
        1
    );
    let counts: Vec<(String, u64)> = out["pods"][0]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_owned(),
                c["restartCount"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(
        counts.contains(&("c0".into(), 1)) && counts.contains(&("c1".into(), 1)),
        "{counts:?}"
    );
}

fn sidecar_pod(
    version: &str,
    policy: &str,
    sidecars: &[&str],
    exits: Value,
    run_for: &str,
) -> Value {
    let init: Vec<Value> = sidecars
        .iter()
        .map(|n| json!({"name": n, "image": "busybox", "restartPolicy": "Always"}))
        .collect();
    simulate(json!({
        "kubernetesVersion": version, "runFor": run_for,
        "workload": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"restartPolicy": policy, "initContainers": init,
                "containers": [{"name": "main", "image": "busybox"}]}},
        "exits": exits,
    }))
}

#[test]
fn up_to_1_36_a_container_that_stops_while_the_last_sidecar_waits_restarts_with_it() {
    // Found by the oracle's Pod leg (1.31-1.36): the sidecar crashes at 20 s and 40 s and waits
    // 10 s; main exits at 45 s. Up to 1.36 the kubelet counts the Pod initialized only while a
    // regular container runs or the last init container is done, so main restarts with the
    // sidecar at 50 s; from 1.37 (a regular container has started in the sandbox) at once.
    let exits = json!([
        {"container": "side", "afterSeconds": 20, "exitCode": 1, "times": 3},
        {"container": "main", "afterSeconds": 45, "exitCode": 0, "times": 1}
    ]);
    for (version, main) in [("1.31", 50.0), ("1.36", 50.0), ("1.37", 45.0)] {
        let out = sidecar_pod(version, "Always", &["side"], exits.clone(), "5m");
        assert_eq!(starts(&out, "main"), vec![0.0, main], "{version}");
        assert_eq!(
            starts(&out, "side")[..4],
            [0.0, 20.0, 50.0, 90.0],
            "{version}"
        );
    }
}

#[test]
fn up_to_1_36_a_running_sidecar_keeps_the_pod_until_the_last_sidecar_starts_again() {
    // restartPolicy Never: main fails at 12 s while side1 waits in its back-off (until 20 s)
    // and side0 runs. getPhase says Running (a sidecar runs) and the sync does not kill the
    // Pod before it counts as initialized: it fails when side1 starts again. From 1.37 at once.
    let exits = json!([
        {"container": "side1", "afterSeconds": 5, "exitCode": 1, "times": 2},
        {"container": "main", "afterSeconds": 12, "exitCode": 1, "times": 1}
    ]);
    for (version, end) in [("1.31", 20.0), ("1.37", 12.0)] {
        let out = sidecar_pod(version, "Never", &["side0", "side1"], exits.clone(), "5m");
        assert_eq!(times_of(&out, "Failed"), vec![end], "{version}");
        assert_eq!(out["pods"][0]["phase"], "Failed");
    }
}

#[test]
fn up_to_1_32_a_pod_whose_containers_wait_in_back_off_beside_a_sidecar_is_pending() {
    // main crash-loops; the sidecar's exit at 100 s makes the kubelet sync while main waits
    // (refused at 85 s). Up to 1.32 getPhase counts the running sidecar as initializing (its
    // `started` is set only after) and main, Waiting, as not started: Pending. From 1.33 Running.
    let exits = json!([
        {"container": "side", "afterSeconds": 100, "exitCode": 1, "times": 1},
        {"container": "main", "afterSeconds": 3, "exitCode": 1}
    ]);
    for (version, phase) in [
        ("1.31", "Pending"),
        ("1.32", "Pending"),
        ("1.33", "Running"),
    ] {
        let out = sidecar_pod(version, "Always", &["side"], exits.clone(), "2m");
        assert_eq!(out["pods"][0]["phase"], phase, "{version}");
    }
    // Without a sync after the refusal the status still shows main Terminated: Running.
    let quiet = json!([{"container": "main", "afterSeconds": 3, "exitCode": 1}]);
    let out = sidecar_pod("1.31", "Always", &["side"], quiet, "2m");
    assert_eq!(out["pods"][0]["phase"], "Running");
}

#[test]
fn a_sidecar_run_of_0_s_is_seen_running_by_the_syncs_that_started_it() {
    // Found by the oracle's Pod leg (1.34, pod-timeline-1890): at 30 s main exits and the
    // sidecar's back-off ends; its run lasts 0 s. The syncs that start the sidecar see it
    // running, so main restarts at once with it (its first restart); the sidecar's exit comes
    // after them (and waits 20 s).
    let exits = json!([
        {"container": "side", "afterSeconds": 20, "exitCode": 1, "times": 1},
        {"container": "side", "afterSeconds": 0, "exitCode": 1, "times": 2},
        {"container": "main", "afterSeconds": 30, "exitCode": 1, "times": 1}
    ]);
    let out = sidecar_pod("1.34", "Always", &["side"], exits, "2m");
    assert_eq!(starts(&out, "side"), vec![0.0, 20.0, 30.0, 50.0]);
    assert_eq!(starts(&out, "main"), vec![0.0, 30.0]);
}

#[test]
fn a_pod_reset_for_ever_at_one_instant_is_refused_not_run_for_ever() {
    // Runs of 0 s that end in a RestartAllContainers reset: no back-off applies to a reset, so
    // the Pod never leaves t = 5 s (the oracle's harness stops the real kubelet there too).
    let err = simulate_err(json!({
        "kubernetesVersion": "1.37", "runFor": "10m",
        "workload": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"restartPolicy": "Always", "containers": [
                {"name": "main", "image": "busybox", "restartPolicy": "Never",
                 "restartPolicyRules": [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [3]}}]}]}},
        "exits": [
            {"container": "main", "afterSeconds": 5, "exitCode": 3, "times": 1},
            {"container": "main", "afterSeconds": 0, "exitCode": 3}
        ],
    }));
    assert!(err.contains("no-progress"), "{err}");
    assert!(err.contains("t=5s"), "{err}");
    // A bounded number of such runs is simulated.
    let out = simulate(json!({
        "kubernetesVersion": "1.37", "runFor": "10m",
        "workload": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"restartPolicy": "Always", "containers": [
                {"name": "main", "image": "busybox", "restartPolicy": "Never",
                 "restartPolicyRules": [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [3]}}]}]}},
        "exits": [
            {"container": "main", "afterSeconds": 5, "exitCode": 3, "times": 1},
            {"container": "main", "afterSeconds": 0, "exitCode": 3, "times": 3}
        ],
    }));
    assert_eq!(times_of(&out, "RestartAllContainers"), vec![5.0; 4]);
}

#[test]
fn a_back_off_entry_the_housekeeping_will_drop_still_holds_until_it_does() {
    // Found by the oracle's Pod leg (1.37, pod-timeline-6724 of 10,000): c0's entry (80 s, last
    // updated at 74 s) is dropped at the housekeeping pass of 676 s. c0 fails at 634 s; the
    // reset at 650 s pre-empts its restart; it fails again at 655 s, and the entry, still
    // there, refuses it until that pass.
    let out = simulate(json!({
        "kubernetesVersion": "1.37", "runFor": "15m",
        "workload": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"restartPolicy": "Always", "containers": [
                {"name": "c0", "image": "busybox"},
                {"name": "c1", "image": "busybox", "restartPolicy": "Never",
                 "restartPolicyRules": [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [3]}}]}]}},
        "exits": [
            {"container": "c0", "afterSeconds": 1, "exitCode": 1, "times": 4},
            {"container": "c0", "afterSeconds": 560, "exitCode": 1, "times": 1},
            {"container": "c0", "afterSeconds": 5, "exitCode": 1, "times": 1},
            {"container": "c1", "afterSeconds": 650, "exitCode": 3, "times": 1}
        ],
    }));
    assert_eq!(
        starts(&out, "c0"),
        vec![0.0, 1.0, 12.0, 33.0, 74.0, 650.0, 676.0]
    );
}

fn restart_count(out: &Value, container: &str) -> u64 {
    out["pods"][0]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == container)
        .and_then(|c| c["restartCount"].as_u64())
        .unwrap()
}

#[test]
fn restart_counts_at_a_reset_follow_the_status_the_kubelet_shows() {
    // Found by the oracle's Pod leg (1.37, pod-timeline-7942 and 4234 of 10,000). A sidecar
    // that exited 0 shows Terminated even while its back-off refuses it (the status conversion
    // skips init containers that exited 0), so the reset at 20 s counts it: 3.
    let rule =
        json!([{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [3]}}]);
    let out = simulate(json!({
        "kubernetesVersion": "1.37", "runFor": "1m",
        "workload": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"restartPolicy": "Always",
                "initContainers": [{"name": "init0", "image": "busybox"}, {"name": "side", "image": "busybox", "restartPolicy": "Always"}],
                "containers": [{"name": "c0", "image": "busybox", "restartPolicy": "Never", "restartPolicyRules": rule}]}},
        "exits": [
            {"container": "init0", "afterSeconds": 1, "exitCode": 0, "times": 1},
            {"container": "init0", "afterSeconds": 100, "exitCode": 0, "times": 1},
            {"container": "side", "afterSeconds": 2, "exitCode": 0, "times": 3},
            {"container": "c0", "afterSeconds": 20, "exitCode": 3, "times": 1}
        ],
    }));
    assert_eq!(restart_count(&out, "side"), 3);
    // A container removed by a reset and not started since shows Waiting: a second reset at
    // the same instant (init0 fails at once with a RestartAllContainers code) counts c0 once.
    let out = simulate(json!({
        "kubernetesVersion": "1.37", "runFor": "2m",
        "workload": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"restartPolicy": "Always",
                "initContainers": [{"name": "init0", "image": "busybox", "restartPolicy": "OnFailure", "restartPolicyRules": rule}],
                "containers": [{"name": "c0", "image": "busybox"},
                    {"name": "c1", "image": "busybox", "restartPolicy": "Never", "restartPolicyRules": rule}]}},
        "exits": [
            {"container": "init0", "afterSeconds": 5, "exitCode": 0, "times": 1},
            {"container": "init0", "afterSeconds": 0, "exitCode": 3, "times": 1},
            {"container": "c1", "afterSeconds": 10, "exitCode": 3, "times": 1}
        ],
    }));
    assert_eq!(times_of(&out, "RestartAllContainers"), vec![15.0, 15.0]);
    assert_eq!(restart_count(&out, "c0"), 1);
    assert_eq!(restart_count(&out, "c1"), 1);
}

/// A Pod whose app completes at 900 s beside a sidecar that crash-loops (issue 42, item 5).
fn sidecar_done_at_900(kind: &str) -> Value {
    let spec = json!({"restartPolicy": "Never",
        "initContainers": [{"name": "log-shipper", "image": "shipper", "restartPolicy": "Always"}],
        "containers": [{"name": "app", "image": "web"}]});
    let workload = if kind == "Pod" {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"}, "spec": spec})
    } else {
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "web", "namespace": "default"},
               "spec": {"backoffLimit": 0, "template": {"spec": spec}}})
    };
    json!({
        "kubernetesVersion": "1.35", "runFor": "1h", "workload": workload,
        "exits": [{"container": "log-shipper", "afterSeconds": 5, "exitCode": 1},
                  {"container": "app", "afterSeconds": 900, "exitCode": 0}],
    })
}

#[test]
fn a_sidecars_pending_backoff_is_not_counted_after_its_pod_ended() {
    // The sidecar runs 5 s at a time and, when the app completes at 900 s, waits in its
    // back-off for a restart at 950 s: the Pod ends at 900 s. Before, the queued restart made
    // the run end at 950 s and counted the sidecar's whole wait: 950 s simulated, 910 s lost.
    let out = simulate(sidecar_done_at_900("Pod"));
    let last = out["timeline"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (last["t"].as_f64(), last["event"].as_str()),
        (Some(900.0), Some("Succeeded"))
    );
    let s = &out["summary"];
    assert_eq!(s["endSeconds"], 900.0, "{s}");
    // Lost: every second of the 900 the sidecar did not run (7 runs of 5 s), nothing after.
    let runs = starts(&out, "log-shipper").len() as f64;
    assert_eq!(
        s["timeLostSeconds"].as_f64(),
        Some(900.0 - 5.0 * runs),
        "{s}"
    );
    assert_eq!(out["pods"][0]["phase"], "Succeeded");

    // The same Pod as a Job's: the Job completes at 900 s, and so does the run.
    let out = simulate(sidecar_done_at_900("Job"));
    assert_eq!(out["jobs"][0]["phase"], "Complete");
    assert_eq!(out["summary"]["endSeconds"], 900.0);
    assert_eq!(
        out["summary"]["timeLostSeconds"].as_f64(),
        Some(900.0 - 5.0 * runs)
    );
}

#[test]
fn a_finished_pod_with_a_fault_still_queued_ends_the_run_when_it_ends() {
    // The fault process of a Pod that has completed is still in the queue; the run ends with
    // the Pod, not when that fault would have come.
    let out = simulate(json!({
        "runFor": "30d", "seed": 3,
        "workload": pod("Never", json!({"name": "app", "image": "busybox"})),
        "exits": [{"container": "app", "afterSeconds": 60, "exitCode": 0}],
        "faults": [{"kind": "containerExit", "ratePerHour": 0.01, "exitCodes": [1]}],
    }));
    assert_eq!(out["summary"]["faults"], 0);
    assert_eq!(out["summary"]["endSeconds"], 60.0);
    assert_eq!(out["summary"]["timeLostSeconds"], 0.0);
}

/// A JobSet of one Job of 2 Pods whose every exit 42 is ignored and replaced (3 times per
/// index), then exit 1 fails the Job (backoffLimit 0) and restarts the JobSet.
fn replaced_then_restarted(max_timeline: u64) -> Value {
    json!({
        "runFor": "2h", "startupSeconds": 5, "podRescheduleSeconds": 10, "maxTimelineEvents": max_timeline,
        "workload": jobset(json!({"failurePolicy": {"maxRestarts": 1}, "replicatedJobs": [{"name": "workers", "replicas": 1,
            "template": {"spec": {"backoffLimit": 0, "parallelism": 2, "completions": 2, "completionMode": "Indexed",
                "podFailurePolicy": {"rules": [{"action": "Ignore", "onExitCodes": {"containerName": "main", "operator": "In", "values": [42]}}]},
                "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "trainer"}]}}}}}]})),
        "exits": [{"container": "main", "afterSeconds": 100, "exitCode": 42, "times": 3},
                  {"container": "main", "podIndex": 0, "afterSeconds": 100, "exitCode": 1, "times": 1}],
    })
}

#[test]
fn a_jobset_restart_deletes_every_replaced_pod_in_creation_order() {
    // The replaced Pods' slots are used again while the Job lives on; its deletion still
    // deletes each of them, in creation order, as the garbage collector does.
    let out = simulate(replaced_then_restarted(10_000));
    let timeline = out["timeline"].as_array().unwrap();
    let restart = timeline
        .iter()
        .find(|e| e["event"] == "Restarting")
        .map(|e| e["t"].as_f64().unwrap())
        .unwrap();
    let pods_of = |event: &str, at: f64| -> Vec<(String, u64)> {
        timeline
            .iter()
            .filter(|e| e["event"] == event && e["object"].as_str().unwrap().starts_with("pod/"))
            .filter(|e| e["t"].as_f64() == Some(at))
            .map(|e| {
                (
                    e["object"].as_str().unwrap().to_owned(),
                    e["podIndex"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    // Each index: three Pods ignored and replaced; index 0's fourth fails the Job, which
    // deletes index 1's fourth (pod 7) at once. The restart deletes the rest, 0 to 6.
    let expected: Vec<(String, u64)> = (0..7)
        .map(|i| (format!("pod/default/train-workers-0-{}-{i}", i % 2), i % 2))
        .collect();
    assert_eq!(pods_of("Deleted", restart), expected);
    assert_eq!(out["summary"]["podsCreated"], 10);
    assert_eq!(out["summary"]["events"], timeline.len() as u64);

    // A short timeline keeps the same count of events, and the same summary otherwise.
    let short = simulate(replaced_then_restarted(5));
    let (mut a, mut b) = (out["summary"].clone(), short["summary"].clone());
    assert_eq!(b["timelineTruncated"], true);
    a["timelineTruncated"] = json!(true);
    b["timelineTruncated"] = json!(true);
    assert_eq!(a, b);
    assert_eq!(out["pods"], short["pods"]);
    assert_eq!(out["jobs"], short["jobs"]);
}

/// A preempted or evicted Pod gets DisruptionTarget, is deleted with its grace period and killed
/// at its end (137): an Ignore rule on DisruptionTarget keeps it off the backoff limit, and
/// without one it counts (kubernetes#130881's drained and preempted Pods).
#[test]
fn a_preempted_or_evicted_pod_is_disrupted_then_killed_at_the_end_of_its_grace_period() {
    let ignore =
        json!({"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]});
    for by in ["PreemptionByScheduler", "EvictionByEvictionAPI"] {
        let run = |pfp: Value| {
            simulate(json!({
                "runFor": "10m", "startupSeconds": 5,
                "workload": job(pfp, 0),
                "exits": [{"afterSeconds": 60, "exitCode": 0, "times": 1, "disruption": by}],
            }))
        };
        let out = run(ignore.clone());
        let pod_events: Vec<(f64, String, String)> = out["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["object"] == "pod/ml/train-0-0")
            .map(|e| {
                (
                    e["t"].as_f64().unwrap(),
                    e["event"].as_str().unwrap().to_owned(),
                    e["reason"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let event = if by == "PreemptionByScheduler" {
            "Preempted"
        } else {
            "Evicted"
        };
        assert!(
            pod_events.contains(&(65.0, event.to_owned(), by.to_owned())),
            "{pod_events:?}"
        );
        assert!(
            pod_events.contains(&(65.0, "Deleted".to_owned(), "Terminating".to_owned())),
            "{pod_events:?}"
        );
        // Killed 30 s later (the default grace period): the Job ignores it and replaces it.
        assert_eq!(out["jobs"][0]["failed"], 0, "{}", out["jobs"]);
        assert_eq!(out["jobs"][0]["phase"], "Running", "{}", out["jobs"]);
        assert_eq!(out["summary"]["podsReplaced"], 1, "{}", out["summary"]);
        // Without the rule the disrupted Pod spends the backoff limit of 0.
        let counted = run(Value::Null);
        assert_eq!(counted["jobs"][0]["phase"], "Failed", "{}", counted["jobs"]);
        assert_eq!(counted["jobs"][0]["reason"], "BackoffLimitExceeded");
    }
    // A run that is both a node failure and a disruption is refused by name.
    let err = simulate_err(json!({"runFor": "10m", "workload": job(Value::Null, 0),
        "exits": [{"afterSeconds": 60, "exitCode": 0, "nodeFailure": true, "disruption": "PreemptionByScheduler"}]}));
    assert!(err.contains("scenario.exits[0].disruption"), "{err}");
    let err = simulate_err(json!({"runFor": "10m", "workload": job(Value::Null, 0),
        "exits": [{"afterSeconds": 60, "exitCode": 0, "disruption": "Drain"}]}));
    assert!(err.contains("Drain"), "{err}");
}

/// The preemption and eviction faults disrupt running Pods at their rate: with an Ignore rule
/// the Job never spends its backoff limit of 0 on them.
#[test]
fn preemption_and_eviction_faults_disrupt_running_pods() {
    for kind in ["preemption", "eviction"] {
        let out = simulate(json!({
            "runFor": "2h", "seed": 5,
            "workload": job(json!({"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}), 0),
            "faults": [{"kind": kind, "ratePerHour": 6}],
        }));
        let event = if kind == "preemption" {
            "Preempted"
        } else {
            "Evicted"
        };
        let disrupted = out["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["event"] == event)
            .count() as u64;
        assert!(disrupted >= 3, "{kind}: {}", out["summary"]);
        // Each disrupted Pod is replaced once its back-off allows (the last one's may fall past
        // the run's end: the ignored failures still grow the back-off, kubernetes#130881).
        let replaced = out["summary"]["podsReplaced"].as_u64().unwrap();
        assert!(
            replaced + 1 >= disrupted && replaced <= disrupted,
            "{}",
            out["summary"]
        );
        assert_eq!(out["jobs"][0]["phase"], "Running");
        assert_eq!(out["jobs"][0]["failed"], 0);
    }
}
