//! A ContainerRecreateRequest in a manifest file: the checks that need no Pod or Node.

use crate::api::ContainerRecreateRequest;
use crate::diag::{Diagnostic, FieldPath, Findings, Origin, Severity};
use crate::validate::Ctx;

use super::go_json::GoSpec;
use super::webhook::{
    LABEL_ACTIVE, LABEL_NODE_NAME, LABEL_POD_UID, container_static_check, create_checks_before_pod,
    v1beta1_schema_errors,
};

/// Lint codes (stable).
pub mod lint {
    pub const INJECTED_LABEL: &str = "crr-injected-label";
    pub const NEGATIVE_UNCHECKED: &str = "crr-negative-value-accepted";
    pub const STATUS_IGNORED: &str = "crr-status-ignored";
    pub const NEEDS_POD: &str = "crr-needs-pod";
}

/// The checks that need no Pod or Node (a CRR in a manifest file). Webhook rejections that are
/// certain whatever the Pod are errors (the first one only, as the webhook stops there); the
/// Pod-dependent checks become an info note.
pub fn validate_crr_manifest(crr: &ContainerRecreateRequest, ctx: &Ctx, out: &mut Findings) {
    let version = crr
        .api_version
        .as_deref()
        .and_then(|a| a.rsplit_once('/'))
        .map_or("", |(_, v)| v);
    if version != "v1alpha1" && version != "v1beta1" {
        let p = FieldPath::new("apiVersion");
        out.push(Diagnostic::plain(
            Origin::KubeApiserver,
            &p,
            format!("no matches for kind \"ContainerRecreateRequest\" in version \"apps.kruise.io/{version}\" (served: v1alpha1, v1beta1)"),
        ));
        return;
    }
    if !ctx.gates.enabled("KruiseDaemon") {
        out.push(Diagnostic::plain(
            Origin::KruiseWebhook,
            &FieldPath::root(),
            "feature-gate KruiseDaemon is not enabled",
        ));
        return;
    }
    manifest_lints(crr, version, out);
    let spec_value = match serde_json::to_value(&crr.spec) {
        Ok(v) => v,
        Err(e) => {
            out.push(Diagnostic::request(
                "internal",
                "spec",
                format!("cannot read the spec: {e}"),
            ));
            return;
        }
    };
    let mut spec = match GoSpec::decode(Some(&spec_value)) {
        Ok(s) => s,
        Err(e) => {
            out.push(Diagnostic::plain(
                Origin::KruiseWebhook,
                &FieldPath::new(&e.field),
                e.message,
            ));
            return;
        }
    };
    if let Err(r) = create_checks_before_pod(&mut spec) {
        out.push(Diagnostic::plain(
            Origin::KruiseWebhook,
            &r.field,
            r.message,
        ));
        return;
    }
    // Whatever the Pod, a repeated name or a read-only field is rejected (if the Pod checks pass,
    // these are; if not, the request is rejected anyway).
    let mut seen: Vec<&str> = Vec::new();
    for (i, c) in spec.containers.iter().flatten().enumerate() {
        if let Err(r) = container_static_check(c, i, &seen) {
            out.push(Diagnostic::plain(
                Origin::KruiseWebhook,
                &r.field,
                r.message,
            ));
            return;
        }
        seen.push(c.name.as_str());
    }
    if version == "v1beta1" {
        out.extend(v1beta1_schema_errors(&spec));
    }
    let names: Vec<&str> = spec
        .containers
        .iter()
        .flatten()
        .map(|c| c.name.as_str())
        .collect();
    out.push(
        Diagnostic::lint(
            lint::NEEDS_POD,
            &FieldPath::new("spec").child("podName"),
            format!(
                "on create the webhook also checks the Pod {:?}: it must exist in the namespace, be active (or terminated by the sidecar terminator) and scheduled, its Node must exist, and each of {:?} must be a container of the Pod with a containerID in status.containerStatuses (sidecar init containers have none there and are always rejected)",
                spec.pod_name, names
            ),
        )
        .with_severity(Severity::Info),
    );
}

fn manifest_lints(crr: &ContainerRecreateRequest, version: &str, out: &mut Findings) {
    let lp = FieldPath::new("metadata").child("labels");
    for key in [LABEL_POD_UID, LABEL_NODE_NAME, LABEL_ACTIVE] {
        if crr.metadata.label(key).is_some() {
            out.push(Diagnostic::lint(
                lint::INJECTED_LABEL,
                &lp.key(key),
                format!("label {key} is set by the Kruise webhook on create; the value given here is overwritten"),
            ));
        }
    }
    if crr.status.is_some() {
        out.push(Diagnostic::lint(
            lint::STATUS_IGNORED,
            &FieldPath::new("status"),
            "status is ignored on create (status subresource)",
        ));
    }
    if version == "v1alpha1" {
        let s = &crr.spec;
        if let Some(v) = s
            .strategy
            .as_ref()
            .and_then(|s| s.min_started_seconds)
            .filter(|v| *v < 0)
        {
            out.push(Diagnostic::lint(
                lint::NEGATIVE_UNCHECKED,
                &FieldPath::new("spec").child("strategy").child("minStartedSeconds"),
                format!("minStartedSeconds {v} is accepted by v1alpha1 (no schema minimum) and behaves like 0; v1beta1 rejects it"),
            ));
        }
        if let Some(v) = s.ttl_seconds_after_finished.filter(|v| *v < 0) {
            out.push(Diagnostic::lint(
                lint::NEGATIVE_UNCHECKED,
                &FieldPath::new("spec").child("ttlSecondsAfterFinished"),
                format!("ttlSecondsAfterFinished {v} is accepted by v1alpha1 (no schema minimum): the CRR is deleted as soon as it completes; v1beta1 rejects it"),
            ));
        }
    }
}
