//! Pod-level `spec.resources` (KEP-2837) with the PodLevelResources gate on, as kube-apiserver's
//! create path has them: the Pod's defaults first (pkg/apis/core/v1 SetDefaults_Pod's
//! defaultHugePagePodLimits and defaultPodRequests, or with PodLevelResourcesFixDefaulting the
//! strategy's podutil.DefaultPodLevelResources, which also defaults limits; a template is not
//! defaulted), then validatePodResources (pkg/apis/core/validation): refused on a Windows Pod,
//! no `claims`, the names and quantities of validateResourceRequirements with
//! validatePodResourceName (cpu, memory and hugepages only), and validatePodResourceConsistency
//! against the containers' aggregate (component-helpers resource.AggregateContainerRequests and
//! AggregateContainerLimits: the regular containers and sidecars summed, each init container
//! with the sidecars before it, the larger of the two).

use super::Ctx;
use super::pod_claims::{self, Claims};
use super::pod_resources::{self, is_hugepages, resource_list};
use crate::api::core::is_sidecar;
use crate::api::{Container, PodSpec};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::quantity::Quantity;
use crate::versions::Change;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub(super) const GATE: &str = "PodLevelResources";
const GATE_FIX_DEFAULTING: &str = "PodLevelResourcesFixDefaulting";
/// sets.List(resourcehelper.SupportedPodLevelResources()): hugepages from 1.33.
const SUPPORTED: [&str; 3] = ["cpu", "hugepages-", "memory"];
const SUPPORTED_1_32: [&str; 2] = ["cpu", "memory"];

type List = BTreeMap<String, Quantity>;

/// resourcehelper.IsSupportedPodLevelResource at the minor.
fn supported(name: &str, minor: u32) -> bool {
    matches!(name, "cpu" | "memory") || (is_hugepages(name) && Change::PodLevelHugePages.at(minor))
}

/// validatePodResourceName: validateResourceName, then a resource pod-level resources support.
fn pod_resource_name(name: &str, p: &FieldPath, minor: u32, out: &mut Findings) {
    let before = out.errors.len();
    pod_resources::resource_name(name, p, minor, out);
    if out.errors.len() == before && !supported(name, minor) {
        let list: &[&str] = if Change::PodLevelHugePages.at(minor) {
            &SUPPORTED
        } else {
            &SUPPORTED_1_32
        };
        let d = Diagnostic::not_supported(p, name, list);
        out.push(pod_resources::resource_name_error(d, name, minor));
    }
}

fn to_list(v: Option<&Value>) -> List {
    resource_list(v)
        .unwrap_or_default()
        .into_iter()
        .map(|(k, q)| (k.to_owned(), q))
        .collect()
}

/// One container's limits and requests, requests defaulted to the limits on a Pod.
fn container_lists(c: &Container, default_requests: bool) -> (List, List) {
    let res = c.other.get("resources").and_then(Value::as_object);
    let limits = to_list(res.and_then(|r| r.get("limits")));
    let mut requests = to_list(res.and_then(|r| r.get("requests")));
    if default_requests {
        for (k, q) in &limits {
            requests.entry(k.clone()).or_insert_with(|| q.clone());
        }
    }
    (limits, requests)
}

/// addResourceList.
fn add(into: &mut List, from: &List) {
    for (k, q) in from {
        match into.get_mut(k) {
            Some(v) => *v = v.add(q),
            None => {
                into.insert(k.clone(), q.clone());
            }
        }
    }
}

/// maxResourceList.
fn max_into(into: &mut List, from: &List) {
    for (k, q) in from {
        if into.get(k).is_none_or(|v| q.cmp_value(v).is_gt()) {
            into.insert(k.clone(), q.clone());
        }
    }
}

/// aggregateContainerResourcesByFn over the spec's lists (`pick` the limits or the requests).
fn aggregate(spec: &PodSpec, lists: &Lists, pick: fn(&(List, List)) -> &List) -> List {
    let mut result = List::new();
    for l in &lists.regular {
        add(&mut result, pick(l));
    }
    let mut sidecars = List::new();
    let mut init = List::new();
    for (c, l) in spec.init_containers.iter().zip(&lists.init) {
        let own = pick(l);
        if is_sidecar(c) {
            add(&mut result, own);
            add(&mut sidecars, own);
            max_into(&mut init, &sidecars);
        } else {
            let mut combined = List::new();
            add(&mut combined, own);
            add(&mut combined, &sidecars);
            max_into(&mut init, &combined);
        }
    }
    max_into(&mut result, &init);
    result
}

