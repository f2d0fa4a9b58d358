//! ObjectMeta on create, as each kind's upstream Validate checks it (core/src/validate/meta.rs):
//! name rules per kind, scope, labels, annotations, finalizers, ownerReferences, generateName and
//! each minor's wording. The messages are upstream's, checked against it by the oracle's
//! validate(ObjectMeta) leg.
#![allow(clippy::indexing_slicing)]

use serde_json::{Value, json};

fn validate_at(minor: u32, obj: Value, gates: Value) -> Value {
    restartkit::handle(restartkit::Request {
        op: "validate".into(),
        input: json!({"object": obj, "kubernetesVersion": format!("1.{minor}"), "featureGates": gates}),
    })
    .result()
    .cloned()
    .unwrap_or(Value::Null)
}

/// (field, message) of every error.
fn errors_at(minor: u32, obj: Value) -> Vec<(String, String)> {
    errors_of(&validate_at(minor, obj, json!({})))
}

fn errors_of(result: &Value) -> Vec<(String, String)> {
    result
        .get("errors")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|e| {
            let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            (s("field"), s("message"))
        })
        .collect()
}

fn errors(obj: Value) -> Vec<(String, String)> {
    errors_at(37, obj)
}

fn object(api_version: &str, kind: &str, metadata: Value) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "metadata": metadata})
}

fn config_map(metadata: Value) -> Value {
    object("v1", "ConfigMap", metadata)
}

fn named(api_version: &str, kind: &str, name: &str) -> Value {
    object(api_version, kind, json!({"name": name}))
}

fn fields(errs: &[(String, String)]) -> Vec<&str> {
    errs.iter().map(|(f, _)| f.as_str()).collect()
}

const SUBDOMAIN_REGEX: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

#[test]
fn dns_subdomain_names_allow_253_characters_and_dots() {
    let ok = format!("{}.{}", "a".repeat(126), "b".repeat(126));
    assert_eq!(ok.len(), 253);
    assert!(errors(config_map(json!({"name": ok}))).is_empty());
    let long = "a".repeat(254);
    assert_eq!(
        errors(config_map(json!({"name": long}))),
        vec![(
            "metadata.name".to_owned(),
            format!(
                "metadata.name: Invalid value: \"{long}\": must be no more than 253 characters"
            )
        )]
    );
    assert_eq!(
        errors(config_map(json!({"name": "My-App"}))),
        vec![(
            "metadata.name".to_owned(),
            format!("metadata.name: Invalid value: \"My-App\": {SUBDOMAIN_REGEX}")
        )]
    );
}

#[test]
fn label_names_refuse_dots_and_64_characters() {
    for (av, kind) in [("v1", "Namespace"), ("apps/v1", "StatefulSet")] {
        let e = errors(named(av, kind, "a.b"));
        assert!(
            e.contains(&(
                "metadata.name".to_owned(),
                "metadata.name: Invalid value: \"a.b\": must not contain dots".to_owned()
            )),
            "{kind}: {e:?}"
        );
        let e = errors(named(av, kind, &"a".repeat(64)));
        assert!(
            e.iter()
                .any(|(f, m)| f == "metadata.name"
                    && m.ends_with("must be no more than 63 characters")),
            "{kind}: {e:?}"
        );
        assert!(
            errors(named(av, kind, &"a".repeat(63)))
                .iter()
                .all(|(f, _)| f != "metadata.name"),
            "{kind}"
        );
    }
    // A Deployment's name is a subdomain: dots and 64 characters are fine.
    assert!(
        errors(named(
            "apps/v1",
            "Deployment",
            &format!("a.{}", "b".repeat(70))
        ))
        .iter()
        .all(|(f, _)| f != "metadata.name")
    );
}

#[test]
fn service_names_are_dns_1035_labels_unless_relaxed() {
    let mut svc = named("v1", "Service", "1abc");
    // A Service needs a port (ValidateService); only the name is at issue here.
    svc["spec"] = json!({"ports": [{"port": 80}]});
    let e = errors_at(33, svc.clone());
    assert_eq!(fields(&e), vec!["metadata.name"]);
    assert!(e[0].1.contains("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character"));
    // RelaxedServiceNameValidation (default on from 1.36, locked in 1.37): DNS-1123 labels.
    assert!(errors_at(36, svc.clone()).is_empty());
    assert!(errors_at(37, svc.clone()).is_empty());
    assert!(
        errors_of(&validate_at(
            35,
            svc.clone(),
            json!({"RelaxedServiceNameValidation": true})
        ))
        .is_empty()
    );
    assert_eq!(
        fields(&errors_of(&validate_at(
            36,
            svc,
            json!({"RelaxedServiceNameValidation": false})
        ))),
        vec!["metadata.name"]
    );
}

