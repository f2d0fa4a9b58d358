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
    /// validatePodResourceClaim refuses any claim of a static (mirror) Pod.
    StaticPodNoResourceClaims,
    /// Pod-level resources take hugepages.
    PodLevelHugePages,
    /// Pod-level resources' checks and defaults as beta has them.
    PodLevelResourcesBeta,
    /// A non-sidecar init container's resizePolicy may not say RestartContainer.
    InitResizeNoRestartContainer,
    /// validateResizePolicy's Never message says "pod `restartPolicy`".
    ResizeNeverPodWording,
    /// An over-long AppArmor localhostProfile is `field.TooLong` (before: TooLongMaxLength).
    AppArmorProfileTooLong,
    /// An empty `spec.os.name` is `Required` with no detail (before: "cannot be empty").
    PodOsNameRequiredBare,
    /// From 1.37: the shareProcessNamespace-with-hostPID rule is reported at spec.shareProcessNamespace.
    ShareProcessNamespaceInSpec,
    /// From 1.34: the hostUsers-false refusals read "when `hostUsers` is false".
    HostUsersWording,
    /// From 1.34: with hostUsers false a container's volumeDevices are forbidden.
    HostUsersVolumeDevices,
    /// From 1.35: a ReplicationController's name is checked by ValidateObjectMetaWithOpts: a DNS subdomain counted in bytes, generateName not checked as a prefix.
    ReplicationControllerNameOpts,
    /// From 1.33: a Pod's metadata.generation is set on create.
    PodGenerationOnCreate,
    /// From 1.37: ownerReferences errors sit at each reference's index, Required for a missing field.
    OwnerReferencesPerIndex,
    /// From 1.34: an ownerReference's empty kind, name or uid reads "must not be empty".
    OwnerReferenceEmptyWording,
    /// From 1.35: label keys and values and qualified names are checked by apimachinery's content package: lengths in bytes, "a valid label key".
    ContentPackageNames,
    /// From 1.33: the values of required node-affinity terms are checked as label values on create.
    RequiredAffinityValuesChecked,
    /// From 1.32: a toleration with operator Exists and a value is Invalid with the value.
    TolerationExistsValueShown,
    /// From 1.35: tolerations know the operators Lt and Gt.
    TolerationCompareOperators,
    /// From 1.33: a StatefulSet's serviceName must be a DNS label.
    StatefulSetServiceNameLabel,
    /// From 1.32: the validators call field.TooLong where 1.31 called field.TooLongMaxLength.
    TooLongMaxLengthGone,
    /// From 1.35: a schedule `TZ=...` with no space after it is a field error.
    CronTzPanicRecovered,
    /// From 1.35: a failed x-kubernetes-validations rule's error carries the value.
    CelErrorCarriesValue,
    /// From 1.32: cel-go v0.22's indexOf answers -1 for a non-empty needle in an empty string.
    CelIndexOfEmptyString,
    /// From 1.34: an embedded resource's missing apiVersion or kind is "Required value" with no detail.
    EmbeddedResourceRequiredBare,
    /// From 1.34: the CRD string formats k8s-short-name and k8s-long-name are supported.
    K8sNameFormats,
    /// From 1.36: unsupported formats are dropped by the schema's type.
    FormatsStrippedByType,
    /// From 1.36: kube-openapi checks values and bounds against the schema's type and format; before, it knew neither.
    OpenapiTypedBounds,
    /// From 1.37: go-openapi/swag v0.27's IsFloat64AJSONInteger compares with the rounded value.
    SwagIntegerRounded,
    /// From 1.37: an unset serviceAccountToken expirationSeconds is refused as such when no defaulting ran.
    TokenExpirationRequired,
    /// From 1.35: an empty CSI driver name is one Required error.
    CsiDriverNameRequiredEnds,
    /// From 1.37: a template's image volume must name its reference.
    ImageVolumeReferenceInTemplates,
    /// From 1.32: an image volume is validated whenever it is there.
    ImageVolumeAlwaysValidated,
    /// From 1.33: a volumeMount of an image volume may carry subPath.
    ImageVolumeSubPath,
    /// From 1.33: a LoadBalancer Service may expose port 10250.
    KubeletPortAllowed,
    /// From 1.36: the Job controller no longer writes `active: 0` while the creation back-off holds.
    JobHeldStatusGone,
    /// From 1.32: the sleep action's seconds follow PodLifecycleSleepActionAllowZero.
    SleepZeroGate,
    /// From 1.33: the kubelet's getPhase runs after the prober sets a running sidecar's `started`.
    SidecarStartedBeforePhase,
    /// From 1.34: a lost node joins the zone's NoExecute taint queue at the monitor pass that finds it not ready.
    TaintQueueSamePass,
    /// From 1.37: a regular container restarts while the last sidecar waits in its back-off.
    RegularsRestartPastSidecarBackoff,
    /// From 1.37: a Pod whose regular containers are all done ends at the sync of the exit.
    PodEndsAtExitSync,
    /// From 1.33: VolumeAttributesClass is a standard ResourceQuota scope.
    QuotaScopeVolumeAttributesClass,
    /// From 1.35: a ResourceQuota whose hard request exceeds its limit is created with a warning.
    QuotaRequestOverLimitWarning,
    /// From 1.37: RBAC's beta declarative rules take over three Required errors.
    RbacDeclarativeBeta,
    /// From 1.33: a NetworkPolicy's CIDRs are legacy fields, with GetWarningsForCIDR's warnings.
    NetworkPolicyCidrWarnings,
    /// From 1.37: an endPort below port prints the endPort.
    NetworkPolicyEndPortValue,
    /// From 1.37: the ipBlock.cidr declarative rule is beta and the strategy runs it.
    NetworkPolicyDeclarativeBeta,
    /// From 1.34: an Ingress resource backend's or an IngressClass parameters reference's empty
    /// kind or name is a Required error without detail.
    IngressRequiredDetail,
    /// From 1.37: the IngressClass parameters' declarative kind and name rules are beta.
    IngressClassDeclarativeBeta,
    /// From 1.34: an HPA's scaleTargetRef and describedObject apiVersions are checked.
    HpaApiVersion,
    /// From 1.36: maxReplicas 0 is Required, a negative one "greater than or equal to 1".
    HpaMaxReplicasMessages,
    /// From 1.37: the HPA strategy runs declarative validation; minReplicas and maxReplicas are beta.
    HpaDeclarativeBeta,
    /// From 1.37: a StorageClass's declarative provisioner rule is beta.
    StorageClassDeclarativeBeta,
    /// From 1.32: a ServiceAccount with the enforce-mountable-secrets annotation is warned of.
    ServiceAccountMountableSecretsWarning,
    /// From 1.34 a webhook's empty service name or namespace is a bare Required.
    WebhookServiceRequiredBare,
    /// From 1.36 GetWarningsForIP and GetWarningsForCIDR call a non-standard value invalid.
    NonStandardIpIsInvalid,
    /// From 1.33 an Endpoints that passes is created with GetWarningsForIP's warnings.
    EndpointsIpWarnings,
    /// From 1.34 the CRD messages lose their field-name prefixes ("schemas are required",
    /// "message must ...", "fieldPath must ...", "selectableFields may only ...").
    CrdMessagesShortened,
    /// From 1.36 the webhook configuration strategies read the reserved `.static.k8s.io` suffix.
    WebhookStaticSuffix,
    /// From 1.37 the webhook configuration strategies warn of rules naming excluded resources.
    WebhookExcludedResourceWarnings,
    /// From 1.32 a ValidatingAdmissionPolicyBinding's matchResources errors are reported under
    /// `matchResources` (1.31: `matchResouces`).
    BindingMatchResourcesPath,
    /// From 1.34 the admission policy messages lose their field-name prefix ("must be a valid
    /// CEL identifier", "must not contain line breaks", "must be non-empty if specified").
    AdmissionPolicyMessagesShortened,
    /// From 1.37 a ValidatingAdmissionPolicyBinding's policyName and validationActions Required
    /// rules are declarative and beta.
    AdmissionPolicyBindingDeclarativeBeta,
    /// From 1.37 a RuntimeClass's handler rules are declarative and beta.
    RuntimeClassDeclarativeBeta,
    /// From 1.36 an empty RuntimeClass handler is Required (before: only not a DNS label).
    RuntimeClassHandlerRequired,
    /// From 1.35 a RuntimeClass's toleration errors are at `scheduling.tolerations[i]` (before:
    /// `scheduling.tolerations.tolerations[i]`).
    RuntimeClassTolerationsPath,
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
        since: 33,
        what: "an init container may carry resizePolicy with InPlacePodVerticalScaling on (opts.AllowSidecarResizePolicy); up to 1.32 validation refuses it on every init container (\"must not be set for init containers\": 1.32 sets the option only from an old Pod that has one)",
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
        change: Change::StaticPodNoResourceClaims,
        since: 32,
        what: "a static Pod (the kubernetes.io/config.mirror annotation) may carry no spec.resourceClaims: one Forbidden at the root per claim, \"static pods do not support resource claims\"",
        upstream: "pkg/apis/core/validation validatePodResourceClaim",
        key: None,
    },
    Fact {
        change: Change::PodLevelHugePages,
        since: 33,
        what: "pod-level resources take hugepages (in 1.32 cpu and memory only): a supported name, a pod-level hugepage limit defaulted to the containers' aggregated limit, and no pod-level hugepage request defaulted from the containers' requests",
        upstream: "k8s.io/component-helpers resource.IsSupportedPodLevelResource; pkg/apis/core/v1/defaults.go defaultHugePagePodLimits, defaultPodRequests",
        key: None,
    },
    Fact {
        change: Change::PodLevelResourcesBeta,
        since: 34,
        what: "pod-level resources as beta checks them: refused on a Windows Pod, \"claims may not be set\" (was \"cannot be set\"), a resource without a pod-level request not compared (was compared with 0), hugepage limits at least the containers' aggregate; defaults: no hugepage limit beside a hugepage request",
        upstream: "pkg/apis/core/validation validatePodResources, validatePodResourceConsistency; pkg/apis/core/v1/defaults.go defaultPodRequests, defaultHugePagePodLimits",
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
    Fact {
        change: Change::ShareProcessNamespaceInSpec,
        since: 37,
        what: "from 1.37 the shareProcessNamespace-with-hostPID rule is reported at spec.shareProcessNamespace (up to 1.36 at spec.securityContext.shareProcessNamespace, where the internal type keeps the host namespaces)",
        upstream: "pkg/apis/core/validation validatePodSpecSecurityContext, ValidatePodSpec",
        key: None,
    },
    Fact {
        change: Change::HostUsersWording,
        since: 34,
        what: "from 1.34 the hostUsers-false refusals read \"when `hostUsers` is false\" (before \"when `pod.Spec.HostUsers` is false\")",
        upstream: "pkg/apis/core/validation validateHostUsers",
        key: None,
    },
    Fact {
        change: Change::HostUsersVolumeDevices,
        since: 34,
        what: "from 1.34 with hostUsers false a container's volumeDevices are forbidden",
        upstream: "pkg/apis/core/validation validateHostUsers",
        key: None,
    },
    Fact {
        change: Change::ReplicationControllerNameOpts,
        since: 35,
        what: "from 1.35 a ReplicationController's name is checked by ValidateObjectMetaWithOpts: a DNS subdomain counted in bytes, generateName not checked as a prefix",
        upstream: "pkg/apis/core/validation ValidateReplicationController",
        key: None,
    },
    Fact {
        change: Change::PodGenerationOnCreate,
        since: 33,
        what: "from 1.33 a Pod's metadata.generation is set on create (KEP-5067); before, the given generation is kept",
        upstream: "pkg/registry/core/pod strategy PrepareForCreate",
        key: None,
    },
    Fact {
        change: Change::OwnerReferencesPerIndex,
        since: 37,
        what: "from 1.37 ownerReferences errors sit at each reference's index, Required for a missing field (up to 1.36 Invalid, at the list's path)",
        upstream: "k8s.io/apimachinery v0.37 pkg/api/validation ValidateOwnerReferences",
        key: None,
    },
    Fact {
        change: Change::OwnerReferenceEmptyWording,
        since: 34,
        what: "from 1.34 an ownerReference's empty kind, name or uid reads \"must not be empty\" (up to 1.33 \"kind must not be empty\" and so on)",
        upstream: "k8s.io/apimachinery v0.34 pkg/api/validation validateOwnerReference",
        key: None,
    },
    Fact {
        change: Change::ContentPackageNames,
        since: 35,
        what: "from 1.35 label keys and values and qualified names are checked by apimachinery's content package: lengths in bytes, \"a valid label key\" (before: characters, \"a qualified name\")",
        upstream: "k8s.io/apimachinery v0.35 pkg/api/validate/content",
        key: None,
    },
    Fact {
        change: Change::RequiredAffinityValuesChecked,
        since: 33,
        what: "from 1.33 the values of required node-affinity terms are checked as label values on create (AllowInvalidLabelValueInRequiredNodeAffinity false; 1.32 passes true, 1.31 has no check)",
        upstream: "pkg/api/pod GetValidationOptionsFromPodSpecAndMeta",
        key: None,
    },
    Fact {
        change: Change::TolerationExistsValueShown,
        since: 32,
        what: "from 1.32 a toleration with operator Exists and a value is Invalid with the value (1.31 prints the whole toleration with Go's %#v)",
        upstream: "pkg/apis/core/validation ValidateTolerations",
        key: None,
    },
    Fact {
        change: Change::TolerationCompareOperators,
        since: 35,
        what: "from 1.35 tolerations know the operators Lt and Gt (KEP-5471, gate TaintTolerationComparisonOperators); before, they are unsupported values",
        upstream: "pkg/apis/core/validation ValidateTolerations",
        key: None,
    },
    Fact {
        change: Change::StatefulSetServiceNameLabel,
        since: 33,
        what: "from 1.33 a StatefulSet's serviceName must be a DNS label",
        upstream: "pkg/apis/apps/validation ValidateStatefulSetSpec",
        key: None,
    },
    Fact {
        change: Change::TooLongMaxLengthGone,
        since: 32,
        what: "from 1.32 the validators call field.TooLong where 1.31 called field.TooLongMaxLength (\"may not be longer than N\")",
        upstream: "k8s.io/apimachinery v0.32 pkg/util/validation/field; pkg/apis/batch/validation validateManagedBy; apiextensions-apiserver schema validation",
        key: None,
    },
    Fact {
        change: Change::CronTzPanicRecovered,
        since: 35,
        what: "from 1.35 a schedule `TZ=...` with no space after it is a field error (the parser's slice panic recovered); before, the request failed with the handler's panic",
        upstream: "pkg/util/parsers ParseCronScheduleWithPanicRecovery",
        key: None,
    },
    Fact {
        change: Change::CelErrorCarriesValue,
        since: 35,
        what: "from 1.35 a failed x-kubernetes-validations rule's error carries the value (not for objects and arrays); before, the schema's type",
        upstream: "apiextensions-apiserver pkg/apiserver/schema/cel validation.go",
        key: None,
    },
    Fact {
        change: Change::CelIndexOfEmptyString,
        since: 32,
        what: "from 1.32 cel-go v0.22's indexOf answers -1 for a non-empty needle in an empty string (v0.20.1, in 1.31: \"index out of range: 0\")",
        upstream: "github.com/google/cel-go ext/strings.go indexOfOffset",
        key: None,
    },
    Fact {
        change: Change::EmbeddedResourceRequiredBare,
        since: 34,
        what: "from 1.34 an embedded resource's missing apiVersion or kind is \"Required value\" with no detail (up to 1.33 \"must not be empty\")",
        upstream: "apiextensions-apiserver pkg/apiserver/schema/objectmeta validateEmbeddedResource",
        key: None,
    },
    Fact {
        change: Change::K8sNameFormats,
        since: 34,
        what: "from 1.34 the CRD string formats k8s-short-name and k8s-long-name are supported",
        upstream: "k8s.io/kube-openapi pkg/validation/strfmt; apiextensions-apiserver StripUnsupportedFormats",
        key: None,
    },
    Fact {
        change: Change::FormatsStrippedByType,
        since: 36,
        what: "from 1.36 unsupported formats are dropped by the schema's type (int32/int64 for integers, float/double for numbers, string formats for strings); before, by the list of string formats whatever the type",
        upstream: "apiextensions-apiserver pkg/apiserver/schema StripUnsupportedFormatsPostProcess",
        key: None,
    },
    Fact {
        change: Change::OpenapiTypedBounds,
        since: 36,
        what: "from 1.36 kube-openapi checks values and bounds against the schema's type and format; before, it knew neither",
        upstream: "k8s.io/kube-openapi pkg/validation/validate",
        key: None,
    },
    Fact {
        change: Change::SwagIntegerRounded,
        since: 37,
        what: "from 1.37 go-openapi/swag v0.27's IsFloat64AJSONInteger compares with the rounded value (v0.22 and v0.23: the truncated one, by relative error)",
        upstream: "github.com/go-openapi/swag IsFloat64AJSONInteger",
        key: None,
    },
    Fact {
        change: Change::TokenExpirationRequired,
        since: 37,
        what: "from 1.37 an unset serviceAccountToken expirationSeconds is refused as such when no defaulting ran",
        upstream: "pkg/apis/core/validation validateProjectionSources",
        key: None,
    },
    Fact {
        change: Change::CsiDriverNameRequiredEnds,
        since: 35,
        what: "from 1.35 an empty CSI driver name is one Required error (before, the DNS-subdomain check reported it too)",
        upstream: "pkg/apis/core/validation ValidateCSIDriverName",
        key: None,
    },
    Fact {
        change: Change::ImageVolumeReferenceInTemplates,
        since: 37,
        what: "from 1.37 a template's image volume must name its reference (up to 1.36 only a Pod's: opts.ResourceIsPod)",
        upstream: "pkg/apis/core/validation validateImageVolumeSource",
        key: None,
    },
    Fact {
        change: Change::ImageVolumeAlwaysValidated,
        since: 32,
        what: "from 1.32 an image volume is validated whenever it is there (1.31 only under the ImageVolume gate)",
        upstream: "pkg/apis/core/validation validateVolumeSource",
        key: None,
    },
    Fact {
        change: Change::ImageVolumeSubPath,
        since: 33,
        what: "from 1.33 a volumeMount of an image volume may carry subPath (up to 1.32 refused)",
        upstream: "pkg/apis/core/validation validateVolumeMounts",
        key: None,
    },
    Fact {
        change: Change::KubeletPortAllowed,
        since: 33,
        what: "from 1.33 a LoadBalancer Service may expose port 10250 (up to 1.32 refused: \"may not expose port 10250 externally since it is used by kubelet\")",
        upstream: "pkg/apis/core/validation ValidateService",
        key: None,
    },
    Fact {
        change: Change::JobHeldStatusGone,
        since: 36,
        what: "from 1.36 the Job controller no longer writes `active: 0` while the Pod-creation back-off holds (a status the API server refused once a Pod was ready, with JobManagedBy on), nor plays the syncs that Pod updates and new Pods queue meanwhile",
        upstream: "pkg/controller/job job_controller.go syncJob, updatePod, addPod; pkg/registry/batch/job strategy.go getStatusValidationOptions",
        key: None,
    },
    Fact {
        change: Change::SleepZeroGate,
        since: 32,
        what: "from 1.32 the sleep action's seconds follow PodLifecycleSleepActionAllowZero (1.31: must be positive)",
        upstream: "pkg/apis/core/validation validateSleepAction",
        key: None,
    },
    Fact {
        change: Change::SidecarStartedBeforePhase,
        since: 33,
        what: "from 1.33 the kubelet's getPhase runs after the prober sets a running sidecar's `started` (up to 1.32 that sidecar counts as pending initialization, so the Pod stays Pending unless a regular container shows Running or Terminated, and the phase can change at a sync that changes nothing)",
        upstream: "pkg/kubelet/kubelet_pods.go getPhase; pkg/kubelet/container/helpers.go HasAnyRegularContainerStarted",
        key: None,
    },
    Fact {
        change: Change::TaintQueueSamePass,
        since: 34,
        what: "from 1.34 a lost node joins the zone's NoExecute taint queue at the monitor pass that finds it not ready (up to 1.33 at the next pass: processTaintBaseEviction got the Ready condition from before the pass)",
        upstream: "pkg/controller/nodelifecycle/node_lifecycle_controller.go monitorNodeHealth",
        key: None,
    },
    Fact {
        change: Change::RegularsRestartPastSidecarBackoff,
        since: 37,
        what: "from 1.37 a regular container restarts while the last sidecar waits in its back-off (up to 1.36 computeInitContainerActions counts the Pod initialized only with a regular container created or running or the last init container done)",
        upstream: "pkg/kubelet/kuberuntime/kuberuntime_container.go computeInitContainerActions",
        key: None,
    },
    Fact {
        change: Change::PodEndsAtExitSync,
        since: 37,
        what: "from 1.37 a Pod whose regular containers are all done ends at the sync of the exit (up to 1.36 at a sync after every exit of that instant), as the Pod timeline leg against the v1.37 kubelet shows",
        upstream: "pkg/kubelet/kuberuntime kuberuntime_manager.go computePodActions",
        key: None,
    },
    Fact {
        change: Change::QuotaScopeVolumeAttributesClass,
        since: 33,
        what: "from 1.33 VolumeAttributesClass is a standard ResourceQuota scope, valid for persistentvolumeclaims and requests.storage (up to 1.32 `spec.scopes` and a scopeSelector refuse it: \"unsupported scope\")",
        upstream: "pkg/apis/core/helper helpers.go IsStandardResourceQuotaScope, IsResourceQuotaScopeValidForResource (kubernetes/kubernetes#124360)",
        key: Some("unsupported scope"),
    },
    Fact {
        change: Change::QuotaRequestOverLimitWarning,
        since: 35,
        what: "from 1.35 a ResourceQuota is created with a warning when its hard request of cpu, memory, storage or ephemeral-storage exceeds the matching limit (`ResourceQuota requests.cpu (2) should be less than limits.cpu (1)`; up to 1.34 none)",
        upstream: "pkg/registry/core/resourcequota strategy.go WarningsOnCreate (kubernetes/kubernetes#134389)",
        key: None,
    },
    Fact {
        change: Change::RbacDeclarativeBeta,
        since: 37,
        what: "from 1.37 the RBAC kinds' declarative rules are beta: with DeclarativeValidationBeta on (the default) an empty `verbs` is `rules[i].verbs: Required value` without the handwritten detail, and it, an empty `roleRef.name` and an empty subject `name` come after the other errors (in 1.35 and 1.36 the rules are alpha and never shown)",
        upstream: "pkg/apis/rbac/v1/zz_generated.validations.go (+k8s:beta); k8s.io/apiserver pkg/registry/rest ValidateDeclarativelyWithMigrationChecks",
        key: Some("verbs: Required value"),
    },
    Fact {
        change: Change::NetworkPolicyCidrWarnings,
        since: 33,
        what: "from 1.33 a NetworkPolicy's ipBlock cidr and except values are read by IsValidCIDRForLegacyField (stricter with StrictIPCIDRValidation on) and a policy that passes is created with GetWarningsForCIDR's warnings (a CIDR with bits beyond its prefix is ambiguous, leading zeros or an IPv4-mapped address non-standard, an IPv6 CIDR not in RFC 5952 form); up to 1.32 none",
        upstream: "pkg/apis/networking/validation ValidateIPBlock; pkg/registry/networking/networkpolicy strategy.go networkPolicyWarnings",
        key: Some("non-standard CIDR"),
    },
    Fact {
        change: Change::NetworkPolicyEndPortValue,
        since: 37,
        what: "from 1.37 a NetworkPolicy port whose endPort is below its port is refused with the endPort as the bad value (up to 1.36 the port's)",
        upstream: "pkg/apis/networking/validation ValidateNetworkPolicyPort",
        key: None,
    },
    Fact {
        change: Change::NetworkPolicyDeclarativeBeta,
        since: 37,
        what: "from 1.37 the NetworkPolicy strategy runs declarative validation: with DeclarativeValidationBeta on, an empty ipBlock.cidr is the declarative Required error, after the other errors (1.36 marks the handwritten one covered but does not run the rules)",
        upstream: "pkg/registry/networking/networkpolicy strategy.go (rest.DeclarativeValidation); pkg/apis/networking/v1/zz_generated.validations.go Validate_IPBlock",
        key: None,
    },
    Fact {
        change: Change::IngressRequiredDetail,
        since: 34,
        what: "from 1.34 an empty `kind` or `name` of an Ingress resource backend or an IngressClass's parameters is `Required value` (up to 1.33 `Required value: kind is required`)",
        upstream: "pkg/apis/networking/validation validateIngressTypedLocalObjectReference",
        key: None,
    },
    Fact {
        change: Change::IngressClassDeclarativeBeta,
        since: 37,
        what: "from 1.37 an IngressClass's declarative rules are beta: with DeclarativeValidationBeta on, an empty `parameters.kind` or `parameters.name` is the declarative Required error, after the other errors (1.36 has the rules as alpha, never shown)",
        upstream: "pkg/apis/networking/v1/zz_generated.validations.go Validate_IngressClassParametersReference; pkg/registry/networking/ingressclass strategy.go",
        key: None,
    },
    Fact {
        change: Change::HpaApiVersion,
        since: 34,
        what: "from 1.34 a HorizontalPodAutoscaler's `scaleTargetRef.apiVersion` must parse as a group/version and name an API group (but for kind ReplicationController), and an Object metric's `describedObject.apiVersion` must parse; before, neither is read",
        upstream: "pkg/apis/autoscaling/validation ValidateAPIVersion; pkg/registry/autoscaling/horizontalpodautoscaler strategy.go validationOptionsForHorizontalPodAutoscaler",
        key: Some("apiVersion must specify API group"),
    },
    Fact {
        change: Change::HpaMaxReplicasMessages,
        since: 36,
        what: "from 1.36 a HorizontalPodAutoscaler's `maxReplicas` of 0 is `Required value: must be set and greater than 0` and a negative one `must be greater than or equal to 1`; before, both `Invalid value: …: must be greater than 0`",
        upstream: "pkg/apis/autoscaling/validation validateHorizontalPodAutoscalerSpec",
        key: None,
    },
    Fact {
        change: Change::HpaDeclarativeBeta,
        since: 37,
        what: "from 1.37 the HorizontalPodAutoscaler strategy runs declarative validation: with DeclarativeValidationBeta on, the beta minReplicas and maxReplicas rules replace the handwritten errors they cover and come after the other errors; a `maxReplicas` of 0 is then `Required value` without the handwritten detail (in 1.36 the rules are alpha and never shown)",
        upstream: "pkg/registry/autoscaling/horizontalpodautoscaler strategy.go (rest.DeclarativeValidation); pkg/apis/autoscaling/v1 and v2 zz_generated.validations.go",
        key: None,
    },
    Fact {
        change: Change::StorageClassDeclarativeBeta,
        since: 37,
        what: "from 1.37 a StorageClass's declarative `provisioner` rule is beta: with DeclarativeValidationBeta on, an empty provisioner is the declarative Required error, after the other errors (1.35 and 1.36 run it only under DeclarativeValidationTakeover)",
        upstream: "pkg/apis/storage/v1/zz_generated.validations.go Validate_StorageClass; pkg/registry/storage/storageclass strategy.go (rest.DeclarativeValidation)",
        key: None,
    },
    Fact {
        change: Change::ServiceAccountMountableSecretsWarning,
        since: 32,
        what: "from 1.32 a ServiceAccount created with the `kubernetes.io/enforce-mountable-secrets` annotation gets the warning that it is deprecated (KEP-4002); 1.31 creates it without one",
        upstream: "pkg/registry/core/serviceaccount strategy.go WarningsOnCreate (warnIfHasEnforceMountableSecretsAnnotation)",
        key: Some("kubernetes.io/enforce-mountable-secrets"),
    },
    Fact {
        change: Change::WebhookServiceRequiredBare,
        since: 34,
        what: "from 1.34 a webhook's clientConfig.service with an empty namespace or name is a bare `Required value`; before, `Required value: service name is required` and `service namespace is required` (each at the other field: upstream's caller swaps the two arguments)",
        upstream: "k8s.io/apiserver pkg/util/webhook validation.go ValidateWebhookService",
        key: None,
    },
    Fact {
        change: Change::NonStandardIpIsInvalid,
        since: 36,
        what: "from 1.36 the IP and CIDR warnings (GetWarningsForIP, GetWarningsForCIDR: an Endpoints' addresses, a NetworkPolicy's ipBlocks) say a non-standard value (leading zeros, IPv4-mapped) `is invalid`; 1.33 to 1.35 say it `will be considered invalid in a future Kubernetes release`",
        upstream: "k8s.io/apimachinery pkg/util/validation/ip.go GetWarningsForIP, GetWarningsForCIDR",
        key: None,
    },
    Fact {
        change: Change::EndpointsIpWarnings,
        since: 33,
        what: "from 1.33 an Endpoints' addresses are read by IsValidIPForLegacyField (stricter with StrictIPCIDRValidation on; the messages are IsValidIP's with it off) and ValidateEndpointIP, and one that passes is created with GetWarningsForIP's warnings (leading zeros or an IPv4-mapped address non-standard, an IPv6 address not in RFC 5952 form) unless the endpoints controller wrote it; up to 1.32 IsValidIP and ValidateNonSpecialIP, no warnings",
        upstream: "pkg/apis/core/validation/validation.go validateEndpointAddress; pkg/registry/core/endpoint/strategy.go endpointsWarnings",
        key: None,
    },
    Fact {
        change: Change::CrdMessagesShortened,
        since: 34,
        what: "from 1.34 the CustomResourceDefinition messages drop their field-name prefixes: a version without a schema is a bare `Required value` (before: `schemas are required`), and `x-kubernetes-validations`' message and fieldPath checks and the selectableFields placement say `must ...` where they said `message must ...`, `fieldPath must ...`, `selectableFields may only ...`",
        upstream: "k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go (validateCustomResourceDefinitionSpec, ValidateCustomResourceDefinitionOpenAPISchema)",
        key: None,
    },
    Fact {
        change: Change::WebhookStaticSuffix,
        since: 36,
        what: "from 1.36 a webhook configuration, ValidatingAdmissionPolicy or binding whose name ends with `.static.k8s.io` is refused with ManifestBasedAdmissionControlConfig on (alpha in 1.36, beta and on from 1.37) and created with a warning with it off",
        upstream: "pkg/apis/admissionregistration/validation static_suffix.go; pkg/registry/admissionregistration/{validating,mutating}webhookconfiguration, validatingadmissionpolicy{,binding} strategy.go",
        key: None,
    },
    Fact {
        change: Change::WebhookExcludedResourceWarnings,
        since: 37,
        what: "from 1.37 a webhook configuration whose rule names a resource admission webhooks never see (the authentication and authorization reviews) is created with a warning, with ExcludeAdmissionWebhookVirtualResources on (beta, on)",
        upstream: "pkg/apis/admissionregistration/validation warnings.go; pkg/kubeapiserver/admission/exclusion resources.go",
        key: None,
    },
    Fact {
        change: Change::BindingMatchResourcesPath,
        since: 32,
        what: "from 1.32 a ValidatingAdmissionPolicyBinding's matchResources errors are reported at `spec.matchResources` (1.31 writes `spec.matchResouces`)",
        upstream: "pkg/apis/admissionregistration/validation/validation.go validateValidatingAdmissionPolicyBindingSpec",
        key: None,
    },
    Fact {
        change: Change::AdmissionPolicyMessagesShortened,
        since: 34,
        what: "from 1.34 a ValidatingAdmissionPolicy's variable name and validation message errors read \"must be a valid CEL identifier\", \"must be non-empty if specified\" and \"must not contain line breaks\" (before: \"name is not a valid CEL identifier\", \"message must …\")",
        upstream: "pkg/apis/admissionregistration/validation/validation.go validateVariable, validateValidation",
        key: None,
    },
    Fact {
        change: Change::AdmissionPolicyBindingDeclarativeBeta,
        since: 37,
        what: "from 1.37 a ValidatingAdmissionPolicyBinding's policyName and validationActions Required rules are declarative and beta: with DeclarativeValidationBeta on, an empty one is a bare Required after the other errors (1.36 has them alpha)",
        upstream: "pkg/apis/admissionregistration/v1/zz_generated.validations.go Validate_ValidatingAdmissionPolicyBindingSpec; pkg/registry/admissionregistration/validatingadmissionpolicybinding strategy.go (rest.DeclarativeValidation)",
        key: None,
    },
    Fact {
        change: Change::RuntimeClassDeclarativeBeta,
        since: 37,
        what: "from 1.37 a RuntimeClass's handler rules (Required, a DNS label) are declarative and beta: with DeclarativeValidationBeta on they come after the other errors, in the same words (1.35 and 1.36 mark the handwritten ones covered, alpha)",
        upstream: "pkg/apis/node/v1/zz_generated.validations.go Validate_RuntimeClass; pkg/apis/node/validation/validation.go ValidateRuntimeClass",
        key: None,
    },
    Fact {
        change: Change::RuntimeClassHandlerRequired,
        since: 36,
        what: "from 1.36 a RuntimeClass without a handler is refused with `handler: Required value`; before, with the DNS-label message for the empty string",
        upstream: "pkg/apis/node/validation/validation.go ValidateRuntimeClass",
        key: None,
    },
    Fact {
        change: Change::RuntimeClassTolerationsPath,
        since: 35,
        what: "from 1.35 a RuntimeClass's toleration errors are reported at `scheduling.tolerations[i]`; up to 1.34 at `scheduling.tolerations.tolerations[i]` (the child path passed twice; repeats were always at `scheduling.tolerations[i]`)",
        upstream: "pkg/apis/node/validation/validation.go validateTolerations",
        key: None,
    },
];

