//! The version facts in one place: what changes between the supported minors, from which minor,
//! and the upstream change that makes it. The checks ask [`Change::at`] instead of comparing a
//! minor with a literal; the upgrade check (`compareVersions`, [`crate::upgrade`]) explains a
//! difference between two minors with the facts that carry a `key`; docs/architecture.md points
//! here. A new fact is one variant and one row (the test below keeps them in step).
//!
//! The feature gates' own stages and defaults per minor are not here: they are generated
//! (`generated::k8s_gates`, read by [`crate::features`]).

/// One change between minors (its row in [`FACTS`] says what and where upstream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// A StatefulSet's Pod template is validated on create.
    StatefulSetTemplateOnCreate,
    /// A StatefulSet's volumeClaimTemplates are validated on create.
    StatefulSetClaimTemplatesOnCreate,
    /// KEP-5307: container restart rules exist (gate ContainerRestartRules, alpha in 1.34).
    RestartRules,
    /// KEP-5307: a regular container may carry a restartPolicy.
    RegularContainerRestartPolicy,
    /// KEP-5307 beta: rules already in use are honoured with the gate off; an init container's
    /// rules need its restartPolicy.
    RestartRulesInUse,
    /// KEP-5532: the RestartAllContainers rule action.
    RestartAllContainers,
    /// The restart-rule list limits are `field.TooMany` (before: `field.TooLong`).
    RestartRuleLimitsTooMany,
    /// kubectl's stream decoder turns to YAML when JSON fails before a second value.
    YamlAfterBadJson,
    /// field.TooLong reads "may not be more than N bytes" (before: "must have at most N bytes").
    TooLongMayNotBe,
    /// field.TooLong says "byte" for 1 and words its detail as the API's own.
    TooLongByteWording,
    /// A field error prints a non-scalar bad value as JSON (before: Go's `%#v`).
    FieldErrorJsonValues,
    /// The node lifecycle controller's default nodeMonitorGracePeriod is 50 s (before: 40 s).
    NodeMonitorGrace50s,
    /// KEP-1287: a sidecar (any init container) may carry resizePolicy when the gate is on.
    SidecarResizePolicy,
    /// KEP-2837: pod-level `spec.resources` exist (gate PodLevelResources).
    PodLevelResources,
    /// A non-sidecar init container's resizePolicy may not say RestartContainer.
    InitResizeNoRestartContainer,
    /// validateResizePolicy's Never message says "pod `restartPolicy`".
    ResizeNeverPodWording,
    /// An over-long AppArmor localhostProfile is `field.TooLong` (before: TooLongMaxLength).
    AppArmorProfileTooLong,
    /// An empty `spec.os.name` is `Required` with no detail (before: "cannot be empty").
    PodOsNameRequiredBare,
}

/// A fact: the change, the first minor it holds in, what it is, the upstream change, and the
/// text the upgrade check matches a diagnostic's field, message or code against (None: the
/// fact is not named by the upgrade check, a gate change or another fact explains it).
#[derive(Debug)]
pub struct Fact {
    pub change: Change,
    pub since: u32,
    pub what: &'static str,
    pub upstream: &'static str,
    pub key: Option<&'static str>,
}

