//! ObjectMeta as the API server checks it on create (ValidateObjectMeta / ValidateObjectMetaAccessor,
//! k8s.io/apimachinery/pkg/api/validation/objectmeta.go), for the kinds whose name rule and scope
//! restartkit knows: each kind's name rule is the function its upstream Validate passes
//! (pkg/apis/<group>/validation), custom resources get NameIsDNSSubdomain and their CRD's scope
//! (apiextensions-apiserver customresource validator).
//!
//! The create path decides what can be said:
//! - rest.BeforeCreate names an object that has only `generateName` (names.SimpleNameGenerator:
//!   the prefix cut to 58 bytes, then 5 random characters from [a-z0-9]) before validation. Which
//!   of the random characters come out never changes whether the name is valid, so the generated
//!   name is checked with 5 placeholder characters (`xxxxx`, told in the message).
//! - kubectl fills a namespaced object's missing namespace from its context, and the API server
//!   clears the namespace of a cluster-scoped object before validation
//!   (EnsureObjectNamespaceMatchesRequestNamespace): neither is an error.
//!
//! Messages follow each minor's apimachinery: from 1.35 label keys and values, annotation keys and
//! finalizers are checked by the `content` package, whose length limits say "bytes" and whose
//! label-key message says "a valid label key" (before: "characters", "a qualified name"); object
//! names keep "characters" except a ReplicationController's from 1.35 (validate.LongName).

use super::Ctx;
use crate::diag::{Diagnostic, FieldPath, Findings};
use serde_json::Value;
use crate::versions::Change;

/// The rule a kind's upstream Validate passes as its name function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// NameIsDNSSubdomain: at most 253 characters, lowercase RFC 1123 subdomain.
    DnsSubdomain,
    /// NameIsDNSLabel: at most 63 characters, lowercase RFC 1123 label (Namespace, StatefulSet).
    DnsLabel,
    /// Service: NameIsDNS1035Label, or NameIsDNSLabel where the RelaxedServiceNameValidation gate
    /// is on (1.34 alpha, default on from 1.36, locked on in 1.37).
    Service,
    /// RBAC: path-segment names (not `.` or `..`, no `/` or `%`), generateName checked as a name.
    PathSegment,
    /// ReplicationController: NameIsDNSSubdomain up to 1.34; from 1.35 validate.LongName on the
    /// (generated) name only, generateName itself unchecked.
    ReplicationController,
    /// CronJob: NameIsDNSSubdomain, and at most 52 characters (its Jobs get an 11-character suffix).
    CronJob,
    /// The API server's generic check (rest.BeforeCreate's ValidateObjectMetaAccessor with
    /// path.ValidatePathSegmentName), for a kind whose Validate checks no metadata: a name as a
    /// path segment, a generateName only for `/` and `%` (IsValidPathSegmentPrefix).
    GenericPathSegment,
}

/// What restartkit knows of a kind's ObjectMeta check.
#[derive(Debug, Clone, Copy)]
pub struct KindMeta {
    pub group: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
    pub name: NameRule,
    /// Checked by core's ValidateObjectMeta (pkg/apis/core/validation), which adds: a finalizer
    /// without `/` must be a standard one. apimachinery's (RBAC aside, the groups that import it,
    /// and custom resources) does not.
    pub kube_finalizers: bool,
}

const fn k(
    group: &'static str,
    kind: &'static str,
    namespaced: bool,
    name: NameRule,
    kube_finalizers: bool,
) -> KindMeta {
    KindMeta {
        group,
        kind,
        namespaced,
        name,
        kube_finalizers,
    }
}

use NameRule::*;

