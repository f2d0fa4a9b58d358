//! A Pod's container resources as kube-apiserver's create path checks them
//! (pkg/apis/core/validation): ValidateContainerResourceRequirements (validateResourceRequirements
//! with ValidateContainerResourceName, ValidateResourceQuantityValue and the hugepage rules) of
//! every regular, init and ephemeral container and of `spec.overhead`, validateResizePolicy and
//! the init containers' resize rules, after the v1 defaulting of a Pod (SetDefaults_Pod: a
//! container's requests default to its limits; a template is not defaulted so) and the create
//! strategy's drop of `resizePolicy` with the InPlacePodVerticalScaling gate off
//! (dropDisabledFields). `resources.claims` and `spec.resourceClaims` are pod_claims' checks;
//! pod-level `spec.resources` with the PodLevelResources gate on is pod_level's, and with the
//! gate off a create drops it, which is said here.

use super::Ctx;
use super::meta;
use super::pod_claims::{self, Claims};
use crate::api::{Container, PodSpec};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::quantity::Quantity;
use crate::versions::Change;
use serde_json::{Map, Value};

const GATE_RESIZE: &str = "InPlacePodVerticalScaling";
/// sets.List order (sorted).
const RESIZE_RESOURCES: [&str; 2] = ["cpu", "memory"];
const RESIZE_POLICIES: [&str; 2] = ["NotRequired", "RestartContainer"];
const HUGEPAGES: &str = "hugepages-";
/// ResourceDefaultNamespacePrefix: a name containing it is a native resource.
const NATIVE_PREFIX: &str = "kubernetes.io/";

/// helper.standardResources (a name without a `/` must be one, or a hugepage quota name).
const STANDARD_RESOURCES: [&str; 20] = [
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
];
/// helper.integerResources.
const INTEGER_RESOURCES: [&str; 9] = [
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
];

pub(super) fn is_hugepages(name: &str) -> bool {
    name.starts_with(HUGEPAGES)
}

pub(super) fn is_native(name: &str) -> bool {
    !name.contains('/') || name.contains(NATIVE_PREFIX)
}

pub(super) fn is_extended(name: &str, minor: u32) -> bool {
    !is_native(name)
        && !name.starts_with("requests.")
        && meta::qualified_name(&format!("requests.{name}"), minor).is_empty()
}

pub(super) fn overcommit_allowed(name: &str) -> bool {
    is_native(name) && !is_hugepages(name)
}

/// A core.ResourceName as a field error's bad value: JSON from 1.34; before, its String()
/// (unquoted).
pub(super) fn resource_name_error(d: Diagnostic, name: &str, minor: u32) -> Diagnostic {
    if Change::FieldErrorJsonValues.at(minor) {
        d
    } else {
        d.with_printed_value(name)
    }
}

/// validateResourceName: a qualified name, and without a `/` a standard resource.
pub(super) fn resource_name(name: &str, p: &FieldPath, minor: u32, out: &mut Findings) {
    let invalid = |msg: &str| resource_name_error(Diagnostic::invalid(p, name, msg), name, minor);
    let qualified = meta::qualified_name(name, minor);
    if !qualified.is_empty() {
        for m in qualified {
            out.push(invalid(&m));
        }
    } else if !name.contains('/')
        && !STANDARD_RESOURCES.contains(&name)
        && !is_hugepages(name)
        && !name.starts_with("requests.hugepages-")
    {
        out.push(invalid(
            "must be a standard resource type or fully qualified",
        ));
    }
}

/// validateResourceName then ValidateContainerResourceName's own rules.
pub(super) fn container_resource_name(name: &str, p: &FieldPath, minor: u32, out: &mut Findings) {
    let invalid = |msg: &str| resource_name_error(Diagnostic::invalid(p, name, msg), name, minor);
    resource_name(name, p, minor, out);
    let plain = !name.contains('/');
    if plain {
        if !matches!(name, "cpu" | "memory" | "ephemeral-storage") && !is_hugepages(name) {
            out.push(invalid("must be a standard resource for containers"));
        }
    } else if !is_native(name) && !is_extended(name, minor) {
        out.push(invalid("doesn't follow extended resource name standard"));
    }
}