/// Every fact, in the order of [`Change`]. The upgrade check names the first fact whose key
/// matches, in this order.
pub const FACTS: &[Fact] = &[
    Fact {
        change: Change::StatefulSetTemplateOnCreate,
        since: 34,
        what: "from 1.34 kube-apiserver validates a StatefulSet's Pod template on create (pkg/apis/apps/validation ValidatePodTemplateSpecForStatefulSet; before, its call to ValidatePodTemplateSpec was commented out and the Pods were refused when the controller created them)",
        upstream: "pkg/apis/apps/validation ValidatePodTemplateSpecForStatefulSet",
        key: Some("pod-template-refused-later"),
    },
    Fact {
        change: Change::StatefulSetClaimTemplatesOnCreate,
        since: 34,
        what: "from 1.34 kube-apiserver validates a StatefulSet's volumeClaimTemplates' specs on create, and its Pod template with their volumes (pkg/apis/apps/validation validateVolumeClaimTemplates, volumesToAddForTemplates); before, the PersistentVolumeClaims the controller created from them were refused",
        upstream: "pkg/apis/apps/validation validateVolumeClaimTemplates",
        key: Some("claim-template-refused-later"),
    },
    Fact {
        change: Change::RestartRules,
        since: 34,
        what: "KEP-5307: container restartPolicy and restartPolicyRules on regular and init containers, alpha in 1.34 (gate ContainerRestartRules), beta and on from 1.35",
        upstream: "pkg/apis/core/validation validateContainerRestartPolicy; pkg/kubelet/status validateContainerStatusTransition",
        key: Some("restartPolicyRules"),
    },
    Fact {
        change: Change::RegularContainerRestartPolicy,
        since: 34,
        what: "KEP-5307: from 1.34 a regular container may carry restartPolicy (gate ContainerRestartRules: alpha in 1.34, beta from 1.35); before, validation forbids it",
        upstream: "pkg/apis/core/validation validateContainers",
        key: Some("containers["),
    },
    Fact {
        change: Change::RestartRulesInUse,
        since: 35,
        what: "KEP-5307 beta: rules a Pod already uses are honoured with the gate off, and an init container's rules require its restartPolicy",
        upstream: "pkg/api/pod GetValidationOptionsFromPodSpecAndMeta (containerRestartRulesInUse); pkg/apis/core/validation validateContainerRestartPolicy",
        key: None,
    },
    Fact {
        change: Change::RestartAllContainers,
        since: 35,
        what: "KEP-5532: the RestartAllContainers rule action, alpha in 1.35, beta and on from 1.36 (gate RestartAllContainersOnContainerExits, which needs ContainerRestartRules and NodeDeclaredFeatures)",
        upstream: "pkg/apis/core/validation validateContainerRestartPolicy",
        key: Some("RestartAllContainers"),
    },
    Fact {
        change: Change::RestartRuleLimitsTooMany,
        since: 36,
        what: "the limits on restart rules and their exit codes are field.TooMany errors (up to 1.35 field.TooLong)",
        upstream: "pkg/apis/core/validation validateContainerRestartPolicy",
        key: None,
    },
    Fact {
        change: Change::YamlAfterBadJson,
        since: 33,
        what: "kubectl reads a stream that starts with `{` as YAML when JSON fails before a second value (before, JSON to the end and a JSON error is final)",
        upstream: "k8s.io/apimachinery v0.33 pkg/util/yaml YAMLOrJSONDecoder",
        key: None,
    },
    Fact {
        change: Change::TooLongMayNotBe,
        since: 32,
        what: "field.TooLong's detail reads \"may not be more than N bytes\" (up to 1.31 \"must have at most N bytes\")",
        upstream: "k8s.io/apimachinery v0.32 pkg/util/validation/field TooLong",
        key: None,
    },
    Fact {
        change: Change::TooLongByteWording,
        since: 34,
        what: "field.TooLong says \"byte\" for 1 and keeps the validator's own detail",
        upstream: "k8s.io/apimachinery v0.34 pkg/util/validation/field TooLong",
        key: None,
    },
    Fact {
        change: Change::FieldErrorJsonValues,
        since: 34,
        what: "a field error prints a map, a list, a struct or nil as JSON (`{\"app\":\"w\"}`, `null`); before, Go's %#v (`map[string]string{\"app\":\"w\"}`)",
        upstream: "k8s.io/apimachinery v0.34 pkg/util/validation/field Error.ErrorBody (json.Marshal)",
        key: None,
    },
    Fact {
        change: Change::NodeMonitorGrace50s,
        since: 32,
        what: "the node lifecycle controller's default nodeMonitorGracePeriod is 50 s (40 s up to 1.31)",
        upstream: "pkg/controller/nodelifecycle/config/v1alpha1 RecommendedDefaultNodeLifecycleControllerConfiguration",
        key: None,
    },
    Fact {
        change: Change::SidecarResizePolicy,
        since: 32,
        what: "an init container may carry resizePolicy with InPlacePodVerticalScaling on (opts.AllowSidecarResizePolicy); in 1.31 validation refuses it on every init container (\"must not be set for init containers\")",
        upstream: "pkg/apis/core/validation validateInitContainers; pkg/api/pod GetValidationOptionsFromPodSpecAndMeta",
        key: None,
    },
    Fact {
        change: Change::PodLevelResources,
        since: 32,
        what: "KEP-2837: pod-level spec.resources, alpha in 1.32 (gate PodLevelResources), beta from 1.34; a create drops it with the gate off",
        upstream: "pkg/apis/core/validation validatePodResources; pkg/api/pod dropDisabledPodLevelResources",
        key: None,
    },
    Fact {
        change: Change::InitResizeNoRestartContainer,
        since: 36,
        what: "a non-sidecar init container's resizePolicy may not be RestartContainer",
        upstream: "pkg/apis/core/validation validateInitContainers",
        key: None,
    },
    Fact {
        change: Change::ResizeNeverPodWording,
        since: 36,
        what: "validateResizePolicy's message reads \"must be 'NotRequired' when pod `restartPolicy` is 'Never'\" (up to 1.35 without \"pod\")",
        upstream: "pkg/apis/core/validation validateResizePolicy",
        key: None,
    },
    Fact {
        change: Change::AppArmorProfileTooLong,
        since: 32,
        what: "an AppArmor localhostProfile over 4095 bytes is field.TooLong (\"may not be more than 4095 bytes\"); 1.31 words it \"may not be longer than 4095\" (TooLongMaxLength)",
        upstream: "pkg/apis/core/validation ValidateAppArmorProfileField",
        key: None,
    },
    Fact {
        change: Change::PodOsNameRequiredBare,
        since: 34,
        what: "an empty spec.os.name is \"Required value\" with no detail (up to 1.33: \"Required value: cannot be empty\")",
        upstream: "pkg/apis/core/validation validateOS",
        key: None,
    },
];

impl Change {
    /// The change's row (every change has one: the test below checks it).
    pub fn fact(self) -> Option<&'static Fact> {
        FACTS.iter().find(|f| f.change == self)
    }
    /// The first minor the change holds in.
    pub fn since(self) -> u32 {
        self.fact().map_or(u32::MAX, |f| f.since)
    }
    /// Whether Kubernetes 1.`minor` has the change.
    pub fn at(self, minor: u32) -> bool {
        minor >= self.since()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_are_in_the_order_of_change() {
        for (i, f) in FACTS.iter().enumerate() {
            assert_eq!(f.change as usize, i, "{:?}", f.change);
            assert!((32..=37).contains(&f.since), "{:?}: {}", f.change, f.since);
            assert!(!f.what.is_empty() && !f.upstream.is_empty());
        }
        assert!(Change::RestartRules.at(34) && !Change::RestartRules.at(33));
        assert!(
            !Change::RestartRuleLimitsTooMany.at(35) && Change::RestartRuleLimitsTooMany.at(36)
        );
    }
}
