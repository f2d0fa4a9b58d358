//! An init container that exits 0 has completed: the kubelet starts the next one and never runs
//! it again (computeInitContainerActions, kuberuntime_container.go v1.37.2 :1205-1230), whatever
//! ContainerShouldRestart says for the Pod's restartPolicy. `whatIf` (`restartkit evaluate`)
//! says so; `containerRestart` stays the restatement of ContainerShouldRestart.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

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

fn job() -> Value {
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "ns"}, "spec": {
        "backoffLimit": 0,
        "template": {"spec": {"restartPolicy": "OnFailure",
            "initContainers": [{"name": "fetch", "image": "i"}, {"name": "proxy", "image": "i", "restartPolicy": "Always"}],
            "containers": [{"name": "m", "image": "i"}]}}}})
}

fn what_if(container: &str, exit_code: i32) -> Value {
    ok(
        "whatIf",
        json!({"object": job(), "container": container, "exitCode": exit_code, "kubernetesVersion": "1.37"}),
    )
}

#[test]
fn an_init_container_that_exits_0_has_completed() {
    let out = what_if("fetch", 0);
    assert_eq!(out["kubelet"]["action"], "DoNotRestart", "{out}");
    assert_eq!(
        out["kubelet"]["decidedBy"], "initContainerCompleted",
        "{out}"
    );
    assert_eq!(out["podPhase"], "Pending", "{out}");
    assert!(out["job"].is_null(), "no failure reaches the Job: {out}");
    // ContainerShouldRestart itself says restart (the Pod's OnFailure on exit 0 says no, so ask
    // with Always): the op keeps upstream's function.
    let mut pod = job()["spec"]["template"].clone();
    pod["spec"]["restartPolicy"] = json!("Always");
    let raw = ok(
        "containerRestart",
        json!({"pod": pod, "container": "fetch", "exitCode": 0, "kubernetesVersion": "1.37"}),
    );
    assert_eq!(raw["action"], "Restart", "{raw}");
}

#[test]
fn a_failed_init_container_and_a_sidecar_follow_the_policies() {
    let failed = what_if("fetch", 1);
    assert_eq!(failed["kubelet"]["action"], "Restart", "{failed}");
    assert_eq!(
        failed["kubelet"]["decidedBy"], "podRestartPolicy",
        "{failed}"
    );
    // A sidecar's exit 0 is no completion: it restarts.
    let sidecar = what_if("proxy", 0);
    assert_eq!(sidecar["kubelet"]["action"], "Restart", "{sidecar}");
    assert_ne!(
        sidecar["kubelet"]["decidedBy"], "initContainerCompleted",
        "{sidecar}"
    );
}