/// ValidateResourceQuantityValue: not negative; whole for the integer resources.
pub(super) fn quantity_value(
    name: &str,
    q: &Quantity,
    p: &FieldPath,
    minor: u32,
    out: &mut Findings,
) {
    if q.is_negative() {
        out.push(Diagnostic::invalid(
            p,
            q.canonical(),
            "must be greater than or equal to 0",
        ));
    }
    if (INTEGER_RESOURCES.contains(&name) || is_extended(name, minor)) && q.milli_fraction() {
        // The bad value is the Quantity itself: JSON from 1.34, Go's %#v before.
        let printed = if Change::FieldErrorJsonValues.at(minor) {
            format!("{:?}", q.canonical())
        } else {
            q.go_debug()
        };
        out.push(Diagnostic::invalid_printed(
            p,
            Value::String(q.canonical()),
            &printed,
            "must be an integer",
        ));
    }
}

/// validateResourceQuantityHugePageValue on create (AllowIndivisibleHugePagesValues is false):
/// a whole multiple of the page size the name gives.
fn hugepage_value(name: &str, q: &Quantity, p: &FieldPath, out: &mut Findings) {
    let divisible = Quantity::parse(name.trim_start_matches(HUGEPAGES)).is_some_and(|page| {
        !page.is_negative()
            && !page.is_zero()
            && !page.milli_fraction()
            && q.value().checked_rem(page.value()) == Some(0)
    });
    if !divisible {
        let s = q.canonical();
        out.push(Diagnostic::invalid(
            p,
            s.clone(),
            format!("{s} is not positive integer multiple of {name}"),
        ));
    }
}

/// A resource list: the names with their quantities (a value no quantity decodes from was the
/// decoder's refusal already; JSON null decodes to zero).
pub(super) fn resource_list(v: Option<&Value>) -> Option<Vec<(&str, Quantity)>> {
    let m = v?.as_object()?;
    Some(
        m.iter()
            .filter_map(|(k, v)| {
                let q = if v.is_null() {
                    Quantity::parse("0")
                } else {
                    Quantity::from_json(v)
                };
                q.map(|q| (k.as_str(), q))
            })
            .collect(),
    )
}

/// validateResourceRequirements with ValidateContainerResourceName, but `claims` (checked by
/// pod_claims). `limits` and `requests` as decoded and defaulted.
pub(super) fn requirements(
    limits: &[(&str, Quantity)],
    requests: &[(&str, Quantity)],
    p: &FieldPath,
    minor: u32,
    out: &mut Findings,
) {
    requirements_with(limits, requests, p, minor, container_resource_name, out);
}

/// validateResourceRequirements with `name_check` for the resource names (the containers' or
/// the Pod's own), but `claims`.
pub(super) fn requirements_with(
    limits: &[(&str, Quantity)],
    requests: &[(&str, Quantity)],
    p: &FieldPath,
    minor: u32,
    name_check: fn(&str, &FieldPath, u32, &mut Findings),
    out: &mut Findings,
) {
    let lim_path = p.child("limits");
    let req_path = p.child("requests");
    let mut cpu_or_memory = false;
    let mut hugepages = false;
    for (name, q) in limits {
        let kp = lim_path.key(name);
        name_check(name, &kp, minor, out);
        quantity_value(name, q, &kp, minor, out);
        if is_hugepages(name) {
            hugepages = true;
            hugepage_value(name, q, &kp, out);
        }
        cpu_or_memory |= matches!(*name, "cpu" | "memory");
    }
    for (name, q) in requests {
        let kp = req_path.key(name);
        name_check(name, &kp, minor, out);
        quantity_value(name, q, &kp, minor, out);
        match limits.iter().find(|(n, _)| n == name) {
            Some((_, limit)) => {
                let ord = q.cmp_value(limit);
                if ord.is_ne() && !overcommit_allowed(name) {
                    out.push(Diagnostic::invalid(
                        &req_path,
                        q.canonical(),
                        format!("must be equal to {name} limit of {}", limit.canonical()),
                    ));
                } else if ord.is_gt() {
                    out.push(Diagnostic::invalid(
                        &req_path,
                        q.canonical(),
                        format!(
                            "must be less than or equal to {name} limit of {}",
                            limit.canonical()
                        ),
                    ));
                }
            }
            None if !overcommit_allowed(name) => out.push(Diagnostic::required(
                &lim_path,
                "Limit must be set for non overcommitable resources",
            )),
            None => {}
        }
        if is_hugepages(name) {
            hugepages = true;
            hugepage_value(name, q, &kp, out);
        }
        cpu_or_memory |= matches!(*name, "cpu" | "memory");
    }
    if hugepages && !cpu_or_memory {
        out.push(Diagnostic::forbidden(p, "HugePages require cpu or memory"));
    }
}

