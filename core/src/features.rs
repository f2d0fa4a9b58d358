//! Kubernetes versions and feature gates.
//!
//! What each supported minor's components know comes from that minor's own release, generated
//! into `crate::generated::k8s_gates` (tools/gen_k8s_versions.py): every gate kube-apiserver,
//! kube-controller-manager and the kubelet register, with its default, lock, stage and
//! dependencies. A request's overrides are judged as those components judge their
//! `--feature-gates` (component-base's `featureGate.SetFromMap`): a gate the minor does not know,
//! a locked gate set against its lock, or a gate on whose dependencies are off is refused with the
//! components' own message. JobSet's and OpenKruise's gates belong to their controllers, whose
//! releases do not follow the Kubernetes minor; they are listed by hand from their
//! `pkg/features` files.

use crate::diag::{Diagnostic, Severity};
use crate::generated::gate_types::{self, Gate, Minor};
use crate::generated::k8s_gates::{MINORS, NAMES};
use std::collections::BTreeMap;

/// The Kubernetes minor versions restartkit models, oldest first.
pub const SUPPORTED_MINORS: [u32; 7] = [31, 32, 33, 34, 35, 36, 37];
pub const OLDEST_MINOR: u32 = 31;
pub const NEWEST_MINOR: u32 = 37;

/// A Kubernetes `1.<minor>` release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    pub minor: u32,
}

impl Default for KubeVersion {
    fn default() -> Self {
        KubeVersion {
            minor: NEWEST_MINOR,
        }
    }
}

fn supported_list() -> String {
    format!("1.{OLDEST_MINOR} to 1.{NEWEST_MINOR}")
}

impl KubeVersion {
    /// Accepts a minor (`1.35`, `v1.35`) or a full version naming one (`1.35.2`, `v1.36.3` as
    /// `kubectl version` prints it, `v1.35.0-rc.1`).
    pub fn parse(s: &str) -> Result<Self, Diagnostic> {
        let t = s.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let core = t.split(['-', '+']).next().unwrap_or("");
        let parts: Vec<&str> = core.split('.').collect();
        let number = |p: &str| {
            (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.parse::<u32>().ok())
                .flatten()
        };
        let parsed = match parts.as_slice() {
            [major, minor] => number(major).zip(number(minor)),
            [major, minor, patch] if number(patch).is_some() => number(major).zip(number(minor)),
            _ => None,
        };
        match parsed {
            Some((1, m)) if SUPPORTED_MINORS.contains(&m) => Ok(KubeVersion { minor: m }),
            Some((major, m)) => Err(Diagnostic::request(
                "unsupported-version",
                "kubernetesVersion",
                format!(
                    "Kubernetes {major}.{m} is not modelled; supported versions: {} (a minor such as \"1.{NEWEST_MINOR}\", or a full version such as \"v1.{NEWEST_MINOR}.2\")",
                    supported_list()
                ),
            )),
            None => Err(Diagnostic::request(
                "invalid-version",
                "kubernetesVersion",
                format!(
                    "kubernetesVersion {s:?} is not a Kubernetes version: write a minor such as \"1.{NEWEST_MINOR}\" or a full version such as \"v1.{NEWEST_MINOR}.2\"; supported versions: {}",
                    supported_list()
                ),
            )),
        }
    }

    pub fn as_string(&self) -> String {
        format!("1.{}", self.minor)
    }

    /// The k8s.io/kubernetes release this minor's tables come from (e.g. `v1.37.2`).
    pub fn release(&self) -> &'static str {
        minor_table(self.minor).map_or("", |m| m.release)
    }
}

/// A gate's stage in one minor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Alpha,
    Beta,
    Ga,
    Deprecated,
    /// Gone from the minor's components, which refuse the name; its code behaves as the gate's
    /// last default (on, for the GA gates upstream removes).
    Removed,
}

impl From<gate_types::Stage> for Stage {
    fn from(s: gate_types::Stage) -> Self {
        match s {
            gate_types::Stage::Alpha => Stage::Alpha,
            gate_types::Stage::Beta => Stage::Beta,
            gate_types::Stage::Ga => Stage::Ga,
            gate_types::Stage::Deprecated => Stage::Deprecated,
        }
    }
}

/// A gate whose value changes one of restartkit's answers.
pub struct GateSpec {
    pub name: &'static str,
    pub component: &'static str,
    pub summary: &'static str,
}

