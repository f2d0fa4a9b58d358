//! Each supported minor answered by its own rules: its API fields, its decisions, kubectl's
//! reading, and the upgrade check between two minors (issue: every version checked against its
//! own code; the oracle's per-minor runs are the proof, these pin the behaviours).
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use restartkit::{Request, Response, handle};
use serde_json::{Value, json};

fn ok(op: &str, input: Value) -> (Value, Vec<Value>) {
    match handle(Request::new(op, input)) {
        Response::Ok {
            result, warnings, ..
        } => (
            result,
            warnings
                .into_iter()
                .map(|w| serde_json::to_value(w).unwrap())
                .collect(),
        ),
        Response::Error { errors, .. } => panic!("{op} failed: {errors:?}"),
    }
}

const RULES_POD: &str = "apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: busybox
    restartPolicy: Never
    restartPolicyRules:
    - action: Restart
      exitCodes: {operator: In, values: [42]}
";

fn codes(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn a_field_the_minor_lacks_is_unknown_there_as_field_validation_says() {
    let run = |v: &str, mode: &str| {
        ok(
            "validate",
            json!({"source": RULES_POD, "kubernetesVersion": v, "fieldValidation": mode}),
        )
        .0
    };
    let strict = run("1.33", "Strict");
    assert_eq!(strict["valid"], false);
    assert_eq!(codes(&strict["errors"]), vec!["unknown-field"]);
    let e = &strict["errors"][0];
    assert_eq!(e["field"], "spec.containers[0].restartPolicyRules");
    assert_eq!(e["line"], 10);
    assert!(e["message"].as_str().unwrap().contains(
        "Kubernetes 1.33's Container has no field \"restartPolicyRules\"; it was added in 1.34"
    ));
    // What validation would say once the field is gone follows, as a warning.
    assert!(codes(&strict["warnings"]).contains(&"refused-after-unknown-fields".to_owned()));
    // Warn: dropped with a warning; what is left (a regular container's restartPolicy, forbidden
    // before 1.34) is validated.
    let warn = run("1.33", "Warn");
    assert!(codes(&warn["warnings"]).contains(&"unknown-field".to_owned()));
    assert_eq!(
        warn["errors"][0]["field"],
        "spec.containers[0].restartPolicy"
    );
    assert_eq!(warn["errors"][0]["type"], "FieldValueForbidden");
    let ignore = run("1.33", "Ignore");
    assert!(!codes(&ignore["warnings"]).contains(&"unknown-field".to_owned()));
    // 1.35 has both fields, and its gate on.
    assert_eq!(run("1.35", "Strict")["valid"], true);
}

#[test]
fn an_op_answers_without_the_fields_its_minor_lacks_and_says_so() {
    let pod: Value = json!({"spec": {"restartPolicy": "Never", "containers": [{"name": "app",
        "restartPolicy": "Never",
        "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]}]}});
    let (r, w) = ok(
        "containerRestart",
        json!({"pod": pod, "container": "app", "exitCode": 42, "kubernetesVersion": "1.33"}),
    );
    // 1.33's kubelet decides by the Pod's restartPolicy (Never): no rule exists there.
    assert_eq!(r["action"], "DoNotRestart");
    assert!(w.iter().any(|d| d["code"] == "unknown-field"
        && d["field"] == "pod.spec.containers[0].restartPolicyRules"));
    let (r, w) = ok(
        "containerRestart",
        json!({"pod": pod, "container": "app", "exitCode": 42, "kubernetesVersion": "1.35"}),
    );
    assert_eq!(r["action"], "Restart");
    assert!(w.iter().all(|d| d["code"] != "unknown-field"), "{w:?}");
}

#[test]
fn a_jobset_keeps_template_fields_its_controllers_jobs_lose() {
    let js = json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
        "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {"template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "app", "image": "x", "restartPolicy": "Never",
                "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]}]}}}}}]}});
    let (r, _) = ok(
        "validate",
        json!({"object": js, "kubernetesVersion": "1.33", "fieldValidation": "Strict"}),
    );
    // The JobSet CRD's schema (k8s.io/api v0.36) has the field: the JobSet is accepted; 1.33's
    // API server drops it from the Jobs the JobSet controller creates.
    let dropped: Vec<&Value> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "field-dropped")
        .collect();
    assert_eq!(
        dropped[0]["field"],
        "spec.replicatedJobs[0].template.spec.template.spec.containers[0].restartPolicyRules"
    );
    assert!(
        dropped[0]["message"]
            .as_str()
            .unwrap()
            .contains("Kubernetes 1.33's API server drops this field")
    );
}

#[test]
fn statefulset_templates_are_checked_from_1_34() {
    // (A regular container's restartPolicy is dropped in 1.34, whose ContainerRestartRules is
    // off; 1.35 keeps and checks it.)
    let sts = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s"},
        "spec": {"serviceName": "s", "selector": {"matchLabels": {"a": "b"}}, "template": {
            "metadata": {"labels": {"a": "b"}},
            "spec": {"containers": [{"name": "c", "image": "x", "restartPolicy": "Sometimes"}]}}}});
    let (old, _) = ok(
        "validate",
        json!({"object": sts, "kubernetesVersion": "1.33"}),
    );
    assert_eq!(old["valid"], true);
    assert!(codes(&old["warnings"]).contains(&"pod-template-refused-later".to_owned()));
    let (new, _) = ok(
        "validate",
        json!({"object": sts, "kubernetesVersion": "1.35"}),
    );
    assert_eq!(new["valid"], false);
    assert_eq!(
        new["errors"][0]["field"],
        "spec.template.spec.containers[0].restartPolicy"
    );
}

#[test]
fn kubectl_before_1_33_reads_a_json_stream_to_its_end() {
    let text =
        "{\"kind\": \"ConfigMap\", \"apiVersion\": \"v1\"}\n---\nkind: Secret\napiVersion: v1\n";
    let read = |m: u32| restartkit::source::read_stream_at(text, m);
    // apimachinery v0.33: JSON that fails before its second value is read as YAML from there.
    let new = read(33);
    assert_eq!(new.len(), 2);
    assert!(new.iter().all(Result::is_ok));
    // v0.32: a stream that starts with `{` is JSON to the end; its syntax error stops kubectl.
    let old = read(32);
    assert_eq!(old.len(), 2);
    assert!(old[0].is_ok());
    let broken = old[1].as_ref().err().unwrap();
    assert!(broken.stops_kubectl);
    assert!(
        broken.error.message.contains("invalid JSON"),
        "{}",
        broken.error.message
    );
}

#[test]
fn the_upgrade_check_names_what_changes_and_why() {
    let source = format!(
        "{RULES_POD}---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: s}}\nspec:\n  serviceName: s\n  selector: {{matchLabels: {{a: b}}}}\n  template:\n    metadata: {{labels: {{a: b}}}}\n    spec:\n      containers:\n      - {{name: c, image: x, restartPolicy: Sometimes}}\n"
    );
    let (r, _) = ok(
        "compareVersions",
        json!({"source": source, "fromVersion": "1.33", "toVersion": "v1.35.4", "fieldValidation": "Strict"}),
    );
    assert_eq!(r["fromVersion"], "1.33");
    assert_eq!(r["toVersion"], "1.35");
    let docs = r["documents"].as_array().unwrap();
    assert_eq!(docs.len(), 2);
    let kinds = |d: &Value| -> Vec<String> {
        d["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["kind"].as_str().unwrap().to_owned())
            .collect()
    };
    // The Pod: refused by 1.33 (unknown field), admitted by 1.35; exit 42 restarts in 1.35 only.
    assert!(kinds(&docs[0]).contains(&"admitted".to_owned()));
    let decision = docs[0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "decision")
        .unwrap();
    assert_eq!(decision["exitCode"], 42);
    assert_eq!(decision["from"], "kubelet DoNotRestart, Pod Failed");
    assert_eq!(decision["to"], "kubelet Restart, Pod Running");
    assert!(
        decision["explanation"]
            .as_str()
            .unwrap()
            .contains("KEP-5307")
    );
    // The StatefulSet: accepted by 1.33 (its template unchecked), refused by 1.35.
    assert!(kinds(&docs[1]).contains(&"refused".to_owned()));
    let added = docs[1]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "errorAdded")
        .unwrap();
    assert!(
        added["explanation"]
            .as_str()
            .unwrap()
            .contains("ValidatePodTemplateSpecForStatefulSet")
    );
    assert_eq!(r["newlyRefused"], 1);
    assert_eq!(r["decisionsChanged"], 1);
    assert!(
        r["gateChanges"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["name"] == "ContainerRestartRules")
    );
}

#[test]
fn a_version_outside_the_range_or_malformed_names_the_accepted_ones() {
    for (v, code) in [
        ("1.30", "unsupported-version"),
        ("1.3x", "invalid-version"),
        ("2.0", "unsupported-version"),
    ] {
        match handle(Request::new(
            "containerRestart",
            json!({"pod": {"spec": {"containers": [{"name": "c"}]}}, "container": "c", "exitCode": 1, "kubernetesVersion": v}),
        )) {
            Response::Error { errors, .. } => {
                assert_eq!(errors[0].code.as_deref(), Some(code), "{v}");
                assert!(
                    errors[0].message.contains("1.31 to 1.37"),
                    "{v}: {}",
                    errors[0].message
                );
            }
            Response::Ok { .. } => panic!("{v} accepted"),
        }
    }
    // A full version names its minor.
    let (r, _) = ok(
        "containerRestart",
        json!({"pod": {"spec": {"containers": [{"name": "c"}]}}, "container": "c", "exitCode": 1, "kubernetesVersion": "v1.36.3"}),
    );
    assert_eq!(r["action"], "Restart");
}

#[test]
fn restart_rule_limits_and_init_rules_as_each_minor_words_them() {
    // 21 rules on a regular container and, on an init container, rules without a restartPolicy.
    let rules: Vec<Value> = (0..21)
        .map(|i| json!({"action": "Restart", "exitCodes": {"operator": "In", "values": [i]}}))
        .collect();
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"restartPolicy": "Never",
            "initContainers": [{"name": "i", "image": "x", "restartPolicyRules": [rules[0].clone()]}],
            "containers": [{"name": "c", "image": "x", "restartPolicy": "Never", "restartPolicyRules": rules}]}});
    let errors = |v: &str| -> Vec<(String, String, String)> {
        let (r, _) = ok(
            "validate",
            json!({"object": pod, "kubernetesVersion": v, "featureGates": {"ContainerRestartRules": true}}),
        );
        r["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["field"].as_str().unwrap().to_owned(),
                    e["type"].as_str().unwrap().to_owned(),
                    e["message"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let limit = "spec.containers[0].restartPolicyRules";
    let init = "spec.initContainers[0].restartPolicy";
    // 1.34: field.TooLong, and nothing about the init container (validateInitContainerRestartPolicy
    // returns when its restartPolicy is unset).
    let v34 = errors("1.34");
    assert!(v34.iter().any(|(f, t, m)| f == limit
        && t == "FieldValueTooLong"
        && m.ends_with("Too long: may not be more than 20 bytes")));
    assert!(!v34.iter().any(|(f, _, _)| f == init));
    // 1.35: still TooLong; the init container's rules need a restartPolicy.
    let v35 = errors("1.35");
    assert!(v35.iter().any(|(f, t, _)| f == limit && t == "FieldValueTooLong"));
    assert!(v35.iter().any(|(f, t, _)| f == init && t == "FieldValueRequired"));
    // 1.36: field.TooMany.
    let v36 = errors("1.36");
    assert!(v36.iter().any(|(f, t, m)| f == limit
        && t == "FieldValueTooMany"
        && m.ends_with("must have at most 20 items")));
}
