//! StorageClass (storage.k8s.io/v1) on create: `ValidateStorageClass`
//! (pkg/apis/storage/validation) after SetDefaults_StorageClass (reclaimPolicy `Delete`,
//! volumeBindingMode `Immediate`), then, for a class that passed, the strategy's WarningsOnCreate
//! (GetWarningsForStorageClass: deprecated node labels in allowedTopologies). ObjectMeta (a
//! DNS-subdomain name, cluster-scoped) is meta.rs's.
//!
//! The checks read the same at every minor 1.31–1.37 but for one: from 1.37, with
//! DeclarativeValidationBeta on, the declarative rule for an empty `provisioner` takes over the
//! handwritten Required and comes after the other errors ([`Change::StorageClassDeclarativeBeta`];
//! 1.35 and 1.36 run the rule only under DeclarativeValidationTakeover, which changes the order
//! alone, not modelled).

use super::Ctx;
use super::json_read::{list, opt, opt_str, str_of, strings};
use super::names::qualified_name;
use crate::diag::{Diagnostic, FieldPath, Findings, Origin};
use crate::versions::Change;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const RECLAIM_POLICIES: [&str; 2] = ["Delete", "Retain"];
const BINDING_MODES: [&str; 2] = ["Immediate", "WaitForFirstConsumer"];
const MAX_PARAMETERS: usize = 512;
const MAX_PARAMETERS_SIZE: usize = 256 * 1024;
const GATE_DV_BETA: &str = "DeclarativeValidationBeta";

/// pkg/api/node's deprecatedNodeLabels (the same table at every minor 1.31–1.37).
const DEPRECATED_NODE_LABELS: [(&str, &str); 8] = [
    (
        "beta.kubernetes.io/arch",
        "deprecated since v1.14; use \"kubernetes.io/arch\" instead",
    ),
    (
        "beta.kubernetes.io/os",
        "deprecated since v1.14; use \"kubernetes.io/os\" instead",
    ),
    (
        "failure-domain.beta.kubernetes.io/region",
        "deprecated since v1.17; use \"topology.kubernetes.io/region\" instead",
    ),
    (
        "failure-domain.beta.kubernetes.io/zone",
        "deprecated since v1.17; use \"topology.kubernetes.io/zone\" instead",
    ),
    (
        "beta.kubernetes.io/instance-type",
        "deprecated since v1.17; use \"node.kubernetes.io/instance-type\" instead",
    ),
    ("app.kubernetes.io/created-by", "deprecated since v1.9"),
    (
        "scheduler.alpha.kubernetes.io/preferAvoidPods",
        "deprecated since v1.22; use Taints and Tolerations instead",
    ),
    (
        "node-role.kubernetes.io/master",
        "use \"node-role.kubernetes.io/control-plane\" instead",
    ),
];

/// pkg/api/node's GetNodeLabelDeprecatedMessage: the deprecation message of a node label, if
/// it is deprecated (StorageClass, PersistentVolume and RuntimeClass warnings read it).
pub(super) fn deprecated_node_label(key: &str) -> Option<&'static str> {
    DEPRECATED_NODE_LABELS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, msg)| *msg)
}

/// A topology selector term in raw form: each key's set of values.
type RawTerm<'a> = BTreeMap<&'a str, BTreeSet<&'a str>>;

