//! ServiceAccount (v1) on create. `ValidateServiceAccount` (pkg/apis/core/validation) is its
//! ObjectMeta alone, which meta.rs checks (namespaced, a DNS-subdomain name); the strategy's
//! PrepareForCreate keeps only the name of each `secrets` reference, which no check reads. From
//! 1.32 (KEP-4002) the strategy's WarningsOnCreate warns of the
//! `kubernetes.io/enforce-mountable-secrets` annotation, which the ServiceAccount admission plugin
//! still honours ([`Change::ServiceAccountMountableSecretsWarning`]); 1.31 creates it silently.
//! 1.37's declarative validation of a ServiceAccount is ObjectMeta's, the same rules.

use super::Ctx;
use crate::diag::{Diagnostic, FieldPath, Findings, Origin};
use crate::versions::Change;
use serde_json::Value;

/// plugin/pkg/admission/serviceaccount's EnforceMountableSecretsAnnotation.
const ENFORCE_MOUNTABLE_SECRETS: &str = "kubernetes.io/enforce-mountable-secrets";

/// A ServiceAccount on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    if !Change::ServiceAccountMountableSecretsWarning.at(ctx.gates.version.minor) {
        return;
    }
    let annotated = obj
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_object)
        .is_some_and(|a| a.contains_key(ENFORCE_MOUNTABLE_SECRETS));
    if !annotated {
        return;
    }
    // rest.BeforeCreate asks for the warnings only of an object that passed, and a
    // ServiceAccount's only errors are its metadata's.
    if !super::meta::passes("", "ServiceAccount", obj, ctx) {
        return;
    }
    let p = FieldPath::new("metadata")
        .child("annotations")
        .key(ENFORCE_MOUNTABLE_SECRETS);
    out.push(
        Diagnostic::lint(
            "deprecated-enforce-mountable-secrets",
            &p,
            format!(
                "{}: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets",
                p.as_str()
            ),
        )
        .with_origin(Origin::KubeApiserver),
    );
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::validate::{ValidateInput, run};
    use serde_json::json;

    fn create(minor: &str, name: &str, annotations: Value) -> crate::validate::ValidateOutput {
        run(ValidateInput {
            object: Some(json!({"apiVersion": "v1", "kind": "ServiceAccount",
                "metadata": {"name": name, "namespace": "ns", "annotations": annotations},
                "secrets": [{"name": "token", "namespace": "elsewhere", "uid": "x"}]})),
            kubernetes_version: Some(minor.to_owned()),
            ..Default::default()
        })
        .unwrap()
    }

    fn warnings(out: &crate::validate::ValidateOutput) -> Vec<(String, String)> {
        out.warnings
            .iter()
            .map(|d| (d.field.clone(), d.message.clone()))
            .collect()
    }

    #[test]
    fn the_enforce_mountable_secrets_annotation_warns_from_1_32() {
        let annotated = json!({ENFORCE_MOUNTABLE_SECRETS: "true"});
        for minor in ["1.32", "1.35", "1.37"] {
            let out = create(minor, "builder", annotated.clone());
            assert!(out.valid, "{minor}: {:?}", out.errors);
            assert_eq!(
                warnings(&out),
                [(
                    "metadata.annotations[kubernetes.io/enforce-mountable-secrets]".to_owned(),
                    "metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets".to_owned()
                )],
                "{minor}"
            );
            assert!(
                !out.infos
                    .iter()
                    .any(|d| d.code.as_deref() == Some("kind-not-modelled")),
                "{minor}: {:?}",
                out.infos
            );
        }
        // Any value warns: the strategy looks for the key only.
        assert_eq!(
            warnings(&create(
                "1.37",
                "builder",
                json!({ENFORCE_MOUNTABLE_SECRETS: ""})
            ))
            .len(),
            1
        );
        assert!(warnings(&create("1.31", "builder", annotated)).is_empty());
        assert!(warnings(&create("1.37", "builder", json!({"other": "x"}))).is_empty());
    }

    #[test]
    fn no_warning_for_a_service_account_that_is_refused() {
        let out = create(
            "1.37",
            "Builder_1",
            json!({ENFORCE_MOUNTABLE_SECRETS: "true"}),
        );
        assert!(!out.valid);
        assert_eq!(
            out.errors.first().map(|d| d.field.as_str()),
            Some("metadata.name")
        );
        assert!(warnings(&out).is_empty());
    }
}
