//! Kubernetes versions and feature gates.
//!
//! Defaults per minor version follow upstream's `pkg/features/kube_features.go` (versioned
//! feature specs); JobSet's and OpenKruise's own gates follow their `pkg/features` files. A
//! request may override any gate, even one upstream has locked, as upstream's unit tests do.

use crate::diag::Diagnostic;
use std::collections::BTreeMap;

/// The Kubernetes minor versions restartkit models.
pub const SUPPORTED_MINORS: [u32; 4] = [33, 34, 35, 36];
pub const NEWEST_MINOR: u32 = 36;

/// A Kubernetes `1.<minor>` release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    pub minor: u32,
}

impl Default for KubeVersion {
    fn default() -> Self {
        KubeVersion { minor: NEWEST_MINOR }
    }
}

impl KubeVersion {
    /// Accepts `1.35`, `v1.35`, `1.35.2`, `v1.35.0-rc.1`.
    pub fn parse(s: &str) -> Result<Self, Diagnostic> {
        let t = s.trim().trim_start_matches('v');
        let mut parts = t.split(['.', '-', '+']);
        let major = parts.next().and_then(|p| p.parse::<u32>().ok());
        let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
        match (major, minor) {
            (Some(1), Some(m)) if SUPPORTED_MINORS.contains(&m) => Ok(KubeVersion { minor: m }),
            (Some(1), Some(m)) => Err(Diagnostic::request(
                "unsupported-version",
                "kubernetesVersion",
                format!(
                    "Kubernetes 1.{m} is not modelled; supported versions: {}",
                    SUPPORTED_MINORS.iter().map(|m| format!("1.{m}")).collect::<Vec<_>>().join(", ")
                ),
            )),
            _ => Err(Diagnostic::request(
                "invalid-version",
                "kubernetesVersion",
                format!("kubernetesVersion {s:?} is not a Kubernetes version such as \"1.35\""),
            )),
        }
    }

    pub fn as_string(&self) -> String {
        format!("1.{}", self.minor)
    }
}

/// Stage of a gate from a given minor version on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Alpha,
    Beta,
    Ga,
    Deprecated,
}

/// One gate: from which minor it exists, and its (stage, default) from each minor on.
pub struct GateSpec {
    pub name: &'static str,
    pub component: &'static str,
    /// (first minor, stage, default) in ascending order; before the first entry the gate does not
    /// exist and reads as off.
    pub history: &'static [(u32, Stage, bool)],
    pub summary: &'static str,
}

/// Every gate that changes a restart or failure answer.
pub const GATES: &[GateSpec] = &[
    GateSpec {
        name: "ContainerRestartRules",
        component: "kube-apiserver, kubelet",
        history: &[(34, Stage::Alpha, false), (35, Stage::Beta, true)],
        summary: "KEP-5307: container restartPolicy and restartPolicyRules on regular and init containers",
    },
    GateSpec {
        name: "RestartAllContainersOnContainerExits",
        component: "kube-apiserver, kubelet",
        // Beta, default on, in 1.36: kubernetes/kubernetes PR #136681 (merged; KEP-5532 issue lists
        // "Beta - v1.36" done). The stored kube_features.go snapshot predates that merge.
        history: &[(35, Stage::Alpha, false), (36, Stage::Beta, true)],
        summary: "KEP-5532: the RestartAllContainers rule action (in-place restart of the whole pod)",
    },
    GateSpec {
        name: "KubeletCrashLoopBackOffMax",
        component: "kubelet",
        history: &[(32, Stage::Alpha, false), (35, Stage::Beta, true)],
        summary: "KEP-4603: per-node crashLoopBackOff.maxContainerRestartPeriod",
    },
    GateSpec {
        name: "ReduceDefaultCrashLoopBackOffDecay",
        component: "kubelet",
        history: &[(33, Stage::Alpha, false)],
        summary: "KEP-4603: CrashLoopBackOff starts at 1s and caps at 60s",
    },
    GateSpec {
        name: "JobBackoffLimitPerIndex",
        component: "kube-apiserver, kube-controller-manager",
        history: &[(28, Stage::Alpha, false), (29, Stage::Beta, true), (33, Stage::Ga, true)],
        summary: "KEP-3850: backoffLimitPerIndex, maxFailedIndexes and the FailIndex action",
    },
    GateSpec {
        name: "JobPodReplacementPolicy",
        component: "kube-apiserver, kube-controller-manager",
        history: &[(28, Stage::Alpha, false), (29, Stage::Beta, true), (34, Stage::Ga, true)],
        summary: "KEP-3939: podReplacementPolicy",
    },
    GateSpec {
        name: "JobManagedBy",
        component: "kube-apiserver, kube-controller-manager",
        history: &[(30, Stage::Alpha, false), (32, Stage::Beta, true), (35, Stage::Ga, true)],
        summary: "KEP-4368: spec.managedBy on Jobs",
    },
    GateSpec {
        name: "JobSuccessPolicy",
        component: "kube-apiserver, kube-controller-manager",
        history: &[(30, Stage::Alpha, false), (31, Stage::Beta, true), (33, Stage::Ga, true)],
        summary: "KEP-3998: Job successPolicy",
    },
    GateSpec {
        name: "SidecarContainers",
        component: "kube-apiserver, kubelet",
        history: &[(28, Stage::Alpha, false), (29, Stage::Beta, true), (33, Stage::Ga, true)],
        summary: "KEP-753: init containers with restartPolicy Always",
    },
    GateSpec {
        name: "RestartJob",
        component: "jobset-controller",
        history: &[(0, Stage::Alpha, false)],
        summary: "JobSet: RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions",
    },
    GateSpec {
        name: "InPlaceRestart",
        component: "jobset-controller",
        history: &[(0, Stage::Alpha, false)],
        summary: "JobSet: failurePolicy.restartStrategy InPlaceRestart",
    },
    GateSpec {
        name: "KruiseDaemon",
        component: "kruise-manager",
        history: &[(0, Stage::Beta, true)],
        summary: "OpenKruise: kruise-daemon, needed by ContainerRecreateRequest",
    },
];