/// A StorageClass on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let before = out.errors.len();
    let mut declarative = Vec::new();
    let pp = FieldPath::new("provisioner");
    let provisioner = str_of(obj, "provisioner");
    if provisioner.is_empty() {
        let d = Diagnostic::required(&pp, "");
        if Change::StorageClassDeclarativeBeta.at(minor) && ctx.gates.enabled(GATE_DV_BETA) {
            declarative.push(d);
        } else {
            out.push(d);
        }
    } else {
        // ValidateQualifiedName of the lowercased name: the bad value printed is the lowercase.
        let lower = provisioner.to_lowercase();
        for msg in qualified_name(&lower, minor) {
            out.push(Diagnostic::invalid(&pp, lower.as_str(), msg));
        }
    }
    parameters(obj, out);
    // SetDefaults_StorageClass fills both; an empty reclaimPolicy passes (only a non-empty one
    // is looked up), an empty volumeBindingMode does not.
    let policy = opt_str(obj, "reclaimPolicy").unwrap_or("Delete");
    if !policy.is_empty() && !RECLAIM_POLICIES.contains(&policy) {
        out.push(Diagnostic::not_supported(
            &FieldPath::new("reclaimPolicy"),
            policy,
            &RECLAIM_POLICIES,
        ));
    }
    let mode = opt_str(obj, "volumeBindingMode").unwrap_or("Immediate");
    if !BINDING_MODES.contains(&mode) {
        out.push(Diagnostic::not_supported(
            &FieldPath::new("volumeBindingMode"),
            mode,
            &BINDING_MODES,
        ));
    }
    allowed_topologies(obj, minor, out);
    out.errors.extend(declarative);
    if out.errors.len() == before {
        // rest.BeforeCreate asks for the warnings only of an object that passed, metadata too.
        if super::meta::passes("storage.k8s.io", "StorageClass", obj, ctx) {
            warnings(obj, out);
        }
    }
}

/// validateParameters (allowEmpty): at most 512 entries, no empty key, 256 KiB of keys and values.
fn parameters(obj: &Value, out: &mut Findings) {
    let Some(params) = opt(obj, "parameters").and_then(Value::as_object) else {
        return;
    };
    let p = FieldPath::new("parameters");
    if params.len() > MAX_PARAMETERS {
        out.push(Diagnostic::too_long(&p, "", MAX_PARAMETERS));
        return;
    }
    let mut size = 0;
    for (k, v) in params {
        if k.is_empty() {
            out.push(Diagnostic::invalid(&p, "", "field can not be empty."));
        }
        size += k.len() + v.as_str().map_or(0, str::len);
    }
    if size > MAX_PARAMETERS_SIZE {
        out.push(Diagnostic::too_long(&p, "", MAX_PARAMETERS_SIZE));
    }
}

/// validateAllowedTopologies: each term by ValidateTopologySelectorTerm, then a Duplicate for
/// each earlier term with the same raw form. Upstream's list of earlier terms starts with as
/// many nil maps as there are terms, and Semantic.DeepEqual takes nil and empty maps as equal: a
/// term without expressions is a Duplicate once per term, and once more per earlier such term.
fn allowed_topologies(obj: &Value, minor: u32, out: &mut Findings) {
    let terms = list(obj, "allowedTopologies");
    let tp = FieldPath::new("allowedTopologies");
    let mut seen: Vec<RawTerm> = vec![RawTerm::new(); terms.len()];
    for (i, term) in terms.iter().enumerate() {
        let ep = tp.index(i).child("matchLabelExpressions");
        let mut raw = RawTerm::new();
        for (j, expr) in list(term, "matchLabelExpressions").iter().enumerate() {
            let xp = ep.index(j);
            let vp = xp.child("values");
            let values = strings(expr, "values");
            if values.is_empty() {
                out.push(Diagnostic::required(&vp, ""));
            }
            let mut set = BTreeSet::new();
            for (k, v) in values.into_iter().enumerate() {
                if !set.insert(v) {
                    out.push(Diagnostic::duplicate(&vp.index(k), v));
                }
            }
            let key = str_of(expr, "key");
            for msg in qualified_name(key, minor) {
                out.push(Diagnostic::invalid(&xp.child("key"), key, msg));
            }
            if raw.insert(key, set).is_some() {
                out.push(Diagnostic::duplicate(&xp.child("key"), key));
            }
        }
        for earlier in &seen {
            if *earlier == raw {
                out.push(Diagnostic::duplicate(&ep, ""));
            }
        }
        seen.push(raw);
    }
}