/// The kinds whose metadata is checked. A kind not listed is not checked (its name rule is not
/// known here; the API server's generic check after a passing Validate is path-segment only).
pub const KINDS: &[KindMeta] = &[
    // core/v1 (pkg/apis/core/validation)
    k("", "Pod", true, DnsSubdomain, true),
    k("", "PodTemplate", true, DnsSubdomain, true),
    k(
        "",
        "ReplicationController",
        true,
        ReplicationController,
        true,
    ),
    k("", "Service", true, Service, true),
    k("", "ConfigMap", true, DnsSubdomain, true),
    k("", "Secret", true, DnsSubdomain, true),
    k("", "ServiceAccount", true, DnsSubdomain, true),
    k("", "Endpoints", true, DnsSubdomain, true),
    k("", "LimitRange", true, DnsSubdomain, true),
    k("", "ResourceQuota", true, DnsSubdomain, true),
    k("", "PersistentVolumeClaim", true, DnsSubdomain, true),
    k("", "PersistentVolume", false, DnsSubdomain, true),
    k("", "Namespace", false, DnsLabel, true),
    k("", "Node", false, DnsSubdomain, true),
    // apps, batch
    k("apps", "Deployment", true, DnsSubdomain, true),
    k("apps", "ReplicaSet", true, DnsSubdomain, true),
    k("apps", "DaemonSet", true, DnsSubdomain, true),
    k("apps", "StatefulSet", true, DnsLabel, true),
    k("apps", "ControllerRevision", true, DnsSubdomain, true),
    k("batch", "Job", true, DnsSubdomain, true),
    k("batch", "CronJob", true, CronJob, true),
    // rbac: ValidateRBACName, core's ValidateObjectMeta
    k("rbac.authorization.k8s.io", "Role", true, PathSegment, true),
    k(
        "rbac.authorization.k8s.io",
        "RoleBinding",
        true,
        PathSegment,
        true,
    ),
    k(
        "rbac.authorization.k8s.io",
        "ClusterRole",
        false,
        PathSegment,
        true,
    ),
    k(
        "rbac.authorization.k8s.io",
        "ClusterRoleBinding",
        false,
        PathSegment,
        true,
    ),
    // networking, autoscaling, scheduling, storage
    k("networking.k8s.io", "Ingress", true, DnsSubdomain, true),
    k(
        "networking.k8s.io",
        "NetworkPolicy",
        true,
        DnsSubdomain,
        true,
    ),
    k(
        "networking.k8s.io",
        "IngressClass",
        false,
        DnsSubdomain,
        true,
    ),
    k(
        "autoscaling",
        "HorizontalPodAutoscaler",
        true,
        DnsSubdomain,
        true,
    ),
    k(
        "scheduling.k8s.io",
        "PriorityClass",
        false,
        DnsSubdomain,
        true,
    ),
    k("storage.k8s.io", "StorageClass", false, DnsSubdomain, true),
    k("storage.k8s.io", "CSIDriver", false, DnsSubdomain, true),
    // apimachinery's ValidateObjectMeta
    k("coordination.k8s.io", "Lease", true, DnsSubdomain, false),
    // Beside the subdomain rule, the name must be `<plural>.<group>` (validate/crd).
    k(
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        false,
        DnsSubdomain,
        false,
    ),
    k("node.k8s.io", "RuntimeClass", false, DnsSubdomain, false),
    k(
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        false,
        DnsSubdomain,
        false,
    ),
    k(
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        false,
        DnsSubdomain,
        false,
    ),
    k(
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        false,
        DnsSubdomain,
        false,
    ),
    k(
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        false,
        DnsSubdomain,
        false,
    ),
    k(
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicy",
        false,
        DnsSubdomain,
        false,
    ),
    k(
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicyBinding",
        false,
        DnsSubdomain,
        false,
    ),
    // Custom resources restartkit reads, with their CRDs' scope.
    k("jobset.x-k8s.io", "JobSet", true, DnsSubdomain, false),
    k(
        "apps.kruise.io",
        "ContainerRecreateRequest",
        true,
        DnsSubdomain,
        false,
    ),
    k(
        "leaderworkerset.x-k8s.io",
        "LeaderWorkerSet",
        true,
        DnsSubdomain,
        false,
    ),
    k(
        "trainer.kubeflow.org",
        "TrainJob",
        true,
        DnsSubdomain,
        false,
    ),
    k(
        "trainer.kubeflow.org",
        "TrainingRuntime",
        true,
        DnsSubdomain,
        false,
    ),
    k(
        "trainer.kubeflow.org",
        "ClusterTrainingRuntime",
        false,
        DnsSubdomain,
        false,
    ),
];

/// The Kubeflow training-operator jobs (kubeflow.org, all namespaced custom resources).
const KUBEFLOW_JOBS: &[&str] = &[
    "PyTorchJob",
    "TFJob",
    "MPIJob",
    "XGBoostJob",
    "PaddleJob",
    "JAXJob",
];