/// Which list a container is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    Regular,
    Init { sidecar: bool },
    Ephemeral,
}

/// What the checks of one container need to know of the Pod.
pub struct Env<'a> {
    minor: u32,
    /// SetDefaults_Pod ran (a Pod, not a template, and defaulting not skipped).
    pub(super) default_requests: bool,
    /// The create drops resizePolicy (InPlacePodVerticalScaling off, and the strategy's drops
    /// not skipped with the defaulting, as pod.rs's drop_disabled).
    drop_resize: bool,
    restart_policy: &'a str,
    /// The Pod's resource claims, as the containers' `resources.claims` may name them.
    pub(super) claims: Claims,
}

impl<'a> Env<'a> {
    pub fn new(spec: &'a PodSpec, is_pod: bool, ctx: &Ctx) -> Self {
        Env {
            minor: ctx.gates.version.minor,
            default_requests: is_pod && !ctx.skip_defaulting,
            drop_resize: !ctx.gates.enabled(GATE_RESIZE) && !ctx.skip_defaulting,
            restart_policy: spec.restart_policy.as_deref().unwrap_or(""),
            claims: Claims::new(spec, ctx),
        }
    }
}

/// A container's `resources` and `resizePolicy` (validateContainerCommon's calls, and
/// validateInitContainers' and validateEphemeralContainers' own rules for them).
pub fn container(c: &Container, p: &FieldPath, list: List, env: &Env, out: &mut Findings) {
    let resources = c.other.get("resources").filter(|v| !v.is_null());
    let empty = Map::new();
    let res = resources.and_then(Value::as_object).unwrap_or(&empty);
    let limits = resource_list(res.get("limits"));
    let mut requests = resource_list(res.get("requests"));
    if env.default_requests && list != List::Ephemeral {
        // SetDefaults_Pod: requests default to the limits, name by name.
        if let Some(l) = &limits {
            let r = requests.get_or_insert_with(Vec::new);
            for (name, q) in l {
                if !r.iter().any(|(n, _)| n == name) {
                    r.push((name, q.clone()));
                }
            }
        }
    }
    let rp = p.child("resources");
    requirements(
        limits.as_deref().unwrap_or(&[]),
        requests.as_deref().unwrap_or(&[]),
        &rp,
        env.minor,
        out,
    );
    pod_claims::requirement_claims(res.get("claims"), &rp, true, &env.claims, out);
    if list == List::Ephemeral {
        // validateFieldAllowList: a non-zero ResourceRequirements (an empty list given counts;
        // claims the create dropped do not).
        let set = ["limits", "requests", "claims"]
            .iter()
            .filter(|k| **k != "claims" || !env.claims.dropped)
            .any(|k| res.get(*k).is_some_and(|v| !v.is_null()));
        if set {
            out.push(Diagnostic::forbidden(
                &rp,
                "cannot be set for an Ephemeral Container",
            ));
        }
    }

    let Some(policy) = c.other.get("resizePolicy").filter(|v| !v.is_null()) else {
        return;
    };
    let pp = p.child("resizePolicy");
    if env.drop_resize {
        out.push(Diagnostic::lint(
            "field-dropped",
            &pp,
            format!(
                "{pp}: dropped on create: the {GATE_RESIZE} feature gate is off, so the API server clears this field"
            ),
        ));
        return;
    }
    let entries: Vec<(&str, &str)> = policy
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    let s = |k| e.get(k).and_then(Value::as_str).unwrap_or("");
                    (s("resourceName"), s("restartPolicy"))
                })
                .collect()
        })
        .unwrap_or_default();
    resize_policy(&entries, &pp, env, out);
    if list == List::Ephemeral {
        out.push(Diagnostic::forbidden(
            &pp,
            "cannot be set for an Ephemeral Container",
        ));
    }
    if let List::Init { sidecar } = list {
        if !Change::SidecarResizePolicy.at(env.minor) && !entries.is_empty() {
            out.push(Diagnostic::invalid_printed(
                &pp,
                policy.clone(),
                &go_policy_list(&entries),
                "must not be set for init containers",
            ));
        }
        if !sidecar && Change::InitResizeNoRestartContainer.at(env.minor) {
            for (j, (_, restart)) in entries.iter().enumerate() {
                if *restart == "RestartContainer" {
                    out.push(Diagnostic::invalid(
                        &pp.index(j).child("restartPolicy"),
                        *restart,
                        "must not be set to 'RestartContainer' for non-sidecar initContainers",
                    ));
                }
            }
        }
    }
}