/// The regular and init containers' (limits, requests), as the aggregates read them.
struct Lists {
    regular: Vec<(List, List)>,
    init: Vec<(List, List)>,
}

fn limits_of(l: &(List, List)) -> &List {
    &l.0
}

fn requests_of(l: &(List, List)) -> &List {
    &l.1
}

/// The Pod's defaults of its pod-level resources at this minor and with these gates.
fn default_pod_level(
    spec: &PodSpec,
    lists: &Lists,
    limits: &mut List,
    requests: &mut List,
    ctx: &Ctx,
) {
    let minor = ctx.gates.version.minor;
    let beta = Change::PodLevelResourcesBeta.at(minor);
    if ctx.gates.enabled(GATE_FIX_DEFAULTING) {
        // podutil.DefaultPodLevelResources (PrepareForCreate).
        if limits.is_empty() && requests.is_empty() {
            return;
        }
        hugepage_limits(lists, spec, limits, requests, true, minor);
        pod_requests(lists, spec, limits, requests, minor);
        pod_limits(spec, lists, limits, requests, minor);
        return;
    }
    // SetDefaults_Pod.
    if Change::PodLevelHugePages.at(minor) && !(limits.is_empty() && requests.is_empty()) {
        hugepage_limits(lists, spec, limits, requests, beta, minor);
    }
    if !limits.is_empty() {
        pod_requests(lists, spec, limits, requests, minor);
    }
}

/// defaultHugePagePodLimits: a hugepage limit from the containers' aggregate (`skip_requested`:
/// not beside a pod-level request of it).
fn hugepage_limits(
    lists: &Lists,
    spec: &PodSpec,
    limits: &mut List,
    requests: &List,
    skip_requested: bool,
    minor: u32,
) {
    for (k, q) in aggregate(spec, lists, limits_of) {
        if !supported(&k, minor)
            || !is_hugepages(&k)
            || (skip_requested && requests.contains_key(&k))
        {
            continue;
        }
        limits.entry(k).or_insert(q);
    }
}

/// defaultPodRequests: requests from the containers' aggregate, then from the pod-level limits.
/// A hugepage request is never taken from the containers: 1.33 skips hugepages by name, 1.34 on
/// takes only overcommittable resources (of the supported ones, all but hugepages), and 1.32
/// supports no hugepages at all.
fn pod_requests(lists: &Lists, spec: &PodSpec, limits: &List, requests: &mut List, minor: u32) {
    for (k, q) in aggregate(spec, lists, requests_of) {
        if supported(&k, minor) && !is_hugepages(&k) {
            requests.entry(k).or_insert(q);
        }
    }
    for (k, q) in limits {
        if supported(k, minor) {
            requests.entry(k.clone()).or_insert_with(|| q.clone());
        }
    }
}

/// defaultPodLevelLimits: a limit for each supported requested resource without one that every
/// container (init containers and sidecars too) limits: the larger of the request and the
/// containers' aggregated limit.
fn pod_limits(spec: &PodSpec, lists: &Lists, limits: &mut List, requests: &List, minor: u32) {
    let all = lists.regular.iter().chain(&lists.init);
    let mut candidates: Vec<&String> = requests
        .keys()
        .filter(|k| supported(k, minor) && !limits.contains_key(*k))
        .collect();
    let ephemeral: Vec<List> = spec
        .ephemeral_containers
        .iter()
        .map(|c| container_lists(c, false).0)
        .collect();
    for l in all.map(limits_of).chain(&ephemeral) {
        candidates.retain(|k| l.contains_key(*k));
    }
    if candidates.is_empty() {
        return;
    }
    let aggr = aggregate(spec, lists, limits_of);
    for k in candidates {
        let Some(mut v) = aggr.get(k).cloned() else {
            continue;
        };
        if let Some(req) = requests.get(k)
            && req.cmp_value(&v).is_gt()
        {
            v = req.clone();
        }
        limits.insert(k.clone(), v);
    }
}

fn pairs(l: &List) -> Vec<(&str, Quantity)> {
    l.iter().map(|(k, q)| (k.as_str(), q.clone())).collect()
}

