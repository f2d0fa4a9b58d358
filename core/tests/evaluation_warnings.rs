//! Evaluating an object the API server would refuse (docs/contract.md, "Evaluation warnings"):
//! every evaluation op answers as upstream's decision code does and carries the object's
//! validation errors as warnings (code `invalid-object`); a valid object carries none.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use restartkit::contract::{call_op, json_schemas};
use restartkit::{Request, Response, handle};
use serde_json::{Value, json};

fn ok(op: &str, input: Value) -> Value {
    match handle(Request {
        op: op.into(),
        input,
    }) {
        Response::Ok { result, .. } => result,
        Response::Error { errors, .. } => panic!("{op} failed: {errors:?}"),
    }
}

fn job(action: &str) -> Value {
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "ns"}, "spec": {
        "podFailurePolicy": {"rules": [{"action": action, "onExitCodes": {"containerName": "m", "operator": "In", "values": [3]}}]},
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "m", "image": "i"}]}}}})
}

fn pod(restart_policy: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {
        "restartPolicy": restart_policy, "containers": [{"name": "m", "image": "i"}]}})
}

fn failed_pod() -> Value {
    json!({"metadata": {"name": "j-0", "namespace": "ns"}, "spec": {"containers": [{"name": "m"}]},
        "status": {"phase": "Failed", "containerStatuses": [{"name": "m", "state": {"terminated": {"exitCode": 3}}}]}})
}

fn jobset(restart_strategy: &str) -> Value {
    json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js", "namespace": "ns"}, "spec": {
        "failurePolicy": {"maxRestarts": 2, "restartStrategy": restart_strategy},
        "replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {"backoffLimit": 0, "template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "m", "image": "i"}]}}}}}]}})
}

