//! Dynamic Resource Allocation in a PodSpec as kube-apiserver's create path checks it
//! (pkg/apis/core/validation): validatePodResourceClaims (`spec.resourceClaims`: each claim named
//! by a DNS label, once, with exactly one of `resourceClaimName` and `resourceClaimTemplateName`,
//! each a DNS subdomain; from 1.32 a static Pod may carry none) and validateResourceClaimNames (a
//! container's `resources.claims`, and the pod-level one: each names a claim of the Pod, a
//! `request` is a DNS label, no entry twice, and a whole claim not beside one of its requests);
//! before them the create strategy's drop (pkg/api/pod dropDisabledDynamicResourceAllocationFields:
//! with DynamicResourceAllocation off, the Pod's claims and every container's go).

use super::Ctx;
use super::names::{dns1123_label, dns1123_subdomain_errors};
use crate::api::PodSpec;
use crate::diag::{Diagnostic, ErrorType, FieldPath, Findings};
use crate::validate::crd_schema::go;
use crate::versions::Change;
use serde_json::Value;
use std::collections::BTreeSet;

pub(super) const GATE_DRA: &str = "DynamicResourceAllocation";
/// The annotation the kubelet puts on a static Pod's mirror (core.MirrorPodAnnotationKey).
const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";

/// What the container checks need of the Pod's claims.
pub struct Claims {
    /// The create drops every claim (DynamicResourceAllocation off).
    pub dropped: bool,
    /// gatherPodResourceClaimNames: the non-empty names of `spec.resourceClaims`, sorted as
    /// sets.List prints them.
    pub names: BTreeSet<String>,
}

impl Claims {
    pub fn new(spec: &PodSpec, ctx: &Ctx) -> Self {
        let dropped = !ctx.skip_defaulting && !ctx.gates.enabled(GATE_DRA);
        let names = if dropped {
            BTreeSet::new()
        } else {
            pod_claims(spec)
                .iter()
                .filter_map(|c| c.get("name").and_then(Value::as_str))
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
                .collect()
        };
        Claims { dropped, names }
    }
}

