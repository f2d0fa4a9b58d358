//! CSIDriver (storage.k8s.io/v1) on create: SetDefaults_CSIDriver, the strategy's
//! PrepareForCreate, then `ValidateCSIDriver`'s spec part (pkg/apis/storage/validation). ObjectMeta
//! (cluster-scoped, a DNS-subdomain name) is meta.rs's.
//!
//! The defaulting fills `attachRequired` (true), `podInfoOnMount`, `storageCapacity`,
//! `requiresRepublish` (false), `fsGroupPolicy` (ReadWriteOnceWithFSType), `volumeLifecycleModes`
//! (Persistent) and, with their gates on, `seLinuxMount` and `preventPodSchedulingIfMissing`
//! (false), so the Required checks of those never fire through the API. PrepareForCreate drops
//! `seLinuxMount`, `nodeAllocatableUpdatePeriodSeconds`, `serviceAccountTokenInSecrets` and
//! `preventPodSchedulingIfMissing` with their gates off (SELinuxMountReadWriteOncePod,
//! MutableCSINodeAllocatableCount from 1.33, CSIServiceAccountTokenSecrets from 1.35,
//! VolumeLimitScaling from 1.36); a minor without the gate has no such field, which decoding
//! reports. What is left reads the same at every minor 1.31–1.37: the enums, the token requests,
//! and the two gated checks; with CSIServiceAccountTokenSecrets on (1.35 on), a driver that
//! passes with token requests and no `serviceAccountTokenInSecrets` is created with
//! WarningsOnCreate's recommendation to set it. 1.37's declarative rules for the kind are alpha
//! (not shown) and concern updates.

use super::Ctx;
use super::json_read::{list, opt, opt_str, str_of, strings};
use crate::diag::{Diagnostic, FieldPath, Findings, Origin};
use serde_json::Value;
use std::collections::BTreeSet;

/// supportedFSGroupPolicy, as its sorted List() prints it.
const FS_GROUP_POLICIES: [&str; 3] = ["File", "None", "ReadWriteOnceWithFSType"];
/// validateVolumeLifecycleModes' list, in its order.
const LIFECYCLE_MODES: [&str; 2] = ["Persistent", "Ephemeral"];
/// A token request's bounds (validateTokenRequests): ten minutes to 2^32 seconds.
const MIN_EXPIRATION: i64 = 600;
const MAX_EXPIRATION: i64 = 1 << 32;