#[test]
fn rbac_names_are_path_segments() {
    for name in ["My:Role", "system:controller:x", "UPPER_case"] {
        assert!(
            errors(named("rbac.authorization.k8s.io/v1", "ClusterRole", name)).is_empty(),
            "{name}"
        );
    }
    assert_eq!(
        errors(named("rbac.authorization.k8s.io/v1", "Role", "a/b%c")),
        vec![
            (
                "metadata.name".to_owned(),
                "metadata.name: Invalid value: \"a/b%c\": may not contain '/'".to_owned()
            ),
            (
                "metadata.name".to_owned(),
                "metadata.name: Invalid value: \"a/b%c\": may not contain '%'".to_owned()
            ),
        ]
    );
    assert_eq!(
        // A binding valid but for its name (its roleRef is checked too: rbac.rs).
        errors(json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": ".."},
            "roleRef": {"kind": "ClusterRole", "name": "view"}
        })),
        vec![(
            "metadata.name".to_owned(),
            "metadata.name: Invalid value: \"..\": may not be '..'".to_owned()
        )]
    );
}

#[test]
fn cronjob_names_stop_at_52_characters() {
    let cj = |name: &str| {
        json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name},
               "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": {
                   "restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}}})
    };
    assert!(errors(cj(&"a".repeat(52))).is_empty());
    let name = "a".repeat(53);
    assert_eq!(
        errors(cj(&name)),
        vec![(
            "metadata.name".to_owned(),
            format!("metadata.name: Invalid value: \"{name}\": must be no more than 52 characters")
        )]
    );
}

fn job(metadata: Value) -> Value {
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata,
           "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}})
}

/// A Job's name becomes its Pods' job-name label value: past 63 characters the template's
/// labels are invalid too (a subdomain name may be that long).
#[test]
fn job_names_past_63_characters_break_the_template_labels() {
    let name = "j".repeat(64);
    // One error per generated label (job-name, batch.kubernetes.io/job-name).
    let e = errors(job(json!({"name": name})));
    let expected = (
        "spec.template.labels".to_owned(),
        format!("spec.template.labels: Invalid value: \"{name}\": must be no more than 63 bytes"),
    );
    assert_eq!(e, vec![expected.clone(), expected]);
    // 1.34's apimachinery counts characters.
    assert!(
        errors_at(34, job(json!({"name": name})))[0]
            .1
            .ends_with("must be no more than 63 characters")
    );
    assert!(errors(job(json!({"name": "j".repeat(63)}))).is_empty());
    // SetDefaults_Job gives a Job without labels its template's label map itself: the job-name
    // labels land in the Job's own labels as well.
    let mut with_template_labels = job(json!({"name": name}));
    with_template_labels["spec"]["template"]["metadata"] = json!({"labels": {"app": "a"}});
    assert_eq!(
        fields(&errors(with_template_labels.clone())),
        vec![
            "spec.template.labels",
            "spec.template.labels",
            "metadata.labels",
            "metadata.labels"
        ]
    );
    with_template_labels["metadata"]["labels"] = json!({"own": "x"});
    assert_eq!(
        fields(&errors(with_template_labels)),
        vec!["spec.template.labels", "spec.template.labels"]
    );
}

#[test]
fn generate_name_is_checked_as_a_prefix_and_the_generated_name_as_a_name() {
    // A trailing dash is fine in a prefix: random characters follow.
    assert!(errors(config_map(json!({"generateName": "app-"}))).is_empty());
    let e = errors(config_map(json!({"generateName": "App-"})));
    assert_eq!(fields(&e), vec!["metadata.generateName", "metadata.name"]);
    assert!(
        e[1].1
            .starts_with("metadata.name: Invalid value: \"App-xxxxx\": ")
    );
    assert!(e[1].1.contains("xxxxx stands for its 5 random characters"));
    // The prefix is cut to 58 characters: a long one gives a 63-character name, too long for
    // a label name only in generateName (up to 63 is fine once cut).
    let long = "a".repeat(70);
    assert!(errors(named("v1", "Namespace", "x")).is_empty());
    let e = errors(object("v1", "Namespace", json!({"generateName": long})));
    assert_eq!(fields(&e), vec!["metadata.generateName"]);
    // A LimitRange without either is named with a UUID by its strategy.
    assert!(errors(object("v1", "LimitRange", json!({}))).is_empty());
    // Neither name nor generateName.
    assert_eq!(
        errors(config_map(json!({}))),
        vec![(
            "metadata.name".to_owned(),
            "metadata.name: Required value: name or generateName is required".to_owned()
        )]
    );
    // An Indexed Job named from generateName: the generated name has 63 characters, so the
    // last Pod's hostname (name-4) is no DNS label.
    let mut j = job(json!({"generateName": "g".repeat(60)}));
    j["spec"]["completionMode"] = json!("Indexed");
    j["spec"]["completions"] = json!(5);
    let e = errors(j);
    assert_eq!(fields(&e), vec!["metadata.name"]);
    assert!(e[0].1.contains(&format!(
        "will not able to create pod with invalid DNS label: {}xxxxx-4",
        "g".repeat(58)
    )));
}