/// The table entry of a kind, if restartkit knows its metadata rules.
pub fn kind_meta(group: &str, kind: &str) -> Option<KindMeta> {
    if group == "kubeflow.org" && KUBEFLOW_JOBS.contains(&kind) {
        return Some(k("kubeflow.org", "", true, DnsSubdomain, false));
    }
    KINDS
        .iter()
        .find(|m| m.group == group && m.kind == kind)
        .copied()
}

/// The 5 characters standing for the random ones the API server appends to `generateName`.
pub const GENERATED_SUFFIX: &str = "xxxxx";
/// names.MaxGeneratedNameLength: 63 - 5.
const MAX_GENERATED_PREFIX: usize = 58;
const GENERATED_NOTE: &str = " (the name the API server generates from generateName; xxxxx stands for its 5 random characters)";

/// The name the API server validates on create: `name`, or when only `generateName` is given the
/// name rest.BeforeCreate generates from it, with [`GENERATED_SUFFIX`] for the random part.
/// Returns the name and whether it was generated.
pub fn name_on_create(name: Option<&str>, generate_name: Option<&str>) -> (String, bool) {
    match (name.filter(|n| !n.is_empty()), generate_name) {
        (Some(n), _) => (n.to_owned(), false),
        (None, Some(g)) if !g.is_empty() => {
            let b = g.as_bytes();
            let prefix = String::from_utf8_lossy(b.get(..MAX_GENERATED_PREFIX).unwrap_or(b));
            (format!("{prefix}{GENERATED_SUFFIX}"), true)
        }
        _ => (String::new(), false),
    }
}

/// Appended to a message whose value is a generated name.
pub fn generated_note(generated: bool) -> &'static str {
    if generated { GENERATED_NOTE } else { "" }
}

// The string rules (util/validation, api/validate/content) are names.rs's.
use super::names::{CHARACTERS, Unit, dns1123_subdomain, mask_trailing_dash};
pub use super::names::{label_value, qualified_name};
pub(crate) use super::names::{dns1035_label, dns1123_label, dns1123_subdomain_name, regex_error};

/// IsValidPathSegmentName; ValidateRBACName checks a generateName the same way.
pub(super) fn path_segment(name: &str) -> Vec<String> {
    if name == "." || name == ".." {
        return vec![format!("may not be '{name}'")];
    }
    ["/", "%"]
        .iter()
        .filter(|c| name.contains(*c))
        .map(|c| format!("may not contain '{c}'"))
        .collect()
}


/// The messages of `rule` for a name, or for a generateName when `prefix`.
fn name_errors(rule: NameRule, value: &str, prefix: bool, ctx: &Ctx) -> Vec<String> {
    let minor = ctx.gates.version.minor;
    let masked = |v: &str| {
        if prefix {
            mask_trailing_dash(v)
        } else {
            v.to_owned()
        }
    };
    match rule {
        DnsSubdomain | CronJob => dns1123_subdomain(&masked(value), CHARACTERS),
        ReplicationController if Change::ReplicationControllerNameOpts.at(minor) => {
            dns1123_subdomain(value, Unit("bytes"))
        }
        ReplicationController => dns1123_subdomain(&masked(value), CHARACTERS),
        DnsLabel => dns1123_label(&masked(value)),
        Service if ctx.gates.enabled("RelaxedServiceNameValidation") => {
            dns1123_label(&masked(value))
        }
        Service => dns1035_label(&masked(value)),
        PathSegment => path_segment(value),
        GenericPathSegment if prefix => ["/", "%"]
            .iter()
            .filter(|c| value.contains(*c))
            .map(|c| format!("may not contain '{c}'"))
            .collect(),
        GenericPathSegment => path_segment(value),
    }
}

// ---------------------------------------------------------------------------------------------
// The check.
// ---------------------------------------------------------------------------------------------

fn str_at<'a>(m: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a str> {
    m.get(key).and_then(Value::as_str)
}

