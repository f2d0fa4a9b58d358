//! RuntimeClass (node.k8s.io/v1) on create: `ValidateRuntimeClass` (pkg/apis/node/validation;
//! node.k8s.io/v1 has no defaulting): `handler` a DNS label (from 1.36 Required first); `overhead.podFixed` as
//! a Pod's overhead (ValidateContainerResourceRequirements with the list as its limits, so the
//! errors read `overhead.limits[...]`); `scheduling.nodeSelector` as labels; `scheduling
//! .tolerations` as a Pod's with the zero options (no Lt or Gt; up to 1.34 at upstream's doubled
//! path `scheduling.tolerations.tolerations[i]`), without repeats. From 1.37, with
//! DeclarativeValidationBeta on, the handler's rules are the declarative ones (the same
//! messages), after the other errors. A class that passes is created with
//! GetWarningsForRuntimeClass's warnings for deprecated node labels in the nodeSelector. ObjectMeta
//! (a DNS-subdomain name, cluster-scoped) is meta.rs's.

use super::Ctx;
use super::json_read::{list, opt, str_of};
use super::names::{CHARACTERS, Unit, dns1123_label_in};
use crate::diag::{Diagnostic, FieldPath, Findings, Origin};
use crate::versions::Change;
use serde_json::Value;

const GATE_DV_BETA: &str = "DeclarativeValidationBeta";

/// A RuntimeClass on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let before = out.errors.len();
    let declarative =
        Change::RuntimeClassDeclarativeBeta.at(minor) && ctx.gates.enabled(GATE_DV_BETA);
    let mut handler_errors = Vec::new();
    let hp = FieldPath::new("handler");
    let handler = str_of(obj, "handler");
    if handler.is_empty() && Change::RuntimeClassHandlerRequired.at(minor) {
        handler_errors.push(Diagnostic::required(&hp, ""));
    } else {
        // Before 1.36 an empty handler is only not a DNS label.
        // The declarative rule's format check (content.IsDNS1123Label) words the length limit in
        // bytes, the handwritten one (NameIsDNSLabel) in characters.
        let unit = if declarative {
            Unit("bytes")
        } else {
            CHARACTERS
        };
        for m in dns1123_label_in(handler, unit) {
            handler_errors.push(Diagnostic::invalid(&hp, handler, m));
        }
    }
    if !declarative {
        out.errors.append(&mut handler_errors);
    }
    if let Some(pod_fixed) = opt(obj, "overhead")
        .filter(|o| !o.is_null())
        .and_then(|o| super::pod_resources::resource_list(o.get("podFixed")))
    {
        super::pod_resources::requirements(
            &pod_fixed,
            &[],
            &FieldPath::new("overhead"),
            minor,
            out,
        );
    }
    let sp = FieldPath::new("scheduling");
    let scheduling = opt(obj, "scheduling").filter(|s| !s.is_null());
    if let Some(s) = scheduling {
        if let Some(ns) = s.get("nodeSelector").and_then(Value::as_object) {
            let pairs: Vec<(&str, &str)> = ns
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or("")))
                .collect();
            super::selector::validate_labels(&pairs, &sp.child("nodeSelector"), minor, out);
        }
        // Up to 1.34 the tolerations' own errors are reported under a doubled
        // `scheduling.tolerations.tolerations` (upstream passed the child path twice).
        let tp = sp.child("tolerations");
        let own = if Change::RuntimeClassTolerationsPath.at(minor) {
            tp.clone()
        } else {
            tp.child("tolerations")
        };
        super::pod_scheduling::runtime_class_tolerations(
            list(s, "tolerations"),
            &own,
            &tp,
            minor,
            out,
        );
    }
    out.errors.append(&mut handler_errors);
    if out.errors.len() != before || !super::meta::passes("node.k8s.io", "RuntimeClass", obj, ctx) {
        return;
    }
    // GetWarningsForRuntimeClass: one warning per deprecated key, naming the map, not the key.
    let nodes = scheduling
        .and_then(|s| s.get("nodeSelector"))
        .and_then(Value::as_object);
    for key in nodes.into_iter().flatten().map(|(k, _)| k) {
        if let Some(msg) = super::storage_class::deprecated_node_label(key) {
            let p = sp.child("nodeSelector");
            out.push(
                Diagnostic::lint(
                    "deprecated-node-label",
                    &p,
                    format!("{}: {msg}", p.as_str()),
                )
                .with_origin(Origin::KubeApiserver),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    fn run(obj: &Value, minor: u32, gates: &[(&str, bool)]) -> (Vec<String>, Vec<String>) {
        let c = Ctx::at(minor, gates);
        let mut out = Findings::default();
        validate(obj, &c, &mut out);
        let m = |v: &[Diagnostic]| v.iter().map(|d| d.message.clone()).collect();
        (m(&out.errors), m(&out.warnings))
    }

    #[test]
    fn a_gpu_runtime_class_passes_and_mistakes_are_named() {
        let ok = json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "nvidia"},
            "handler": "nvidia", "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}},
            "scheduling": {"nodeSelector": {"beta.kubernetes.io/arch": "amd64"}}});
        let (e, w) = run(&ok, 37, &[]);
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(
            w,
            ["scheduling.nodeSelector: deprecated since v1.14; use \"kubernetes.io/arch\" instead"]
        );
        let bad = json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"},
            "handler": "Kata_FC", "overhead": {"podFixed": {"cpu": "-1"}},
            "scheduling": {"tolerations": [{"key": "gpu", "operator": "Exists"}, {"key": "gpu", "operator": "Exists"},
                                           {"key": "n", "operator": "Lt", "value": "5"}]}});
        let (e, _) = run(&bad, 37, &[("DeclarativeValidationBeta", true)]);
        assert_eq!(e.len(), 4, "{e:?}");
        assert!(
            e[0].starts_with("overhead.limits[cpu]: Invalid value: \"-1\""),
            "{e:?}"
        );
        assert_eq!(
            e[1],
            r#"scheduling.tolerations[2].operator: Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt""#
        );
        assert_eq!(
            e[2],
            r#"scheduling.tolerations[1]: Duplicate value: {"Key":"gpu","Operator":"Exists","Value":"","Effect":"","TolerationSeconds":null}"#
        );
        assert!(
            e[3].starts_with("handler: Invalid value: \"Kata_FC\""),
            "{e:?}"
        );
        let (e, _) = run(&bad, 34, &[]);
        assert!(
            e.iter()
                .any(|m| m.starts_with("scheduling.tolerations.tolerations[2].operator:")),
            "{e:?}"
        );
        let (e, _) = run(&bad, 31, &[]);
        assert!(e[0].starts_with("handler: Invalid value"), "{e:?}");
        assert!(e.iter().any(|m| m.ends_with("core.Toleration{Key:\"gpu\", Operator:\"Exists\", Value:\"\", Effect:\"\", TolerationSeconds:(*int64)(nil)}")), "{e:?}");
    }
}