/// maskTrailingDash replaces a prefix's final `-` and drops the character before it too
/// (`name[:len-2] + "a"`): `a.-` is checked as `aa` and passes as a prefix, while the name
/// generated from it (`a.-xxxxx`) is refused.
#[test]
fn generate_name_masking_drops_the_character_before_the_dash() {
    let e = errors(object("v1", "Namespace", json!({"generateName": "a.-"})));
    assert_eq!(fields(&e), vec!["metadata.name"]);
    assert!(
        e[0].1
            .starts_with("metadata.name: Invalid value: \"a.-xxxxx\": a lowercase RFC 1123 label")
    );
    // Without the drop, `a.a` would have been refused for its dot.
    assert_eq!(
        fields(&errors(object(
            "v1",
            "Namespace",
            json!({"generateName": "a.b-"})
        ))),
        vec!["metadata.generateName", "metadata.name"]
    );
}

#[test]
fn namespace_is_checked_only_for_namespaced_kinds() {
    // kubectl fills a missing namespace; the API server clears a cluster-scoped object's.
    assert!(errors(config_map(json!({"name": "c"}))).is_empty());
    assert!(
        errors(object(
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            json!({"name": "c", "namespace": "Bad"})
        ))
        .is_empty()
    );
    let e = errors(config_map(json!({"name": "c", "namespace": "Bad"})));
    assert_eq!(fields(&e), vec!["metadata.namespace"]);
    assert!(e[0].1.contains("a lowercase RFC 1123 label"));
}

#[test]
fn labels_keys_and_values() {
    let e = errors(config_map(json!({"name": "c", "labels": {
        "example.com/ok": "v", "a/b/c": "v", "k": "v".repeat(64), "x.io/": "-v"}})));
    let msgs: Vec<&str> = e.iter().map(|(_, m)| m.as_str()).collect();
    assert!(e.iter().all(|(f, _)| f == "metadata.labels"));
    assert!(msgs.iter().any(|m| m.starts_with(
        "metadata.labels: Invalid value: \"a/b/c\": a valid label key must consist of"
    )));
    assert!(
        msgs.contains(
            &format!(
                "metadata.labels: Invalid value: \"{}\": must be no more than 63 bytes",
                "v".repeat(64)
            )
            .as_str()
        )
    );
    assert!(
        msgs.contains(&"metadata.labels: Invalid value: \"x.io/\": name part must be non-empty")
    );
    assert!(msgs.iter().any(|m| m.starts_with(
        "metadata.labels: Invalid value: \"-v\": a valid label must be an empty string"
    )));
    assert_eq!(e.len(), 5, "{msgs:?}");
    // Up to 1.34: "a qualified name", "characters".
    let old = errors_at(
        34,
        config_map(json!({"name": "c", "labels": {"a/b/c": "v".repeat(64)}})),
    );
    let old: Vec<&str> = old.iter().map(|(_, m)| m.as_str()).collect();
    assert!(old[..].iter().any(|m| m.starts_with(
        "metadata.labels: Invalid value: \"a/b/c\": a qualified name must consist of"
    )));
    assert!(
        old[..]
            .iter()
            .any(|m| m.ends_with("must be no more than 63 characters"))
    );
    // A named Namespace is labelled with its name before validation.
    let e = errors(named("v1", "Namespace", &format!("{}.b", "a".repeat(62))));
    assert_eq!(
        fields(&e),
        vec!["metadata.name", "metadata.name", "metadata.labels"]
    );
}

#[test]
fn annotations_total_size_and_keys() {
    let at_limit = "x".repeat(256 * 1024 - 1);
    assert!(
        errors(config_map(
            json!({"name": "c", "annotations": {"k": at_limit}})
        ))
        .is_empty()
    );
    let over = "x".repeat(256 * 1024);
    let e = errors_at(
        37,
        config_map(json!({"name": "c", "annotations": {"k": over}})),
    );
    assert_eq!(
        e,
        vec![(
            "metadata.annotations".to_owned(),
            "metadata.annotations: Too long: may not be more than 262144 bytes".to_owned()
        )]
    );
    let e = errors_at(
        31,
        config_map(json!({"name": "c", "annotations": {"k": over}})),
    );
    assert_eq!(
        e[0].1,
        "metadata.annotations: Too long: must have at most 262144 bytes"
    );
    // Case does not matter in an annotation key; `/` twice does.
    assert!(
        errors(config_map(
            json!({"name": "c", "annotations": {"Example.COM/Key": "v"}})
        ))
        .is_empty()
    );
    assert_eq!(
        fields(&errors(config_map(
            json!({"name": "c", "annotations": {"a/b/c": "v"}})
        ))),
        vec!["metadata.annotations"]
    );
}

