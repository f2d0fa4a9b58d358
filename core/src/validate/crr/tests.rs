#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
use super::*;
use crate::api::ContainerRecreateRequest;
use crate::diag::{Findings, Origin};
use crate::validate::Ctx;
use serde_json::Value;
use serde_json::json;

fn crr(spec: Value) -> Value {
    json!({"apiVersion": "apps.kruise.io/v1beta1", "kind": "ContainerRecreateRequest", "metadata": {"name": "c", "namespace": "default"}, "spec": spec})
}
fn pod() -> Value {
    json!({"metadata": {"name": "pod-0", "namespace": "default", "uid": "uid-0"},
        "spec": {"nodeName": "node-1", "initContainers": [{"name": "side", "restartPolicy": "Always"}],
            "containers": [{"name": "app", "ports": [{"containerPort": 80}], "lifecycle": {"preStop": {"httpGet": {"port": 80, "path": "/q"}}}}, {"name": "b"}]},
        "status": {"phase": "Running", "containerStatuses": [
            {"name": "app", "containerID": "containerd://a", "restartCount": 2}, {"name": "b", "containerID": "containerd://b", "restartCount": 0}],
            "initContainerStatuses": [{"name": "side", "containerID": "containerd://s"}]}})
}
fn node(labels: Value) -> Value {
    json!({"metadata": {"name": "node-1", "labels": labels}})
}
fn input(object: Value, pod: Option<Value>, node: Option<Value>) -> CrrValidateInput {
    CrrValidateInput {
        object,
        operation: None,
        old_object: None,
        pod,
        node,
        resource_version: None,
        kubernetes_version: None,
        feature_gates: None,
    }
}
fn go(i: CrrValidateInput) -> CrrValidateOutput {
    run(i).unwrap()
}
fn msg(o: &CrrValidateOutput) -> (u16, String) {
    (
        o.http_code,
        o.errors
            .first()
            .map(|e| e.message.clone())
            .unwrap_or_default(),
    )
}
fn ok_spec() -> Value {
    json!({"podName": "pod-0", "containers": [{"name": "b"}]})
}
fn create_with(spec: Value) -> (u16, String) {
    msg(&go(input(crr(spec), Some(pod()), Some(node(json!({}))))))
}

#[test]
fn create_valid_mutates() {
    let o = go(input(crr(ok_spec()), Some(pod()), Some(node(json!({})))));
    assert!(o.valid, "{:?}", o.errors);
    assert_eq!(o.http_code, 200);
    let m = o.mutated_object.unwrap();
    assert_eq!(
        m["metadata"]["labels"],
        json!({LABEL_ACTIVE: "true", LABEL_NODE_NAME: "node-1", LABEL_POD_UID: "uid-0"})
    );
    assert_eq!(
        m["spec"],
        json!({"podName": "pod-0", "containers": [{"name": "b", "statusContext": {"containerID": "containerd://b", "restartCount": 0}}], "strategy": {"failurePolicy": "Fail"}})
    );
}

#[test]
fn prestop_and_ports_copied_from_pod() {
    let o = go(input(
        crr(
            json!({"podName": "pod-0", "containers": [{"name": "app"}], "strategy": {"failurePolicy": "Ignore", "orderedRecreate": false, "minStartedSeconds": 0}}),
        ),
        Some(pod()),
        Some(node(json!({}))),
    ));
    let c = &o.mutated_object.unwrap()["spec"];
    assert_eq!(
        c["containers"][0]["preStop"],
        json!({"httpGet": {"port": 80, "path": "/q"}})
    );
    assert_eq!(c["containers"][0]["ports"], json!([{"containerPort": 80}]));
    assert_eq!(
        c["containers"][0]["statusContext"]["restartCount"],
        json!(2)
    );
    // Go's omitempty drops false/0; the policy given is kept.
    assert_eq!(c["strategy"], json!({"failurePolicy": "Ignore"}));
}