/// A CSIDriver on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let before = out.errors.len();
    let null = Value::Null;
    let spec = obj.get("spec").unwrap_or(&null);
    let p = FieldPath::new("spec");

    if let Some(policy) = opt_str(spec, "fsGroupPolicy")
        && !FS_GROUP_POLICIES.contains(&policy)
    {
        out.push(Diagnostic::not_supported(
            &p.child("fsGroupPolicy"),
            policy,
            &FS_GROUP_POLICIES,
        ));
    }

    let requests = list(spec, "tokenRequests");
    let rp = p.child("tokenRequests");
    let mut audiences = BTreeSet::new();
    for (i, r) in requests.iter().enumerate() {
        let ip = rp.index(i);
        let audience = str_of(r, "audience");
        if !audiences.insert(audience) {
            out.push(Diagnostic::duplicate(&ip.child("audience"), audience));
            continue;
        }
        let Some(seconds) = opt(r, "expirationSeconds").map(|s| s.as_i64().unwrap_or(0)) else {
            continue;
        };
        let ep = ip.child("expirationSeconds");
        if seconds < MIN_EXPIRATION {
            out.push(Diagnostic::invalid(
                &ep,
                seconds,
                "may not specify a duration less than 10 minutes",
            ));
        }
        if seconds > MAX_EXPIRATION {
            out.push(Diagnostic::invalid(
                &ep,
                seconds,
                "may not specify a duration larger than 2^32 seconds",
            ));
        }
    }

    // An empty list was defaulted to Persistent.
    for mode in strings(spec, "volumeLifecycleModes") {
        if !LIFECYCLE_MODES.contains(&mode) {
            out.push(Diagnostic::not_supported(
                &p.child("volumeLifecycleModes"),
                mode,
                &LIFECYCLE_MODES,
            ));
        }
    }

    if ctx.gates.enabled("MutableCSINodeAllocatableCount")
        && let Some(period) = opt(spec, "nodeAllocatableUpdatePeriodSeconds")
    {
        let period = period.as_i64().unwrap_or(0);
        if period < 10 {
            out.push(Diagnostic::invalid(
                &p.child("nodeAllocatableUpdatePeriodSeconds"),
                period,
                "must be greater than or equal to 10 seconds",
            ));
        }
    }

    let token_secrets = ctx.gates.enabled("CSIServiceAccountTokenSecrets");
    let in_secrets = opt(spec, "serviceAccountTokenInSecrets");
    if token_secrets
        && let Some(set) = in_secrets
        && requests.is_empty()
    {
        out.push(Diagnostic::invalid(
            &p.child("serviceAccountTokenInSecrets"),
            set.as_bool().unwrap_or(false),
            "serviceAccountTokenInSecrets is set but no tokenRequests are specified",
        ));
    }
    // WarningsOnCreate, for a driver that passed (its metadata too, as rest.BeforeCreate asks):
    // token requests without saying where the tokens go.
    if token_secrets
        && !requests.is_empty()
        && in_secrets.is_none()
        && out.errors.len() == before
        && super::meta::passes("storage.k8s.io", "CSIDriver", obj, ctx)
    {
        out.push(
            Diagnostic::lint(
                "service-account-token-in-secrets-unset",
                &p.child("serviceAccountTokenInSecrets"),
                "spec.serviceAccountTokenInSecrets is unset; if supported by this CSI driver, set to true to prevent possible logging of tokens in volume attributes",
            )
            .with_origin(Origin::KubeApiserver),
        );
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::validate::{ValidateInput, ValidateOutput, run};
    use serde_json::{Value, json};

    fn create(minor: &str, spec: Value, gates: &[(&str, bool)]) -> ValidateOutput {
        run(ValidateInput {
            object: Some(
                json!({"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
                "metadata": {"name": "ebs.csi.aws.com"}, "spec": spec}),
            ),
            kubernetes_version: Some(minor.to_owned()),
            feature_gates: Some(gates.iter().map(|(g, on)| ((*g).to_owned(), *on)).collect()),
            ..Default::default()
        })
        .unwrap()
    }

    fn messages(out: &ValidateOutput) -> Vec<String> {
        out.errors.iter().map(|d| d.message.clone()).collect()
    }

    #[test]
    fn defaults_fill_the_required_fields_and_the_enums_are_checked() {
        let ok = create("1.37", json!({}), &[]);
        assert!(ok.valid, "{:?}", ok.errors);
        let out = create(
            "1.31",
            json!({"fsGroupPolicy": "Always", "volumeLifecycleModes": ["Persistent", "Inline", ""]}),
            &[],
        );
        assert_eq!(
            messages(&out),
            [
                r#"spec.fsGroupPolicy: Unsupported value: "Always": supported values: "File", "None", "ReadWriteOnceWithFSType""#,
                r#"spec.volumeLifecycleModes: Unsupported value: "Inline": supported values: "Persistent", "Ephemeral""#,
                r#"spec.volumeLifecycleModes: Unsupported value: "": supported values: "Persistent", "Ephemeral""#,
            ]
        );
    }

    #[test]
    fn token_requests() {
        let out = create(
            "1.37",
            json!({"tokenRequests": [
                {"audience": "vault", "expirationSeconds": 599},
                {"audience": "vault", "expirationSeconds": 1},
                {"audience": "", "expirationSeconds": 4_294_967_297_i64},
                {"audience": "sts", "expirationSeconds": 600}
            ]}),
            &[],
        );
        assert_eq!(
            messages(&out),
            [
                "spec.tokenRequests[0].expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes",
                r#"spec.tokenRequests[1].audience: Duplicate value: "vault""#,
                "spec.tokenRequests[2].expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds",
            ]
        );
    }

    #[test]
    fn token_requests_without_token_in_secrets_are_warned_of_from_1_35() {
        let warned = |minor: &str, spec: Value| -> Vec<String> {
            create(minor, spec, &[])
                .warnings
                .iter()
                .map(|d| d.message.clone())
                .collect()
        };
        let requests = json!({"tokenRequests": [{"audience": "vault"}]});
        assert_eq!(
            warned("1.37", requests.clone()),
            [
                "spec.serviceAccountTokenInSecrets is unset; if supported by this CSI driver, set to true to prevent possible logging of tokens in volume attributes"
            ]
        );
        assert!(warned("1.34", requests).is_empty());
        assert!(
            warned(
                "1.37",
                json!({"tokenRequests": [{"audience": "vault"}], "serviceAccountTokenInSecrets": false})
            )
            .is_empty()
        );
        // Only a driver that passed is warned.
        assert!(
            warned(
                "1.37",
                json!({"tokenRequests": [{"audience": "vault", "expirationSeconds": 1}]})
            )
            .is_empty()
        );
    }

    #[test]
    fn the_gated_fields_are_checked_only_with_their_gates_on() {
        let spec =
            json!({"nodeAllocatableUpdatePeriodSeconds": 5, "serviceAccountTokenInSecrets": true});
        let on = [
            ("MutableCSINodeAllocatableCount", true),
            ("CSIServiceAccountTokenSecrets", true),
        ];
        assert_eq!(
            messages(&create("1.37", spec.clone(), &on)),
            [
                "spec.nodeAllocatableUpdatePeriodSeconds: Invalid value: 5: must be greater than or equal to 10 seconds",
                "spec.serviceAccountTokenInSecrets: Invalid value: true: serviceAccountTokenInSecrets is set but no tokenRequests are specified",
            ]
        );
        // Off where the release lets them be: the fields are dropped and nothing is said.
        assert!(
            create(
                "1.35",
                spec.clone(),
                &[
                    ("MutableCSINodeAllocatableCount", false),
                    ("CSIServiceAccountTokenSecrets", false)
                ]
            )
            .valid
        );
        // Before 1.33 neither field exists: decoding drops them as unknown, nothing is checked.
        assert!(create("1.32", spec.clone(), &[]).errors.is_empty());
        let with_requests =
            json!({"serviceAccountTokenInSecrets": false, "tokenRequests": [{"audience": "a"}]});
        assert!(create("1.37", with_requests, &on).valid);
    }
}
