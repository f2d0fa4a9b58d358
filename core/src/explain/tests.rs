#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use super::*;
use crate::backoff::job::{new_backoff_record, parse_rfc3339, remaining_for_failures};
use crate::backoff::kubelet::StepReason;
use crate::eval::kubelet::DecidedBy;
use serde_json::{Value, json};

fn input(objects: Value, version: &str, now: Option<&str>) -> ExplainInput {
    ExplainInput {
        objects: Some(objects),
        source: None,
        file_name: None,
        kubernetes_version: Some(version.to_owned()),
        feature_gates: None,
        kubelet_config: None,
        now: now.map(str::to_owned),
        text: false,
    }
}

/// `text: true` adds the text `restartkit explain` prints, rendered from the same answers.
#[test]
fn the_text_comes_on_request_and_says_the_answers() {
    let plain = run(input(crashloop_pod(), "1.31", Some("2026-03-02T10:01:00Z"))).unwrap();
    assert_eq!(plain.text, None);
    let mut with_text = input(crashloop_pod(), "1.31", Some("2026-03-02T10:01:00Z"));
    with_text.text = true;
    let out = run(with_text).unwrap();
    let text = out.text.clone().unwrap();
    assert_eq!(text, super::text::render(&plain));
    assert!(
        text.starts_with("Kubernetes 1.31 · now 2026-03-02T10:01:00Z (given) · CrashLoopBackOff 10s doubling to 300s"),
        "{text}"
    );
    assert!(
        text.contains("next restart at 2026-03-02T10:05:05Z (in 245s)"),
        "{text}"
    );
}

/// A Deployment's Pod in CrashLoopBackOff: restartCount 6, the last run 10:00:04 → 10:00:05,
/// exit 1.
pub(super) fn crashloop_pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-7d9f8b6c5-x2x4q", "namespace": "shop",
            "creationTimestamp": "2026-03-02T09:55:00Z",
            "labels": {"app": "web", "pod-template-hash": "7d9f8b6c5"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "name": "web-7d9f8b6c5", "uid": "1", "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"restartPolicy": "Always", "containers": [{"name": "web", "image": "shop/web:1.4"}]},
        "status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": "2026-03-02T10:00:05Z"}],
            "containerStatuses": [{"name": "web", "ready": false, "restartCount": 6, "image": "shop/web:1.4",
                "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container=web"}},
                "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
                    "startedAt": "2026-03-02T10:00:04Z", "finishedAt": "2026-03-02T10:00:05Z"}}}]}
    })
}

fn failed_pod(name: &str, finished: &str, exit_code: i32, disrupted: bool) -> Value {
    let mut conditions =
        vec![json!({"type": "Ready", "status": "False", "lastTransitionTime": finished})];
    if disrupted {
        conditions.push(
            json!({"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
            "message": "Eviction API: evicting", "lastTransitionTime": finished}),
        );
    }
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml", "creationTimestamp": "2026-03-02T08:00:00Z",
            "labels": {"batch.kubernetes.io/job-name": "sweep-lr", "job-name": "sweep-lr"},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "sweep-lr", "uid": "j", "controller": true}]},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "train", "image": "ml/train:2"}]},
        "status": {"phase": "Failed", "conditions": conditions,
            "containerStatuses": [{"name": "train", "restartCount": 0,
                "state": {"terminated": {"exitCode": exit_code, "reason": "Error",
                    "startedAt": "2026-03-02T08:00:05Z", "finishedAt": finished}}}]}
    })
}

/// A Job with backoffLimit 3 and podFailurePolicy Ignore on DisruptionTarget, two failed Pods:
/// one exited 1 (counted), one evicted by a drain (ignored).
pub(super) fn job_objects() -> Value {
    json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "batch/v1", "kind": "Job",
         "metadata": {"name": "sweep-lr", "namespace": "ml", "creationTimestamp": "2026-03-02T08:00:00Z"},
         "spec": {"backoffLimit": 3, "completions": 1, "parallelism": 1,
            "podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]},
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "train", "image": "ml/train:2"}]}}},
         "status": {"failed": 1, "active": 0, "startTime": "2026-03-02T08:00:00Z"}},
        failed_pod("sweep-lr-abcde", "2026-03-02T09:00:10Z", 1, false),
        failed_pod("sweep-lr-fghij", "2026-03-02T09:05:00Z", 137, true),
    ]})
}