/// Every gate that changes a restart or failure answer. The Kubernetes ones' defaults and stages
/// per minor come from the generated tables; `CONTROLLER_GATES` gives the others'.
pub const GATES: &[GateSpec] = &[
    GateSpec {
        name: "ContainerRestartRules",
        component: "kube-apiserver, kubelet",
        summary: "KEP-5307: container restartPolicy and restartPolicyRules on regular and init containers",
    },
    GateSpec {
        name: "RestartAllContainersOnContainerExits",
        component: "kube-apiserver, kubelet",
        summary: "KEP-5532: the RestartAllContainers rule action (in-place restart of the whole pod)",
    },
    GateSpec {
        name: "KubeletCrashLoopBackOffMax",
        component: "kubelet",
        summary: "KEP-4603: per-node crashLoopBackOff.maxContainerRestartPeriod",
    },
    GateSpec {
        name: "ReduceDefaultCrashLoopBackOffDecay",
        component: "kubelet",
        summary: "KEP-4603: CrashLoopBackOff starts at 1s and caps at 60s",
    },
    GateSpec {
        name: "JobBackoffLimitPerIndex",
        component: "kube-apiserver, kube-controller-manager",
        summary: "KEP-3850: backoffLimitPerIndex, maxFailedIndexes and the FailIndex action",
    },
    GateSpec {
        name: "JobPodReplacementPolicy",
        component: "kube-apiserver, kube-controller-manager",
        summary: "KEP-3939: podReplacementPolicy",
    },
    GateSpec {
        name: "JobManagedBy",
        component: "kube-apiserver, kube-controller-manager",
        summary: "KEP-4368: spec.managedBy on Jobs",
    },
    GateSpec {
        name: "JobSuccessPolicy",
        component: "kube-apiserver, kube-controller-manager",
        summary: "KEP-3998: Job successPolicy",
    },
    GateSpec {
        name: "SidecarContainers",
        component: "kube-apiserver, kubelet",
        summary: "KEP-753: init containers with restartPolicy Always",
    },
    GateSpec {
        name: "RestartJob",
        component: "jobset-controller",
        summary: "JobSet: RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions",
    },
    GateSpec {
        name: "InPlaceRestart",
        component: "jobset-controller",
        summary: "JobSet: failurePolicy.restartStrategy InPlaceRestart",
    },
    GateSpec {
        name: "KruiseDaemon",
        component: "kruise-manager",
        summary: "OpenKruise: kruise-daemon, needed by ContainerRecreateRequest",
    },
];

/// Gates that change what `validate` says of an object (a field dropped, a check added or
/// relaxed) though no restart or failure answer: a request naming one gets no
/// `unknown-feature-gate` warning. core/tests/gates_read.rs holds the list to the gates the
/// sources read.
pub const VALIDATION_GATES: &[&str] = &[
    "AnyVolumeDataSource",
    "CRDValidationRatcheting",
    "CSIServiceAccountTokenSecrets",
    "ContainerStopSignals",
    "CoordinatedLeaderElection",
    "CrossNamespaceVolumeDataSource",
    "CustomResourceFieldSelectors",
    "DeclarativeValidationBeta",
    "DynamicResourceAllocation",
    "EnvFiles",
    "ExcludeAdmissionWebhookVirtualResources",
    "GRPCContainerProbeTLS",
    "H2CContainerProbe",
    "HPAConfigurableTolerance",
    "HPAGeneration",
    "HPAScaleToZero",
    "HostnameOverride",
    "ImageVolume",
    "InPlacePodVerticalScaling",
    "ManifestBasedAdmissionControlConfig",
    "MatchLabelKeysInPodAffinity",
    "MatchLabelKeysInPodTopologySpread",
    "MatchLabelKeysInPodTopologySpreadSelectorMerge",
    "MaxUnavailableStatefulSet",
    "MutableCSINodeAllocatableCount",
    "NodeInclusionPolicyInPodTopologySpread",
    "PodDeletionCost",
    "PodLevelResources",
    "PodLevelResourcesFixDefaulting",
    "PodLifecycleSleepAction",
    "PodLifecycleSleepActionAllowZero",
    "PreferSameTrafficDistribution",
    "ProcMountType",
    "RecursiveReadOnlyMounts",
    "RelaxedDNSSearchValidation",
    "RelaxedEnvironmentVariableValidation",
    "RelaxedServiceNameValidation",
    "SELinuxMount",
    "ServiceTrafficDistribution",
    "StatefulSetAutoDeletePVC",
    "StatefulSetRecreateStrategy",
    "StatefulSetStartOrdinal",
    "StrictIPCIDRValidation",
    "TaintTolerationComparisonOperators",
    "UserNamespacesHostNetworkSupport",
    "UserNamespacesSupport",
    "VolumeAttributesClass",
];

/// The gates of controllers whose releases do not follow the Kubernetes minor: (name, stage,
/// default), the same at every minor. sigs.k8s.io/jobset v0.12.0 pkg/features/features.go;
/// OpenKruise pkg/features/kruise_features.go.
pub const CONTROLLER_GATES: &[(&str, Stage, bool)] = &[
    ("InPlaceRestart", Stage::Alpha, false),
    ("KruiseDaemon", Stage::Beta, true),
    ("RestartJob", Stage::Alpha, false),
];

fn minor_table(minor: u32) -> Option<&'static Minor> {
    MINORS.iter().find(|m| m.minor == minor)
}

