//! What ValidatePodSpec (pkg/apis/core/validation/validation.go) checks of a Pod's scheduling
//! fields on create, per minor 1.31-1.37: `nodeSelector` (ValidateLabels), `affinity`
//! (validateAffinity: node selector terms and requirements, preferred weights, pod (anti-)affinity
//! terms with their selectors, namespaces, topologyKey, matchLabelKeys / mismatchLabelKeys),
//! `tolerations` (ValidateTolerations), `topologySpreadConstraints`
//! (validateTopologySpreadConstraints), `schedulingGates`, `readinessGates`,
//! `priorityClassName`, `preemptionPolicy`, `runtimeClassName`, `nodeName` and
//! `serviceAccountName`; ValidatePodCreate's nodeName-with-schedulingGates rule is [`pod_create`].
//!
//! The PodValidationOptions these read are those of a create (pkg/api/pod/util.go
//! GetValidationOptionsFromPodSpecAndMeta with no old Pod), and what dropDisabledFields clears
//! when a gate is off (matchLabelKeys of affinity terms and of spread constraints,
//! nodeAffinityPolicy / nodeTaintsPolicy) is not checked. A Pod's selectors are first merged
//! with its matchLabelKeys as PrepareForCreate does ([`merge_match_label_keys`]).

use super::Ctx;
use super::meta::{dns1123_label, label_value, qualified_name};
use super::names::dns1123_subdomain_errors;
use super::selector;
use crate::api::{Pod, PodSpec};
use crate::diag::{Diagnostic, FieldPath, Findings};
use serde_json::{Map, Value};
use crate::versions::Change;

const NODE_SELECTOR_OPS: [&str; 6] = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"];
/// sets.List order (sorted) of supportedScheduleActions.
const WHEN_UNSATISFIABLE: [&str; 2] = ["DoNotSchedule", "ScheduleAnyway"];
/// sets.List order of supportedPodTopologySpreadNodePolicies.
const NODE_POLICIES: [&str; 2] = ["Honor", "Ignore"];
const TAINT_EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];
const PREEMPTION_POLICIES: [&str; 2] = ["PreemptLowerPriority", "Never"];
const NOT_POSITIVE: &str = "must be greater than zero";

pub(super) fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