/// Go's `%#v` of a []core.ContainerResizePolicy (the bad value of 1.31's init-container rule).
fn go_policy_list(entries: &[(&str, &str)]) -> String {
    let items: Vec<String> = entries
        .iter()
        .map(|(r, p)| {
            format!("core.ContainerResizePolicy{{ResourceName:{r:?}, RestartPolicy:{p:?}}}")
        })
        .collect();
    format!("[]core.ContainerResizePolicy{{{}}}", items.join(", "))
}

/// validateResizePolicy.
fn resize_policy(entries: &[(&str, &str)], pp: &FieldPath, env: &Env, out: &mut Findings) {
    let mut seen: Vec<&str> = Vec::new();
    let never = if Change::ResizeNeverPodWording.at(env.minor) {
        "must be 'NotRequired' when pod `restartPolicy` is 'Never'"
    } else {
        "must be 'NotRequired' when `restartPolicy` is 'Never'"
    };
    for (i, (resource, restart)) in entries.iter().enumerate() {
        if seen.contains(resource) {
            let d = Diagnostic::duplicate(&pp.index(i), *resource);
            out.push(resource_name_error(d, resource, env.minor));
        }
        seen.push(resource);
        match *resource {
            "cpu" | "memory" => {}
            "" => out.push(Diagnostic::required(pp, "")),
            other => {
                let d = Diagnostic::not_supported(pp, other, &RESIZE_RESOURCES);
                out.push(resource_name_error(d, other, env.minor));
            }
        }
        match *restart {
            "NotRequired" | "RestartContainer" => {}
            "" => out.push(Diagnostic::required(pp, "")),
            other => out.push(Diagnostic::not_supported(pp, other, &RESIZE_POLICIES)),
        }
        if env.restart_policy == "Never" && *restart != "NotRequired" {
            out.push(Diagnostic::invalid(pp, *restart, never));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::features::{FeatureGates, KubeVersion};
    use serde_json::json;

    fn ctx(minor: u32, gates: &[(&str, bool)]) -> Ctx {
        let mut g = FeatureGates::for_version(KubeVersion { minor });
        for (name, on) in gates {
            g.set(name, *on);
        }
        Ctx {
            gates: g,
            skip_defaulting: false,
            future_rules: false,
            always_pod: false,
            field_validation: Default::default(),
        }
    }

    fn run(spec: Value, is_pod: bool, c: &Ctx) -> Vec<String> {
        let spec: PodSpec = serde_json::from_value(spec).unwrap();
        let env = Env::new(&spec, is_pod, c);
        let mut out = Findings::default();
        let p = FieldPath::new("spec");
        for (i, ctr) in spec.containers.iter().enumerate() {
            container(
                ctr,
                &p.child("containers").index(i),
                List::Regular,
                &env,
                &mut out,
            );
        }
        for (i, ctr) in spec.init_containers.iter().enumerate() {
            let sidecar = ctr.restart_policy.as_deref() == Some("Always");
            container(
                ctr,
                &p.child("initContainers").index(i),
                List::Init { sidecar },
                &env,
                &mut out,
            );
        }
        let mut m: Vec<String> = out
            .errors
            .iter()
            .chain(&out.warnings)
            .map(|d| d.message.clone())
            .collect();
        m.sort();
        m
    }

    fn with_resources(r: Value) -> Value {
        json!({"restartPolicy": "Always", "containers": [{"name": "a", "image": "x", "resources": r}]})
    }

    #[test]
    fn requests_above_limits() {
        let c = ctx(37, &[]);
        let got = run(
            with_resources(json!({"limits": {"cpu": "500m"}, "requests": {"cpu": "0.6"}})),
            true,
            &c,
        );
        assert_eq!(
            got,
            vec![
                "spec.containers[0].resources.requests: Invalid value: \"600m\": must be less than or equal to cpu limit of 500m"
            ]
        );
        assert!(
            run(
                with_resources(json!({"limits": {"cpu": "1"}, "requests": {"cpu": "1000m"}})),
                true,
                &c
            )
            .is_empty()
        );
    }

    #[test]
    fn gpu_is_no_resource_name() {
        let got = run(
            with_resources(json!({"limits": {"gpu": 1}})),
            false,
            &ctx(37, &[]),
        );
        assert_eq!(
            got,
            vec![
                "spec.containers[0].resources.limits[gpu]: Invalid value: \"gpu\": must be a standard resource for containers",
                "spec.containers[0].resources.limits[gpu]: Invalid value: \"gpu\": must be a standard resource type or fully qualified",
            ]
        );
    }

    #[test]
    fn extended_resources() {
        let c = ctx(37, &[]);
        // A Pod's requests default to its limits; a template's do not, and then the limit is
        // still there so only the unequal request is refused.
        assert!(
            run(
                with_resources(json!({"limits": {"nvidia.com/gpu": 1}})),
                true,
                &c
            )
            .is_empty()
        );
        let got = run(
            with_resources(
                json!({"limits": {"nvidia.com/gpu": 2}, "requests": {"nvidia.com/gpu": 1}}),
            ),
            true,
            &c,
        );
        assert_eq!(
            got,
            vec![
                "spec.containers[0].resources.requests: Invalid value: \"1\": must be equal to nvidia.com/gpu limit of 2"
            ]
        );
        let got = run(
            with_resources(json!({"requests": {"nvidia.com/gpu": 1}})),
            false,
            &c,
        );
        assert_eq!(
            got,
            vec![
                "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"
            ]
        );
        let got = run(
            with_resources(json!({"limits": {"example.com/foo": "1.5"}})),
            false,
            &c,
        );
        assert_eq!(
            got,
            vec![
                "spec.containers[0].resources.limits[example.com/foo]: Invalid value: \"1500m\": must be an integer"
            ]
        );
        let got = run(
            with_resources(json!({"limits": {"example.com/foo": "1.5"}})),
            false,
            &ctx(31, &[]),
        );
        assert_eq!(
            got,
            vec![
                "spec.containers[0].resources.limits[example.com/foo]: Invalid value: resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an integer"
            ]
        );
    }

    #[test]
    fn hugepages_need_cpu_or_memory() {
        let c = ctx(37, &[]);
        let got = run(
            with_resources(json!({"limits": {"hugepages-2Mi": "4Mi"}})),
            true,
            &c,
        );
        assert_eq!(
            got,
            vec!["spec.containers[0].resources: Forbidden: HugePages require cpu or memory"]
        );
        assert!(
            run(
                with_resources(json!({"limits": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}})),
                true,
                &c
            )
            .is_empty()
        );
        let got = run(
            with_resources(json!({"limits": {"hugepages-2Mi": "3Mi", "memory": "1Gi"}})),
            false,
            &c,
        );
        assert_eq!(
            got,
            vec![
                "spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi"
            ]
        );
    }

    #[test]
    fn negative_quantities() {
        let got = run(
            with_resources(json!({"requests": {"memory": "-1Gi"}})),
            false,
            &ctx(37, &[]),
        );
        assert_eq!(
            got,
            vec![
                "spec.containers[0].resources.requests[memory]: Invalid value: \"-1Gi\": must be greater than or equal to 0"
            ]
        );
    }

    #[test]
    fn resize_policy_rules() {
        let spec = |rp: &str, pol: Value| json!({"restartPolicy": rp, "containers": [{"name": "a", "image": "x", "resizePolicy": pol}]});
        let pol = json!([{"resourceName": "cpu", "restartPolicy": "RestartContainer"}, {"resourceName": "cpu", "restartPolicy": "NotRequired"}, {"resourceName": "gpu", "restartPolicy": "Sometimes"}]);
        let got = run(
            spec("Never", pol.clone()),
            true,
            &ctx(37, &[(GATE_RESIZE, true)]),
        );
        assert_eq!(
            got,
            vec![
                "spec.containers[0].resizePolicy: Invalid value: \"RestartContainer\": must be 'NotRequired' when pod `restartPolicy` is 'Never'",
                "spec.containers[0].resizePolicy: Invalid value: \"Sometimes\": must be 'NotRequired' when pod `restartPolicy` is 'Never'",
                "spec.containers[0].resizePolicy: Unsupported value: \"Sometimes\": supported values: \"NotRequired\", \"RestartContainer\"",
                "spec.containers[0].resizePolicy: Unsupported value: \"gpu\": supported values: \"cpu\", \"memory\"",
                "spec.containers[0].resizePolicy[1]: Duplicate value: \"cpu\"",
            ]
        );
        let got = run(
            spec("Never", pol.clone()),
            true,
            &ctx(35, &[(GATE_RESIZE, true)]),
        );
        assert!(
            got.iter()
                .any(|m| m.ends_with("must be 'NotRequired' when `restartPolicy` is 'Never'"))
        );
        // Before 1.34 a resource name is printed by its String(), unquoted.
        let got = run(
            spec("Always", pol.clone()),
            true,
            &ctx(31, &[(GATE_RESIZE, true)]),
        );
        assert!(
            got.contains(&"spec.containers[0].resizePolicy[1]: Duplicate value: cpu".to_owned()),
            "{got:?}"
        );
        // Gate off: dropped, with a warning.
        let got = run(spec("Never", pol), true, &ctx(31, &[(GATE_RESIZE, false)]));
        assert_eq!(got.len(), 1);
        assert!(got[0].contains("dropped on create"));
    }

    #[test]
    fn init_container_resize_policy() {
        let spec = json!({"restartPolicy": "Always", "containers": [{"name": "a", "image": "x"}],
            "initContainers": [{"name": "i", "image": "x", "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "RestartContainer"}]}]});
        let got = run(spec.clone(), true, &ctx(31, &[(GATE_RESIZE, true)]));
        assert_eq!(
            got,
            vec![
                "spec.initContainers[0].resizePolicy: Invalid value: []core.ContainerResizePolicy{core.ContainerResizePolicy{ResourceName:\"cpu\", RestartPolicy:\"RestartContainer\"}}: must not be set for init containers"
            ]
        );
        assert!(run(spec.clone(), true, &ctx(35, &[(GATE_RESIZE, true)])).is_empty());
        let got = run(spec, true, &ctx(37, &[(GATE_RESIZE, true)]));
        assert_eq!(
            got,
            vec![
                "spec.initContainers[0].resizePolicy[0].restartPolicy: Invalid value: \"RestartContainer\": must not be set to 'RestartContainer' for non-sidecar initContainers"
            ]
        );
    }
}