fn name_index(name: &str) -> Option<u16> {
    NAMES
        .binary_search(&name)
        .ok()
        .and_then(|i| u16::try_from(i).ok())
}

fn gate_name(i: u16) -> &'static str {
    NAMES.get(usize::from(i)).copied().unwrap_or("")
}

/// A Kubernetes gate as the minor's components register it.
fn k8s_gate(name: &str, minor: u32) -> Option<&'static Gate> {
    let i = name_index(name)?;
    let gates = minor_table(minor)?.gates;
    gates
        .binary_search_by(|g| gate_name(g.name).cmp(name))
        .ok()
        .and_then(|k| gates.get(k))
        .filter(|g| g.name == i)
}

fn controller_gate(name: &str) -> Option<(Stage, bool)> {
    CONTROLLER_GATES
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, s, d)| (*s, *d))
}

/// Where a Kubernetes gate is, seen from one minor.
enum Presence {
    Known(&'static Gate),
    /// Known to older minors only: removed in this one (first minor without it, last default).
    Removed {
        in_minor: u32,
        last_default: bool,
    },
    /// Known to newer minors only (first minor with it).
    NotYet {
        from: u32,
    },
    /// No supported minor has it.
    Never,
}

fn presence(name: &str, minor: u32) -> Presence {
    if let Some(g) = k8s_gate(name, minor) {
        return Presence::Known(g);
    }
    let older = SUPPORTED_MINORS
        .iter()
        .rev()
        .filter(|m| **m < minor)
        .find_map(|m| k8s_gate(name, *m).map(|g| (*m, g.default)));
    if let Some((last, last_default)) = older {
        return Presence::Removed {
            in_minor: last + 1,
            last_default,
        };
    }
    match SUPPORTED_MINORS
        .iter()
        .find(|m| **m > minor && k8s_gate(name, **m).is_some())
    {
        Some(from) => Presence::NotYet { from: *from },
        None => Presence::Never,
    }
}

/// A gate's default in a minor: what its code does when nobody sets it. A removed gate behaves
/// as its last default; one the minor does not have yet is off (its code is not there).
fn default_at(name: &str, minor: u32) -> bool {
    if let Some((_, d)) = controller_gate(name) {
        return d;
    }
    match presence(name, minor) {
        Presence::Known(g) => g.default,
        Presence::Removed { last_default, .. } => last_default,
        Presence::NotYet { .. } | Presence::Never => false,
    }
}

/// The resolved gate set for one request: version defaults, then the request's overrides.
/// Modelled gates are a flag each, in `GATES` order (every request resolves a gate set, so it
/// allocates nothing for them); other gates a request sets are kept apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureGates {
    pub version: KubeVersion,
    known: [bool; GATES.len()],
    extra: BTreeMap<String, bool>,
}

impl Default for FeatureGates {
    fn default() -> Self {
        FeatureGates::for_version(KubeVersion::default())
    }
}

/// The message component-base gives for a gate it does not know.
fn unrecognized(name: &str) -> String {
    format!("unrecognized feature gate: {name}")
}

impl FeatureGates {
    pub fn for_version(version: KubeVersion) -> Self {
        let mut known = [false; GATES.len()];
        for (k, g) in known.iter_mut().zip(GATES) {
            *k = default_at(g.name, version.minor);
        }
        FeatureGates {
            version,
            known,
            extra: BTreeMap::new(),
        }
    }