pub(super) fn list(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

pub(super) fn strings(v: Option<&Value>) -> Vec<&str> {
    list(v).iter().filter_map(Value::as_str).collect()
}

/// ValidateLabelName: a qualified name, each message an Invalid at `p`.
fn label_name(key: &str, p: &FieldPath, minor: u32, out: &mut Findings) {
    for msg in qualified_name(key, minor) {
        out.push(Diagnostic::invalid(p, key, msg));
    }
}

/// An optional Go int32 member (absent or null: None).
fn int_of(v: &Value, key: &str) -> Option<i64> {
    v.get(key).and_then(Value::as_i64)
}

#[derive(Clone, Copy)]
struct Opts {
    minor: u32,
    /// AllowInvalidLabelValueInRequiredNodeAffinity is false on create from 1.33; before, the
    /// required terms' values were not checked (1.32 passes true, 1.31 has no check).
    check_required_values: bool,
    /// MatchLabelKeysInPodAffinity: off, a create drops the terms' match/mismatchLabelKeys.
    affinity_keys: bool,
    /// MatchLabelKeysInPodTopologySpread: off, a create drops the constraints' matchLabelKeys.
    spread_keys: bool,
    /// From 1.34, with MatchLabelKeysInPodTopologySpreadSelectorMerge on, the constraints'
    /// matchLabelKeys are checked as affinity terms' are (ValidateMatchLabelKeysAndMismatchLabelKeys).
    spread_merge: bool,
    /// NodeInclusionPolicyInPodTopologySpread: off, a create drops the two policies.
    node_inclusion: bool,
    /// TaintTolerationComparisonOperators (1.35 on): Lt and Gt tolerations.
    toleration_compare: bool,
}

impl Opts {
    fn of(ctx: &Ctx) -> Self {
        let minor = ctx.gates.version.minor;
        let spread_keys = ctx.gates.enabled("MatchLabelKeysInPodTopologySpread");
        Opts {
            minor,
            check_required_values: Change::RequiredAffinityValuesChecked.at(minor),
            affinity_keys: ctx.gates.enabled("MatchLabelKeysInPodAffinity"),
            spread_keys,
            spread_merge: spread_keys
                && ctx
                    .gates
                    .active("MatchLabelKeysInPodTopologySpreadSelectorMerge"),
            node_inclusion: ctx.gates.enabled("NodeInclusionPolicyInPodTopologySpread"),
            toleration_compare: ctx.gates.active("TaintTolerationComparisonOperators"),
        }
    }
}

/// The scheduling part of ValidatePodSpec. `path` is the PodSpec's path.
pub fn validate(spec: &PodSpec, path: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let o = &spec.other;
    let opts = Opts::of(ctx);
    let minor = opts.minor;
    if let Some(ns) = o.get("nodeSelector") {
        let pairs = selector::string_map(Some(ns));
        selector::validate_labels(&pairs, &path.child("nodeSelector"), minor, out);
    }
    if let Some(a) = o.get("affinity").and_then(Value::as_object) {
        affinity(a, &path.child("affinity"), opts, out);
    }
    for (i, g) in list(o.get("readinessGates")).iter().enumerate() {
        let p = path.child("readinessGates").index(i).child("conditionType");
        let t = str_of(g, "conditionType");
        for msg in qualified_name(t, minor) {
            out.push(Diagnostic::invalid(&p, t, msg));
        }
    }
    let gp = path.child("schedulingGates");
    let mut seen: Vec<&str> = Vec::new();
    for (i, g) in list(o.get("schedulingGates")).iter().enumerate() {
        let name = str_of(g, "name");
        for msg in qualified_name(name, minor) {
            out.push(Diagnostic::invalid(&gp.index(i), name, msg));
        }
        if seen.contains(&name) {
            out.push(Diagnostic::duplicate(&gp.index(i), name));
        }
        seen.push(name);
    }
    topology_spread(
        list(o.get("topologySpreadConstraints")),
        &path.child("topologySpreadConstraints"),
        opts,
        out,
    );
    subdomain_name(
        o.get("serviceAccountName"),
        &path.child("serviceAccountName"),
        out,
    );
    // deprecatedServiceAccount (v1 `serviceAccount`) is set from serviceAccountName when empty
    // by the conversion, so on create it always agrees.
    if let Some(n) = spec.node_name.as_deref() {
        subdomain_name(Some(&Value::from(n)), &path.child("nodeName"), out);
    }
    let tolerations = list(o.get("tolerations"));
    if !tolerations.is_empty() {
        validate_tolerations(tolerations, &path.child("tolerations"), opts, out);
    }
    subdomain_name(
        o.get("priorityClassName"),
        &path.child("priorityClassName"),
        out,
    );
    if let Some(rc) = o.get("runtimeClassName").and_then(Value::as_str) {
        // A pointer: an empty name is refused too.
        for msg in dns1123_subdomain_errors(rc) {
            out.push(Diagnostic::invalid(
                &path.child("runtimeClassName"),
                rc,
                msg,
            ));
        }
    }
    if let Some(pp) = o.get("preemptionPolicy").and_then(Value::as_str) {
        let p = path.child("preemptionPolicy");
        if pp.is_empty() {
            out.push(Diagnostic::required(&p, ""));
        } else if !PREEMPTION_POLICIES.contains(&pp) {
            out.push(Diagnostic::not_supported(&p, pp, &PREEMPTION_POLICIES));
        }
    }
}

/// A name checked with NameIsDNSSubdomain when non-empty (nodeName, serviceAccountName,
/// priorityClassName).
fn subdomain_name(v: Option<&Value>, p: &FieldPath, out: &mut Findings) {
    if let Some(name) = v.and_then(Value::as_str).filter(|s| !s.is_empty()) {
        for msg in dns1123_subdomain_errors(name) {
            out.push(Diagnostic::invalid(p, name, msg));
        }
    }
}

/// ValidatePodCreate: a Pod may not name its node while scheduling gates remain.
pub fn pod_create(spec: &PodSpec, path: &FieldPath, out: &mut Findings) {
    if spec.node_name.as_deref().is_some_and(|n| !n.is_empty())
        && !list(spec.other.get("schedulingGates")).is_empty()
    {
        out.push(Diagnostic::forbidden(
            &path.child("nodeName"),
            "cannot be set until all schedulingGates have been cleared",
        ));
    }
}

/// PrepareForCreate's mutatePodAffinity (MatchLabelKeysInPodAffinity) and, from 1.34,
/// mutateTopologySpreadConstraints (MatchLabelKeysInPodTopologySpread and its SelectorMerge):
/// each matchLabelKeys (mismatchLabelKeys) key the Pod has as a label becomes a `key In (value)`
/// (`NotIn`) requirement of the term's or constraint's labelSelector, when it has one. A Pod
/// only: templates are merged when their Pods are created.
pub fn merge_match_label_keys(pod: &mut Pod, ctx: &Ctx) {
    let opts = Opts::of(ctx);
    let labels = pod.metadata.labels.clone().unwrap_or_default();
    let apply = |term: &mut Value, keys: &[(&str, &str)]| {
        let lists: Vec<(Vec<String>, &str)> = keys
            .iter()
            .map(|(field, op)| {
                let ks = strings(term.get(*field))
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                (ks, *op)
            })
            .collect();
        let Some(ls) = term.get_mut("labelSelector").and_then(Value::as_object_mut) else {
            return;
        };
        for (ks, op) in lists {
            for k in ks {
                if let Some(v) = labels.get(&k) {
                    let req = serde_json::json!({"key": k, "operator": op, "values": [v]});
                    match ls.get_mut("matchExpressions").and_then(Value::as_array_mut) {
                        Some(list) => list.push(req),
                        None => {
                            ls.insert("matchExpressions".to_owned(), Value::Array(vec![req]));
                        }
                    }
                }
            }
        }
    };
    let term_keys = [("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn")];
    if opts.affinity_keys
        && let Some(a) = pod
            .spec
            .other
            .get_mut("affinity")
            .and_then(Value::as_object_mut)
    {
        for kind in ["podAffinity", "podAntiAffinity"] {
            let Some(pa) = a.get_mut(kind).and_then(Value::as_object_mut) else {
                continue;
            };
            if let Some(l) = pa
                .get_mut("requiredDuringSchedulingIgnoredDuringExecution")
                .and_then(Value::as_array_mut)
            {
                l.iter_mut().for_each(|t| apply(t, &term_keys));
            }
            if let Some(l) = pa
                .get_mut("preferredDuringSchedulingIgnoredDuringExecution")
                .and_then(Value::as_array_mut)
            {
                for w in l.iter_mut() {
                    if let Some(t) = w.get_mut("podAffinityTerm") {
                        apply(t, &term_keys);
                    }
                }
            }
        }
    }
    if opts.spread_merge
        && let Some(l) = pod
            .spec
            .other
            .get_mut("topologySpreadConstraints")
            .and_then(Value::as_array_mut)
    {
        l.iter_mut()
            .for_each(|c| apply(c, &[("matchLabelKeys", "In")]));
    }
}

fn affinity(a: &Map<String, Value>, p: &FieldPath, opts: Opts, out: &mut Findings) {
    if let Some(na) = a.get("nodeAffinity").filter(|v| v.is_object()) {
        let np = p.child("nodeAffinity");
        if let Some(req) = na
            .get("requiredDuringSchedulingIgnoredDuringExecution")
            .filter(|v| v.is_object())
        {
            let rp = np
                .child("requiredDuringSchedulingIgnoredDuringExecution")
                .child("nodeSelectorTerms");
            let terms = list(req.get("nodeSelectorTerms"));
            if terms.is_empty() {
                out.push(Diagnostic::required(
                    &rp,
                    "must have at least one node selector term",
                ));
            }
            for (i, t) in terms.iter().enumerate() {
                node_selector_term(t, &rp.index(i), opts.check_required_values, opts, out);
            }
        }
        let pp = np.child("preferredDuringSchedulingIgnoredDuringExecution");
        for (i, t) in list(na.get("preferredDuringSchedulingIgnoredDuringExecution"))
            .iter()
            .enumerate()
        {
            weight(t, &pp.index(i).child("weight"), out);
            // Preferred terms' values are never checked: they may match on a one-node cluster.
            if let Some(pref) = t.get("preference") {
                node_selector_term(pref, &pp.index(i).child("preference"), false, opts, out);
            }
        }
    }
    for kind in ["podAffinity", "podAntiAffinity"] {
        let Some(pa) = a.get(kind).filter(|v| v.is_object()) else {
            continue;
        };
        let kp = p.child(kind);
        let rp = kp.child("requiredDuringSchedulingIgnoredDuringExecution");
        for (i, t) in list(pa.get("requiredDuringSchedulingIgnoredDuringExecution"))
            .iter()
            .enumerate()
        {
            pod_affinity_term(t, &rp.index(i), opts, out);
        }
        let wp = kp.child("preferredDuringSchedulingIgnoredDuringExecution");
        for (i, t) in list(pa.get("preferredDuringSchedulingIgnoredDuringExecution"))
            .iter()
            .enumerate()
        {
            weight(t, &wp.index(i).child("weight"), out);
            let term = t.get("podAffinityTerm").unwrap_or(&Value::Null);
            pod_affinity_term(term, &wp.index(i).child("podAffinityTerm"), opts, out);
        }
    }
}

fn weight(t: &Value, p: &FieldPath, out: &mut Findings) {
    let w = int_of(t, "weight").unwrap_or(0);
    if !(1..=100).contains(&w) {
        out.push(Diagnostic::invalid(p, w, "must be in the range 1-100"));
    }
}

/// ValidateNodeSelector on a required node selector outside a Pod (a PersistentVolume's
/// `nodeAffinity.required`): at least one term, each checked as a Pod's required terms are at
/// that minor (label values from 1.33, when AllowInvalidLabelValueInRequiredNodeAffinity is
/// false on create).
pub(super) fn required_node_selector(req: &Value, p: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let opts = Opts::of(ctx);
    let tp = p.child("nodeSelectorTerms");
    let terms = list(req.get("nodeSelectorTerms"));
    if terms.is_empty() {
        out.push(Diagnostic::required(
            &tp,
            "must have at least one node selector term",
        ));
    }
    for (i, t) in terms.iter().enumerate() {
        node_selector_term(t, &tp.index(i), opts.check_required_values, opts, out);
    }
}

/// ValidateNodeSelectorTerm.
fn node_selector_term(t: &Value, p: &FieldPath, values: bool, opts: Opts, out: &mut Findings) {
    let ep = p.child("matchExpressions");
    for (j, r) in list(t.get("matchExpressions")).iter().enumerate() {
        let rp = ep.index(j);
        let vals = strings(r.get("values"));
        let vp = rp.child("values");
        match str_of(r, "operator") {
            "In" | "NotIn" if vals.is_empty() => out.push(Diagnostic::required(
                &vp,
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if !vals.is_empty() => out.push(Diagnostic::forbidden(
                &vp,
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "Gt" | "Lt" if vals.len() != 1 => out.push(Diagnostic::required(
                &vp,
                "must be specified single value when `operator` is 'Lt' or 'Gt'",
            )),
            op if !NODE_SELECTOR_OPS.contains(&op) => out.push(Diagnostic::invalid(
                &rp.child("operator"),
                op,
                "not a valid selector operator",
            )),
            _ => {}
        }
        label_name(str_of(r, "key"), &rp.child("key"), opts.minor, out);
        if values {
            for (k, v) in vals.iter().enumerate() {
                for msg in label_value(v, opts.minor) {
                    out.push(Diagnostic::invalid(&vp.index(k), *v, msg));
                }
            }
        }
    }
    let fp = p.child("matchFields");
    for (j, r) in list(t.get("matchFields")).iter().enumerate() {
        let rp = fp.index(j);
        let vals = strings(r.get("values"));
        match str_of(r, "operator") {
            "In" | "NotIn" => {
                if vals.len() != 1 {
                    out.push(Diagnostic::required(
                        &rp.child("values"),
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                    ));
                }
            }
            op => out.push(Diagnostic::invalid(
                &rp.child("operator"),
                op,
                "not a valid selector operator",
            )),
        }
        // nodeFieldSelectorValidators: only metadata.name, checked as a node name.
        let key = str_of(r, "key");
        if key == "metadata.name" {
            for (k, v) in vals.iter().enumerate() {
                for msg in dns1123_subdomain_errors(v) {
                    out.push(Diagnostic::invalid(&rp.child("values").index(k), *v, msg));
                }
            }
        } else {
            out.push(Diagnostic::invalid(
                &rp.child("key"),
                key,
                "not a valid field selector key",
            ));
        }
    }
}

/// validatePodAffinityTerm.
fn pod_affinity_term(t: &Value, p: &FieldPath, opts: Opts, out: &mut Findings) {
    let ls = t.get("labelSelector").and_then(Value::as_object);
    if let Some(s) = ls {
        selector::validate(s, &p.child("labelSelector"), opts.minor, out);
    }
    if let Some(s) = t.get("namespaceSelector").and_then(Value::as_object) {
        selector::validate(s, &p.child("namespaceSelector"), opts.minor, out);
    }
    for ns in strings(t.get("namespaces")) {
        for msg in dns1123_label(ns) {
            // Upstream's path is `namespace`, singular and without an index.
            out.push(Diagnostic::invalid(&p.child("namespace"), ns, msg));
        }
    }
    if opts.affinity_keys {
        let mk = strings(t.get("matchLabelKeys"));
        let mm = strings(t.get("mismatchLabelKeys"));
        match_and_mismatch_keys(p, &mk, &mm, ls, opts.minor, out);
    }
    let key = str_of(t, "topologyKey");
    if key.is_empty() {
        out.push(Diagnostic::required(
            &p.child("topologyKey"),
            "can not be empty",
        ));
    }
    label_name(key, &p.child("topologyKey"), opts.minor, out);
}

/// validateLabelKeys.
fn label_keys(
    p: &FieldPath,
    keys: &[&str],
    ls: Option<&Map<String, Value>>,
    minor: u32,
    out: &mut Findings,
) {
    if keys.is_empty() {
        return;
    }
    if ls.is_none() {
        out.push(Diagnostic::forbidden(
            p,
            "must not be specified when labelSelector is not set",
        ));
        return;
    }
    for (i, k) in keys.iter().enumerate() {
        label_name(k, &p.index(i), minor, out);
    }
}

/// ValidateMatchLabelKeysAndMismatchLabelKeys (validateMatchLabelKeysAndMismatchLabelKeys
/// before 1.34). `p` is the term's (or constraint's) path: upstream reports a key also in the
/// selector at `p[i]`, not under matchLabelKeys.
fn match_and_mismatch_keys(
    p: &FieldPath,
    match_keys: &[&str],
    mismatch_keys: &[&str],
    ls: Option<&Map<String, Value>>,
    minor: u32,
    out: &mut Findings,
) {
    label_keys(&p.child("matchLabelKeys"), match_keys, ls, minor, out);
    label_keys(&p.child("mismatchLabelKeys"), mismatch_keys, ls, minor, out);
    if let Some(s) = ls {
        // The last index of each key (a Go map filled in order).
        let index_of = |key: &str| match_keys.iter().rposition(|k| *k == key);
        let mut keys: Vec<&str> = selector::match_labels(s).iter().map(|(k, _)| *k).collect();
        for r in list(s.get("matchExpressions")) {
            let key = str_of(r, "key");
            if let Some(i) = index_of(key)
                && keys.contains(&key)
            {
                out.push(Diagnostic::invalid(
                    &p.index(i),
                    key,
                    "exists in both matchLabelKeys and labelSelector",
                ));
            }
            keys.push(key);
        }
    }
    for (i, k) in match_keys.iter().enumerate() {
        if mismatch_keys.contains(k) {
            out.push(Diagnostic::invalid(
                &p.child("matchLabelKeys").index(i),
                *k,
                "exists in both matchLabelKeys and mismatchLabelKeys",
            ));
        }
    }
}

/// ValidateMatchLabelKeysInTopologySpread (the legacy check). `p` is `…matchLabelKeys`.
fn spread_match_keys(
    p: &FieldPath,
    keys: &[&str],
    ls: Option<&Map<String, Value>>,
    minor: u32,
    out: &mut Findings,
) {
    if keys.is_empty() {
        return;
    }
    let mut selector_keys: Vec<&str> = Vec::new();
    match ls {
        Some(s) => {
            selector_keys.extend(selector::match_labels(s).iter().map(|(k, _)| *k));
            selector_keys.extend(
                list(s.get("matchExpressions"))
                    .iter()
                    .map(|r| str_of(r, "key")),
            );
        }
        None => out.push(Diagnostic::forbidden(
            p,
            "must not be specified when labelSelector is not set",
        )),
    }
    for (i, k) in keys.iter().enumerate() {
        label_name(k, &p.index(i), minor, out);
        if selector_keys.contains(k) {
            out.push(Diagnostic::invalid(
                &p.index(i),
                *k,
                "exists in both matchLabelKeys and labelSelector",
            ));
        }
    }
}

/// validateTopologySpreadConstraints.
fn topology_spread(constraints: &[Value], path: &FieldPath, opts: Opts, out: &mut Findings) {
    for (i, c) in constraints.iter().enumerate() {
        let p = path.index(i);
        let skew = int_of(c, "maxSkew").unwrap_or(0);
        if skew <= 0 {
            out.push(Diagnostic::invalid(&p.child("maxSkew"), skew, NOT_POSITIVE));
        }
        let key = str_of(c, "topologyKey");
        if key.is_empty() {
            out.push(Diagnostic::required(
                &p.child("topologyKey"),
                "can not be empty",
            ));
        }
        let when = str_of(c, "whenUnsatisfiable");
        if !WHEN_UNSATISFIABLE.contains(&when) {
            out.push(Diagnostic::not_supported(
                &p.child("whenUnsatisfiable"),
                when,
                &WHEN_UNSATISFIABLE,
            ));
        }
        if constraints
            .iter()
            .skip(i + 1)
            .any(|r| str_of(r, "topologyKey") == key && str_of(r, "whenUnsatisfiable") == when)
        {
            out.push(Diagnostic::duplicate(
                &p.child("{topologyKey, whenUnsatisfiable}"),
                format!("{{{key}, {when}}}"),
            ));
        }
        if let Some(md) = int_of(c, "minDomains") {
            let mp = p.child("minDomains");
            if md <= 0 {
                out.push(Diagnostic::invalid(&mp, md, NOT_POSITIVE));
            }
            if when != "DoNotSchedule" {
                out.push(Diagnostic::invalid(
                    &mp,
                    md,
                    format!(
                        "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {when}"
                    ),
                ));
            }
        }
        if opts.node_inclusion {
            for f in ["nodeAffinityPolicy", "nodeTaintsPolicy"] {
                if let Some(v) = c.get(f).and_then(Value::as_str)
                    && !NODE_POLICIES.contains(&v)
                {
                    out.push(Diagnostic::not_supported(&p.child(f), v, &NODE_POLICIES));
                }
            }
        }
        let ls = c.get("labelSelector").and_then(Value::as_object);
        if opts.spread_keys {
            let keys = strings(c.get("matchLabelKeys"));
            if opts.spread_merge {
                match_and_mismatch_keys(&p, &keys, &[], ls, opts.minor, out);
            } else {
                spread_match_keys(&p.child("matchLabelKeys"), &keys, ls, opts.minor, out);
            }
        }
        if let Some(s) = ls {
            selector::validate(s, &p.child("labelSelector"), opts.minor, out);
        }
    }
}

/// Go's `%#v` of a core.Toleration, which 1.31 prints as the value of the Exists-with-a-value
/// error (the pointer's address is no fact restartkit can know: `0x…`, as the oracle masks it).
fn go_toleration(t: &Value) -> String {
    let secs = if t.get("tolerationSeconds").is_some_and(|v| !v.is_null()) {
        "(*int64)(0x…)"
    } else {
        "(*int64)(nil)"
    };
    format!(
        "core.Toleration{{Key:{:?}, Operator:{:?}, Value:{:?}, Effect:{:?}, TolerationSeconds:{secs}}}",
        str_of(t, "key"),
        str_of(t, "operator"),
        str_of(t, "value"),
        str_of(t, "effect"),
    )
}

/// content.IsDecimalInteger.
fn decimal_integer(v: &str) -> Option<&'static str> {
    const MSG: &str = "must be a valid decimal integer in canonical form";
    let digits = v.strip_prefix('-').unwrap_or(v);
    if v.is_empty() {
        return Some("must be non-empty");
    }
    let b = digits.as_bytes();
    match b.first() {
        None => Some(MSG),
        Some(b'0') if v == "0" => None,
        Some(b'1'..=b'9') if b.iter().all(u8::is_ascii_digit) => None,
        _ => Some(MSG),
    }
}

/// A RuntimeClass's `scheduling.tolerations` (pkg/apis/node/validation validateTolerations):
/// ValidateTolerations with the zero PodValidationOptions (so no Lt or Gt), then a Duplicate for
/// each toleration whose key, operator, value and effect an earlier one has, the toleration
/// printed as the minor prints the internal struct (Go's `%#v` before 1.34, JSON with the Go
/// field names from).
/// `own` is where ValidateTolerations reports, `path` where the repeats are.
pub(super) fn runtime_class_tolerations(
    tolerations: &[Value],
    own: &FieldPath,
    path: &FieldPath,
    minor: u32,
    out: &mut Findings,
) {
    let opts = Opts {
        minor,
        check_required_values: false,
        affinity_keys: false,
        spread_keys: false,
        spread_merge: false,
        node_inclusion: false,
        toleration_compare: false,
    };
    validate_tolerations(tolerations, own, opts, out);
    let mut seen: Vec<[&str; 4]> = Vec::new();
    for (i, t) in tolerations.iter().enumerate() {
        let k = ["key", "operator", "value", "effect"].map(|f| str_of(t, f));
        if !seen.contains(&k) {
            seen.push(k);
            continue;
        }
        let secs = t.get("tolerationSeconds").filter(|v| !v.is_null());
        let printed = if Change::FieldErrorJsonValues.at(minor) {
            // encoding/json writes a struct's fields in their Go order.
            let q = |v: &str| super::crd_schema::go::json(&Value::from(v));
            format!(
                "{{\"Key\":{},\"Operator\":{},\"Value\":{},\"Effect\":{},\"TolerationSeconds\":{}}}",
                q(k[0]),
                q(k[1]),
                q(k[2]),
                q(k[3]),
                secs.map_or_else(|| "null".to_owned(), Value::to_string)
            )
        } else {
            go_toleration(t)
        };
        out.push(Diagnostic::duplicate(&path.index(i), t.clone()).with_printed_value(&printed));
    }
}

/// ValidateTolerations. Also used for the tolerations annotation.
fn validate_tolerations(tolerations: &[Value], path: &FieldPath, opts: Opts, out: &mut Findings) {
    for (i, t) in tolerations.iter().enumerate() {
        let p = path.index(i);
        let key = str_of(t, "key");
        let op = str_of(t, "operator");
        let value = str_of(t, "value");
        let effect = str_of(t, "effect");
        if !key.is_empty() {
            label_name(key, &p.child("key"), opts.minor, out);
        }
        if key.is_empty() && op != "Exists" {
            out.push(Diagnostic::invalid(
                &p.child("operator"),
                op,
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        if t.get("tolerationSeconds").is_some_and(|v| !v.is_null()) && effect != "NoExecute" {
            out.push(Diagnostic::invalid(
                &p.child("effect"),
                effect,
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        match op {
            "Equal" | "" => {
                let msgs = label_value(value, opts.minor);
                if !msgs.is_empty() {
                    out.push(Diagnostic::invalid(
                        &p.child("operator"),
                        value,
                        msgs.join(";"),
                    ));
                }
            }
            "Exists" => {
                if !value.is_empty() {
                    let detail = "value must be empty when `operator` is 'Exists'";
                    let d = Diagnostic::invalid(&p.child("operator"), value, detail);
                    out.push(if !Change::TolerationExistsValueShown.at(opts.minor) {
                        d.with_printed_value(&go_toleration(t))
                    } else {
                        d
                    });
                }
            }
            "Lt" | "Gt" if Change::TolerationCompareOperators.at(opts.minor) => {
                if !opts.toleration_compare {
                    out.push(Diagnostic::not_supported(
                        &p.child("operator"),
                        op,
                        &["Equal", "Exists", "Lt", "Gt"],
                    ));
                } else {
                    let vp = p.child("value");
                    if let Some(msg) = decimal_integer(value) {
                        out.push(Diagnostic::invalid(&vp, value, msg));
                    }
                    if let Some(err) = parse_int64_error(value) {
                        out.push(Diagnostic::invalid(&vp, value, err));
                    }
                }
            }
            _ => out.push(Diagnostic::not_supported(
                &p.child("operator"),
                op,
                &["Equal", "Exists"],
            )),
        }
        if !effect.is_empty() && !TAINT_EFFECTS.contains(&effect) {
            out.push(Diagnostic::not_supported(
                &p.child("effect"),
                effect,
                &TAINT_EFFECTS,
            ));
        }
    }
}

/// strconv.ParseInt(v, 10, 64)'s error text, if it fails.
fn parse_int64_error(v: &str) -> Option<String> {
    let digits = v.strip_prefix(['+', '-']).unwrap_or(v);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        return Some(format!("strconv.ParseInt: parsing {v:?}: invalid syntax"));
    }
    // Base 10 given explicitly: underscores are not allowed.
    if digits.contains('_') {
        return Some(format!("strconv.ParseInt: parsing {v:?}: invalid syntax"));
    }
    v.parse::<i64>()
        .err()
        .map(|_| format!("strconv.ParseInt: parsing {v:?}: value out of range"))
}

/// The tolerations annotation (`scheduler.alpha.kubernetes.io/tolerations`):
/// ValidateTolerationsInPodAnnotations, at the annotations' path.
pub fn tolerations_annotation(value: &str, annotations: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    const KEY: &str = "scheduler.alpha.kubernetes.io/tolerations";
    match serde_json::from_str::<Vec<Value>>(value) {
        // Upstream's detail is encoding/json's error text, which restartkit does not reproduce.
        Err(e) => out.push(Diagnostic::invalid(annotations, KEY, e.to_string())),
        Ok(list) if !list.is_empty() => {
            validate_tolerations(&list, &annotations.child(KEY), Opts::of(ctx), out)
        }
        Ok(_) => {}
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use crate::features::{FeatureGates, KubeVersion};
    use serde_json::json;

    fn ctx(minor: u32) -> Ctx {
        Ctx {
            gates: FeatureGates::for_version(KubeVersion { minor }),
            skip_defaulting: false,
            future_rules: false,
            always_pod: false,
            field_validation: Default::default(),
        }
    }

    fn errs(spec: Value, minor: u32) -> Vec<String> {
        let spec: PodSpec = serde_json::from_value(spec).unwrap();
        let mut out = Findings::default();
        validate(&spec, &FieldPath::new("spec"), &ctx(minor), &mut out);
        pod_create(&spec, &FieldPath::new("spec"), &mut out);
        out.errors.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn match_label_keys_merged_into_the_selector() {
        let mut pod: Pod = serde_json::from_value(json!({"metadata": {"labels": {"app": "web"}},
            "spec": {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": "zone", "matchLabelKeys": ["app", "absent"],
                 "labelSelector": {"matchLabels": {"app": "web"}}}]}},
                "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                 "matchLabelKeys": ["app"], "labelSelector": {"matchLabels": {"app": "web"}}}]}})).unwrap();
        let c = ctx(37);
        merge_match_label_keys(&mut pod, &c);
        let term = &pod.spec.other["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
            [0];
        assert_eq!(
            term["labelSelector"]["matchExpressions"],
            json!([{"key": "app", "operator": "In", "values": ["web"]}])
        );
        let mut out = Findings::default();
        validate(&pod.spec, &FieldPath::new("spec"), &c, &mut out);
        let m: Vec<String> = out.errors.into_iter().map(|d| d.message).collect();
        assert_eq!(
            m,
            vec![
                "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][0]: Invalid value: \"app\": exists in both matchLabelKeys and labelSelector",
                "spec.topologySpreadConstraints[0][0]: Invalid value: \"app\": exists in both matchLabelKeys and labelSelector",
            ]
        );
    }

    #[test]
    fn valid_scheduling_is_quiet() {
        let spec = json!({
            "nodeSelector": {"disktype": "ssd"},
            "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
                            {"operator": "Exists"}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}},
                "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100,
                    "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "x"}}}}]}},
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "minDomains": 2}],
            "schedulingGates": [{"name": "example.com/gate"}],
            "priorityClassName": "high", "preemptionPolicy": "Never", "runtimeClassName": "gvisor"
        });
        for m in [31, 34, 37] {
            assert!(
                errs(spec.clone(), m).is_empty(),
                "{m}: {:?}",
                errs(spec.clone(), m)
            );
        }
    }

    #[test]
    fn node_selector_value_with_a_space() {
        let e = errs(json!({"nodeSelector": {"disktype": "fast ssd"}}), 37);
        assert_eq!(e.len(), 1);
        assert!(
            e[0].starts_with(
                "spec.nodeSelector: Invalid value: \"fast ssd\": a valid label must be"
            ),
            "{e:?}"
        );
    }

    #[test]
    fn affinity_operator_and_weight() {
        let e = errs(
            json!({"affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "Equals", "values": ["a b"]}]}]},
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 0, "preference": {}}]}}}),
            33,
        );
        assert_eq!(
            e[0],
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: \"Equals\": not a valid selector operator"
        );
        assert!(e[1].starts_with("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: \"a b\""));
        assert_eq!(
            e[2],
            "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100"
        );
        // 1.32 does not check the required terms' values yet.
        assert_eq!(
            errs(
                json!({"affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a b"]}]}]}}}}),
                32
            )
            .len(),
            0
        );
        assert_eq!(
            errs(
                json!({"affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}}),
                37
            ),
            vec![
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term"
            ]
        );
    }

    #[test]
    fn pod_affinity_terms() {
        let e = errs(
            json!({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "", "namespaces": ["Bad_NS"], "matchLabelKeys": ["app"], "mismatchLabelKeys": ["app"],
             "labelSelector": {"matchLabels": {"app": "x"}, "matchExpressions": [{"key": "app", "operator": "In", "values": ["x"]}]}}]}}}),
            37,
        );
        let p = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]";
        assert!(
            e.contains(&format!(
                "{p}.topologyKey: Required value: can not be empty"
            )),
            "{e:?}"
        );
        assert!(
            e.iter()
                .any(|m| m.starts_with(&format!("{p}.namespace: Invalid value: \"Bad_NS\"")))
        );
        assert!(e.contains(&format!(
            "{p}[0]: Invalid value: \"app\": exists in both matchLabelKeys and labelSelector"
        )));
        assert!(e.contains(&format!("{p}.matchLabelKeys[0]: Invalid value: \"app\": exists in both matchLabelKeys and mismatchLabelKeys")));
    }

    #[test]
    fn tolerations() {
        let e = errs(
            json!({"tolerations": [
            {"key": "k", "operator": "Exists", "value": "v"},
            {"key": "k", "operator": "Equal", "value": "v", "tolerationSeconds": 5, "effect": "NoSchedule"},
            {"operator": "Equal"}, {"key": "k", "operator": "In"}, {"key": "k", "effect": "Never"}]}),
            37,
        );
        assert_eq!(
            e,
            vec![
                "spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
                "spec.tolerations[1].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
                "spec.tolerations[2].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
                "spec.tolerations[3].operator: Unsupported value: \"In\": supported values: \"Equal\", \"Exists\"",
                "spec.tolerations[4].effect: Unsupported value: \"Never\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
            ]
        );
        assert_eq!(
            errs(
                json!({"tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]}),
                31
            ),
            vec![
                "spec.tolerations[0].operator: Invalid value: core.Toleration{Key:\"k\", Operator:\"Exists\", Value:\"v\", Effect:\"\", TolerationSeconds:(*int64)(nil)}: value must be empty when `operator` is 'Exists'"
            ]
        );
        assert_eq!(
            errs(
                json!({"tolerations": [{"key": "k", "operator": "Gt", "value": "x"}]}),
                34
            ),
            vec![
                "spec.tolerations[0].operator: Unsupported value: \"Gt\": supported values: \"Equal\", \"Exists\""
            ]
        );
    }

    #[test]
    fn topology_spread() {
        let c = json!({"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "minDomains": 0,
                       "nodeAffinityPolicy": "Always"});
        let e = errs(json!({"topologySpreadConstraints": [c.clone(), c]}), 37);
        let p = "spec.topologySpreadConstraints[0]";
        assert!(
            e.contains(&format!(
                "{p}.maxSkew: Invalid value: 0: must be greater than zero"
            )),
            "{e:?}"
        );
        assert!(e.contains(&format!(
            "{p}.{{topologyKey, whenUnsatisfiable}}: Duplicate value: \"{{zone, ScheduleAnyway}}\""
        )));
        assert!(e.contains(&format!("{p}.minDomains: Invalid value: 0: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway")));
        assert!(e.contains(&format!("{p}.nodeAffinityPolicy: Unsupported value: \"Always\": supported values: \"Honor\", \"Ignore\"")));
        let e = errs(
            json!({"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "", "whenUnsatisfiable": "Never",
            "matchLabelKeys": ["app"]}]}),
            33,
        );
        assert_eq!(
            e,
            vec![
                "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty",
                "spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Never\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
                "spec.topologySpreadConstraints[0].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set",
            ]
        );
    }

    #[test]
    fn names_and_gates() {
        let e = errs(
            json!({"schedulingGates": [{"name": "a"}, {"name": "a"}, {"name": "b c"}],
            "nodeName": "Node_1", "priorityClassName": "High", "preemptionPolicy": "Sometimes",
            "runtimeClassName": "", "readinessGates": [{"conditionType": "ready now"}], "serviceAccountName": "sa!"}),
            37,
        );
        assert!(
            e.contains(&"spec.schedulingGates[1]: Duplicate value: \"a\"".to_owned()),
            "{e:?}"
        );
        assert!(
            e.iter()
                .any(|m| m.starts_with("spec.schedulingGates[2]: Invalid value: \"b c\""))
        );
        assert!(
            e.iter()
                .any(|m| m.starts_with("spec.nodeName: Invalid value: \"Node_1\""))
        );
        assert!(
            e.iter()
                .any(|m| m.starts_with("spec.priorityClassName: Invalid value: \"High\""))
        );
        assert!(
            e.iter()
                .any(|m| m.starts_with("spec.runtimeClassName: Invalid value: \"\""))
        );
        assert!(e.iter().any(|m| {
            m.starts_with("spec.readinessGates[0].conditionType: Invalid value: \"ready now\"")
        }));
        assert!(
            e.iter()
                .any(|m| m.starts_with("spec.serviceAccountName: Invalid value: \"sa!\""))
        );
        assert!(e.contains(&"spec.preemptionPolicy: Unsupported value: \"Sometimes\": supported values: \"PreemptLowerPriority\", \"Never\"".to_owned()));
        assert!(e.contains(&"spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared".to_owned()));
    }
}