/// A map of strings, or None when the field is absent or not one (the decoder reports that).
fn string_map(v: Option<&Value>) -> Option<Vec<(&str, &str)>> {
    let m = v?.as_object()?;
    m.iter()
        .map(|(k, v)| match v {
            Value::String(s) => Some((k.as_str(), s.as_str())),
            Value::Null => Some((k.as_str(), "")),
            _ => None,
        })
        .collect()
}

/// apimachinery `validation.IsDomainPrefixedPath` (the same at v0.31 and v0.37): a non-empty
/// `host/path` whose host is a DNS-1123 subdomain and whose path matches `httpPathFmt`. A Job's
/// `spec.managedBy` and a TrainJob runtime patch's manager are checked with it.
pub fn domain_prefixed_path(p: &FieldPath, value: &str) -> Vec<Diagnostic> {
    if value.is_empty() {
        return vec![Diagnostic::required(p, "")];
    }
    let Some((host, path)) = value
        .split_once('/')
        .filter(|(h, rest)| !h.is_empty() && !rest.is_empty())
    else {
        return vec![Diagnostic::invalid(
            p,
            value,
            "must be a domain-prefixed path (such as \"acme.io/foo\")",
        )];
    };
    let mut out: Vec<Diagnostic> = super::names::dns1123_subdomain_errors(host)
        .into_iter()
        .map(|e| Diagnostic::invalid(p, host, e))
        .collect();
    if !path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/-._~%!$&'()*+,;=:".contains(c))
    {
        out.push(Diagnostic::invalid(
            p,
            path,
            "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')",
        ));
    }
    out
}

/// ObjectMeta on create for one object of `group`/`kind`, into `out`. Kinds not in [`KINDS`]
/// (nor a Kubeflow job) are not checked.
pub fn check(group: &str, kind: &str, obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let Some(rule) = kind_meta(group, kind) else {
        return;
    };
    check_with(rule, group, kind, obj, ctx, out);
}

/// Whether the metadata of an object of `group`/`kind` passes [`check`]: rest.BeforeCreate asks a
/// strategy for its warnings only of an object that passed, its metadata too, so the kinds with
/// create warnings ask this before giving them.
pub(super) fn passes(group: &str, kind: &str, obj: &Value, ctx: &Ctx) -> bool {
    let mut meta = Findings::default();
    check(group, kind, obj, ctx, &mut meta);
    meta.errors.is_empty()
}

/// The metadata check of a custom resource of a CRD restartkit was given (its scope from the
/// CRD): the customresource validator's, NameIsDNSSubdomain and no standard-finalizer rule, as
/// for the custom resources restartkit knows.
pub fn check_custom_resource(
    group: &str,
    kind: &str,
    namespaced: bool,
    obj: &Value,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let rule = KindMeta {
        group: "",
        kind: "",
        namespaced,
        name: NameRule::DnsSubdomain,
        kube_finalizers: false,
    };
    check_with(rule, group, kind, obj, ctx, out);
}

/// The API server's generic metadata check (ValidateObjectMetaAccessor after a passing Validate,
/// apimachinery's rules: no standard-finalizer rule), for a kind whose Validate checks none; the
/// caller runs it only when the kind's own validation found nothing, as rest.BeforeCreate does.
pub fn check_generic(
    group: &str,
    kind: &str,
    namespaced: bool,
    obj: &Value,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let rule = KindMeta {
        group: "",
        kind: "",
        namespaced,
        name: NameRule::GenericPathSegment,
        kube_finalizers: false,
    };
    check_with(rule, group, kind, obj, ctx, out);
}