/// Each change's first minor, by `Change as usize` (FACTS is in that order: the test below
/// checks it), computed from FACTS at compile time. `since` reads this and not FACTS so that the
/// validators, which ask it on every object, do not reach the facts' texts: those then stay out
/// of the WebAssembly module's first-load part (wasm/scripts/data-split.mjs moves what the
/// first view's code cannot reach).
#[allow(clippy::indexing_slicing)] // const evaluation: an index out of range fails the build
const SINCE: [u32; FACTS.len()] = {
    let mut out = [u32::MAX; FACTS.len()];
    let mut i = 0;
    while i < FACTS.len() {
        out[i] = FACTS[i].since;
        i += 1;
    }
    out
};

impl Change {
    /// The change's row (every change has one: the test below checks it).
    pub fn fact(self) -> Option<&'static Fact> {
        FACTS.iter().find(|f| f.change == self)
    }
    /// The first minor the change holds in.
    pub fn since(self) -> u32 {
        SINCE.get(self as usize).copied().unwrap_or(u32::MAX)
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
            assert_eq!(f.change.since(), f.since, "{:?}", f.change);
            assert!((32..=37).contains(&f.since), "{:?}: {}", f.change, f.since);
            assert!(!f.what.is_empty() && !f.upstream.is_empty());
        }
        assert!(Change::RestartRules.at(34) && !Change::RestartRules.at(33));
        assert!(
            !Change::RestartRuleLimitsTooMany.at(35) && Change::RestartRuleLimitsTooMany.at(36)
        );
    }
}