#[test]
fn virtual_kubelet_and_grace_period() {
    let mut p = pod();
    p["spec"]["terminationGracePeriodSeconds"] = json!(45);
    let o = go(input(
        crr(ok_spec()),
        Some(p.clone()),
        Some(node(json!({"type": "virtual-kubelet"}))),
    ));
    let m = o.mutated_object.unwrap();
    assert_eq!(m["metadata"]["labels"]["type"], json!("virtual-kubelet"));
    assert_eq!(
        m["spec"]["strategy"]["terminationGracePeriodSeconds"],
        json!(45)
    );
    let mut s = ok_spec();
    s["strategy"] = json!({"terminationGracePeriodSeconds": 5});
    let o = go(input(crr(s), Some(p), Some(node(json!({"type": "other"})))));
    let m = o.mutated_object.unwrap();
    assert_eq!(
        m["spec"]["strategy"]["terminationGracePeriodSeconds"],
        json!(5)
    );
    assert!(m["metadata"]["labels"].get("type").is_none());
}

#[test]
fn gate_off_is_403() {
    let mut i = input(crr(ok_spec()), Some(pod()), Some(node(json!({}))));
    i.feature_gates = Some([("KruiseDaemon".to_owned(), false)].into_iter().collect());
    assert_eq!(
        msg(&go(i)),
        (403, "feature-gate KruiseDaemon is not enabled".into())
    );
}

#[test]
fn decode_errors_are_400() {
    let (code, m) = create_with(
        json!({"podName": "pod-0", "containers": [{"name": "b"}], "activeDeadlineSeconds": "x"}),
    );
    assert_eq!(code, 400);
    assert_eq!(
        m,
        "json: cannot unmarshal string into Go struct field ContainerRecreateRequestSpec.spec.activeDeadlineSeconds of type int64"
    );
    let (code, m) = create_with(
        json!({"podName": "pod-0", "containers": [{"name": "b"}], "strategy": {"minStartedSeconds": 1.5}}),
    );
    assert_eq!(code, 400);
    assert!(
        m.contains("number 1.5") && m.contains("of type int32"),
        "{m}"
    );
}

#[test]
fn create_checks_in_order() {
    let cases = [
        (
            json!({"containers": [{"name": "b"}]}),
            "podName can not be empty",
        ),
        (
            json!({"podName": "pod-0", "containers": []}),
            "containers list can not be null",
        ),
        (
            json!({"podName": "pod-0", "containers": [{"name": "b"}], "activeDeadlineSeconds": 2, "strategy": {"failurePolicy": "Bogus"}}),
            "activeDeadlineSeconds can not be less than 3s",
        ),
        (
            json!({"podName": "pod-0", "containers": [{"name": "b"}], "strategy": {"terminationGracePeriodSeconds": -1, "unreadyGracePeriodSeconds": -1}}),
            "terminationGracePeriodSeconds must be non-negative integer",
        ),
        (
            json!({"podName": "pod-0", "containers": [{"name": "b"}], "strategy": {"unreadyGracePeriodSeconds": -1}}),
            "unreadyGracePeriodSeconds must be non-negative integer",
        ),
        (
            json!({"podName": "pod-0", "containers": [{"name": "b"}], "strategy": {"failurePolicy": "Bogus"}}),
            "unknown failurePolicy Bogus",
        ),
        (
            json!({"podName": "pod-0", "containers": [{"name": "b"}, {"name": "b"}]}),
            "can not recreate b multi times",
        ),
        (
            json!({"podName": "pod-0", "containers": [{"name": "b", "preStop": {}}]}),
            "preStop, ports, statusContext in container are ready-only fields",
        ),
        (
            json!({"podName": "pod-0", "containers": [{"name": "b", "ports": []}]}),
            "preStop, ports, statusContext in container are ready-only fields",
        ),
        (
            json!({"podName": "pod-0", "containers": [{"name": "nope"}]}),
            "container nope not found in Pod",
        ),
        (
            json!({"podName": "pod-0", "containers": [{"name": "side"}]}),
            "not found side containerStatus in Pod Status",
        ),
    ];
    for (spec, want) in cases {
        assert_eq!(create_with(spec.clone()), (400, want.to_owned()), "{spec}");
    }
    // A deadline of exactly 3 passes.
    assert!(go(input(crr(json!({"podName": "pod-0", "containers": [{"name": "b"}], "activeDeadlineSeconds": 3})), Some(pod()), Some(node(json!({}))))).valid);
    // null fields read as absent.
    assert!(
        go(input(
            crr(json!({"podName": "pod-0", "containers": [{"name": "b", "ports": null}]})),
            Some(pod()),
            Some(node(json!({})))
        ))
        .valid
    );
}