    /// Resolves a request's `kubernetesVersion` and `featureGates` as the minor's components
    /// take their `--feature-gates` at start (component-base's `featureGate.SetFromMap`): a gate
    /// the minor does not know (not there yet, removed, or never) is a request error with their
    /// message (`unrecognized feature gate: X`), and so are a locked gate set against its lock
    /// (`cannot set feature gate X to false, feature is locked to true`) and, from 1.35, a gate
    /// left on whose dependencies are off (`X is enabled, but depends on features that are
    /// disabled: [Y]`): kube-apiserver, kube-controller-manager and the kubelet refuse to start
    /// so, and there is no cluster to answer for. Setting a GA or deprecated gate is a warning
    /// (the components log one), as is a gate that changes nothing restartkit models.
    pub fn resolve(
        version: Option<&str>,
        overrides: Option<&BTreeMap<String, bool>>,
    ) -> Result<(Self, Vec<Diagnostic>), Diagnostic> {
        let v = match version {
            Some(s) => KubeVersion::parse(s)?,
            None => KubeVersion::default(),
        };
        let mut gates = FeatureGates::for_version(v);
        let mut warnings = Vec::new();
        let Some(o) = overrides else {
            return Ok((gates, warnings));
        };
        let field = |k: &str| format!("featureGates[{k}]");
        let warn = |code: &str, k: &str, msg: String| {
            Diagnostic::request(code, &field(k), msg).with_severity(Severity::Warning)
        };
        for (k, on) in o {
            if controller_gate(k).is_some() {
                gates.set(k, *on);
                continue;
            }
            match presence(k, v.minor) {
                Presence::Known(g) => {
                    match Stage::from(g.stage) {
                        Stage::Ga => warnings.push(warn("feature-gate-note", k, format!("setting GA feature gate {k}={on}. It will be removed in a future release."))),
                        Stage::Deprecated => warnings.push(warn("feature-gate-note", k, format!("setting deprecated feature gate {k}={on}. It will be removed in a future release."))),
                        _ => {}
                    }
                    if !GATES.iter().any(|m| m.name == k)
                        && !VALIDATION_GATES.contains(&k.as_str())
                    {
                        warnings.push(warn(
                            "unknown-feature-gate",
                            k,
                            format!("feature gate {k:?} does not change any restart or failure behaviour restartkit models"),
                        ));
                    }
                    gates.set(k, *on);
                }
                Presence::Removed {
                    in_minor,
                    last_default,
                } => {
                    let behaves = if last_default {
                        "always on"
                    } else {
                        "always off"
                    };
                    return Err(Diagnostic::request(
                        "removed-feature-gate",
                        &field(k),
                        format!(
                            "feature gate {k:?} was removed in Kubernetes 1.{in_minor} (it is {behaves} there); \
                             its components refuse to start with it (\"{}\"). \
                             Drop the override, or model an older version such as 1.{}",
                            unrecognized(k),
                            in_minor - 1
                        ),
                    ));
                }
                Presence::NotYet { from } => {
                    return Err(Diagnostic::request(
                        "unknown-feature-gate",
                        &field(k),
                        format!(
                            "Kubernetes 1.{} has no feature gate {k:?} (it first appears in 1.{from}); \
                             its components refuse to start with it (\"{}\"). Drop the override, or model 1.{from} or later",
                            v.minor,
                            unrecognized(k)
                        ),
                    ));
                }
                Presence::Never => {
                    return Err(Diagnostic::request(
                        "unknown-feature-gate",
                        &field(k),
                        format!(
                            "{}: no Kubernetes minor from {} has a feature gate {k:?} (nor JobSet or OpenKruise); \
                             the components refuse to start with it. Gates are case-sensitive (e.g. ContainerRestartRules)",
                            unrecognized(k),
                            supported_list()
                        ),
                    ));
                }
            }
        }
        // Every name is known here: what is left of SetFromMap is its locks and dependencies.
        let k8s: BTreeMap<String, bool> = o
            .iter()
            .filter(|(k, _)| controller_gate(k).is_none())
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        if let Some(r) = set_from_map_refusals(v.minor, &k8s).into_iter().next() {
            return Err(Diagnostic::request(
                r.code(),
                &field(&r.gate),
                format!(
                    "{} (Kubernetes 1.{}'s kube-apiserver, kube-controller-manager and kubelet refuse to start with these --feature-gates); {}",
                    r.message,
                    v.minor,
                    r.advice()
                ),
            ));
        }
        Ok((gates, warnings))
    }

    pub fn set(&mut self, name: &str, on: bool) {
        match GATES
            .iter()
            .position(|g| g.name == name)
            .and_then(|i| self.known.get_mut(i))
        {
            Some(k) => *k = on,
            None => {
                self.extra.insert(name.to_owned(), on);
            }
        }
    }

    pub fn enabled(&self, name: &str) -> bool {
        match GATES.iter().position(|g| g.name == name) {
            Some(i) => self.known.get(i).copied().unwrap_or(false),
            None => self
                .extra
                .get(name)
                .copied()
                .unwrap_or_else(|| default_at(name, self.version.minor)),
        }
    }

    /// Whether the behaviour behind a Kubernetes gate is on at this minor: the gate's value where
    /// the minor has the gate, the value its code was left with once the gate is removed, off
    /// before the gate exists. A check guarded by a gate asks this instead of comparing the
    /// minor with the gate's first release (the generated gate tables say which minors have it).
    pub fn active(&self, name: &str) -> bool {
        match presence(name, self.version.minor) {
            Presence::Known(_) => self.enabled(name),
            Presence::Removed { last_default, .. } => last_default,
            Presence::NotYet { .. } | Presence::Never => false,
        }
    }

    /// Every modelled gate, and every other gate the request set, with its value, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, bool)> {
        let mut all: Vec<(&str, bool)> = GATES
            .iter()
            .map(|g| g.name)
            .zip(self.known.iter().copied())
            .collect();
        all.extend(self.extra.iter().map(|(k, v)| (k.as_str(), *v)));
        all.sort_unstable_by(|a, b| a.0.cmp(b.0));
        all.into_iter()
    }
}

/// The minor version a gate was removed in, when it is removed at `minor`.
pub fn removed_in(name: &str, minor: u32) -> Option<u32> {
    match presence(name, minor) {
        Presence::Removed { in_minor, .. } => Some(in_minor),
        _ => None,
    }
}

