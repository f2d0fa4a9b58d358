//! ResourceQuota (core/v1) on create: the v1 defaulting (SetDefaults_ResourceList rounds every
//! `spec.hard` value up to a milli), the strategy's PrepareForCreate (`status` dropped, so
//! ValidateResourceQuotaStatus finds nothing on create), then `ValidateResourceQuota`
//! (pkg/apis/core/validation): each `spec.hard` name (ValidateResourceQuotaResourceName) and
//! quantity (ValidateResourceQuantityValue), `spec.scopes` (validateResourceQuotaScopes) and
//! `spec.scopeSelector` (validateScopeSelector). The VolumeAttributesClass scope is a standard
//! one from 1.33 ([`Change::QuotaScopeVolumeAttributesClass`]). A field error prints a list or
//! struct value as JSON from 1.34, with Go's `%#v` before ([`Change::FieldErrorJsonValues`]).
//! Its ObjectMeta (namespaced, a DNS-subdomain name) is meta.rs's. From 1.35 a quota that passes
//! gets the strategy's WarningsOnCreate: a hard request above its limit
//! ([`Change::QuotaRequestOverLimitWarning`]).

use super::Ctx;
use super::pod_resources::{
    is_hugepages, quantity_value, resource_list, resource_name, resource_name_error,
};
use crate::diag::{Diagnostic, FieldPath, Findings, Origin};
use crate::quantity::Quantity;
use crate::versions::Change;
use serde_json::Value;

/// helper.standardQuotaResources.
const STANDARD_QUOTA_RESOURCES: [&str; 19] = [
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.storage",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "persistentvolumeclaims",
    "configmaps",
    "services.nodeports",
    "services.loadbalancers",
];
/// helper.podComputeQuotaResources.
const POD_COMPUTE: [&str; 6] = [
    "cpu",
    "memory",
    "limits.cpu",
    "limits.memory",
    "requests.cpu",
    "requests.memory",
];
const VAC: &str = "VolumeAttributesClass";
const MUST_EXIST: &str = "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity";

/// IsStandardQuotaResourceName.
fn standard_quota_resource(name: &str) -> bool {
    STANDARD_QUOTA_RESOURCES.contains(&name)
        || is_hugepages(name)
        || name.starts_with("requests.hugepages-")
}

/// IsStandardResourceQuotaScope.
fn standard_scope(scope: &str, minor: u32) -> bool {
    matches!(
        scope,
        "Terminating"
            | "NotTerminating"
            | "BestEffort"
            | "NotBestEffort"
            | "PriorityClass"
            | "CrossNamespacePodAffinity"
    ) || (scope == VAC && Change::QuotaScopeVolumeAttributesClass.at(minor))
}

/// IsResourceQuotaScopeValidForResource.
fn scope_valid_for(scope: &str, resource: &str, minor: u32) -> bool {
    match scope {
        "Terminating"
        | "NotTerminating"
        | "NotBestEffort"
        | "PriorityClass"
        | "CrossNamespacePodAffinity" => resource == "pods" || POD_COMPUTE.contains(&resource),
        "BestEffort" => resource == "pods",
        VAC if Change::QuotaScopeVolumeAttributesClass.at(minor) => {
            matches!(resource, "persistentvolumeclaims" | "requests.storage")
        }
        _ => true,
    }
}

/// ValidateResourceQuotaResourceName.
fn quota_resource_name(name: &str, p: &FieldPath, minor: u32, out: &mut Findings) {
    resource_name(name, p, minor, out);
    if !name.contains('/') && !standard_quota_resource(name) {
        out.push(resource_name_error(
            Diagnostic::invalid(p, name, "must be a standard resource for quota"),
            name,
            minor,
        ));
    }
}

/// A list of strings as decoded: None for absent or null, a null item as "".
fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    let a = v?.as_array()?;
    Some(
        a.iter()
            .map(|s| s.as_str().unwrap_or("").to_owned())
            .collect(),
    )
}

fn go_quote(s: &str) -> String {
    format!("{s:?}")
}

