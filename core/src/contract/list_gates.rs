//! The `listGates` op: the feature gates one Kubernetes minor's components know, each with its
//! default, stage and lock, as the generated per-minor tables (core/src/generated/k8s_gates.rs,
//! from each release's `pkg/features` and component-base's versioned specs) and the controllers'
//! hand-listed gates (`features::CONTROLLER_GATES`) give them. `describe` gives only the gates
//! that change an answer; this lists every gate a `featureGates` override may name at that minor.

use crate::diag::Diagnostic;
use crate::features::{KubeVersion, Stage, locked_at, stage_at};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListGatesInput {
    /// The minor (`1.35`, `v1.35.2`); absent: the newest modelled.
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    /// Only gates whose name contains this text (case-insensitive); absent: every gate.
    #[serde(default)]
    pub name_contains: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListGatesOutput {
    /// The minor the gates are of (`1.37`).
    pub kubernetes_version: String,
    /// The gates, by name.
    pub gates: Vec<GateAtMinor>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GateAtMinor {
    pub name: String,
    /// The default at this minor (a removed gate: the value the code now behaves as).
    pub default: bool,
    /// `Alpha`, `Beta`, `GA`, `Deprecated`, or `Removed` (gone from this release: overriding
    /// it is a request error).
    pub stage: String,
    /// Locked to its default (`LockToDefault`): an override to the other value is refused.
    pub locked: bool,
}

/// The stage's name as `describe` and the Kubernetes docs spell it.
pub fn stage_name(s: Stage) -> &'static str {
    match s {
        Stage::Alpha => "Alpha",
        Stage::Beta => "Beta",
        Stage::Ga => "GA",
        Stage::Deprecated => "Deprecated",
        Stage::Removed => "Removed",
    }
}

pub fn run(input: ListGatesInput) -> Result<ListGatesOutput, Diagnostic> {
    let version = match input.kubernetes_version.as_deref() {
        None => KubeVersion::default(),
        Some(v) => KubeVersion::parse(v)?,
    };
    let filter = input.name_contains.map(|s| s.to_ascii_lowercase());
    let mut names: Vec<&str> = crate::generated::k8s_gates::NAMES.to_vec();
    names.extend(crate::features::CONTROLLER_GATES.iter().map(|(n, _, _)| *n));
    names.sort_unstable();
    names.dedup();
    let gates = names
        .into_iter()
        .filter(|n| {
            filter
                .as_deref()
                .is_none_or(|f| n.to_ascii_lowercase().contains(f))
        })
        .filter_map(|n| {
            let (stage, default) = stage_at(n, version.minor)?;
            Some(GateAtMinor {
                name: n.to_owned(),
                default,
                stage: stage_name(stage).to_owned(),
                locked: locked_at(n, version.minor),
            })
        })
        .collect();
    Ok(ListGatesOutput {
        kubernetes_version: version.as_string(),
        gates,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn gate(out: &ListGatesOutput, name: &str) -> Option<GateAtMinor> {
        out.gates.iter().find(|g| g.name == name).cloned()
    }

    #[test]
    fn gates_follow_the_minor() {
        let at = |v: &str| {
            run(ListGatesInput {
                kubernetes_version: Some(v.to_owned()),
                name_contains: None,
            })
            .unwrap()
        };
        let (old, new) = (at("1.31"), at("1.37"));
        assert_eq!(new.kubernetes_version, "1.37");
        // SidecarContainers: beta and on in 1.31, GA then removed by 1.37 (the describe test's facts).
        let s31 = gate(&old, "SidecarContainers").unwrap();
        assert_eq!((s31.stage.as_str(), s31.default), ("Beta", true));
        assert_eq!(gate(&new, "SidecarContainers").unwrap().stage, "Removed");
        // ContainerRestartRules does not exist in 1.31.
        assert!(gate(&old, "ContainerRestartRules").is_none());
        assert_eq!(gate(&new, "ContainerRestartRules").unwrap().stage, "Beta");
        // A GA gate is locked on; JobSet's own gates are listed at every minor.
        assert!(
            new.gates
                .iter()
                .any(|g| g.stage == "GA" && g.locked && g.default)
        );
        assert!(gate(&old, "InPlaceRestart").is_some());
        assert!(new.gates.windows(2).all(|w| w[0].name < w[1].name));
    }

    #[test]
    fn filter_and_bad_version() {
        let out = run(ListGatesInput {
            kubernetes_version: None,
            name_contains: Some("sidecar".to_owned()),
        })
        .unwrap();
        assert!(!out.gates.is_empty());
        assert!(
            out.gates
                .iter()
                .all(|g| g.name.to_lowercase().contains("sidecar"))
        );
        let e = run(ListGatesInput {
            kubernetes_version: Some("1.20".to_owned()),
            name_contains: None,
        })
        .unwrap_err();
        assert_eq!(e.field, "kubernetesVersion");
    }
}