/// The `invalid-object` warnings of a result, as (field, type).
fn warnings(result: &Value) -> Vec<(String, Value)> {
    let list = result["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("no warnings array in {result}"));
    list.iter()
        .map(|w| {
            assert_eq!(w["severity"], "warning", "{w}");
            assert_eq!(w["code"], "invalid-object", "{w}");
            assert!(w["message"].as_str().is_some_and(|m| !m.is_empty()), "{w}");
            (w["field"].as_str().unwrap().to_owned(), w["type"].clone())
        })
        .collect()
}

const BOGUS_ACTION: &str = "spec.podFailurePolicy.rules[0].action";

#[test]
fn pod_failure_policy_answers_upstream_and_warns_about_an_invalid_job() {
    let r = ok(
        "podFailurePolicy",
        json!({"job": job("Bogus"), "pod": failed_pod()}),
    );
    // Upstream's matcher skips a rule with an action it does not know: no rule matched.
    assert_eq!(r["matched"], false);
    assert_eq!(r["countFailed"], true);
    assert_eq!(
        warnings(&r),
        vec![(BOGUS_ACTION.to_owned(), json!("FieldValueNotSupported"))]
    );
    assert!(
        r["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("spec.podFailurePolicy.rules[0].action: Unsupported value: \"Bogus\"")
    );
    let valid = ok(
        "podFailurePolicy",
        json!({"job": job("Ignore"), "pod": failed_pod()}),
    );
    assert_eq!(valid["action"], "Ignore");
    assert_eq!(warnings(&valid), vec![]);
}

#[test]
fn what_if_warns_once_about_the_object_it_was_given() {
    let input = |j: Value| json!({"object": j, "container": "m", "exitCode": 3});
    let r = ok("whatIf", input(job("Bogus")));
    assert_eq!(r["job"]["podFailurePolicy"]["matched"], false);
    assert_eq!(r["job"]["outcome"], "PodReplaced");
    assert_eq!(
        warnings(&r),
        vec![(BOGUS_ACTION.to_owned(), json!("FieldValueNotSupported"))]
    );
    // The steps the pipeline chains are the engine's own calls: they do not repeat the warning.
    assert!(r["job"]["podFailurePolicy"].get("warnings").is_none());
    assert_eq!(warnings(&ok("whatIf", input(job("FailJob")))), vec![]);
}

#[test]
fn kubelet_ops_warn_about_an_invalid_pod() {
    let bad = pod("Sometimes");
    let good = pod("Never");
    let field = || {
        vec![(
            "spec.restartPolicy".to_owned(),
            json!("FieldValueNotSupported"),
        )]
    };
    for (op, extra) in [
        ("containerRestart", json!({"container": "m", "exitCode": 1})),
        ("containerRestartable", json!({"container": "m"})),
        ("matchRestartRule", json!({"container": "m", "exitCode": 1})),
        (
            "statusTransition",
            json!({"oldContainerStatuses": [], "newContainerStatuses": []}),
        ),
    ] {
        let with = |p: &Value| {
            let mut i = extra.clone();
            i["pod"] = p.clone();
            i
        };
        assert_eq!(warnings(&ok(op, with(&bad))), field(), "{op}");
        assert_eq!(warnings(&ok(op, with(&good))), vec![], "{op}");
    }
}

#[test]
fn jobset_evaluation_warns_about_an_invalid_jobset() {
    let failed = json!({"metadata": {"name": "js-w-0", "namespace": "ns", "labels": {
            "jobset.sigs.k8s.io/jobset-name": "js", "jobset.sigs.k8s.io/replicatedjob-name": "w", "jobset.sigs.k8s.io/job-index": "0"}},
        "status": {"failed": 1, "conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}]}});
    let bad = ok(
        "jobsetFailurePolicy",
        json!({"jobset": jobset("Bogus"), "failedJobs": [failed]}),
    );
    let field = || {
        vec![(
            "spec.failurePolicy.restartStrategy".to_owned(),
            json!("FieldValueNotSupported"),
        )]
    };
    assert_eq!(warnings(&bad), field());
    let good = ok(
        "jobsetFailurePolicy",
        json!({"jobset": jobset("Recreate"), "failedJobs": [failed]}),
    );
    assert_eq!(good["action"], bad["action"]);
    assert_eq!(warnings(&good), vec![]);
    // The what-if pipeline on the JobSet says the same.
    let w = warnings(&ok(
        "whatIf",
        json!({"object": jobset("Bogus"), "container": "m", "exitCode": 1}),
    ));
    assert_eq!(w, field());
}

#[test]
fn the_warnings_follow_the_requested_version_and_gates() {
    // FailIndex needs backoffLimitPerIndex; with it the Job is valid.
    let mut j = job("FailIndex");
    j["spec"]["completionMode"] = json!("Indexed");
    j["spec"]["completions"] = json!(1);
    j["spec"]["backoffLimitPerIndex"] = json!(1);
    let i = |v: &str| json!({"job": j, "pod": failed_pod(), "kubernetesVersion": v});
    assert_eq!(warnings(&ok("podFailurePolicy", i("1.37"))), vec![]);
}

#[test]
fn the_engine_s_own_calls_skip_the_check() {
    // call_op is how the simulator asks: no validation per decision, hence no warnings.
    let r = call_op(
        "podFailurePolicy",
        json!({"job": job("Bogus"), "pod": failed_pod()}),
    )
    .unwrap();
    assert_eq!(r["warnings"], json!([]));
    assert_eq!(r["matched"], false);
}

#[test]
fn every_evaluation_output_schema_declares_the_warnings() {
    let schemas = json_schemas();
    for name in [
        "ContainerRestartOutput",
        "ContainerRestartableOutput",
        "MatchRestartRuleOutput",
        "StatusTransitionOutput",
        "PodFailurePolicyOutput",
        "JobsetFailurePolicyOutput",
        "WhatIfOutput",
    ] {
        let s = &schemas[name];
        assert!(
            s["properties"]["warnings"].is_object(),
            "{name}: {}",
            serde_json::to_string(s).unwrap()
        );
        assert!(
            s["required"]
                .as_array()
                .is_some_and(|r| r.contains(&json!("warnings"))),
            "{name}"
        );
        // The op's own fields are still there, beside it.
        assert!(s["properties"].as_object().unwrap().len() > 1, "{name}");
    }
}
