//! Kubernetes versions and feature gates.
//!
//! Defaults per minor version follow upstream's `pkg/features/kube_features.go` (versioned
//! feature specs); JobSet's and OpenKruise's own gates follow their `pkg/features` files. A
//! request may override any gate, even one upstream has locked, as upstream's unit tests do --
//! except a gate upstream has removed from the version asked for: that component no longer knows
//! the name and refuses to start with it, so such an override is a request error.

use crate::diag::Diagnostic;
use std::collections::BTreeMap;

/// The Kubernetes minor versions restartkit models.
pub const SUPPORTED_MINORS: [u32; 5] = [33, 34, 35, 36, 37];
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
                    SUPPORTED_MINORS
                        .iter()
                        .map(|m| format!("1.{m}"))
                        .collect::<Vec<_>>()
                        .join(", ")
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
    /// Gone from kube_features.go: the code behaves as the gate's last default (always on for the
    /// GA gates upstream removes) and the components reject the name at start-up.
    Removed,
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
        // Beta, default on, in 1.36 (kube_features.go v1.36.3 and v1.37.2).
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
        // Removed in 1.37 (kube_features.go v1.37.2 has no entry); pod_failure_policy.go and
        // indexed_job_utils.go no longer check it.
        history: &[
            (28, Stage::Alpha, false),
            (29, Stage::Beta, true),
            (33, Stage::Ga, true),
            (37, Stage::Removed, true),
        ],
        summary: "KEP-3850: backoffLimitPerIndex, maxFailedIndexes and the FailIndex action",
    },
    GateSpec {
        name: "JobPodReplacementPolicy",
        component: "kube-apiserver, kube-controller-manager",
        // Removed in 1.37: batch/v1 defaults.go defaults podReplacementPolicy unconditionally.
        history: &[
            (28, Stage::Alpha, false),
            (29, Stage::Beta, true),
            (34, Stage::Ga, true),
            (37, Stage::Removed, true),
        ],
        summary: "KEP-3939: podReplacementPolicy",
    },
    GateSpec {
        name: "JobManagedBy",
        component: "kube-apiserver, kube-controller-manager",
        // GA and locked to on since 1.35; still listed in v1.37.2 ("remove in 1.38").
        history: &[
            (30, Stage::Alpha, false),
            (32, Stage::Beta, true),
            (35, Stage::Ga, true),
        ],
        summary: "KEP-4368: spec.managedBy on Jobs",
    },
    GateSpec {
        name: "JobSuccessPolicy",
        component: "kube-apiserver, kube-controller-manager",
        // Removed in 1.37: success_policy.go and the Job strategy no longer check it.
        history: &[
            (30, Stage::Alpha, false),
            (31, Stage::Beta, true),
            (33, Stage::Ga, true),
            (37, Stage::Removed, true),
        ],
        summary: "KEP-3998: Job successPolicy",
    },
    GateSpec {
        name: "SidecarContainers",
        component: "kube-apiserver, kubelet",
        // Removed in 1.37: pkg/api/pod/util.go no longer drops init containers' restartPolicy and
        // the Job controller's backoff_utils.go always counts sidecars' finish times.
        history: &[
            (28, Stage::Alpha, false),
            (29, Stage::Beta, true),
            (33, Stage::Ga, true),
            (37, Stage::Removed, true),
        ],
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
        FeatureGates {
            version,
            known,
            extra: BTreeMap::new(),
        }
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
                if let Some(removed) = removed_in(k, v.minor) {
                    return Err(Diagnostic::request(
                        "removed-feature-gate",
                        &format!("featureGates[{k}]"),
                        format!(
                            "feature gate {k:?} was removed in Kubernetes 1.{removed} (it is always on there); \
                             its components refuse to start with it (\"unrecognized feature gate: {k}\"). \
                             Drop the override, or model an older version such as 1.{}",
                            removed - 1
                        ),
                    ));
                }
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
            None => self.extra.get(name).copied().unwrap_or(false),
        }
    }

    /// Every gate with its value, by name.
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

fn default_at(g: &GateSpec, minor: u32) -> bool {
    g.history
        .iter()
        .rev()
        .find(|(from, _, _)| *from <= minor)
        .map(|(_, _, on)| *on)
        .unwrap_or(false)
}