fn check_with(rule: KindMeta, group: &str, kind: &str, obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let empty = serde_json::Map::new();
    let meta = match obj.get("metadata") {
        Some(Value::Object(m)) => m,
        None | Some(Value::Null) => &empty,
        // Not a mapping: a decoding error, said where the object is decoded.
        Some(_) => return,
    };
    let minor = ctx.gates.version.minor;
    let mp = FieldPath::new("metadata");

    // Names. ValidateObjectMetaWithOpts (ReplicationController from 1.35) leaves generateName
    // alone; ValidateObjectMeta checks it as a prefix.
    let name = str_at(meta, "name");
    let generate_name = str_at(meta, "generateName").filter(|g| !g.is_empty());
    if let Some(g) = generate_name
        && !(rule.name == ReplicationController && Change::ReplicationControllerNameOpts.at(minor))
    {
        for msg in name_errors(rule.name, g, true, ctx) {
            out.push(Diagnostic::invalid(&mp.child("generateName"), g, msg));
        }
    }
    let (checked_name, generated) = name_on_create(name, generate_name);
    let np = mp.child("name");
    if checked_name.is_empty() {
        // The LimitRange strategy's PrepareForCreate names an unnamed LimitRange with a UUID.
        if !(group.is_empty() && kind == "LimitRange") {
            out.push(Diagnostic::required(
                &np,
                "name or generateName is required",
            ));
        }
    } else {
        let note = generated_note(generated);
        let mut invalid = |msg: String| {
            let mut d = Diagnostic::invalid(&np, checked_name.as_str(), msg);
            d.message.push_str(note);
            out.push(d);
        };
        for msg in name_errors(rule.name, &checked_name, false, ctx) {
            invalid(msg);
        }
        if rule.name == CronJob && checked_name.len() > 52 {
            invalid("must be no more than 52 characters".to_owned());
        }
        if group == "batch" && kind == "Job" {
            job_name_label(obj, &checked_name, note, minor, out);
        }
    }

    // Namespace: only a namespaced kind's, when given (see the module's note).
    if rule.namespaced
        && let Some(ns) = str_at(meta, "namespace").filter(|n| !n.is_empty())
    {
        for msg in dns1123_label(ns) {
            out.push(Diagnostic::invalid(&mp.child("namespace"), ns, msg));
        }
    }

    if let Some(g) = meta.get("generation").and_then(Value::as_i64)
        && g < 0
        && !generation_set_on_create(group, kind, ctx)
    {
        out.push(Diagnostic::invalid(
            &mp.child("generation"),
            g,
            "must be greater than or equal to 0",
        ));
    }

    let mut labels = string_map(meta.get("labels"));
    if group == "batch" && kind == "Job" && !ctx.skip_defaulting && !checked_name.is_empty() {
        labels = job_labels(obj, labels, &checked_name);
    }
    // Namespace defaulting (SetDefaults_Namespace) labels a named Namespace with its name.
    if group.is_empty() && kind == "Namespace" && !ctx.skip_defaulting && !generated {
        let l = labels.get_or_insert_with(Vec::new);
        l.retain(|(k, _)| *k != NAMESPACE_NAME_LABEL);
        l.push((NAMESPACE_NAME_LABEL, checked_name.as_str()));
    }
    if let Some(labels) = labels {
        super::selector::validate_labels(&labels, &mp.child("labels"), minor, out);
    }

    if let Some(annotations) = string_map(meta.get("annotations")) {
        validate_annotations(&annotations, &mp.child("annotations"), minor, out);
    }

    if let Some(refs) = meta.get("ownerReferences").and_then(Value::as_array) {
        owner_references(refs, &mp.child("ownerReferences"), minor, out);
    }

    if let Some(list) = meta.get("finalizers").and_then(Value::as_array)
        && let Some(finalizers) = list.iter().map(Value::as_str).collect::<Option<Vec<_>>>()
    {
        finalizer_errors(&finalizers, &mp.child("finalizers"), rule, minor, out);
    }
}

/// apimachinery ValidateAnnotations: each key a qualified name (checked lowercased: case does
/// not matter for an annotation key), and keys and values together at most 256 KiB.
fn validate_annotations(
    annotations: &[(&str, &str)],
    ap: &FieldPath,
    minor: u32,
    out: &mut Findings,
) {
    let mut size = 0usize;
    for (key, value) in annotations {
        for msg in qualified_name(&key.to_lowercase(), minor) {
            out.push(Diagnostic::invalid(ap, *key, msg));
        }
        size += key.len() + value.len();
    }
    if size > TOTAL_ANNOTATION_SIZE_LIMIT {
        out.push(Diagnostic::too_long(ap, "", TOTAL_ANNOTATION_SIZE_LIMIT));
    }
}

