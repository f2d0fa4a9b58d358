//! Values of the wrong type, as kube-apiserver's decoder refuses them: one error per object,
//! with the API server's message, for every kind it creates (modelled by restartkit or not).
//! The messages were checked against the real decoder by the oracle's decoding leg.

use restartkit::validate::{ValidateInput, ValidateOutput, run};
use serde_json::{Value, json};

fn validate(object: Value, minor: u32) -> ValidateOutput {
    run(ValidateInput {
        object: Some(object),
        kubernetes_version: Some(format!("1.{minor}")),
        ..ValidateInput::default()
    })
    .unwrap_or_else(|e| ValidateOutput {
        valid: false,
        errors: vec![e],
        warnings: Vec::new(),
        infos: Vec::new(),
        kubernetes_version: String::new(),
        documents: Vec::new(),
        proposals: Vec::new(),
    })
}

/// The error messages, and their fields.
fn errors(object: Value, minor: u32) -> Vec<(String, String)> {
    validate(object, minor)
        .errors
        .into_iter()
        .map(|d| (d.field, d.message))
        .collect()
}

fn one(field: &str, message: &str) -> Vec<(String, String)> {
    vec![(field.to_owned(), message.to_owned())]
}

#[test]
fn a_string_where_an_int32_is() {
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": "two", "selector": {"matchLabels": {"a": "b"}},
                 "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    assert_eq!(
        errors(d, 37),
        one(
            "spec.replicas",
            r#"Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"#
        )
    );
}

#[test]
fn kinds_restartkit_does_not_model_are_decoded_too() {
    let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
        "spec": {"ports": [{"port": "eighty"}]}});
    assert_eq!(
        errors(svc, 37),
        one(
            "spec.ports[0].port",
            r#"Service in version "v1" cannot be handled as a Service: json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32"#
        )
    );
    // A named Go type and a range: int32 overflow names the number.
    let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
        "spec": {"maxReplicas": 3000000000u64}});
    assert_eq!(
        errors(hpa, 37),
        one(
            "spec.maxReplicas",
            r#"HorizontalPodAutoscaler in version "v2" cannot be handled as a HorizontalPodAutoscaler: json: cannot unmarshal number 3000000000 into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32"#
        )
    );
    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
        "data": {"password": "not base64!"}});
    assert_eq!(
        errors(secret, 37),
        one(
            "data[password]",
            r#"Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3"#
        )
    );
    // A well-typed object of such a kind has nothing to say.
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}});
    assert!(validate(cm, 37).valid);
}

#[test]
fn a_decoder_of_its_own_stops_the_decoding_and_wins() {
    // replicas sorts before template: its mismatch is remembered, then the quantity's own
    // decoder fails and its error is the one returned.
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": "two", "selector": {"matchLabels": {"a": "b"}},
                 "template": {"metadata": {"labels": {"a": "b"}},
                              "spec": {"containers": [{"name": "c", "image": "i", "resources": {"limits": {"cpu": "1x"}}}]}}}});
    assert_eq!(
        errors(d, 37),
        one(
            "spec.template.spec.containers[0].resources.limits[cpu]",
            r#"Deployment in version "v1" cannot be handled as a Deployment: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"#
        )
    );
    // An int-or-string that is neither: IntOrString's decoder, with the field's context.
    let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
        "spec": {"ports": [{"port": 80, "targetPort": true}]}});
    assert_eq!(
        errors(svc, 37),
        one(
            "spec.ports[0].targetPort",
            r#"Service in version "v1" cannot be handled as a Service: json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32"#
        )
    );
}

#[test]
fn embedded_structs_name_themselves_in_the_path_from_1_35() {
    let pv = json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "p"},
        "spec": {"gcePersistentDisk": {"pdName": "d", "readOnly": "yes"}}});
    let message = |path: &str| {
        format!(
            r#"PersistentVolume in version "v1" cannot be handled as a PersistentVolume: json: cannot unmarshal string into Go struct field GCEPersistentDiskVolumeSource.{path} of type bool"#
        )
    };
    assert_eq!(
        errors(pv.clone(), 34),
        one(
            "spec.gcePersistentDisk.readOnly",
            &message("spec.gcePersistentDisk.readOnly")
        )
    );
    assert_eq!(
        errors(pv, 35),
        one(
            "spec.gcePersistentDisk.readOnly",
            &message("spec.PersistentVolumeSource.gcePersistentDisk.readOnly")
        )
    );
}

#[test]
fn times_and_micro_times() {
    let event = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"},
        "eventTime": "2024-01-02T03:04:05Z"});
    assert_eq!(
        errors(event, 37),
        one(
            "eventTime",
            r#"Event in version "v1" cannot be handled as a Event: parsing time "2024-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000""#
        )
    );
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
        "status": {"startTime": 0}});
    assert_eq!(
        errors(job, 37),
        one(
            "status.startTime",
            r#"Job in version "v1" cannot be handled as a Job: json: cannot unmarshal number into Go struct field JobStatus.status.startTime of type string"#
        )
    );
}

#[test]
fn a_kind_a_minor_does_not_serve_is_not_decoded_against_another_version() {
    // batch/v1beta1 CronJob is gone from every supported minor: no table, no decoding error.
    let cj = json!({"apiVersion": "batch/v1beta1", "kind": "CronJob", "metadata": {"name": "c"},
        "spec": {"schedule": 5}});
    assert!(
        validate(cj, 37)
            .errors
            .iter()
            .all(|d| !d.message.contains("cannot be handled"))
    );
}