/// A JobSet with maxRestarts 3 that restarted once.
pub(super) fn jobset_objects() -> Value {
    json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
         "metadata": {"name": "pretrain", "namespace": "ml", "creationTimestamp": "2026-03-02T02:00:00Z"},
         "spec": {"failurePolicy": {"maxRestarts": 3},
            "replicatedJobs": [{"name": "workers", "replicas": 2, "template": {"spec": {"backoffLimit": 0,
                "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "w", "image": "ml/pt:1"}]}}}}}]},
         "status": {"restarts": 1, "restartsCountTowardsMax": 1,
            "conditions": [], "replicatedJobsStatus": [{"name": "workers", "ready": 2, "active": 2, "failed": 0, "succeeded": 0, "suspended": 0}]}},
        {"apiVersion": "batch/v1", "kind": "Job",
         "metadata": {"name": "pretrain-workers-0", "namespace": "ml", "creationTimestamp": "2026-03-02T03:10:00Z",
            "labels": {"jobset.sigs.k8s.io/jobset-name": "pretrain", "jobset.sigs.k8s.io/replicatedjob-name": "workers",
                "jobset.sigs.k8s.io/restart-attempt": "1"},
            "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "pretrain", "uid": "s", "controller": true}]},
         "spec": {"backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "w", "image": "ml/pt:1"}]}}},
         "status": {"active": 1, "startTime": "2026-03-02T03:10:00Z"}}
    ]})
}

#[test]
fn crashloop_pod_next_restart_is_the_kubelet_curve() {
    let out = run(input(crashloop_pod(), "1.31", Some("2026-03-02T10:01:00Z"))).unwrap();
    assert_eq!(out.workloads.len(), 1);
    let w = &out.workloads[0];
    assert_eq!(
        (w.kind.as_str(), w.name.as_str(), w.present),
        ("ReplicaSet", "web-7d9f8b6c5", false)
    );
    let c = &w.pods[0].containers[0];
    assert_eq!(c.restart_count, 6);
    let t = c.last_termination.as_ref().unwrap();
    assert_eq!((t.exit_code, t.signal), (1, None));
    let d = c.decision.as_ref().unwrap();
    assert_eq!(d.action, "Restart");
    assert_eq!(d.decided_by, DecidedBy::Legacy);
    // The engine's curve at 1.31 (10 s doubling to 300 s): the 7th restart waits delays[6].
    let (gates, _) = FeatureGates::resolve(Some("1.31"), None).unwrap();
    let setup = kubelet_backoff::kubelet_setup(&gates, None).unwrap();
    let want = kubelet_backoff::delays(setup.initial, setup.max, 7)[6];
    assert_eq!(want, Duration::from_secs(300));
    let b = c.crash_loop_back_off.as_ref().unwrap();
    assert_eq!(b.delay_seconds, want.as_secs_f64());
    assert_eq!(b.why, StepReason::BackOff);
    assert_eq!(b.next_restart_at.as_deref(), Some("2026-03-02T10:05:05Z"));
    assert_eq!(b.next_restart_in_seconds, Some(245.0));
    assert_eq!(b.following_delay_seconds, 300.0);
}

#[test]
fn crashloop_curve_follows_the_minor_and_the_kubelet_config() {
    // With ReduceDefaultCrashLoopBackOffDecay (KEP-4603) the same restartCount waits less:
    // 1 s doubling to 60 s, the 7th restart 32 s.
    let mut i = input(crashloop_pod(), "1.35", Some("2026-03-02T10:01:00Z"));
    i.feature_gates = Some([("ReduceDefaultCrashLoopBackOffDecay".to_owned(), true)].into());
    let out = run(i).unwrap();
    let b = out.workloads[0].pods[0].containers[0]
        .crash_loop_back_off
        .clone()
        .unwrap();
    assert_eq!(b.delay_seconds, 32.0);
    assert_eq!(b.next_restart_at.as_deref(), Some("2026-03-02T10:00:37Z"));
    assert_eq!(b.next_restart_in_seconds, Some(-23.0));
    // A node's maxContainerRestartPeriod (KubeletCrashLoopBackOffMax) caps it.
    let mut i = input(crashloop_pod(), "1.35", Some("2026-03-02T10:01:00Z"));
    i.feature_gates = Some([("KubeletCrashLoopBackOffMax".to_owned(), true)].into());
    i.kubelet_config = Some(Box::new(
        serde_json::from_value(
            json!({"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
            "crashLoopBackOff": {"maxContainerRestartPeriod": "45s"}}),
        )
        .unwrap(),
    ));
    let out = run(i).unwrap();
    let b = out.workloads[0].pods[0].containers[0]
        .crash_loop_back_off
        .clone()
        .unwrap();
    assert_eq!(b.delay_seconds, 45.0);
}

#[test]
fn a_last_run_over_ten_minutes_resets_the_curve() {
    let mut pod = crashloop_pod();
    pod["status"]["containerStatuses"][0]["lastState"]["terminated"]["startedAt"] =
        json!("2026-03-02T09:40:00Z");
    let out = run(input(pod, "1.31", None)).unwrap();
    let b = out.workloads[0].pods[0].containers[0]
        .crash_loop_back_off
        .clone()
        .unwrap();
    assert_eq!((b.delay_seconds, b.why), (0.0, StepReason::Expired));
    // now defaults to the newest timestamp: the finishedAt.
    assert_eq!(out.now, "2026-03-02T10:00:05Z");
    assert_eq!(out.now_from, "newestTimestamp");
}

#[test]
fn job_failed_pods_matched_counted_and_creation_back_off() {
    let out = run(input(job_objects(), "1.37", Some("2026-03-02T09:05:10Z"))).unwrap();
    assert_eq!(out.workloads.len(), 1, "{out:#?}");
    let w = &out.workloads[0];
    assert_eq!((w.kind.as_str(), w.name.as_str()), ("Job", "sweep-lr"));
    let j = &w.jobs[0];
    assert_eq!(
        (j.backoff_limit, j.failed, j.failures_left),
        (3, 1, Some(2))
    );
    let counted = j.pods[0].failure.as_ref().unwrap();
    assert_eq!((counted.rule_index, counted.counted), (None, true));
    let ignored = j.pods[1].failure.as_ref().unwrap();
    assert_eq!(
        (
            ignored.rule_index,
            ignored.action.as_deref(),
            ignored.counted
        ),
        (Some(0), Some("Ignore"), false)
    );
    // The engine's back-off record holds both failures (Ignore included), the last at 09:05:00.
    let t = |s: &str| parse_rfc3339(s).unwrap();
    let (n, last) = new_backoff_record(
        (0, None),
        &[],
        &[t("2026-03-02T09:00:10Z"), t("2026-03-02T09:05:00Z")],
    );
    assert_eq!((n, last), (2, Some(t("2026-03-02T09:05:00Z"))));
    let delay = remaining_for_failures(10_000_000_000, 600_000_000_000, n, 0);
    let b = j.pod_creation_back_off.as_ref().unwrap();
    assert_eq!((b.failures, b.delay_seconds), (2, seconds(delay)));
    assert_eq!(b.delay_seconds, 20.0);
    assert_eq!(b.next_pod_at, "2026-03-02T09:05:20Z");
    assert_eq!(b.next_pod_in_seconds, 10.0);
    assert_eq!(j.phase, "Running");
}

#[test]
fn deleted_pods_and_failed_condition_are_stated() {
    let mut objs = job_objects();
    objs["items"][0]["status"] = json!({"failed": 4, "conditions": [
        {"type": "FailureTarget", "status": "True", "reason": "BackoffLimitExceeded", "lastTransitionTime": "2026-03-02T09:30:00Z"},
        {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "lastTransitionTime": "2026-03-02T09:30:01Z"}]});
    let out = run(input(objs, "1.37", None)).unwrap();
    let j = &out.workloads[0].jobs[0];
    assert_eq!((j.phase.as_str(), j.failures_left), ("Failed", Some(0)));
    assert!(j.pod_creation_back_off.is_none());
    assert!(
        j.notes
            .iter()
            .any(|n| n.contains("the other 3 were deleted")),
        "{:?}",
        j.notes
    );
    assert!(j.conditions[1].meaning.contains("backoffLimit"));
}

#[test]
fn jobset_restarts_and_next_failure_as_the_engine_says() {
    let out = run(input(jobset_objects(), "1.37", None)).unwrap();
    let w = &out.workloads[0];
    assert_eq!((w.kind.as_str(), w.jobs.len()), ("JobSet", 1));
    let js = w.jobset.as_ref().unwrap();
    assert_eq!((js.restarts, js.max_restarts), (1, Some(3)));
    let next = &js.next_failure[0];
    assert_eq!(next.replicated_job, "workers");
    assert!(next.jobset_restarts && !next.jobset_fails, "{next:?}");
    // The same as the engine on the JobSet and one failed Job.
    let typed: JobSet = serde_json::from_value(jobset_objects()["items"][0].clone()).unwrap();
    let failed: Job = serde_json::from_value(json!({"metadata": {"name": "pretrain-workers-0",
        "labels": {"jobset.sigs.k8s.io/replicatedjob-name": "workers"}},
        "status": {"conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "lastTransitionTime": out.now}]}})).unwrap();
    let (gates, _) = FeatureGates::resolve(Some("1.37"), None).unwrap();
    let engine =
        crate::eval::jobset::failure_policy(&typed, &[failed], &gates, Some(&out.now)).unwrap();
    assert_eq!(next.action, engine.action);
    assert_eq!(engine.jobset_status.restarts, 2);
    // At 3 restarts the next failure fails the JobSet.
    let mut objs = jobset_objects();
    objs["items"][0]["status"]["restarts"] = json!(3);
    objs["items"][0]["status"]["restartsCountTowardsMax"] = json!(3);
    let out = run(input(objs, "1.37", None)).unwrap();
    let next = &out.workloads[0].jobset.as_ref().unwrap().next_failure[0];
    assert!(next.jobset_fails && !next.jobset_restarts, "{next:?}");
}

#[test]
fn pods_without_their_job_and_clock_skew_are_stated() {
    let objs = json!([failed_pod("orphan-1", "2026-03-02T09:00:10Z", 1, false)]);
    let out = run(input(objs, "1.37", Some("2026-03-02T09:00:00Z"))).unwrap();
    let w = &out.workloads[0];
    assert!(!w.present);
    assert!(!w.jobs[0].present);
    assert!(w.jobs[0].notes[0].contains("not in the input"));
    // A crash-looping container whose finishedAt is after now.
    let out = run(input(crashloop_pod(), "1.37", Some("2026-03-02T09:00:00Z"))).unwrap();
    assert!(
        out.workloads[0].pods[0]
            .notes
            .iter()
            .any(|n| n.contains("after now"))
    );
}

#[test]
fn reads_text_streams_and_refuses_what_it_cannot_use() {
    let text = format!(
        "{}\n---\n{}\n",
        serde_json::to_string(&crashloop_pod()).unwrap(),
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n"
    );
    let out = run(ExplainInput {
        source: Some(text),
        ..input(Value::Null, "1.37", None)
    })
    .unwrap();
    assert_eq!(out.workloads.len(), 1);
    assert!(out.notes.iter().any(|n| n.contains("Service")));
    // No objects, no timestamps, a bad now: errors naming the field, never a panic.
    let e = run(ExplainInput {
        objects: None,
        ..input(Value::Null, "1.37", None)
    })
    .unwrap_err();
    assert_eq!(e.field, "input");
    let e = run(input(
        json!({"kind": "Pod", "metadata": {"name": "p"}}),
        "1.37",
        None,
    ))
    .unwrap_err();
    assert_eq!(e.field, "input.now");
    let e = run(input(crashloop_pod(), "1.37", Some("yesterday"))).unwrap_err();
    assert_eq!(e.field, "input.now");
    // A Pod whose status is not what the API writes is a note, not an error.
    let out = run(input(
        json!({"kind": "Pod", "metadata": {"name": "p"}, "status": {"containerStatuses": "x"}}),
        "1.37",
        Some("2026-03-02T09:00:00Z"),
    ))
    .unwrap();
    assert!(
        out.notes.iter().any(|n| n.contains("cannot read Pod")),
        "{:?}",
        out.notes
    );
}

#[test]
fn the_op_answers_through_the_contract() {
    let req = json!({"op": "explain", "input": {"objects": crashloop_pod(), "kubernetesVersion": "1.31",
        "now": "2026-03-02T10:01:00Z"}});
    let resp: Value = serde_json::from_str(&crate::handle_json(&req.to_string())).unwrap();
    assert_eq!(resp["status"], "ok", "{resp}");
    assert_eq!(
        resp["result"]["workloads"][0]["pods"][0]["containers"][0]["crashLoopBackOff"]["nextRestartAt"],
        "2026-03-02T10:05:05Z"
    );
}

fn pod_with(spec: Value, init_statuses: Value, statuses: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": spec,
        "status": {"phase": "Running", "initContainerStatuses": init_statuses, "containerStatuses": statuses}})
}

fn crashed(
    name: &str,
    restarts: i32,
    started: &str,
    finished: &str,
    code: i32,
    running: bool,
) -> Value {
    let state = if running {
        json!({"running": {"startedAt": finished}})
    } else {
        json!({"waiting": {"reason": "CrashLoopBackOff"}})
    };
    json!({"name": name, "restartCount": restarts, "state": state,
        "lastState": {"terminated": {"exitCode": code, "reason": "Error", "startedAt": started, "finishedAt": finished}}})
}

fn container<'a>(out: &'a ExplainOutput, name: &str) -> &'a ContainerExplained {
    out.workloads
        .iter()
        .flat_map(|w| w.pods.iter())
        .flat_map(|p| p.containers.iter())
        .find(|c| c.name == name)
        .unwrap()
}

/// A completed init container is done, not restarted (isInitContainerFailed is false for exit 0);
/// a failed one restarts after its back-off.
#[test]
fn a_completed_init_container_is_not_restarted() {
    let spec = json!({"restartPolicy": "Always",
        "initContainers": [{"name": "done", "image": "i"}, {"name": "flaky", "image": "i"}],
        "containers": [{"name": "c", "image": "i"}]});
    let done = json!({"name": "done", "restartCount": 0, "state": {"terminated": {"exitCode": 0, "reason": "Completed",
        "startedAt": "2026-01-01T00:00:00Z", "finishedAt": "2026-01-01T00:00:01Z"}}});
    let flaky = crashed(
        "flaky",
        2,
        "2026-01-01T00:00:20Z",
        "2026-01-01T00:00:21Z",
        1,
        false,
    );
    let waiting = json!({"name": "c", "restartCount": 0, "state": {"waiting": {"reason": "PodInitializing"}}});
    let pod = pod_with(spec, json!([done, flaky]), json!([waiting]));
    let out = run(input(pod, "1.37", Some("2026-01-01T00:00:25Z"))).unwrap();
    let done = container(&out, "done");
    let d = done.decision.as_ref().unwrap();
    assert_eq!(
        (d.action.as_str(), d.decided_by),
        ("DoNotRestart", DecidedBy::InitContainerCompleted)
    );
    assert!(done.crash_loop_back_off.is_none());
    let flaky = container(&out, "flaky")
        .crash_loop_back_off
        .as_ref()
        .unwrap();
    // restartCount 2: the third wait is 20 s from the finish at 00:00:21.
    assert_eq!(
        flaky.next_restart_at.as_deref(),
        Some("2026-01-01T00:00:41Z")
    );
}

/// A wait that outlasts 600 s after the last restart ends when the housekeeping (every 2 s, on a
/// phase the objects do not show) drops the back-off entry: after L+600 s, by L+602 s.
#[test]
fn a_wait_cut_by_the_garbage_collection_is_a_two_second_window() {
    let spec = json!({"restartPolicy": "Always", "containers": [{"name": "c", "image": "i"}]});
    // restartCount 6: a 300 s wait; the last restart at 00:00:00, the exit at 00:08:00.
    let c = crashed(
        "c",
        6,
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:08:00Z",
        1,
        false,
    );
    let out = run(input(
        pod_with(spec, json!([]), json!([c])),
        "1.37",
        Some("2026-01-01T00:08:30Z"),
    ))
    .unwrap();
    let b = container(&out, "c").crash_loop_back_off.as_ref().unwrap();
    assert_eq!(b.why, StepReason::GarbageCollected);
    assert_eq!(b.next_restart_at.as_deref(), Some("2026-01-01T00:10:00Z"));
    assert_eq!(
        b.next_restart_latest_at.as_deref(),
        Some("2026-01-01T00:10:02Z")
    );
    // A wait that ends before the collection has one instant.
    let c = crashed(
        "c",
        6,
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:01:00Z",
        1,
        false,
    );
    let spec = json!({"restartPolicy": "Always", "containers": [{"name": "c", "image": "i"}]});
    let out = run(input(
        pod_with(spec, json!([]), json!([c])),
        "1.37",
        Some("2026-01-01T00:01:30Z"),
    ))
    .unwrap();
    let b = container(&out, "c").crash_loop_back_off.as_ref().unwrap();
    assert_eq!(
        (b.why, b.next_restart_latest_at.as_deref()),
        (StepReason::BackOff, None)
    );
    assert_eq!(b.next_restart_at.as_deref(), Some("2026-01-01T00:06:00Z"));
}

/// Up to 1.36, with no regular container running, a regular container restarts only with the
/// Pod's last sidecar (computeInitContainerActions); from 1.37 at its own instant.
#[test]
fn up_to_1_36_a_regular_container_waits_for_the_last_sidecar() {
    let spec = json!({"restartPolicy": "Always",
        "initContainers": [{"name": "side", "image": "i", "restartPolicy": "Always"}],
        "containers": [{"name": "c", "image": "i"}]});
    // c: restartCount 1, waits 10 s → 00:00:11; side: restartCount 3, waits 40 s → 00:00:45.
    let side = crashed(
        "side",
        3,
        "2026-01-01T00:00:04Z",
        "2026-01-01T00:00:05Z",
        1,
        false,
    );
    let c = crashed(
        "c",
        1,
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:00:01Z",
        1,
        false,
    );
    let pod = pod_with(spec.clone(), json!([side]), json!([c]));
    let at = |version: &str| {
        let out = run(input(pod.clone(), version, Some("2026-01-01T00:00:06Z"))).unwrap();
        container(&out, "c")
            .crash_loop_back_off
            .as_ref()
            .unwrap()
            .next_restart_at
            .clone()
    };
    assert_eq!(at("1.36").as_deref(), Some("2026-01-01T00:00:45Z"));
    assert_eq!(at("1.37").as_deref(), Some("2026-01-01T00:00:11Z"));
    // With the sidecar running the Pod counts as initialized: no hold.
    let side = crashed(
        "side",
        3,
        "2026-01-01T00:00:04Z",
        "2026-01-01T00:00:05Z",
        1,
        true,
    );
    let c = crashed(
        "c",
        1,
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:00:01Z",
        1,
        false,
    );
    let out = run(input(
        pod_with(spec, json!([side]), json!([c])),
        "1.36",
        Some("2026-01-01T00:00:06Z"),
    ))
    .unwrap();
    let b = container(&out, "c").crash_loop_back_off.as_ref().unwrap();
    assert_eq!(b.next_restart_at.as_deref(), Some("2026-01-01T00:00:11Z"));
}

/// A JobSet's per-Job RestartJob counters (status.replicatedJobsStatus) are said per Job.
#[test]
fn a_jobsets_restart_job_counters_are_listed_per_job() {
    let js = json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "pretrain", "namespace": "ml", "creationTimestamp": "2026-03-02T03:00:00Z"},
        "spec": {"failurePolicy": {"maxRestarts": 3, "rules": [{"name": "one", "action": "RestartJob"}]},
            "replicatedJobs": [{"name": "workers", "replicas": 2, "template": {"spec": {"template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "w", "image": "i"}]}}}}}]},
        "status": {"restarts": 0, "replicatedJobsStatus": [{"name": "workers", "ready": 0, "succeeded": 0, "failed": 0,
            "active": 2, "suspended": 0, "jobRestarts": [0, 2], "jobRestartsCountTowardsMax": [0, 1]}]}});
    let mut i = input(js, "1.37", Some("2026-03-02T03:10:00Z"));
    i.text = true;
    let out = run(i).unwrap();
    let j = out.workloads[0].jobset.as_ref().unwrap();
    assert_eq!(j.job_restarts.len(), 1);
    let r = &j.job_restarts[0];
    assert_eq!(
        (
            r.replicated_job.as_str(),
            r.job_index,
            r.restarts,
            r.count_towards_max
        ),
        ("workers", 1, 2, 1)
    );
    let text = out.text.unwrap();
    assert!(
        text.contains(
            "workers Job 1: restarted alone 2 time(s) by RestartJob (1 counting towards the max)"
        ),
        "{text}"
    );
}