/// The resolved gate set for one request: version defaults, then the request's overrides.
/// Modelled gates are a flag each, in `GATES` order (every request resolves a gate set, so it
/// allocates nothing for them); other names a request sets are kept apart.
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

impl FeatureGates {
    pub fn for_version(version: KubeVersion) -> Self {
        let mut known = [false; GATES.len()];
        for (k, g) in known.iter_mut().zip(GATES) {
            *k = default_at(g, version.minor);
        }
        FeatureGates { version, known, extra: BTreeMap::new() }
    }

    /// Resolves a request's `kubernetesVersion` and `featureGates`. Unknown gate names are kept
    /// (a gate restartkit does not model cannot change its answers) and reported as warnings.
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
        if let Some(o) = overrides {
            for (k, on) in o {
                if !GATES.iter().any(|g| g.name == k) {
                    warnings.push(
                        Diagnostic::request(
                            "unknown-feature-gate",
                            &format!("featureGates[{k}]"),
                            format!("feature gate {k:?} does not change any restart or failure behaviour restartkit models"),
                        )
                        .with_severity(crate::diag::Severity::Warning),
                    );
                }
                gates.set(k, *on);
            }
        }
        Ok((gates, warnings))
    }

    pub fn set(&mut self, name: &str, on: bool) {
        match GATES.iter().position(|g| g.name == name).and_then(|i| self.known.get_mut(i)) {
            Some(k) => *k = on,
            None => {
                self.extra.insert(name.to_owned(), on);
            }
        }
    }

    pub fn enabled(&self, name: &str) -> bool {
        match GATES.iter().position(|g| g.name == name) {
            Some(i) => self.known.get(i).copied().unwrap_or(false),
            None => self.extra.get(name).copied().unwrap_or(false),
        }
    }

    /// Every gate with its value, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, bool)> {
        let mut all: Vec<(&str, bool)> = GATES.iter().map(|g| g.name).zip(self.known.iter().copied()).collect();
        all.extend(self.extra.iter().map(|(k, v)| (k.as_str(), *v)));
        all.sort_unstable_by(|a, b| a.0.cmp(b.0));
        all.into_iter()
    }
}

fn default_at(g: &GateSpec, minor: u32) -> bool {
    g.history.iter().rev().find(|(from, _, _)| *from <= minor).map(|(_, _, on)| *on).unwrap_or(false)
}

/// Stage of a gate at a minor version, or None where it does not exist yet.
pub fn stage_at(name: &str, minor: u32) -> Option<(Stage, bool)> {
    let g = GATES.iter().find(|g| g.name == name)?;
    g.history.iter().rev().find(|(from, _, _)| *from <= minor).map(|(_, s, on)| (*s, *on))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_parsing() {
        assert_eq!(KubeVersion::parse("1.35").map(|v| v.minor).ok(), Some(35));
        assert_eq!(KubeVersion::parse("v1.34.2").map(|v| v.minor).ok(), Some(34));
        assert!(KubeVersion::parse("1.20").is_err());
        assert!(KubeVersion::parse("banana").is_err());
    }

    #[test]
    fn crash_loop_max_is_on_by_default_from_1_35() {
        assert!(!FeatureGates::for_version(KubeVersion { minor: 34 }).enabled("KubeletCrashLoopBackOffMax"));
        assert!(FeatureGates::for_version(KubeVersion { minor: 35 }).enabled("KubeletCrashLoopBackOffMax"));
        assert!(!FeatureGates::for_version(KubeVersion { minor: 35 }).enabled("ReduceDefaultCrashLoopBackOffDecay"));
        assert!(!FeatureGates::for_version(KubeVersion { minor: 33 }).enabled("ContainerRestartRules"));
        assert!(FeatureGates::for_version(KubeVersion { minor: 35 }).enabled("ContainerRestartRules"));
    }

    #[test]
    fn overrides_win_and_unknown_gates_warn() {
        let mut o = BTreeMap::new();
        o.insert("ContainerRestartRules".to_owned(), false);
        o.insert("NoSuchGate".to_owned(), true);
        let (g, w) = FeatureGates::resolve(Some("1.35"), Some(&o)).unwrap_or_default();
        assert!(!g.enabled("ContainerRestartRules"));
        assert_eq!(w.len(), 1);
    }
}