/// GetWarningsForStorageClass.
fn warnings(obj: &Value, out: &mut Findings) {
    let tp = FieldPath::new("allowedTopologies");
    for (i, term) in list(obj, "allowedTopologies").iter().enumerate() {
        for (j, expr) in list(term, "matchLabelExpressions").iter().enumerate() {
            let key = str_of(expr, "key");
            if let Some(msg) = deprecated_node_label(key) {
                let p = tp
                    .index(i)
                    .child("matchLabelExpressions")
                    .index(j)
                    .child("key");
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(obj: Value, minor: u32, gates: &[(&str, bool)]) -> (Vec<String>, Vec<String>) {
        let c = Ctx::at(minor, gates);
        let mut out = Findings::default();
        validate(&obj, &c, &mut out);
        let m = |v: &[Diagnostic]| v.iter().map(|d| d.message.clone()).collect();
        (m(&out.errors), m(&out.warnings))
    }

    fn class(extra: Value) -> Value {
        let mut obj = json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "fast"}, "provisioner": "ebs.csi.aws.com"});
        if let (Some(o), Some(e)) = (obj.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                o.insert(k.clone(), v.clone());
            }
        }
        obj
    }

    #[test]
    fn provisioner_policies_and_parameters() {
        let (e, _) = run(
            class(
                json!({"provisioner": "Kubernetes.IO/No Such", "reclaimPolicy": "Recycle",
                "volumeBindingMode": "", "parameters": {"": "x"}}),
            ),
            37,
            &[],
        );
        assert_eq!(
            e,
            [
                "provisioner: Invalid value: \"kubernetes.io/no such\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                "parameters: Invalid value: \"\": field can not be empty.",
                "reclaimPolicy: Unsupported value: \"Recycle\": supported values: \"Delete\", \"Retain\"",
                "volumeBindingMode: Unsupported value: \"\": supported values: \"Immediate\", \"WaitForFirstConsumer\"",
            ]
        );
        // An empty reclaimPolicy is not looked up.
        let (e, _) = run(class(json!({"reclaimPolicy": ""})), 31, &[]);
        assert!(e.is_empty(), "{e:?}");
        let many: serde_json::Map<String, Value> = (0..513)
            .map(|i| (format!("k{i}"), Value::from("v")))
            .collect();
        let (e, _) = run(class(json!({"parameters": many})), 34, &[]);
        assert_eq!(e, ["parameters: Too long: may not be more than 512 bytes"]);
    }

    #[test]
    fn an_empty_provisioner_is_declarative_from_1_37() {
        let obj = class(json!({"provisioner": "", "reclaimPolicy": "Recycle"}));
        let (e, _) = run(obj.clone(), 37, &[]);
        assert_eq!(
            e.last().map(String::as_str),
            Some("provisioner: Required value")
        );
        let (e, _) = run(obj, 36, &[]);
        assert_eq!(
            e.first().map(String::as_str),
            Some("provisioner: Required value")
        );
    }

    #[test]
    fn topologies_duplicates_and_warnings() {
        let zone = "failure-domain.beta.kubernetes.io/zone";
        let (e, _) = run(
            class(json!({"allowedTopologies": [
                {"matchLabelExpressions": [
                    {"key": zone, "values": ["a", "a"]},
                    {"key": zone, "values": ["b"]},
                    {"key": "bad key", "values": []}
                ]},
                {},
                {"matchLabelExpressions": [{"key": "x", "values": ["1"]}]},
                {"matchLabelExpressions": [{"key": "x", "values": ["1"]}]}
            ]})),
            34,
            &[],
        );
        let t = "allowedTopologies";
        assert_eq!(
            e,
            [
                format!("{t}[0].matchLabelExpressions[0].values[1]: Duplicate value: \"a\""),
                format!("{t}[0].matchLabelExpressions[1].key: Duplicate value: \"{zone}\""),
                format!("{t}[0].matchLabelExpressions[2].values: Required value"),
                format!(
                    "{t}[0].matchLabelExpressions[2].key: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
                ),
                // The empty term equals each of the four nil maps upstream starts with.
                format!("{t}[1].matchLabelExpressions: Duplicate value: \"\""),
                format!("{t}[1].matchLabelExpressions: Duplicate value: \"\""),
                format!("{t}[1].matchLabelExpressions: Duplicate value: \"\""),
                format!("{t}[1].matchLabelExpressions: Duplicate value: \"\""),
                format!("{t}[3].matchLabelExpressions: Duplicate value: \"\""),
            ]
        );
        let (e, w) = run(
            class(json!({"allowedTopologies": [{"matchLabelExpressions": [
                {"key": zone, "values": ["us-east-1a"]}]}]})),
            31,
            &[],
        );
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(
            w,
            [format!(
                "{t}[0].matchLabelExpressions[0].key: deprecated since v1.17; use \"topology.kubernetes.io/zone\" instead"
            )]
        );
    }
}