#[test]
fn finalizers() {
    let e = errors(config_map(
        json!({"name": "c", "finalizers": ["cleanup", "example.com/ok", "orphan", "foregroundDeletion"]}),
    ));
    assert_eq!(
        e,
        vec![
            (
                "metadata.finalizers".to_owned(),
                "metadata.finalizers: Invalid value: [\"cleanup\",\"example.com/ok\",\"orphan\",\"foregroundDeletion\"]: finalizer orphan and foregroundDeletion cannot be both set".to_owned()
            ),
            (
                "metadata.finalizers[0]".to_owned(),
                "metadata.finalizers[0]: Invalid value: \"cleanup\": name is neither a standard finalizer name nor is it fully qualified".to_owned()
            ),
        ]
    );
    // A Lease is checked by apimachinery's ValidateObjectMeta: no standard-name rule.
    assert!(
        errors(object(
            "coordination.k8s.io/v1",
            "Lease",
            json!({"name": "l", "finalizers": ["cleanup"]})
        ))
        .is_empty()
    );
}

#[test]
fn owner_references_per_minor() {
    let meta = json!({"name": "c", "ownerReferences": [{"apiVersion": "a/b/c", "kind": "", "name": "n", "uid": "u"}]});
    assert_eq!(
        errors_at(33, config_map(meta.clone())),
        vec![
            ("metadata.ownerReferences.apiVersion".to_owned(), "metadata.ownerReferences.apiVersion: Invalid value: \"a/b/c\": version must not be empty".to_owned()),
            ("metadata.ownerReferences.kind".to_owned(), "metadata.ownerReferences.kind: Invalid value: \"\": kind must not be empty".to_owned()),
        ]
    );
    assert_eq!(
        errors_at(36, config_map(meta.clone()))[1].1,
        "metadata.ownerReferences.kind: Invalid value: \"\": must not be empty"
    );
    assert_eq!(
        errors_at(37, config_map(meta)),
        vec![
            ("metadata.ownerReferences[0].apiVersion".to_owned(), "metadata.ownerReferences[0].apiVersion: Invalid value: \"a/b/c\": must be <group>/<version> or <version>".to_owned()),
            ("metadata.ownerReferences[0].kind".to_owned(), "metadata.ownerReferences[0].kind: Required value: must not be empty".to_owned()),
        ]
    );
}

#[test]
fn generation_is_reset_for_the_workload_controllers_only() {
    assert_eq!(
        errors(config_map(json!({"name": "c", "generation": -1}))),
        vec![(
            "metadata.generation".to_owned(),
            "metadata.generation: Invalid value: -1: must be greater than or equal to 0".to_owned()
        )]
    );
    let mut d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "generation": -1},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    assert!(errors(d.clone()).is_empty());
    d["metadata"]["generation"] = json!(3);
    assert!(errors(d).is_empty());
}

#[test]
fn custom_resources_use_subdomain_names_and_their_scope() {
    let js = object(
        "jobset.x-k8s.io/v1alpha2",
        "JobSet",
        json!({"name": "Bad_Name"}),
    );
    assert!(fields(&errors(js)).contains(&"metadata.name"));
    // Kinds restartkit does not know are not checked.
    assert!(errors(named("example.com/v1", "Widget", "Bad_Name")).is_empty());
}

#[test]
fn list_items_are_checked_each_at_their_path() {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [
        config_map(json!({"name": "ok"})), config_map(json!({"name": "Not_OK"}))]});
    assert_eq!(fields(&errors(list)), vec!["items[1].metadata.name"]);
}

/// A TrainJob in a stream is read with the stream's runtimes, outside `validate_value`: its
/// metadata is checked there too.
#[test]
fn train_jobs_read_with_their_runtimes_are_checked() {
    let source = "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: Bad_Name
spec:
  runtimeRef:
    name: torch-distributed
";
    let result = restartkit::handle(restartkit::Request {
        op: "validate".into(),
        input: json!({"source": source, "kubernetesVersion": "1.37"}),
    })
    .result()
    .cloned()
    .unwrap_or(Value::Null);
    let e = errors_of(&result);
    assert!(
        e.iter().any(|(f, m)| f == "metadata.name"
            && m.starts_with(
                "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"
            )),
        "{e:?}"
    );
}