/// The minor version a gate was removed in, when it is removed at `minor`.
pub fn removed_in(name: &str, minor: u32) -> Option<u32> {
    let g = GATES.iter().find(|g| g.name == name)?;
    match g.history.iter().rev().find(|(from, _, _)| *from <= minor) {
        Some((from, Stage::Removed, _)) => Some(*from),
        _ => None,
    }
}

/// Stage of a gate at a minor version, or None where it does not exist yet. A removed gate
/// reports `Stage::Removed` with the value the code now behaves as.
pub fn stage_at(name: &str, minor: u32) -> Option<(Stage, bool)> {
    let g = GATES.iter().find(|g| g.name == name)?;
    g.history
        .iter()
        .rev()
        .find(|(from, _, _)| *from <= minor)
        .map(|(_, s, on)| (*s, *on))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_parsing() {
        assert_eq!(KubeVersion::parse("1.35").map(|v| v.minor).ok(), Some(35));
        assert_eq!(
            KubeVersion::parse("v1.34.2").map(|v| v.minor).ok(),
            Some(34)
        );
        assert!(KubeVersion::parse("1.20").is_err());
        assert!(KubeVersion::parse("banana").is_err());
    }

    #[test]
    fn crash_loop_max_is_on_by_default_from_1_35() {
        assert!(
            !FeatureGates::for_version(KubeVersion { minor: 34 })
                .enabled("KubeletCrashLoopBackOffMax")
        );
        assert!(
            FeatureGates::for_version(KubeVersion { minor: 35 })
                .enabled("KubeletCrashLoopBackOffMax")
        );
        assert!(
            !FeatureGates::for_version(KubeVersion { minor: 35 })
                .enabled("ReduceDefaultCrashLoopBackOffDecay")
        );
        assert!(
            !FeatureGates::for_version(KubeVersion { minor: 33 }).enabled("ContainerRestartRules")
        );
        assert!(
            FeatureGates::for_version(KubeVersion { minor: 35 }).enabled("ContainerRestartRules")
        );
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

    #[test]
    fn newest_is_1_37_and_the_default() {
        assert_eq!(NEWEST_MINOR, 37);
        assert_eq!(SUPPORTED_MINORS.last().copied(), Some(NEWEST_MINOR));
        assert_eq!(KubeVersion::default().minor, 37);
        assert_eq!(
            KubeVersion::parse("v1.37.2").map(|v| v.minor).ok(),
            Some(37)
        );
        assert!(KubeVersion::parse("1.38").is_err());
    }

    /// kube_features.go v1.37.2: the gates restartkit models, as that file lists them.
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
            stage_at("KubeletCrashLoopBackOffMax", 37),
            Some((Stage::Beta, true))
        );
        assert_eq!(
            stage_at("ReduceDefaultCrashLoopBackOffDecay", 37),
            Some((Stage::Alpha, false))
        );
        assert_eq!(stage_at("JobManagedBy", 37), Some((Stage::Ga, true)));
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
        assert!(!g.enabled("ReduceDefaultCrashLoopBackOffDecay"));
    }

    #[test]
    fn overriding_a_removed_gate_is_a_request_error_naming_gate_and_version() {
        let mut o = BTreeMap::new();
        o.insert("SidecarContainers".to_owned(), true);
        let e = FeatureGates::resolve(None, Some(&o))
            .err()
            .map(|d| (d.code.clone(), d.field.to_string(), d.message.clone()));
        let (code, field, message) = e.unwrap_or_default();
        assert_eq!(code.as_deref(), Some("removed-feature-gate"));
        assert_eq!(field, "featureGates[SidecarContainers]");
        assert!(message.contains("removed in Kubernetes 1.37"), "{message}");
        assert!(
            message.contains("unrecognized feature gate: SidecarContainers"),
            "{message}"
        );
        // The same override is still honoured where the gate exists.
        let mut off = BTreeMap::new();
        off.insert("SidecarContainers".to_owned(), false);
        let (g, w) = FeatureGates::resolve(Some("1.36"), Some(&off)).unwrap_or_default();
        assert!(!g.enabled("SidecarContainers"));
        assert!(w.is_empty());
    }
}