#[test]
fn duplicate_detected_after_first_passes() {
    // The first occurrence of b passes checks 14-19; the second fails as a duplicate, but an
    // unknown container before it fails first.
    assert_eq!(
        create_with(json!({"podName": "pod-0", "containers": [{"name": "x"}, {"name": "x"}]})),
        (400, "container x not found in Pod".into())
    );
}

#[test]
fn pod_and_node_checks() {
    let spec = ok_spec();
    assert_eq!(
        msg(&go(input(crr(spec.clone()), None, None))),
        (400, "no found Pod named pod-0".into())
    );
    let mut other_ns = pod();
    other_ns["metadata"]["namespace"] = json!("kube-system");
    assert_eq!(
        msg(&go(input(crr(spec.clone()), Some(other_ns), None))).1,
        "no found Pod named pod-0"
    );
    let mut done = pod();
    done["status"]["phase"] = json!("Succeeded");
    assert_eq!(
        msg(&go(input(
            crr(spec.clone()),
            Some(done.clone()),
            Some(node(json!({})))
        ))),
        (
            400,
            "not allowed to recreate containers in an inactive Pod".into()
        )
    );
    let mut deleting = pod();
    deleting["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
    assert_eq!(
        msg(&go(input(
            crr(spec.clone()),
            Some(deleting),
            Some(node(json!({})))
        )))
        .1,
        "not allowed to recreate containers in an inactive Pod"
    );
    // Terminated by the sidecar terminator: allowed past this check (any status).
    done["status"]["conditions"] = json!([{"type": "SidecarTerminated", "status": "False"}]);
    assert!(go(input(crr(spec.clone()), Some(done), Some(node(json!({}))))).valid);
    let mut pending = pod();
    pending["spec"]["nodeName"] = json!("");
    assert_eq!(
        msg(&go(input(
            crr(spec.clone()),
            Some(pending),
            Some(node(json!({})))
        ))),
        (
            400,
            "not allowed to recreate containers in a pending Pod".into()
        )
    );
    assert_eq!(
        msg(&go(input(crr(spec.clone()), Some(pod()), None))),
        (
            400,
            "failed to get Node node-1: nodes \"node-1\" not found".into()
        )
    );
    let wrong_node = json!({"metadata": {"name": "node-2"}});
    assert_eq!(
        msg(&go(input(crr(spec), Some(pod()), Some(wrong_node)))).0,
        400
    );
}

#[test]
fn no_container_id() {
    let mut p = pod();
    p["status"]["containerStatuses"][1]["containerID"] = json!("");
    let o = go(input(crr(ok_spec()), Some(p), Some(node(json!({})))));
    assert_eq!(
        msg(&o),
        (
            400,
            "no containerID in b containerStatus, maybe the container has not been initialized"
                .into()
        )
    );
    assert_eq!(o.errors[0].field, "spec.containers[0].name");
    assert!(o.errors[0].error_type.is_none());
    assert_eq!(o.errors[0].origin, Origin::KruiseWebhook);
}

#[test]
fn v1beta1_schema_after_mutation() {
    let s = json!({"podName": "pod-0", "containers": [{"name": "b"}], "ttlSecondsAfterFinished": -1, "strategy": {"minStartedSeconds": -2}});
    let o = go(input(crr(s.clone()), Some(pod()), Some(node(json!({})))));
    assert_eq!(o.http_code, 422);
    let f: Vec<(&str, String)> = o
        .errors
        .iter()
        .map(|e| (e.field.as_str(), e.message.clone()))
        .collect();
    assert_eq!(f, [
        ("spec.strategy.minStartedSeconds", "spec.strategy.minStartedSeconds: Invalid value: -2: spec.strategy.minStartedSeconds in body should be greater than or equal to 0".to_owned()),
        ("spec.ttlSecondsAfterFinished", "spec.ttlSecondsAfterFinished: Invalid value: -1: spec.ttlSecondsAfterFinished in body should be greater than or equal to 0".to_owned()),
    ]);
    // v1alpha1 has no minimum.
    let mut a = crr(s);
    a["apiVersion"] = json!("apps.kruise.io/v1alpha1");
    assert!(go(input(a, Some(pod()), Some(node(json!({}))))).valid);
}

#[test]
fn resource_version_routes_not_api_version() {
    let mut i = input(
        crr(
            json!({"podName": "pod-0", "containers": [{"name": "b"}], "ttlSecondsAfterFinished": -1}),
        ),
        Some(pod()),
        Some(node(json!({}))),
    );
    i.resource_version = Some("v1alpha1".into());
    let o = go(i);
    assert!(o.valid);
    assert_eq!(o.resource_version, "v1alpha1");
}

fn update(obj: Value, old: Value, version: &str) -> CrrValidateOutput {
    let mut i = input(obj, None, None);
    i.operation = Some("UPDATE".into());
    i.old_object = Some(old);
    i.resource_version = Some(version.into());
    go(i)
}

#[test]
fn update_spec_immutable_go_equality() {
    let old = crr(json!({"podName": "p", "containers": [{"name": "a"}]}));
    let same_go =
        crr(json!({"podName": "p", "containers": [{"name": "a", "unknown": 1}], "strategy": null}));
    assert!(update(same_go, old.clone(), "v1beta1").valid);
    let empty_strategy =
        crr(json!({"podName": "p", "containers": [{"name": "a"}], "strategy": {}}));
    assert_eq!(
        msg(&update(empty_strategy, old.clone(), "v1beta1")),
        (403, "spec of ContainerRecreateRequest is immutable".into())
    );
    let false_flag = crr(
        json!({"podName": "p", "containers": [{"name": "a"}], "strategy": {"orderedRecreate": false}}),
    );
    let old_strategy = crr(json!({"podName": "p", "containers": [{"name": "a"}], "strategy": {}}));
    assert!(
        update(false_flag, old_strategy, "v1beta1").valid,
        "false equals the zero value"
    );
    let ports = crr(json!({"podName": "p", "containers": [{"name": "a", "ports": []}]}));
    assert_eq!(
        msg(&update(ports, old, "v1beta1")).0,
        403,
        "empty slice is not a nil slice"
    );
}

#[test]
fn update_identity_labels() {
    let spec = json!({"podName": "p", "containers": [{"name": "a"}]});
    let with = |labels: Value| {
        let mut o = crr(spec.clone());
        o["metadata"]["labels"] = labels;
        o
    };
    let old = with(json!({LABEL_POD_UID: "u", LABEL_NODE_NAME: "n", LABEL_ACTIVE: "true"}));
    let o = update(
        with(json!({LABEL_POD_UID: "v", LABEL_NODE_NAME: "n"})),
        old.clone(),
        "v1beta1",
    );
    assert_eq!(
        msg(&o),
        (
            403,
            "not allowed to update immutable label crr.apps.kruise.io/pod-uid".into()
        )
    );
    assert_eq!(
        o.errors[0].field,
        "metadata.labels[crr.apps.kruise.io/pod-uid]"
    );
    assert_eq!(
        msg(&update(
            with(json!({LABEL_POD_UID: "u"})),
            old.clone(),
            "v1alpha1"
        ))
        .1,
        "not allowed to update immutable label crr.apps.kruise.io/node-name"
    );
    let o = update(
        with(json!({LABEL_POD_UID: "u", LABEL_NODE_NAME: "n", "x": "y"})),
        old,
        "v1beta1",
    );
    assert!(o.valid);
    assert_eq!(
        o.mutated_object.unwrap()["metadata"]["labels"]["x"],
        json!("y")
    );
    // An empty label value equals a missing one.
    assert!(update(with(json!({LABEL_POD_UID: ""})), with(json!({})), "v1beta1").valid);
}

#[test]
fn update_unready_annotation_v1alpha1_only() {
    let spec = json!({"podName": "p", "containers": [{"name": "a"}]});
    let with = |a: Value| {
        let mut o = crr(spec.clone());
        o["metadata"]["annotations"] = a;
        o
    };
    let old = with(json!({ANNOTATION_UNREADY_ACQUIRED: "t"}));
    let new = with(json!({ANNOTATION_UNREADY_ACQUIRED: "changed"}));
    assert_eq!(
        msg(&update(new.clone(), old.clone(), "v1alpha1")),
        (
            403,
            "not allowed to update immutable annotation crr.apps.kruise.io/unready-acquired".into()
        )
    );
    assert!(update(new.clone(), old, "v1beta1").valid);
    // Setting it when the old object had none is allowed.
    assert!(update(new, with(json!({})), "v1alpha1").valid);
}

#[test]
fn request_errors() {
    let mut i = input(crr(ok_spec()), None, None);
    i.operation = Some("UPDATE".into());
    assert!(run(i).is_err());
    let mut i = input(crr(ok_spec()), None, None);
    i.operation = Some("DELETE".into());
    assert!(run(i).is_err());
}

fn manifest(v: Value) -> Findings {
    let c: ContainerRecreateRequest = serde_json::from_value(v).unwrap();
    let mut out = Findings::default();
    validate_crr_manifest(&c, &Ctx::default(), &mut out);
    out
}

#[test]
fn manifest_checks() {
    let f = manifest(crr(ok_spec()));
    assert!(f.errors.is_empty() && f.warnings.is_empty());
    assert_eq!(f.infos[0].code.as_deref(), Some(lint::NEEDS_POD));
    let f = manifest(crr(
        json!({"podName": "p", "containers": [{"name": "a"}], "activeDeadlineSeconds": 1}),
    ));
    assert_eq!(f.errors.len(), 1);
    assert_eq!(
        f.errors[0].message,
        "activeDeadlineSeconds can not be less than 3s"
    );
    let f = manifest(crr(
        json!({"podName": "p", "containers": [{"name": "a"}, {"name": "a"}]}),
    ));
    assert_eq!(f.errors[0].message, "can not recreate a multi times");
    let f = manifest(crr(
        json!({"podName": "p", "containers": [{"name": "a", "statusContext": {"containerID": "x", "restartCount": 0}}]}),
    ));
    assert_eq!(f.errors[0].field, "spec.containers[0].statusContext");
    let f = manifest(crr(
        json!({"podName": "p", "containers": [{"name": "a"}], "ttlSecondsAfterFinished": -5}),
    ));
    assert_eq!(f.errors[0].field, "spec.ttlSecondsAfterFinished");
    let mut v = crr(ok_spec());
    v["apiVersion"] = json!("apps.kruise.io/v2");
    assert_eq!(manifest(v).errors[0].field, "apiVersion");
}

#[test]
fn manifest_lints_and_gate() {
    let mut v = crr(
        json!({"podName": "p", "containers": [{"name": "a"}], "ttlSecondsAfterFinished": -5, "strategy": {"minStartedSeconds": -1}}),
    );
    v["apiVersion"] = json!("apps.kruise.io/v1alpha1");
    v["metadata"]["labels"] = json!({LABEL_NODE_NAME: "n"});
    v["status"] = json!({"phase": "Completed"});
    let f = manifest(v.clone());
    assert!(f.errors.is_empty(), "{:?}", f.errors);
    let codes: Vec<&str> = f
        .warnings
        .iter()
        .filter_map(|w| w.code.as_deref())
        .collect();
    assert_eq!(
        codes,
        [
            lint::INJECTED_LABEL,
            lint::STATUS_IGNORED,
            lint::NEGATIVE_UNCHECKED,
            lint::NEGATIVE_UNCHECKED
        ]
    );
    let c: ContainerRecreateRequest = serde_json::from_value(v).unwrap();
    let mut ctx = Ctx::default();
    ctx.gates.set("KruiseDaemon", false);
    let mut out = Findings::default();
    validate_crr_manifest(&c, &ctx, &mut out);
    assert_eq!(
        out.errors[0].message,
        "feature-gate KruiseDaemon is not enabled"
    );
}