/// A `[]T` of strings as a field error prints it: JSON, or `%#v` with Go type `ty`.
fn printed_list(v: Option<&[String]>, ty: &str, json: bool) -> String {
    match (v, json) {
        (None, true) => "null".to_owned(),
        (None, false) => format!("{ty}(nil)"),
        (Some(v), true) => Value::from(v.to_vec()).to_string(),
        (Some(v), false) => format!(
            "{ty}{{{}}}",
            v.iter().map(|s| go_quote(s)).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// One scopeSelector requirement as decoded.
struct Requirement {
    scope: String,
    operator: String,
    values: Option<Vec<String>>,
}

/// The internal *core.ScopeSelector as a field error prints it (its fields keep their Go names
/// in JSON: the internal type has no json tags).
fn printed_selector(reqs: &[Requirement], present: bool, json: bool) -> String {
    if json {
        let items: Vec<String> = reqs
            .iter()
            .map(|r| {
                format!(
                    "{{\"ScopeName\":{},\"Operator\":{},\"Values\":{}}}",
                    Value::from(r.scope.as_str()),
                    Value::from(r.operator.as_str()),
                    printed_list(r.values.as_deref(), "", true)
                )
            })
            .collect();
        let list = if present {
            format!("[{}]", items.join(","))
        } else {
            "null".to_owned()
        };
        return format!("{{\"MatchExpressions\":{list}}}");
    }
    let items: Vec<String> = reqs
        .iter()
        .map(|r| {
            format!(
                "core.ScopedResourceSelectorRequirement{{ScopeName:{}, Operator:{}, Values:{}}}",
                go_quote(&r.scope),
                go_quote(&r.operator),
                printed_list(r.values.as_deref(), "[]string", false)
            )
        })
        .collect();
    let list = if present {
        format!(
            "[]core.ScopedResourceSelectorRequirement{{{}}}",
            items.join(", ")
        )
    } else {
        "[]core.ScopedResourceSelectorRequirement(nil)".to_owned()
    };
    format!("core.ScopeSelector{{MatchExpressions:{list}}}")
}

/// Pushes `d` unless an identical message is there already (upstream repeats some per resource).
fn push_once(out: &mut Findings, d: Diagnostic) {
    if !out.errors.iter().any(|e| e.message == d.message) {
        out.push(d);
    }
}

/// The conflicting pairs of validateResourceQuotaScopes and its selector twin.
fn conflicting(scopes: &[&str]) -> usize {
    [
        ("BestEffort", "NotBestEffort"),
        ("Terminating", "NotTerminating"),
    ]
    .iter()
    .filter(|(a, b)| scopes.contains(a) && scopes.contains(b))
    .count()
}

/// WarningsOnCreate: for cpu, memory, storage and ephemeral-storage, a request (`requests.X`,
/// or the bare name for cpu and memory) above `limits.X`.
fn request_over_limit(hard: &[(&str, Quantity)], out: &mut Findings) {
    let get = |n: &str| hard.iter().find(|(k, _)| *k == n).map(|(_, q)| q);
    for r in ["cpu", "memory", "storage", "ephemeral-storage"] {
        let mut request_name = format!("requests.{r}");
        let mut request = get(&request_name);
        if request.is_none() && matches!(r, "cpu" | "memory") {
            request = get(r);
            request_name = r.to_owned();
        }
        let limit_name = format!("limits.{r}");
        if let (Some(req), Some(lim)) = (request, get(&limit_name))
            && req.cmp_value(lim) == std::cmp::Ordering::Greater
        {
            out.push(
                Diagnostic::lint(
                    "quota-request-over-limit",
                    &FieldPath::new("spec").child("hard").key(&request_name),
                    format!(
                        "ResourceQuota {request_name} ({}) should be less than {limit_name} ({})",
                        req.canonical(),
                        lim.canonical()
                    ),
                )
                .with_origin(Origin::KubeApiserver),
            );
        }
    }
}

/// A ResourceQuota on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let before = out.errors.len();
    let mut own = Findings::default();
    check(obj, ctx, &mut own);
    let passed = own.errors.is_empty();
    out.errors.extend(own.errors);
    out.warnings.extend(own.warnings);
    if passed && Change::QuotaRequestOverLimitWarning.at(ctx.gates.version.minor) {
        // rest.BeforeCreate asks for the warnings only of an object that passed, metadata too.
        if super::meta::passes("", "ResourceQuota", obj, ctx) && out.errors.len() == before {
            request_over_limit(&hard_list(obj, ctx), out);
        }
    }
}

/// `spec.hard` as the validation reads it: defaulted (rounded up to a milli), by name.
fn hard_list<'a>(obj: &'a Value, ctx: &Ctx) -> Vec<(&'a str, Quantity)> {
    let mut hard: Vec<(&str, Quantity)> =
        resource_list(obj.get("spec").and_then(|s| s.get("hard"))).unwrap_or_default();
    if !ctx.skip_defaulting {
        for (_, q) in &mut hard {
            *q = q.round_up_milli();
        }
    }
    hard.sort_by(|a, b| a.0.cmp(b.0));
    hard
}

fn check(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let json = Change::FieldErrorJsonValues.at(minor);
    let sp = FieldPath::new("spec");
    let spec = obj.get("spec");
    let hard = hard_list(obj, ctx);
    let hp = sp.child("hard");
    for (name, q) in &hard {
        let p = hp.key(name);
        quota_resource_name(name, &p, minor, out);
        quantity_value(name, q, &p, minor, out);
    }
    let standard_hard: Vec<&str> = hard
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| standard_quota_resource(n))
        .collect();

    // validateResourceQuotaScopes.
    let scopes = strings(spec.and_then(|s| s.get("scopes")));
    let scopes_printed = printed_list(scopes.as_deref(), "[]core.ResourceQuotaScope", json);
    let scopes_value = Value::from(scopes.clone().unwrap_or_default());
    if let Some(list) = scopes.as_ref().filter(|l| !l.is_empty()) {
        let p = sp.child("scopes");
        let invalid =
            |msg: &str| Diagnostic::invalid_printed(&p, scopes_value.clone(), &scopes_printed, msg);
        for scope in list {
            if !standard_scope(scope, minor) {
                push_once(out, invalid("unsupported scope"));
            }
            if standard_hard
                .iter()
                .any(|k| !scope_valid_for(scope, k, minor))
            {
                push_once(out, invalid("unsupported scope applied to resource"));
            }
        }
        let names: Vec<&str> = list.iter().map(String::as_str).collect();
        if conflicting(&names) > 0 {
            push_once(out, invalid("conflicting scopes"));
        }
    }

    // validateScopeSelector.
    let Some(selector) = spec
        .and_then(|s| s.get("scopeSelector"))
        .filter(|v| v.is_object())
    else {
        return;
    };
    let exprs = selector.get("matchExpressions").and_then(Value::as_array);
    let reqs: Vec<Requirement> = exprs
        .into_iter()
        .flatten()
        .map(|r| Requirement {
            scope: r
                .get("scopeName")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            operator: r
                .get("operator")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            values: strings(r.get("values")),
        })
        .collect();
    let mp = sp.child("scopeSelector").child("matchExpressions");
    let selector_printed = printed_selector(&reqs, exprs.is_some(), json);
    for r in &reqs {
        if !standard_scope(&r.scope, minor) {
            push_once(
                out,
                Diagnostic::invalid(
                    &mp.child("scopeName"),
                    r.scope.as_str(),
                    "unsupported scope",
                ),
            );
        }
        if standard_hard
            .iter()
            .any(|k| !scope_valid_for(&r.scope, k, minor))
        {
            push_once(
                out,
                Diagnostic::invalid_printed(
                    &mp,
                    selector.clone(),
                    &selector_printed,
                    "unsupported scope applied to resource",
                ),
            );
        }
        let op_path = mp.child("operator");
        if matches!(
            r.scope.as_str(),
            "BestEffort"
                | "NotBestEffort"
                | "Terminating"
                | "NotTerminating"
                | "CrossNamespacePodAffinity"
        ) && r.operator != "Exists"
        {
            push_once(
                out,
                Diagnostic::invalid(&op_path, r.operator.as_str(), MUST_EXIST),
            );
        }
        let n_values = r.values.as_ref().map_or(0, Vec::len);
        match r.operator.as_str() {
            "In" | "NotIn" if n_values == 0 => push_once(
                out,
                Diagnostic::required(
                    &mp.child("values"),
                    "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
                ),
            ),
            "In" | "NotIn" => {}
            "Exists" | "DoesNotExist" if n_values != 0 => {
                let values = r.values.clone().unwrap_or_default();
                let printed = printed_list(Some(&values), "[]string", json);
                push_once(
                    out,
                    Diagnostic::invalid_printed(
                        &mp.child("values"),
                        Value::from(values),
                        &printed,
                        "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
                    ),
                );
            }
            "Exists" | "DoesNotExist" => {}
            _ => push_once(
                out,
                Diagnostic::invalid(
                    &op_path,
                    r.operator.as_str(),
                    "not a valid selector operator",
                ),
            ),
        }
    }
    let names: Vec<&str> = reqs.iter().map(|r| r.scope.as_str()).collect();
    if conflicting(&names) > 0 {
        push_once(
            out,
            Diagnostic::invalid_printed(&mp, scopes_value, &scopes_printed, "conflicting scopes"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{FeatureGates, KubeVersion};
    use serde_json::json;

    fn run_at(minor: u32, spec: Value) -> Vec<String> {
        let obj = json!({"apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": "q", "namespace": "default"}, "spec": spec});
        let ctx = Ctx {
            gates: FeatureGates::for_version(KubeVersion { minor }),
            ..Ctx::default()
        };
        let mut out = Findings::default();
        validate(&obj, &ctx, &mut out);
        let mut m: Vec<String> = out.errors.iter().map(|d| d.message.clone()).collect();
        m.sort();
        m
    }
    fn run(spec: Value) -> Vec<String> {
        run_at(37, spec)
    }

    #[test]
    fn hard_names_and_quantities() {
        assert!(
            run(
                json!({"hard": {"pods": "10", "requests.cpu": "4", "limits.memory": "8Gi",
                "count/deployments.apps": 5, "requests.nvidia.com/gpu": 2,
                "requests.hugepages-2Mi": "1Gi"}})
            )
            .is_empty()
        );
        assert_eq!(
            run(json!({"hard": {"storage": "1Gi"}})),
            vec![
                r#"spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota"#
            ]
        );
        assert_eq!(
            run(json!({"hard": {"gpus": "1"}})),
            vec![
                r#"spec.hard[gpus]: Invalid value: "gpus": must be a standard resource for quota"#,
                r#"spec.hard[gpus]: Invalid value: "gpus": must be a standard resource type or fully qualified"#,
            ]
        );
        // Before 1.34 a ResourceName prints with its String() (unquoted).
        assert_eq!(
            run_at(31, json!({"hard": {"storage": "1Gi"}})),
            vec![
                "spec.hard[storage]: Invalid value: storage: must be a standard resource for quota"
            ]
        );
        assert_eq!(
            run(json!({"hard": {"pods": "1500m", "cpu": "-1"}})),
            vec![
                r#"spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0"#,
                r#"spec.hard[pods]: Invalid value: "1500m": must be an integer"#,
            ]
        );
        // Rounded up to a milli first: 1999.5m is 2 pods.
        assert!(run(json!({"hard": {"pods": "1999500u"}})).is_empty());
    }

    #[test]
    fn request_over_limit_warning() {
        let warnings = |minor: u32, hard: Value| {
            let obj = json!({"apiVersion": "v1", "kind": "ResourceQuota",
                "metadata": {"name": "q"}, "spec": {"hard": hard}});
            let ctx = Ctx {
                gates: FeatureGates::for_version(KubeVersion { minor }),
                ..Ctx::default()
            };
            let mut out = Findings::default();
            validate(&obj, &ctx, &mut out);
            out.warnings
                .iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
        };
        let hard = json!({"cpu": "2", "limits.cpu": "1", "requests.memory": "1Gi",
            "limits.memory": "2Gi", "requests.storage": "10Gi"});
        assert_eq!(
            warnings(35, hard.clone()),
            vec!["ResourceQuota cpu (2) should be less than limits.cpu (1)"]
        );
        assert!(warnings(34, hard).is_empty());
        // Only for a quota that passes.
        assert!(warnings(37, json!({"cpu": "2", "limits.cpu": "1", "pods": "0.5"})).is_empty());
    }

    #[test]
    fn scopes() {
        assert!(
            run(json!({"hard": {"pods": "5", "cpu": "2"}, "scopes": ["NotTerminating"]}))
                .is_empty()
        );
        assert_eq!(
            run(json!({"hard": {"cpu": "2"}, "scopes": ["BestEffort", "NotBestEffort"]})),
            vec![
                r#"spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes"#,
                r#"spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: unsupported scope applied to resource"#,
            ]
        );
        assert_eq!(
            run_at(31, json!({"hard": {"pods": "1"}, "scopes": ["Bogus"]})),
            vec![
                r#"spec.scopes: Invalid value: []core.ResourceQuotaScope{"Bogus"}: unsupported scope"#
            ]
        );
        // VolumeAttributesClass: a scope from 1.33, for claims and their storage.
        assert!(
            run(json!({"hard": {"requests.storage": "10Gi"}, "scopes": ["VolumeAttributesClass"]}))
                .is_empty()
        );
        assert_eq!(
            run(json!({"hard": {"pods": "1"}, "scopes": ["VolumeAttributesClass"]})),
            vec![
                r#"spec.scopes: Invalid value: ["VolumeAttributesClass"]: unsupported scope applied to resource"#
            ]
        );
        assert_eq!(
            run_at(
                32,
                json!({"hard": {"pods": "1"}, "scopes": ["VolumeAttributesClass"]})
            ),
            vec![
                r#"spec.scopes: Invalid value: []core.ResourceQuotaScope{"VolumeAttributesClass"}: unsupported scope"#
            ]
        );
    }

    #[test]
    fn scope_selector() {
        assert!(
            run(
                json!({"hard": {"pods": "5"}, "scopeSelector": {"matchExpressions": [
                {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]},
                {"scopeName": "NotBestEffort", "operator": "Exists"}]}})
            )
            .is_empty()
        );
        assert_eq!(
            run(json!({"scopeSelector": {"matchExpressions": [
                {"scopeName": "BestEffort", "operator": "In", "values": ["x"]},
                {"scopeName": "PriorityClass", "operator": "Exists", "values": ["a"]},
                {"scopeName": "Nope", "operator": "Has"},
                {"scopeName": "PriorityClass", "operator": "NotIn"}]}})),
            vec![
                r#"spec.scopeSelector.matchExpressions.operator: Invalid value: "Has": not a valid selector operator"#,
                r#"spec.scopeSelector.matchExpressions.operator: Invalid value: "In": must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"#,
                r#"spec.scopeSelector.matchExpressions.scopeName: Invalid value: "Nope": unsupported scope"#,
                r#"spec.scopeSelector.matchExpressions.values: Invalid value: ["a"]: must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"#,
                "spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
            ]
        );
        let spec = json!({"hard": {"cpu": "1"}, "scopeSelector": {"matchExpressions": [
            {"scopeName": "BestEffort", "operator": "Exists"},
            {"scopeName": "NotBestEffort", "operator": "Exists"}]}});
        assert_eq!(
            run(spec.clone()),
            vec![
                r#"spec.scopeSelector.matchExpressions: Invalid value: null: conflicting scopes"#,
                r#"spec.scopeSelector.matchExpressions: Invalid value: {"MatchExpressions":[{"ScopeName":"BestEffort","Operator":"Exists","Values":null},{"ScopeName":"NotBestEffort","Operator":"Exists","Values":null}]}: unsupported scope applied to resource"#,
            ]
        );
        assert_eq!(
            run_at(31, spec),
            vec![
                r#"spec.scopeSelector.matchExpressions: Invalid value: []core.ResourceQuotaScope(nil): conflicting scopes"#,
                r#"spec.scopeSelector.matchExpressions: Invalid value: core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{core.ScopedResourceSelectorRequirement{ScopeName:"BestEffort", Operator:"Exists", Values:[]string(nil)}, core.ScopedResourceSelectorRequirement{ScopeName:"NotBestEffort", Operator:"Exists", Values:[]string(nil)}}}: unsupported scope applied to resource"#,
            ]
        );
    }
}