/// validatePodResources with the gate on. `is_pod`: a Pod (defaulted), not a template.
pub fn validate(
    spec: &PodSpec,
    path: &FieldPath,
    is_pod: bool,
    claims: &Claims,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let Some(res) = spec.other.get("resources").filter(|v| !v.is_null()) else {
        return;
    };
    let minor = ctx.gates.version.minor;
    let beta = Change::PodLevelResourcesBeta.at(minor);
    let rp = path.child("resources");
    let windows = spec
        .other
        .get("os")
        .and_then(|o| o.get("name"))
        .and_then(Value::as_str)
        == Some("windows");
    if beta && windows {
        out.push(Diagnostic::forbidden(
            &rp,
            "may not be set for a windows pod",
        ));
        return;
    }
    let empty = Map::new();
    let obj = res.as_object().unwrap_or(&empty);
    let defaulted = is_pod && !ctx.skip_defaulting;
    let lists = Lists {
        regular: spec
            .containers
            .iter()
            .map(|c| container_lists(c, defaulted))
            .collect(),
        init: spec
            .init_containers
            .iter()
            .map(|c| container_lists(c, defaulted))
            .collect(),
    };
    let mut limits = to_list(obj.get("limits"));
    let mut requests = to_list(obj.get("requests"));
    if defaulted {
        default_pod_level(spec, &lists, &mut limits, &mut requests, ctx);
    }
    if obj.get("claims").is_some_and(|v| !v.is_null()) {
        let detail = if beta {
            "claims may not be set for Resources at pod-level"
        } else {
            "claims cannot be set for Resources at pod-level"
        };
        out.push(Diagnostic::forbidden(&rp.child("claims"), detail));
    }
    pod_resources::requirements_with(
        &pairs(&limits),
        &pairs(&requests),
        &rp,
        minor,
        pod_resource_name,
        out,
    );
    pod_claims::requirement_claims(obj.get("claims"), &rp, false, claims, out);
    consistency(spec, &lists, &limits, &requests, &rp, beta, out);
}

/// validatePodResourceConsistency.
fn consistency(
    spec: &PodSpec,
    lists: &Lists,
    limits: &List,
    requests: &List,
    rp: &FieldPath,
    beta: bool,
    out: &mut Findings,
) {
    let zero = Quantity::parse("0");
    let req_path = rp.child("requests");
    for (k, ctr) in aggregate(spec, lists, requests_of) {
        let pod = match (requests.get(&k), &zero) {
            (Some(q), _) => q,
            // Before beta an unset request is compared as zero.
            (None, Some(z)) if !beta => z,
            _ => continue,
        };
        if ctr.cmp_value(pod).is_gt() {
            out.push(Diagnostic::invalid(
                &req_path.key(&k),
                pod.canonical(),
                format!(
                    "must be greater than or equal to aggregate container requests of {}",
                    ctr.canonical()
                ),
            ));
        }
    }
    if beta {
        for (k, ctr) in aggregate(spec, lists, limits_of) {
            let Some(pod) = limits.get(&k).filter(|_| is_hugepages(&k)) else {
                continue;
            };
            if ctr.cmp_value(pod).is_gt() {
                out.push(Diagnostic::invalid(
                    &rp.child("limits").key(&k),
                    pod.canonical(),
                    format!(
                        "must be greater than or equal to aggregate container limits of {}",
                        ctr.canonical()
                    ),
                ));
            }
        }
    }
    for (i, (ctr_limits, _)) in lists.regular.iter().enumerate() {
        for (k, lim) in ctr_limits {
            let Some(pod) = limits.get(k) else { continue };
            if lim.cmp_value(pod).is_gt() {
                out.push(Diagnostic::invalid(
                    &rp.child("containers").index(i).key(k).child("limits"),
                    lim.canonical(),
                    format!(
                        "must be less than or equal to pod limits of {}",
                        pod.canonical()
                    ),
                ));
            }
        }
    }
}