fn pod_claims(spec: &PodSpec) -> &[Value] {
    spec.other
        .get("resourceClaims")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The lint for a field the create drops with the gate off.
fn dropped(p: &FieldPath, out: &mut Findings) {
    out.push(Diagnostic::lint(
        "field-dropped",
        p,
        format!(
            "{p}: dropped on create: the {GATE_DRA} feature gate is off, so the API server clears this field"
        ),
    ));
}

/// validatePodResourceClaims, `mirror` when the Pod carries the mirror-Pod annotation (a
/// template never does: ValidatePodTemplateSpec passes no Pod metadata).
pub fn pod_spec(
    spec: &PodSpec,
    path: &FieldPath,
    mirror: bool,
    claims: &Claims,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let list = pod_claims(spec);
    let p = path.child("resourceClaims");
    if claims.dropped {
        if !list.is_empty() {
            dropped(&p, out);
        }
        return;
    }
    let minor = ctx.gates.version.minor;
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for (i, claim) in list.iter().enumerate() {
        if mirror && Change::StaticPodNoResourceClaims.at(minor) {
            // field.NewPath("") prints as `[]` (an element with neither name nor index).
            out.push(Diagnostic::forbidden(
                &FieldPath::new("[]"),
                "static pods do not support resource claims",
            ));
            continue;
        }
        let ip = p.index(i);
        let s = |k: &str| claim.get(k).and_then(Value::as_str);
        let name = s("name").unwrap_or("");
        if name.is_empty() {
            out.push(Diagnostic::required(&ip.child("name"), ""));
        } else if !seen.insert(name) {
            out.push(Diagnostic::duplicate(&ip.child("name"), name));
        } else {
            for m in dns1123_label(name) {
                out.push(Diagnostic::invalid(&ip.child("name"), name, m));
            }
        }
        let set = |k: &str| claim.get(k).is_some_and(|v| !v.is_null());
        let (by_name, by_template) = (set("resourceClaimName"), set("resourceClaimTemplateName"));
        let printed = print_claim(
            name,
            s("resourceClaimName"),
            by_name,
            s("resourceClaimTemplateName"),
            by_template,
            minor,
        );
        if by_name && by_template {
            out.push(Diagnostic::invalid_printed(
                &ip,
                claim.clone(),
                &printed,
                "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified",
            ));
        }
        if !by_name && !by_template {
            out.push(Diagnostic::invalid_printed(
                &ip,
                claim.clone(),
                &printed,
                "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
            ));
        }
        for key in ["resourceClaimName", "resourceClaimTemplateName"] {
            if !set(key) {
                continue;
            }
            let v = s(key).unwrap_or("");
            for m in dns1123_subdomain_errors(v) {
                out.push(Diagnostic::invalid(&ip.child(key), v, m));
            }
        }
    }
}

/// A core.PodResourceClaim as a field error prints it: its JSON from 1.34 (the internal type has
/// no JSON tags, so the Go field names), Go's `%#v` before (addresses masked as the oracle masks
/// them).
fn print_claim(
    name: &str,
    by_name: Option<&str>,
    by_name_set: bool,
    by_template: Option<&str>,
    by_template_set: bool,
    minor: u32,
) -> String {
    if Change::FieldErrorJsonValues.at(minor) {
        let json = |v: Option<&str>, set: bool| {
            if set {
                go::json(&Value::from(v.unwrap_or("")))
            } else {
                "null".to_owned()
            }
        };
        format!(
            "{{\"Name\":{},\"ResourceClaimName\":{},\"ResourceClaimTemplateName\":{}}}",
            go::json(&Value::from(name)),
            json(by_name, by_name_set),
            json(by_template, by_template_set)
        )
    } else {
        let ptr = |set: bool| {
            if set {
                "(*string)(0x…)"
            } else {
                "(*string)(nil)"
            }
        };
        format!(
            "core.PodResourceClaim{{Name:{}, ResourceClaimName:{}, ResourceClaimTemplateName:{}}}",
            go::quote(name),
            ptr(by_name_set),
            ptr(by_template_set)
        )
    }
}

/// A `resources.claims` list (a container's, or the Pod's own): dropped with the gate off (a
/// container's only; the drop leaves the pod-level list), else validateResourceClaimNames.
pub fn requirement_claims(
    list: Option<&Value>,
    p: &FieldPath,
    container: bool,
    claims: &Claims,
    out: &mut Findings,
) {
    let Some(list) = list.filter(|v| !v.is_null()) else {
        return;
    };
    let cp = p.child("claims");
    if container && claims.dropped {
        if list.as_array().is_some_and(|a| !a.is_empty()) {
            dropped(&cp, out);
        }
        return;
    }
    let entries = list.as_array().map_or(&[][..], Vec::as_slice);
    // Keys seen: a claim's name, or `name/request`.
    let mut keys: BTreeSet<String> = BTreeSet::new();
    for (i, entry) in entries.iter().enumerate() {
        let ip = cp.index(i);
        let s = |k: &str| entry.get(k).and_then(Value::as_str).unwrap_or("");
        let (name, request) = (s("name"), s("request"));
        if name.is_empty() {
            out.push(Diagnostic::required(&ip, ""));
            continue;
        }
        if keys.contains(name) {
            // Every request of that claim is referenced already.
            out.push(Diagnostic::duplicate(&ip, name));
        } else {
            let mut key = name.to_owned();
            if !request.is_empty() {
                for m in dns1123_label(request) {
                    out.push(Diagnostic::invalid(&ip.child("request"), request, m));
                }
                key = format!("{name}/{request}");
            }
            if keys.contains(&key) {
                out.push(Diagnostic::duplicate(&ip, key.as_str()));
            } else if request.is_empty() {
                // The whole claim, after one of its requests: one error per such request.
                let prefix = format!("{name}/");
                for _ in keys.iter().filter(|k| k.starts_with(&prefix)) {
                    out.push(Diagnostic::duplicate(&ip, name));
                }
            }
            keys.insert(key);
        }
        if !claims.names.contains(name) {
            let detail = if claims.names.is_empty() {
                "must be one of the names in pod.spec.resourceClaims which is empty".to_owned()
            } else {
                let names: Vec<&str> = claims.names.iter().map(String::as_str).collect();
                format!(
                    "must be one of the names in pod.spec.resourceClaims: {}",
                    names.join(", ")
                )
            };
            out.push(Diagnostic::field_error_at(
                ip.as_str(),
                ErrorType::FieldValueNotFound,
                Some(Value::from(name)),
                Some(detail),
            ));
        }
    }
}

/// Mirror-Pod annotation present.
pub fn is_mirror(annotations: &[(&str, &str)]) -> bool {
    annotations.iter().any(|(k, _)| *k == MIRROR_ANNOTATION)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::features::{FeatureGates, KubeVersion};
    use serde_json::json;

    fn ctx(minor: u32, dra: bool) -> Ctx {
        let mut gates = FeatureGates::for_version(KubeVersion { minor });
        gates.set(GATE_DRA, dra);
        Ctx {
            gates,
            skip_defaulting: false,
            future_rules: false,
            always_pod: false,
            field_validation: Default::default(),
        }
    }

    fn spec(claims: Value) -> PodSpec {
        serde_json::from_value(json!({"containers": [], "resourceClaims": claims})).unwrap()
    }

    fn all(f: &Findings) -> impl Iterator<Item = &Diagnostic> {
        f.errors.iter().chain(&f.warnings).chain(&f.infos)
    }

    fn messages(f: &Findings) -> Vec<String> {
        all(f).map(|d| d.message.clone()).collect()
    }

    #[test]
    fn pod_claims_need_one_source_and_good_names() {
        let c = ctx(37, true);
        let s = spec(json!([
            {"name": "gpu", "resourceClaimTemplateName": "gpu-template"},
            {"name": "gpu", "resourceClaimName": "a"},
            {"name": "Bad_Name", "resourceClaimName": "x", "resourceClaimTemplateName": "y"},
            {"name": "", "resourceClaimName": "UPPER"},
            {"name": "none"}
        ]));
        let claims = Claims::new(&s, &c);
        let mut out = Findings::default();
        pod_spec(&s, &FieldPath::new("spec"), false, &claims, &c, &mut out);
        let m = messages(&out);
        assert!(
            m.contains(&"spec.resourceClaims[1].name: Duplicate value: \"gpu\"".to_owned()),
            "{m:#?}"
        );
        assert!(
            m.iter()
                .any(|x| x.starts_with("spec.resourceClaims[2].name: Invalid value: \"Bad_Name\"")),
            "{m:#?}"
        );
        assert!(m.contains(&"spec.resourceClaims[2]: Invalid value: {\"Name\":\"Bad_Name\",\"ResourceClaimName\":\"x\",\"ResourceClaimTemplateName\":\"y\"}: at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified".to_owned()), "{m:#?}");
        assert!(
            m.contains(&"spec.resourceClaims[3].name: Required value".to_owned()),
            "{m:#?}"
        );
        assert!(
            m.iter().any(|x| x
                .starts_with("spec.resourceClaims[3].resourceClaimName: Invalid value: \"UPPER\"")),
            "{m:#?}"
        );
        assert!(m.contains(&"spec.resourceClaims[4]: Invalid value: {\"Name\":\"none\",\"ResourceClaimName\":null,\"ResourceClaimTemplateName\":null}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`".to_owned()), "{m:#?}");
        assert_eq!(m.len(), 6, "{m:#?}");
        // The names the containers may reference: every non-empty one, invalid ones too.
        assert_eq!(
            claims.names.iter().collect::<Vec<_>>(),
            ["Bad_Name", "gpu", "none"]
        );
    }

    #[test]
    fn older_minors_print_the_go_struct_and_let_static_pods_claim() {
        let c = ctx(33, true);
        let s = spec(json!([{"name": "a"}]));
        let claims = Claims::new(&s, &c);
        let mut out = Findings::default();
        pod_spec(&s, &FieldPath::new("spec"), false, &claims, &c, &mut out);
        assert_eq!(
            messages(&out),
            [
                "spec.resourceClaims[0]: Invalid value: core.PodResourceClaim{Name:\"a\", ResourceClaimName:(*string)(nil), ResourceClaimTemplateName:(*string)(nil)}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"
            ]
        );
        // A static Pod: refused from 1.32, one error per claim.
        let s = spec(
            json!([{"name": "a", "resourceClaimName": "x"}, {"name": "b", "resourceClaimName": "y"}]),
        );
        let mut out = Findings::default();
        pod_spec(&s, &FieldPath::new("spec"), true, &claims, &c, &mut out);
        assert_eq!(
            messages(&out),
            ["[]: Forbidden: static pods do not support resource claims"; 2]
        );
        let c31 = ctx(31, true);
        let mut out = Findings::default();
        pod_spec(
            &s,
            &FieldPath::new("spec"),
            true,
            &Claims::new(&s, &c31),
            &c31,
            &mut out,
        );
        assert!(messages(&out).is_empty());
    }

    #[test]
    fn container_claims_name_pod_claims_once() {
        let c = ctx(35, true);
        let s = spec(
            json!([{"name": "gpu", "resourceClaimName": "x"}, {"name": "nic", "resourceClaimName": "y"}]),
        );
        let claims = Claims::new(&s, &c);
        let list = json!([
            {"name": "gpu", "request": "big"},
            {"name": "gpu"},
            {"name": "gpu", "request": "big"},
            {"name": "nic"},
            {"name": "nic"},
            {"name": "tpu"},
            {"name": ""},
            {"name": "nic2", "request": "Bad"}
        ]);
        let mut out = Findings::default();
        requirement_claims(
            Some(&list),
            &FieldPath::new("spec.containers[0].resources"),
            true,
            &claims,
            &mut out,
        );
        let p = "spec.containers[0].resources.claims";
        assert_eq!(
            messages(&out),
            [
                format!("{p}[1]: Duplicate value: \"gpu\""),
                format!("{p}[2]: Duplicate value: \"gpu\""),
                format!("{p}[4]: Duplicate value: \"nic\""),
                format!(
                    "{p}[5]: Not found: \"tpu\": must be one of the names in pod.spec.resourceClaims: gpu, nic"
                ),
                format!("{p}[6]: Required value"),
                format!(
                    "{p}[7].request: Invalid value: \"Bad\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
                ),
                format!(
                    "{p}[7]: Not found: \"nic2\": must be one of the names in pod.spec.resourceClaims: gpu, nic"
                ),
            ]
        );
    }

    #[test]
    fn the_gate_off_drops_every_claim() {
        let c = ctx(33, false);
        let s = spec(json!([{"name": "gpu"}]));
        let claims = Claims::new(&s, &c);
        let mut out = Findings::default();
        pod_spec(&s, &FieldPath::new("spec"), false, &claims, &c, &mut out);
        requirement_claims(
            Some(&json!([{"name": "tpu"}])),
            &FieldPath::new("spec.containers[0].resources"),
            true,
            &claims,
            &mut out,
        );
        let m = messages(&out);
        assert_eq!(m.len(), 2, "{m:#?}");
        assert!(
            all(&out).all(|d| d.code.as_deref() == Some("field-dropped")),
            "{m:#?}"
        );
        // The pod-level list is not the containers': the drop leaves it.
        let mut out = Findings::default();
        requirement_claims(
            Some(&json!([{"name": "tpu"}])),
            &FieldPath::new("spec.resources"),
            false,
            &claims,
            &mut out,
        );
        assert_eq!(
            messages(&out),
            [
                "spec.resources.claims[0]: Not found: \"tpu\": must be one of the names in pod.spec.resourceClaims which is empty"
            ]
        );
    }
}