/// The metadata checks ValidatePodTemplateSpec runs on a template at `p` (pkg/apis/core/
/// validation, 1.31 to 1.37): ValidateLabels at `p.labels` and ValidateAnnotations at
/// `p.annotations` (upstream's paths leave out `metadata`). Every controller kind's template
/// gets them: Deployment and ReplicaSet (ValidatePodTemplateSpecForReplicaSet), DaemonSet,
/// ReplicationController, Job and CronJob (validateJobSpec), PodTemplate, and StatefulSet, whose
/// ValidatePodTemplateSpecForStatefulSet calls them itself before 1.34 too. The template's name,
/// namespace and the rest of its ObjectMeta are not checked.
pub fn template_metadata(
    meta: Option<&crate::api::ObjectMeta>,
    p: &FieldPath,
    minor: u32,
    out: &mut Findings,
) {
    let Some(m) = meta else { return };
    if let Some(labels) = &m.labels {
        let pairs: Vec<(&str, &str)> = labels
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        super::selector::validate_labels(&pairs, &p.child("labels"), minor, out);
    }
    if let Some(annotations) = &m.annotations {
        let pairs: Vec<(&str, &str)> = annotations
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        validate_annotations(&pairs, &p.child("annotations"), minor, out);
    }
}

/// ObjectMeta's members in the Go struct's order, with the name validateFieldAllowList gives a
/// set one (the Go name with its first letter lowered: `uID`). Labels and annotations are the
/// two a template may set.
const TEMPLATE_FORBIDDEN_META: [(&str, &str); 13] = [
    ("name", "name"),
    ("generateName", "generateName"),
    ("namespace", "namespace"),
    ("selfLink", "selfLink"),
    ("uid", "uID"),
    ("resourceVersion", "resourceVersion"),
    ("generation", "generation"),
    ("creationTimestamp", "creationTimestamp"),
    ("deletionTimestamp", "deletionTimestamp"),
    ("deletionGracePeriodSeconds", "deletionGracePeriodSeconds"),
    ("ownerReferences", "ownerReferences"),
    ("finalizers", "finalizers"),
    ("managedFields", "managedFields"),
];

/// ValidateTemplateObjectMeta (an ephemeral volume's claim template): annotations, labels, and
/// every other member Forbidden ("cannot be set") when it is not its Go zero value: an empty
/// string, 0, the zero time and null are zero; a list, even empty, and a pointer (a
/// `deletionGracePeriodSeconds` of 0) are not.
pub(super) fn template_object_meta(m: &Value, p: &FieldPath, minor: u32, out: &mut Findings) {
    let pairs = |key: &str| -> Vec<(&str, &str)> {
        m.get(key)
            .and_then(Value::as_object)
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or("")))
                    .collect()
            })
            .unwrap_or_default()
    };
    validate_annotations(&pairs("annotations"), &p.child("annotations"), minor, out);
    super::selector::validate_labels(&pairs("labels"), &p.child("labels"), minor, out);
    for (key, shown) in TEMPLATE_FORBIDDEN_META {
        let set = match m.get(key) {
            None | Some(Value::Null) => false,
            Some(Value::String(s)) => !(s.is_empty() || s == "0001-01-01T00:00:00Z"),
            Some(Value::Number(n)) => key == "deletionGracePeriodSeconds" || n.as_f64() != Some(0.0),
            Some(_) => true,
        };
        if set {
            out.push(Diagnostic::forbidden(&p.child(shown), "cannot be set"));
        }
    }
}

/// The label SetDefaults_Namespace gives a Namespace that has a name.
const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// Whether the kind's PrepareForCreate sets `generation` to 1 before validation, so that a
/// negative one is never seen: the workload controllers, Ingress, NetworkPolicy, IngressClass,
/// PriorityClass, the webhook configurations and custom resources always; a Pod from 1.33; a
/// HorizontalPodAutoscaler under the HPAGeneration gate.
fn generation_set_on_create(group: &str, kind: &str, ctx: &Ctx) -> bool {
    match (group, kind) {
        ("", "PodTemplate" | "ReplicationController")
        | ("apps", "Deployment" | "ReplicaSet" | "DaemonSet" | "StatefulSet")
        | ("batch", "Job" | "CronJob")
        | ("networking.k8s.io", "Ingress" | "NetworkPolicy" | "IngressClass")
        | ("scheduling.k8s.io", "PriorityClass")
        | (
            "admissionregistration.k8s.io",
            "ValidatingWebhookConfiguration"
            | "MutatingWebhookConfiguration"
            | "ValidatingAdmissionPolicy"
            | "ValidatingAdmissionPolicyBinding"
            | "MutatingAdmissionPolicy"
            | "MutatingAdmissionPolicyBinding",
        ) => true,
        ("", "Pod") => Change::PodGenerationOnCreate.at(ctx.gates.version.minor),
        ("autoscaling", "HorizontalPodAutoscaler") => ctx.gates.enabled("HPAGeneration"),
        // Built-in kinds not named above keep the given generation.
        ("", _)
        | ("apps" | "batch" | "rbac.authorization.k8s.io" | "autoscaling", _)
        | ("coordination.k8s.io" | "node.k8s.io" | "storage.k8s.io", _) => false,
        // Custom resources: the customresource strategy sets it.
        _ => true,
    }
}