/// The Pod's own resource fields: `spec.overhead` (validateOverhead: limits only),
/// `spec.resourceClaims` (pod_claims), and `spec.resources`: dropped on create with
/// PodLevelResources off, checked with it on (pod_level). `mirror`: a Pod with the mirror-Pod
/// annotation.
pub fn pod_spec(
    spec: &PodSpec,
    path: &FieldPath,
    env: &pod_resources::Env,
    mirror: bool,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let minor = ctx.gates.version.minor;
    if let Some(overhead) = resource_list(spec.other.get("overhead")) {
        pod_resources::requirements(&overhead, &[], &path.child("overhead"), minor, out);
    }
    pod_claims::pod_spec(spec, path, mirror, &env.claims, ctx, out);
    if !Change::PodLevelResources.at(minor) {
        return;
    }
    if ctx.gates.enabled(GATE) {
        validate(spec, path, env.default_requests, &env.claims, ctx, out);
        return;
    }
    let rp = path.child("resources");
    if spec.other.get("resources").is_some_and(|v| !v.is_null()) && !ctx.skip_defaulting {
        out.push(Diagnostic::lint(
            "field-dropped",
            &rp,
            format!(
                "{rp}: dropped on create: the {GATE} feature gate is off, so the API server clears this field"
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    /// PodLevelResources on, then `gates`.
    fn ctx(minor: u32, gates: &[(&str, bool)]) -> Ctx {
        Ctx::at(minor, &[&[(GATE, true)], gates].concat())
    }

    fn run(spec: Value, is_pod: bool, c: &Ctx) -> Vec<String> {
        let spec: PodSpec = serde_json::from_value(spec).unwrap();
        let claims = Claims::new(&spec, c);
        let mut out = Findings::default();
        validate(&spec, &FieldPath::new("spec"), is_pod, &claims, c, &mut out);
        let mut m: Vec<String> = out.errors.iter().map(|d| d.message.clone()).collect();
        m.sort();
        m
    }

    fn ctr(name: &str, resources: Value) -> Value {
        json!({"name": name, "image": "busybox", "resources": resources})
    }

    #[test]
    fn names_quantities_and_claims() {
        let spec = json!({
            "containers": [ctr("a", json!({}))],
            "resources": {"limits": {"cpu": "1", "ephemeral-storage": "1Gi", "nvidia.com/gpu": 1}, "requests": {"cpu": "2"}, "claims": []}
        });
        let got = run(spec, false, &ctx(37, &[]));
        assert_eq!(
            got,
            [
                "spec.resources.claims: Forbidden: claims may not be set for Resources at pod-level",
                "spec.resources.limits[ephemeral-storage]: Unsupported value: \"ephemeral-storage\": supported values: \"cpu\", \"hugepages-\", \"memory\"",
                "spec.resources.limits[nvidia.com/gpu]: Unsupported value: \"nvidia.com/gpu\": supported values: \"cpu\", \"hugepages-\", \"memory\"",
                "spec.resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1",
            ]
        );
    }

    #[test]
    fn consistency_with_the_containers() {
        // A template: nothing defaulted; a sidecar adds to the regular containers, an init
        // container alone counts only when larger.
        let spec = json!({
            "initContainers": [
                ctr("init", json!({"requests": {"cpu": "3"}})),
                {"name": "side", "image": "b", "restartPolicy": "Always", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}
            ],
            "containers": [ctr("a", json!({"requests": {"cpu": "1"}, "limits": {"memory": "3Gi"}}))],
            "resources": {"requests": {"cpu": "2"}, "limits": {"memory": "2Gi"}}
        });
        let got = run(spec.clone(), false, &ctx(36, &[]));
        assert_eq!(
            got,
            [
                "spec.resources.containers[0][memory].limits: Invalid value: \"3Gi\": must be less than or equal to pod limits of 2Gi",
                "spec.resources.requests[cpu]: Invalid value: \"2\": must be greater than or equal to aggregate container requests of 3",
            ]
        );
        // Before beta a resource the Pod does not request is compared with zero.
        let got = run(spec, false, &ctx(33, &[]));
        assert!(got.contains(&"spec.resources.requests[memory]: Invalid value: \"0\": must be greater than or equal to aggregate container requests of 1Gi".to_owned()), "{got:#?}");
    }

    #[test]
    fn a_pod_is_defaulted_first() {
        // The Pod: container requests default to their limits, pod-level requests to the
        // aggregate, so the limit below the containers' sum is the only error.
        let spec = json!({
            "containers": [ctr("a", json!({"limits": {"cpu": "1"}})), ctr("b", json!({"limits": {"cpu": "1500m"}}))],
            "resources": {"limits": {"cpu": "2"}}
        });
        let got = run(spec.clone(), true, &ctx(35, &[]));
        assert_eq!(
            got,
            [
                "spec.resources.requests: Invalid value: \"2500m\": must be less than or equal to cpu limit of 2"
            ]
        );
        // As a template it is not defaulted: nothing to compare.
        assert!(run(spec, false, &ctx(35, &[])).is_empty());
        // 1.37 defaults in PrepareForCreate and also defaults a limit: a hugepage request with
        // every container limiting it gets its limit, so no "Limit must be set".
        let hp = json!({
            "containers": [ctr("a", json!({"limits": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}}))],
            "resources": {"requests": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}}
        });
        assert!(run(hp.clone(), true, &ctx(37, &[])).is_empty());
        let got = run(hp, true, &ctx(37, &[(GATE_FIX_DEFAULTING, false)]));
        assert_eq!(
            got,
            [
                "spec.resources.limits: Required value: Limit must be set for non overcommitable resources"
            ]
        );
    }

    #[test]
    fn windows_pods_and_hugepage_limits() {
        let spec = json!({
            "os": {"name": "windows"},
            "containers": [ctr("a", json!({}))],
            "resources": {"limits": {"cpu": "bad"}}
        });
        assert_eq!(
            run(spec.clone(), false, &ctx(34, &[])),
            ["spec.resources: Forbidden: may not be set for a windows pod"]
        );
        let hp = json!({
            "containers": [ctr("a", json!({"limits": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}})), ctr("b", json!({"limits": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}}))],
            "resources": {"limits": {"hugepages-2Mi": "6Mi", "memory": "4Gi"}}
        });
        let got = run(hp, false, &ctx(34, &[]));
        assert_eq!(
            got,
            [
                "spec.resources.limits[hugepages-2Mi]: Invalid value: \"6Mi\": must be greater than or equal to aggregate container limits of 8Mi"
            ]
        );
    }

    #[test]
    fn hugepages_at_the_pod_level_from_1_33() {
        // 1.32 takes cpu and memory only, and prints a resource name unquoted.
        let spec = json!({
            "containers": [ctr("a", json!({}))],
            "resources": {"limits": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}}
        });
        assert_eq!(
            run(spec.clone(), false, &ctx(32, &[])),
            [
                "spec.resources.limits[hugepages-2Mi]: Unsupported value: hugepages-2Mi: supported values: \"cpu\", \"memory\""
            ]
        );
        assert!(run(spec, false, &ctx(33, &[])).is_empty());
        // No pod-level hugepage request is defaulted from the containers' (oracle, 1.33 seed 2,
        // case 72): the Pod's unset request is then compared as zero.
        let spec = json!({
            "containers": [ctr("a", json!({}))],
            "initContainers": [ctr("i", json!({"requests": {"hugepages-1Gi": "1Gi", "memory": "1Gi"}, "limits": {"memory": "1Gi"}}))],
            "resources": {"limits": {"cpu": "1"}}
        });
        assert_eq!(
            run(spec, true, &ctx(33, &[])),
            [
                "spec.resources.requests[hugepages-1Gi]: Invalid value: \"0\": must be greater than or equal to aggregate container requests of 1Gi"
            ]
        );
    }

    /// The Pod's own fields with the gate off: overhead checked, `spec.resources` dropped.
    #[test]
    fn overhead_and_pod_level_with_the_gate_off() {
        let spec = json!({"restartPolicy": "Always", "containers": [{"name": "a", "image": "x"}], "overhead": {"cpu": "-250m"}, "resources": {"limits": {"cpu": "1"}}});
        let spec: PodSpec = serde_json::from_value(spec).unwrap();
        let c = ctx(37, &[(GATE, false)]);
        let env = pod_resources::Env::new(&spec, true, &c);
        let mut out = Findings::default();
        pod_spec(&spec, &FieldPath::new("spec"), &env, false, &c, &mut out);
        assert_eq!(out.errors.len(), 1);
        assert!(
            out.errors[0]
                .message
                .starts_with("spec.overhead.limits[cpu]: Invalid value: \"-250m\"")
        );
        let dropped: Vec<&str> = out
            .warnings
            .iter()
            .chain(&out.infos)
            .map(|d| d.message.as_str())
            .collect();
        assert!(
            dropped
                .iter()
                .any(|m| m.starts_with("spec.resources: dropped on create")),
            "{dropped:?}"
        );
    }
}