/// Whether the components of `minor` know the gate (Kubernetes', JobSet's or OpenKruise's).
pub fn known_at(name: &str, minor: u32) -> bool {
    controller_gate(name).is_some() || k8s_gate(name, minor).is_some()
}

/// Stage and default of a gate at a minor version, or None where it does not exist yet. A
/// removed gate reports `Stage::Removed` with the value the code now behaves as.
pub fn stage_at(name: &str, minor: u32) -> Option<(Stage, bool)> {
    if let Some(c) = controller_gate(name) {
        return Some(c);
    }
    match presence(name, minor) {
        Presence::Known(g) => Some((g.stage.into(), g.default)),
        Presence::Removed { last_default, .. } => Some((Stage::Removed, last_default)),
        Presence::NotYet { .. } | Presence::Never => None,
    }
}

/// The gates `name` needs on at `minor` (its dependencies, transitively; from 1.35): a cluster
/// that runs with `name` on runs with these on too, or its components would not start.
pub fn dependencies_at(name: &str, minor: u32) -> Vec<&'static str> {
    let Some(m) = minor_table(minor) else {
        return Vec::new();
    };
    let mut out: Vec<&'static str> = Vec::new();
    let mut todo = vec![name_index(name)];
    while let Some(Some(g)) = todo.pop() {
        let Ok(k) = m.depends.binary_search_by_key(&g, |(n, _)| *n) else {
            continue;
        };
        for d in m.depends.get(k).map_or(&[][..], |(_, ds)| ds) {
            let dn = gate_name(*d);
            if !out.contains(&dn) {
                out.push(dn);
                todo.push(Some(*d));
            }
        }
    }
    out
}

/// Whether a gate is locked to its default at a minor.
pub fn locked_at(name: &str, minor: u32) -> bool {
    k8s_gate(name, minor).is_some_and(|g| g.locked)
}

/// One error component-base's `featureGate.SetFromMap` returns (k8s.io/component-base
/// featuregate/feature_gate.go, `unsafeSetFromMap`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateRefusal {
    /// The gate the error is about.
    pub gate: String,
    pub kind: RefusalKind,
    /// component-base's own text.
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefusalKind {
    Unrecognized,
    /// Set against its lock (to the value it is not locked to).
    Locked {
        locked_to: bool,
    },
    /// On, with these dependencies off (sorted, as AddDependencies sorts them).
    Dependencies(Vec<&'static str>),
}

impl GateRefusal {
    pub fn code(&self) -> &'static str {
        match self.kind {
            RefusalKind::Unrecognized => "unknown-feature-gate",
            RefusalKind::Locked { .. } => "locked-feature-gate",
            RefusalKind::Dependencies(_) => "feature-gate-dependency",
        }
    }

    fn advice(&self) -> String {
        match &self.kind {
            RefusalKind::Unrecognized => "drop the override".to_owned(),
            RefusalKind::Locked { locked_to } => format!(
                "drop the override: {} is always {} there",
                self.gate,
                if *locked_to { "on" } else { "off" }
            ),
            RefusalKind::Dependencies(off) => {
                format!("turn {} on too, or {} off", off.join(" and "), self.gate)
            }
        }
    }
}

/// What component-base's `SetFromMap` refuses of `set` (every gate a component was given, by
/// name; later settings already merged in) at Kubernetes 1.`minor`, as every kube component
/// registers the same gates (k8s.io/kubernetes pkg/features). Upstream walks a Go map, so where
/// several names are wrong the one it names first varies from run to run; restartkit takes them
/// by name. Its order: the first name the minor does not know is the only error; else every gate
/// set against its lock; else (from 1.35, the first minor with `AddDependencies`) every gate on
/// (set, or by default) with a dependency off. Empty when the components start.
pub fn set_from_map_refusals(minor: u32, set: &BTreeMap<String, bool>) -> Vec<GateRefusal> {
    let mut out = Vec::new();
    for (k, v) in set {
        match k8s_gate(k, minor) {
            None => {
                return vec![GateRefusal {
                    gate: k.clone(),
                    kind: RefusalKind::Unrecognized,
                    message: unrecognized(k),
                }];
            }
            Some(g) if g.locked && g.default != *v => out.push(GateRefusal {
                gate: k.clone(),
                kind: RefusalKind::Locked {
                    locked_to: g.default,
                },
                message: format!(
                    "cannot set feature gate {k} to {v}, feature is locked to {}",
                    g.default
                ),
            }),
            Some(_) => {}
        }
    }
    if !out.is_empty() {
        return out;
    }
    let Some(m) = minor_table(minor) else {
        return out;
    };
    let on = |name: &str| {
        set.get(name)
            .copied()
            .unwrap_or_else(|| k8s_gate(name, minor).is_some_and(|g| g.default))
    };
    let mut deps: Vec<(&'static str, Vec<&'static str>)> = m
        .depends
        .iter()
        .map(|(g, ds)| (gate_name(*g), ds.iter().map(|d| gate_name(*d)).collect()))
        .collect();
    deps.sort_unstable();
    for (name, ds) in deps {
        if !on(name) {
            continue;
        }
        let mut off: Vec<&'static str> = ds.into_iter().filter(|d| !on(d)).collect();
        off.sort_unstable();
        if !off.is_empty() {
            out.push(GateRefusal {
                gate: name.to_owned(),
                message: format!(
                    "{name} is enabled, but depends on features that are disabled: [{}]",
                    off.join(" ")
                ),
                kind: RefusalKind::Dependencies(off),
            });
        }
    }
    out
}