/// apimachinery's TotalAnnotationSizeLimitB: 256 KiB over every key and value.
const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// A Job whose selector the API server generates gets its name as the value of its Pod
/// template's `job-name` and `batch.kubernetes.io/job-name` labels (the Job strategy's
/// generateSelector, before validation); a name that is no label value (longer than 63, or not
/// ending in an alphanumeric) makes the template's labels invalid, at `spec.template.labels`.
fn job_name_label(obj: &Value, name: &str, note: &str, minor: u32, out: &mut Findings) {
    let spec = obj.get("spec");
    if spec
        .and_then(|s| s.get("manualSelector"))
        .and_then(Value::as_bool)
        == Some(true)
    {
        return;
    }
    let labels = spec
        .and_then(|s| s.get("template"))
        .and_then(|t| t.get("metadata"))
        .and_then(|m| m.get("labels"));
    // ValidatePodTemplateSpec checks the template's labels at `template.labels`; each label
    // generateSelector adds (those the user did not set) is refused on its own.
    let p = FieldPath::new("spec").child("template").child("labels");
    for key in JOB_NAME_LABELS {
        if labels.and_then(|l| l.get(key)).is_some() {
            continue;
        }
        for msg in label_value(name, minor) {
            let mut d = Diagnostic::invalid(&p, name, msg);
            d.message.push_str(note);
            out.push(d);
        }
    }
}

/// The labels a Job has when validated. SetDefaults_Job gives a Job without labels its Pod
/// template's label map (when the template has one, even empty): the very map, not a copy, so
/// the `job-name` labels generateSelector then adds to the template land in the Job's own
/// labels too, and a name that is no label value is refused at `metadata.labels` as well.
fn job_labels<'a>(
    obj: &'a Value,
    own: Option<Vec<(&'a str, &'a str)>>,
    name: &'a str,
) -> Option<Vec<(&'a str, &'a str)>> {
    if own.as_ref().is_some_and(|l| !l.is_empty()) {
        return own;
    }
    let spec = obj.get("spec");
    let Some(mut shared) = spec
        .and_then(|s| s.get("template"))
        .and_then(|t| t.get("metadata"))
        .and_then(|m| m.get("labels"))
        .filter(|l| l.is_object())
        .and_then(|l| string_map(Some(l)))
    else {
        return own;
    };
    let manual = spec
        .and_then(|s| s.get("manualSelector"))
        .and_then(Value::as_bool)
        == Some(true);
    if !manual {
        for key in JOB_NAME_LABELS {
            if !shared.iter().any(|(k, _)| *k == key) {
                shared.push((key, name));
            }
        }
    }
    Some(shared)
}

/// The labels generateSelector gives a Job's Pod template with the Job's name.
const JOB_NAME_LABELS: [&str; 2] = ["job-name", "batch.kubernetes.io/job-name"];

/// apimachinery's ParseGroupVersion: None where it fails (more than one `/`).
fn parse_group_version(gv: &str) -> Option<(&str, &str)> {
    if gv.is_empty() || gv == "/" {
        return Some(("", ""));
    }
    match gv.matches('/').count() {
        0 => Some(("", gv)),
        1 => gv.split_once('/'),
        _ => None,
    }
}

/// ValidateOwnerReferences. Up to 1.36 every reference's errors sit at the list's path and are
/// Invalid ("kind must not be empty" up to 1.33, "must not be empty" from 1.34); from 1.37 at the
/// reference's index, Required for a missing field and Invalid for an apiVersion that does not
/// parse.
fn owner_references(refs: &[Value], p: &FieldPath, minor: u32, out: &mut Findings) {
    let mut first_controller: Option<String> = None;
    for (i, r) in refs.iter().enumerate() {
        let get = |key: &str| r.get(key).and_then(Value::as_str).unwrap_or("");
        let (api_version, kind, name, uid) =
            (get("apiVersion"), get("kind"), get("name"), get("uid"));
        let per_index = Change::OwnerReferencesPerIndex.at(minor);
        let rp = if per_index { p.index(i) } else { p.clone() };
        let gv = parse_group_version(api_version);
        if per_index {
            if api_version.is_empty() {
                out.push(Diagnostic::required(
                    &rp.child("apiVersion"),
                    "must not be empty",
                ));
            } else if gv.is_none_or(|(_, v)| v.is_empty()) {
                out.push(Diagnostic::invalid(
                    &rp.child("apiVersion"),
                    api_version,
                    "must be <group>/<version> or <version>",
                ));
            }
            for (key, value) in [("kind", kind), ("name", name), ("uid", uid)] {
                if value.is_empty() {
                    out.push(Diagnostic::required(&rp.child(key), "must not be empty"));
                }
            }
        } else {
            if gv.is_none_or(|(_, v)| v.is_empty()) {
                out.push(Diagnostic::invalid(
                    &rp.child("apiVersion"),
                    api_version,
                    "version must not be empty",
                ));
            }
            for (key, value) in [("kind", kind), ("name", name), ("uid", uid)] {
                if value.is_empty() {
                    let msg = if Change::OwnerReferenceEmptyWording.at(minor) {
                        "must not be empty".to_owned()
                    } else {
                        format!("{key} must not be empty")
                    };
                    out.push(Diagnostic::invalid(&rp.child(key), value, msg));
                }
            }
        }
        // BannedOwners: an Event may own nothing.
        let (group, version) = gv.unwrap_or(("", ""));
        if group.is_empty() && version == "v1" && kind == "Event" {
            out.push(Diagnostic::invalid(
                &rp,
                r.clone(),
                "/v1, Kind=Event is disallowed from being an owner",
            ));
        }
        if r.get("controller").and_then(Value::as_bool) == Some(true) {
            let this = format!("{kind}/{name}");
            match &first_controller {
                Some(first) => out.push(Diagnostic::invalid(
                    p,
                    Value::Array(refs.to_vec()),
                    format!(
                        "Only one reference can have Controller set to true. Found \"true\" in references for {first} and {this}"
                    ),
                )),
                None => first_controller = Some(this),
            }
        }
    }
}

/// ValidateFinalizers (each a qualified name; not both `orphan` and `foregroundDeletion`), and
/// with core's ValidateObjectMeta a finalizer without `/` must be a standard one.
fn finalizer_errors(
    finalizers: &[&str],
    p: &FieldPath,
    rule: KindMeta,
    minor: u32,
    out: &mut Findings,
) {
    for f in finalizers {
        for msg in qualified_name(f, minor) {
            out.push(Diagnostic::invalid(p, *f, msg));
        }
    }
    if finalizers.contains(&"orphan") && finalizers.contains(&"foregroundDeletion") {
        out.push(Diagnostic::invalid(
            p,
            Value::from(finalizers.to_vec()),
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
    if rule.kube_finalizers {
        for (i, f) in finalizers.iter().enumerate() {
            if !f.contains('/') && !["kubernetes", "orphan", "foregroundDeletion"].contains(f) {
                out.push(Diagnostic::invalid(
                    &p.index(i),
                    *f,
                    "name is neither a standard finalizer name nor is it fully qualified",
                ));
            }
        }
    }
}

/// [`check`] for an object validated outside `validate_value` (a TrainJob read with its
/// runtimes), worded for the targeted minor.
pub fn findings(obj: &Value, ctx: &Ctx) -> Findings {
    let mut out = Findings::default();
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let group = api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("");
    check(group, kind, obj, ctx, &mut out);
    for d in out.all_mut() {
        d.reword_for(ctx.gates.version.minor);
    }
    out
}