/// `utilerrors.NewAggregate(errs).Error()`: one error's text alone, several as `[a, b]` (each
/// text once).
pub fn go_aggregate(messages: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for m in messages {
        if !seen.contains(&m.as_str()) {
            seen.push(m);
        }
    }
    match seen.as_slice() {
        [one] => (*one).to_owned(),
        _ => format!("[{}]", seen.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use super::*;

    /// The checks that once compared the minor with a gate's first release ask `active` (or
    /// `known_at` where a field came with its gate); each row is the comparison it replaced, and
    /// both must agree at every supported minor with the gate set either way.
    #[test]
    fn active_agrees_with_the_minor_comparisons_it_replaced() {
        type Old = fn(u32, bool) -> bool;
        let rows: &[(&str, Old)] = &[
            ("HostnameOverride", |m, on| m >= 34 && on),
            ("UserNamespacesHostNetworkSupport", |m, on| m >= 35 && on),
            ("RelaxedDNSSearchValidation", |m, on| {
                m >= 37 || (m >= 32 && on)
            }),
            ("StrictIPCIDRValidation", |m, on| m >= 33 && on),
            ("PreferSameTrafficDistribution", |m, on| m >= 33 && on),
            ("MatchLabelKeysInPodTopologySpreadSelectorMerge", |m, on| {
                m >= 34 && on
            }),
            ("TaintTolerationComparisonOperators", |m, on| m >= 35 && on),
            ("StatefulSetAutoDeletePVC", |m, on| m >= 32 || on),
            ("StatefulSetRecreateStrategy", |m, on| m >= 37 && on),
            ("EnvFiles", |m, on| m >= 34 && on),
            ("PodLifecycleSleepActionAllowZero", |m, on| m >= 37 || on),
            ("PodLifecycleSleepAction", |m, on| m >= 37 || on),
            ("StatefulSetStartOrdinal", |m, on| m >= 35 || on),
        ];
        for &(gate, old) in rows {
            for m in SUPPORTED_MINORS {
                for on in [false, true] {
                    let mut g = FeatureGates::for_version(
                        KubeVersion::parse(&format!("1.{m}")).expect("a supported minor"),
                    );
                    if known_at(gate, m) && !locked_at(gate, m) {
                        g.set(gate, on);
                    } else if old(m, !on) != old(m, on) {
                        // The old comparison read a value the minor cannot be given.
                        continue;
                    }
                    assert_eq!(g.active(gate), old(m, on), "{gate} at 1.{m}, set {on}");
                }
            }
        }
        // Fields that came with their gate: the minor has the field when it knows the gate.
        for (gate, since) in [
            ("ContainerStopSignals", 33),
            ("H2CContainerProbe", 37),
            ("GRPCContainerProbeTLS", 37),
            ("EnvFiles", 34),
        ] {
            for m in SUPPORTED_MINORS {
                assert_eq!(known_at(gate, m), m >= since, "{gate} at 1.{m}");
            }
        }
    }

    fn resolve(
        v: &str,
        gates: &[(&str, bool)],
    ) -> Result<(FeatureGates, Vec<Diagnostic>), Diagnostic> {
        let o: BTreeMap<String, bool> = gates.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect();
        FeatureGates::resolve(Some(v), Some(&o))
    }

    fn error(v: &str, gates: &[(&str, bool)]) -> (String, String, String) {
        resolve(v, gates)
            .err()
            .map(|d| {
                (
                    d.code.clone().unwrap_or_default(),
                    d.field.to_string(),
                    d.message.clone(),
                )
            })
            .unwrap_or_default()
    }

    #[test]
    fn version_parsing() {
        assert_eq!(KubeVersion::parse("1.35").map(|v| v.minor).ok(), Some(35));
        assert_eq!(
            KubeVersion::parse("v1.34.2").map(|v| v.minor).ok(),
            Some(34)
        );
        assert_eq!(
            KubeVersion::parse("v1.36.3").map(|v| v.minor).ok(),
            Some(36)
        );
        assert_eq!(
            KubeVersion::parse("v1.35.0-rc.1").map(|v| v.minor).ok(),
            Some(35)
        );
        assert_eq!(KubeVersion::parse("1.31").map(|v| v.minor).ok(), Some(31));
        for (bad, code) in [
            ("1.30", "unsupported-version"),
            ("1.20", "unsupported-version"),
            ("2.0", "unsupported-version"),
            ("1.38", "unsupported-version"),
            ("1.3x", "invalid-version"),
            ("banana", "invalid-version"),
            ("1", "invalid-version"),
            ("1.35.x", "invalid-version"),
            ("1.35.2.1", "invalid-version"),
            ("", "invalid-version"),
        ] {
            let e = KubeVersion::parse(bad).err();
            assert_eq!(
                e.as_ref().and_then(|d| d.code.as_deref()),
                Some(code),
                "{bad}"
            );
            let msg = e.map(|d| d.message).unwrap_or_default();
            assert!(msg.contains("1.31 to 1.37"), "{bad}: {msg}");
        }
    }

    #[test]
    fn defaults_come_from_each_minor() {
        let at = |m: u32, g: &str| FeatureGates::for_version(KubeVersion { minor: m }).enabled(g);
        assert!(!at(34, "KubeletCrashLoopBackOffMax"));
        assert!(at(35, "KubeletCrashLoopBackOffMax"));
        assert!(!at(35, "ReduceDefaultCrashLoopBackOffDecay"));
        // Not in 1.33 at all: off, as the code path is not there.
        assert!(!at(33, "ContainerRestartRules"));
        assert!(!at(34, "ContainerRestartRules"));
        assert!(at(35, "ContainerRestartRules"));
        // JobManagedBy: alpha off in 1.31, beta on from 1.32.
        assert!(!at(31, "JobManagedBy"));
        assert!(at(32, "JobManagedBy"));
        // Removed in 1.37: behaves as on.
        assert!(at(37, "SidecarContainers"));
        assert!(at(31, "SidecarContainers"));
    }

    #[test]
    fn newest_is_1_37_and_the_default() {
        assert_eq!(NEWEST_MINOR, 37);
        assert_eq!(SUPPORTED_MINORS.last().copied(), Some(NEWEST_MINOR));
        assert_eq!(SUPPORTED_MINORS.first().copied(), Some(OLDEST_MINOR));
        assert_eq!(KubeVersion::default().minor, 37);
        assert_eq!(KubeVersion::default().release(), "v1.37.2");
        // One generated table per supported minor.
        let generated: Vec<u32> = MINORS.iter().map(|m| m.minor).collect();
        assert_eq!(generated, SUPPORTED_MINORS.to_vec());
    }

    /// kube_features.go v1.37.2: the gates restartkit models, as that release registers them.
    #[test]
    fn gates_in_1_37() {
        let g = FeatureGates::for_version(KubeVersion { minor: 37 });
        assert_eq!(
            stage_at("ContainerRestartRules", 37),
            Some((Stage::Beta, true))
        );
        assert_eq!(
            stage_at("RestartAllContainersOnContainerExits", 37),
            Some((Stage::Beta, true))
        );
        assert_eq!(
            stage_at("ReduceDefaultCrashLoopBackOffDecay", 37),
            Some((Stage::Alpha, false))
        );
        assert_eq!(stage_at("JobManagedBy", 37), Some((Stage::Ga, true)));
        assert!(locked_at("JobManagedBy", 37));
        for removed in [
            "JobBackoffLimitPerIndex",
            "JobPodReplacementPolicy",
            "JobSuccessPolicy",
            "SidecarContainers",
        ] {
            assert_eq!(
                stage_at(removed, 37),
                Some((Stage::Removed, true)),
                "{removed}"
            );
            assert_eq!(stage_at(removed, 36), Some((Stage::Ga, true)), "{removed}");
            assert_eq!(removed_in(removed, 37), Some(37));
            assert_eq!(removed_in(removed, 36), None);
            assert!(g.enabled(removed), "{removed} behaves as on once removed");
        }
        assert!(stage_at("ContainerRestartRules", 33).is_none());
    }

    #[test]
    fn a_gate_the_minor_does_not_know_is_refused_with_the_components_message() {
        let (code, field, msg) = error("1.33", &[("ContainerRestartRules", true)]);
        assert_eq!(code, "unknown-feature-gate");
        assert_eq!(field, "featureGates[ContainerRestartRules]");
        assert!(
            msg.contains("unrecognized feature gate: ContainerRestartRules"),
            "{msg}"
        );
        assert!(msg.contains("first appears in 1.34"), "{msg}");
        let (code, _, msg) = error("1.37", &[("SidecarContainers", true)]);
        assert_eq!(code, "removed-feature-gate");
        assert!(msg.contains("removed in Kubernetes 1.37"), "{msg}");
        assert!(
            msg.contains("unrecognized feature gate: SidecarContainers"),
            "{msg}"
        );
        let (code, _, msg) = error("1.35", &[("NoSuchGate", true)]);
        assert_eq!(code, "unknown-feature-gate");
        assert!(
            msg.starts_with("unrecognized feature gate: NoSuchGate"),
            "{msg}"
        );
        // The same override is honoured where the gate exists and is not locked.
        let (g, w) = resolve("1.34", &[("ContainerRestartRules", true)]).unwrap_or_default();
        assert!(g.enabled("ContainerRestartRules"));
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn locked_gates_and_unmet_dependencies_are_refused_with_the_components_message() {
        let (code, field, msg) = error("1.36", &[("JobSuccessPolicy", false)]);
        assert_eq!(code, "locked-feature-gate");
        assert_eq!(field, "featureGates[JobSuccessPolicy]");
        assert!(
            msg.starts_with(
                "cannot set feature gate JobSuccessPolicy to false, feature is locked to true"
            ),
            "{msg}"
        );
        // Not locked in 1.31 (beta): honoured.
        let (g, _) = resolve("1.31", &[("JobSuccessPolicy", false)]).unwrap_or_default();
        assert_eq!(g.version.minor, 31);
        assert!(!g.enabled("JobSuccessPolicy"));
        // Setting a locked gate to its value: the GA warning the components log.
        let (_, w) = resolve("1.37", &[("JobManagedBy", true)]).unwrap_or_default();
        assert!(
            w.iter().any(|d| d
                .message
                .contains("setting GA feature gate JobManagedBy=true")),
            "{w:?}"
        );
        // 1.35: RestartAllContainersOnContainerExits needs NodeDeclaredFeatures (alpha, off).
        let (code, field, msg) = error("1.35", &[("RestartAllContainersOnContainerExits", true)]);
        assert_eq!(code, "feature-gate-dependency");
        assert_eq!(field, "featureGates[RestartAllContainersOnContainerExits]");
        assert!(
            msg.starts_with("RestartAllContainersOnContainerExits is enabled, but depends on features that are disabled: [NodeDeclaredFeatures]"),
            "{msg}"
        );
        let (g, _) = resolve(
            "1.35",
            &[
                ("RestartAllContainersOnContainerExits", true),
                ("NodeDeclaredFeatures", true),
            ],
        )
        .unwrap_or_default();
        assert_eq!(g.version.minor, 35);
        assert!(g.enabled("RestartAllContainersOnContainerExits"));
        // 1.34 has no dependencies (component-base v0.34 has no AddDependencies).
        assert!(minor_table(34).is_some_and(|m| m.depends.is_empty()));
    }

    #[test]
    fn set_from_map_order_and_aggregate() {
        let m = |gates: &[(&str, bool)]| -> BTreeMap<String, bool> {
            gates.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
        };
        // An unknown name is the only error, even beside a locked one.
        let r = set_from_map_refusals(
            31,
            &m(&[
                ("KubeletCrashloopBackoffMax", true),
                ("PodDisruptionConditions", false),
            ]),
        );
        assert_eq!(
            r.iter().map(|x| x.message.as_str()).collect::<Vec<_>>(),
            vec!["unrecognized feature gate: KubeletCrashloopBackoffMax"]
        );
        // Locks first; dependencies only once every lock holds.
        let r = set_from_map_refusals(
            36,
            &m(&[
                ("JobManagedBy", false),
                ("JobSuccessPolicy", false),
                ("RestartAllContainersOnContainerExits", true),
                ("NodeDeclaredFeatures", false),
            ]),
        );
        let msgs: Vec<String> = r.iter().map(|x| x.message.clone()).collect();
        assert_eq!(
            go_aggregate(&msgs),
            "[cannot set feature gate JobManagedBy to false, feature is locked to true, cannot set feature gate JobSuccessPolicy to false, feature is locked to true]"
        );
        let r = set_from_map_refusals(37, &m(&[("ContainerRestartRules", false)]));
        assert!(r.iter().any(|x| x.gate == "RestartAllContainersOnContainerExits"
            && matches!(&x.kind, RefusalKind::Dependencies(d) if d.contains(&"ContainerRestartRules"))), "{r:?}");
        assert!(set_from_map_refusals(37, &m(&[])).is_empty());
        assert_eq!(go_aggregate(&["a".to_owned(), "a".to_owned()]), "a");
    }

    #[test]
    fn dependencies_are_listed_transitively() {
        assert_eq!(
            dependencies_at("RestartAllContainersOnContainerExits", 35),
            vec!["ContainerRestartRules", "NodeDeclaredFeatures"]
        );
        assert!(dependencies_at("RestartAllContainersOnContainerExits", 34).is_empty());
        assert!(dependencies_at("ContainerRestartRules", 37).is_empty());
    }

    #[test]
    fn controller_gates_are_known_at_every_minor() {
        for m in SUPPORTED_MINORS {
            assert!(known_at("RestartJob", m));
            let (g, _) = resolve(&format!("1.{m}"), &[("RestartJob", true)]).unwrap_or_default();
            assert!(g.enabled("RestartJob"));
        }
    }
}
