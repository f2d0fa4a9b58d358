//! Which validator a document goes to, by apiVersion and kind; and the workloads that only embed
//! a Pod, Job or JobSet template (Deployment, CronJob, Kubeflow runtimes, …).

// The templates a workload embeds, checked where upstream checks them (at their old place for
// the validators that call them here).
use super::Ctx;
pub(super) use super::template::*;
use crate::api::{ContainerRecreateRequest, Job, JobSet, KubeletConfiguration, Pod};
use crate::diag::{Diagnostic, FieldPath, Findings, Severity};
use serde_json::Value;

fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |cur, k| cur.get(*k))
}

fn info(out: &mut Findings, code: &str, msg: String) {
    out.push(Diagnostic::request(code, "", msg).with_severity(Severity::Info));
}

// Each kind's validator beyond the workloads the playground's first view validates (Service,
// ConfigMap, PVC, ... ResourceQuota) is `#[inline(never)]`: inlined here they made this one
// function, which every Pod's validation runs, carry all of their code into the wasm module's
// first-load part (+7 KiB gzipped with ResourceQuota and LimitRange); apart, the split keeps
// the ones the first view does not call in the on-demand part.
/// Dispatches one document; returns whether restartkit models its kind.
pub(super) fn validate_kind(
    group: &str,
    api_version: &str,
    kind: &str,
    obj: &Value,
    ctx: &Ctx,
    out: &mut Findings,
) -> bool {
    match (group, kind) {
        ("", "Pod") if api_version == "v1" => {
            if let Some(mut pod) = decode(obj, &FieldPath::root(), out) {
                let pod: &mut Pod = &mut pod;
                if !ctx.skip_defaulting {
                    super::pod::default_pod_spec(&mut pod.spec);
                    super::pod_dns::default_host_network_ports(&mut pod.spec);
                    super::pod_scheduling::merge_match_label_keys(pod, ctx);
                }
                super::pod::validate_pod(pod, ctx, out);
            }
            true
        }
        ("batch", "Job") => {
            if let Some(mut job) = decode::<Job>(obj, &FieldPath::root(), out) {
                if !ctx.skip_defaulting {
                    super::job::default_job_spec(&mut job.spec);
                }
                super::job::validate_job(&job, ctx, out);
            }
            super::controllers::job_selector(obj, ctx, out);
            true
        }
        ("batch", "CronJob") => {
            super::cron::validate_cron_job(obj, ctx, out, |out| cronjob_job_spec(obj, ctx, out));
            true
        }
        ("jobset.x-k8s.io", "JobSet") => {
            if let Some(mut js) = decode::<JobSet>(obj, &FieldPath::root(), out) {
                if !ctx.skip_defaulting {
                    super::jobset::default_jobset_spec(&mut js.spec);
                }
                super::jobset::validate_jobset(&js, ctx, out);
            }
            true
        }
        ("trainer.kubeflow.org", "ClusterTrainingRuntime" | "TrainingRuntime") => {
            // The runtime's admission, then the JobSet the trainer builds from it for a
            // TrainJob that sets nothing; what a TrainJob decides waits for one.
            crate::trainer::validate_runtime_alone(obj, ctx, out);
            true
        }
        ("trainer.kubeflow.org", "TrainJob") => {
            // Without a runtime beside it (validate's `source` reads a TrainJob with the
            // runtimes of its stream and of `runtimes`).
            crate::trainer::op::validate_alone(obj, ctx, out);
            true
        }
        ("kubelet.config.k8s.io", "KubeletConfiguration") | ("", "KubeletConfiguration") => {
            if api_version.is_empty() {
                out.push(Diagnostic::lint(
                    "missing-api-version",
                    &FieldPath::new("apiVersion"),
                    "KubeletConfiguration without apiVersion: the kubelet expects kubelet.config.k8s.io/v1beta1",
                ));
            }
            if let Some(mut cfg) = decode::<KubeletConfiguration>(obj, &FieldPath::root(), out) {
                if !ctx.skip_defaulting {
                    super::kubelet_config::default_kubelet_config(&mut cfg, ctx);
                }
                super::kubelet_config::validate_kubelet_config(&cfg, ctx, out);
            }
            true
        }
        ("apps.kruise.io", "ContainerRecreateRequest") => {
            if let Some(crr) = decode::<ContainerRecreateRequest>(obj, &FieldPath::root(), out) {
                super::crr::validate_crr_manifest(&crr, ctx, out);
            }
            true
        }
        ("apps", "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet")
        | ("", "ReplicationController") => {
            super::controllers::validate(kind, obj, ctx, out);
            true
        }
        ("", "Service") if api_version == "v1" => {
            super::service::validate(obj, ctx, out);
            true
        }
        ("", "ConfigMap") if api_version == "v1" => {
            super::configmap::validate_config_map(obj, ctx, out);
            true
        }
        ("", "PersistentVolume") if api_version == "v1" => {
            super::pv::validate(obj, ctx, out);
            true
        }
        ("", "PersistentVolumeClaim") if api_version == "v1" => {
            super::pvc::validate(obj, ctx, out);
            true
        }
        ("policy", "PodDisruptionBudget") if api_version == "policy/v1" => {
            super::pdb::validate(obj, ctx, out);
            true
        }
        ("scheduling.k8s.io", "PriorityClass") if api_version == "scheduling.k8s.io/v1" => {
            super::priority_class::validate(obj, ctx, out);
            true
        }
        ("", "ResourceQuota") if api_version == "v1" => {
            super::resource_quota::validate(obj, ctx, out);
            true
        }
        ("", "LimitRange") if api_version == "v1" => {
            super::limit_range::validate(obj, ctx, out);
            true
        }
        ("node.k8s.io", "RuntimeClass") if api_version == "node.k8s.io/v1" => {
            super::runtime_class::validate(obj, ctx, out);
            true
        }
        ("storage.k8s.io", "CSIDriver") if api_version == "storage.k8s.io/v1" => {
            super::csi_driver::validate(obj, ctx, out);
            true
        }
        ("storage.k8s.io", "StorageClass") if api_version == "storage.k8s.io/v1" => {
            super::storage_class::validate(obj, ctx, out);
            true
        }
        ("admissionregistration.k8s.io", k)
            if api_version == "admissionregistration.k8s.io/v1"
                && matches!(
                    k,
                    "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration"
                ) =>
        {
            let flavour = if k == "MutatingWebhookConfiguration" {
                super::webhook_config::Flavour::Mutating
            } else {
                super::webhook_config::Flavour::Validating
            };
            super::webhook_config::validate(flavour, obj, ctx, out);
            true
        }
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy")
            if api_version == "admissionregistration.k8s.io/v1" =>
        {
            super::admission_policy::validate_policy(obj, ctx, out);
            true
        }
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding")
            if api_version == "admissionregistration.k8s.io/v1" =>
        {
            super::admission_policy::validate_binding(obj, ctx, out);
            true
        }
        // One internal type behind v1alpha1 (1.32 on), v1beta1 (1.34 on) and v1 (1.36 on); the
        // decoder has refused a version the minor does not serve.
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicy")
            if api_version.starts_with("admissionregistration.k8s.io/") =>
        {
            super::admission_policy::validate_mutating_policy(obj, ctx, out);
            true
        }
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding")
            if api_version.starts_with("admissionregistration.k8s.io/") =>
        {
            super::admission_policy::validate_mutating_binding(obj, ctx, out);
            true
        }
        ("networking.k8s.io", "Ingress") if api_version == "networking.k8s.io/v1" => {
            super::ingress::validate_ingress(obj, ctx, out);
            true
        }
        ("networking.k8s.io", "IngressClass") if api_version == "networking.k8s.io/v1" => {
            super::ingress::validate_ingress_class(obj, ctx, out);
            true
        }
        ("networking.k8s.io", "NetworkPolicy") if api_version == "networking.k8s.io/v1" => {
            super::network_policy::validate(obj, ctx, out);
            true
        }
        ("autoscaling", "HorizontalPodAutoscaler")
            if matches!(api_version, "autoscaling/v1" | "autoscaling/v2") =>
        {
            super::hpa::validate(api_version == "autoscaling/v1", obj, ctx, out);
            true
        }
        ("rbac.authorization.k8s.io", k) if api_version == "rbac.authorization.k8s.io/v1" => {
            match super::rbac::Kind::of(k) {
                Some(kind) => {
                    super::rbac::validate(kind, obj, ctx, out);
                    true
                }
                None => false,
            }
        }
        ("apiextensions.k8s.io", "CustomResourceDefinition")
            if api_version == "apiextensions.k8s.io/v1" =>
        {
            super::crd::validate(obj, ctx, out);
            true
        }
        ("coordination.k8s.io", "Lease") if api_version == "coordination.k8s.io/v1" => {
            super::lease::validate(obj, ctx, out);
            true
        }
        ("", "Endpoints") if api_version == "v1" => {
            super::endpoints::validate(obj, ctx, out);
            true
        }
        ("", "Namespace") if api_version == "v1" => {
            super::namespace::validate(obj, ctx, out);
            true
        }
        ("", "ServiceAccount") if api_version == "v1" => {
            super::service_account::validate(obj, ctx, out);
            true
        }
        ("", "Secret") if api_version == "v1" => {
            super::configmap::validate_secret(obj, ctx, out);
            true
        }
        ("", "PodTemplate") => {
            pod_template(obj, ctx, out);
            true
        }
        ("leaderworkerset.x-k8s.io", "LeaderWorkerSet") => {
            leader_worker_templates(obj, ctx, out);
            true
        }
        ("kubeflow.org", k) if k.ends_with("Job") => {
            // Training-operator jobs: the operator creates each replica's Pods itself, with
            // replicaSpecs.<role>.restartPolicy copied over the template's (ExitCode becomes
            // Never; pkg/controller.v1/common/pod.go setRestartPolicy); kube-apiserver then
            // validates them as Pods.
            if let Some(spec) = obj.get("spec").and_then(Value::as_object) {
                for (key, specs) in spec {
                    if !key.ends_with("ReplicaSpecs") {
                        continue;
                    }
                    if let Some(roles) = specs.as_object() {
                        for (role, replica) in roles {
                            let p = FieldPath::new("spec")
                                .child(key)
                                .child(role)
                                .child("template");
                            let policy = replica
                                .get("restartPolicy")
                                .and_then(Value::as_str)
                                .and_then(|r| match r {
                                    "ExitCode" => Some("Never"),
                                    "Always" | "OnFailure" | "Never" => Some(r),
                                    _ => None,
                                });
                            pod_template_at(replica.get("template"), &p, policy, ctx, out);
                        }
                    }
                }
            }
            true
        }
        _ => {
            info(
                out,
                "kind-not-modelled",
                if super::unknown_fields::kind_type(api_version, kind, ctx.gates.version.minor)
                    .is_some()
                {
                    // Decoding and unknown fields were checked by the caller.
                    format!(
                        "{api_version} {kind}: no restart or failure fields restartkit models; its fields' types and unknown fields were checked, the rest of its validation is left to the cluster"
                    )
                } else {
                    format!(
                        "{api_version} {kind}: no restart or failure fields restartkit models; passed over"
                    )
                },
            );
            false
        }
    }
}

/// Unknown fields, as the API server's decoding finds them: of the built-in kinds, against the
/// targeted minor's types; of the Job templates a JobSet embeds, against the JobSet CRD's schema
/// (pruned, or refused under `Strict`), then against the targeted minor, whose API server drops
/// what it does not know from the Jobs the JobSet controller creates (a warning whatever the
/// field validation: the JobSet itself is accepted). Returns the object without them, when any.
pub(super) fn unknown_fields(
    api_version: &str,
    kind: &str,
    obj: &Value,
    ctx: &Ctx,
    out: &mut Findings,
) -> Option<Value> {
    use super::unknown_fields::{self as uf, Allow, JOBSET_SCHEMA_MINOR};
    let minor = ctx.gates.version.minor;
    let allow = Allow {
        future_rules: ctx.future_rules,
    };
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    if group == "kubelet.config.k8s.io"
        && let Some(t) = uf::kind_type(api_version, kind, minor)
    {
        // The kubelet's own decoding: a warning whatever the field validation.
        let unknown = uf::find(t, obj, &FieldPath::root(), minor, allow);
        if unknown.is_empty() {
            return None;
        }
        for u in &unknown {
            out.push(u.kubelet_diagnostic(minor));
        }
        let mut pruned = obj.clone();
        uf::prune(t, &mut pruned, minor, allow);
        return Some(pruned);
    }
    if let Some(t) = uf::kind_type(api_version, kind, minor) {
        let before = out.errors.len();
        let pruned = uf::check(
            t,
            obj,
            &FieldPath::root(),
            minor,
            ctx.field_validation,
            allow,
            out,
        );
        // Under Strict the API server refuses the request with its decoding preamble:
        // `Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown
        // field "…"` (handlers/rest.go transformDecodeError); each diagnostic starts with it.
        let version = api_version.rsplit_once('/').map_or(api_version, |(_, v)| v);
        for d in out.errors.iter_mut().skip(before) {
            if d.code.as_deref() == Some("unknown-field") {
                d.message = format!(
                    "{kind} in version {version:?} cannot be handled as a {kind}: {}",
                    d.message
                );
            }
        }
        return pruned;
    }
    if (group, kind) != ("jobset.x-k8s.io", "JobSet") {
        return None;
    }
    let tmpl = uf::type_named("JobTemplateSpec")?;
    let rjs = at(obj, &["spec", "replicatedJobs"]).and_then(Value::as_array)?;
    let p = FieldPath::new("spec").child("replicatedJobs");
    let mut pruned: Option<Value> = None;
    for (i, rj) in rjs.iter().enumerate() {
        let Some(t) = rj.get("template") else {
            continue;
        };
        let tp = p.index(i).child("template");
        let after_crd = uf::check(
            tmpl,
            t,
            &tp,
            JOBSET_SCHEMA_MINOR,
            ctx.field_validation,
            allow,
            out,
        );
        let t1 = after_crd.as_ref().unwrap_or(t);
        let dropped = uf::find(tmpl, t1, &tp, minor, allow);
        for u in &dropped {
            out.push(Diagnostic::lint(
                "field-dropped",
                &u.path,
                format!(
                    "{}: Kubernetes 1.{minor}'s API server drops this field from the Jobs the JobSet controller creates ({}{}), so it has no effect there",
                    u.path,
                    u.type_name,
                    match u.elsewhere {
                        Some((since, _)) if since > minor => format!(" has it from 1.{since}"),
                        _ => " does not have it".to_owned(),
                    }
                ),
            ));
        }
        if after_crd.is_none() && dropped.is_empty() {
            continue;
        }
        let mut t2 = t1.clone();
        uf::prune(tmpl, &mut t2, minor, allow);
        let whole = pruned.get_or_insert_with(|| obj.clone());
        if let Some(slot) = whole
            .get_mut("spec")
            .and_then(|s| s.get_mut("replicatedJobs"))
            .and_then(|r| r.get_mut(i))
            .and_then(|r| r.get_mut("template"))
        {
            *slot = t2;
        }
    }
    pruned
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    fn errs(obj: Value) -> Vec<(String, String, String)> {
        let (f, modelled) = super::super::validate_value(&obj, &Ctx::default());
        assert!(modelled);
        f.errors
            .iter()
            .map(|d| {
                (
                    d.field.clone(),
                    d.error_type.map(|t| format!("{t:?}")).unwrap_or_default(),
                    d.message.clone(),
                )
            })
            .collect()
    }

    fn with_template(api_version: &str, kind: &str, spec: Value) -> Value {
        let t = json!({"metadata": {"labels": {"app": "a"}}, "spec": spec});
        if kind == "PodTemplate" {
            json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}, "template": t})
        } else if kind == "ReplicationController" {
            // A ReplicationController's selector is a plain map of labels (a `matchLabels`
            // there is a value of the wrong type, which the decoder refuses).
            json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"},
                   "spec": {"selector": {"app": "a"}, "template": t}})
        } else {
            json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"},
                   "spec": {"selector": {"matchLabels": {"app": "a"}}, "template": t}})
        }
    }

    const CONTROLLERS: [(&str, &str, &str); 5] = [
        ("apps/v1", "Deployment", "ReplicaSet"),
        ("apps/v1", "ReplicaSet", "ReplicaSet"),
        ("apps/v1", "StatefulSet", "StatefulSet"),
        ("apps/v1", "DaemonSet", "DaemonSet"),
        ("v1", "ReplicationController", "ReplicationController"),
    ];

    /// ValidatePodTemplateSpec's ValidateLabels and ValidateAnnotations on every controller's
    /// template, at upstream's `spec.template.labels` / `.annotations` (no `metadata`); a
    /// StatefulSet's before 1.34 too.
    #[test]
    fn template_labels_and_annotations_are_checked_for_every_controller() {
        let key = "a".repeat(64);
        let bad = |av: &str, kind: &str, minor: u32| {
            let mut obj = with_template(
                av,
                kind,
                json!({"containers": [{"name": "c", "image": "busybox:1.36"}]}),
            );
            let t = if kind == "PodTemplate" {
                obj.get_mut("template").unwrap()
            } else {
                obj.get_mut("spec").unwrap().get_mut("template").unwrap()
            };
            t["metadata"]["labels"][key.as_str()] = json!("v");
            t["metadata"]["annotations"] = json!({"bad key": "v", "Example.com/OK": "v"});
            let ctx = Ctx {
                gates: crate::features::FeatureGates::for_version(crate::features::KubeVersion {
                    minor,
                }),
                ..Ctx::default()
            };
            let (f, _) = super::super::validate_value(&obj, &ctx);
            f.errors
                .iter()
                .filter(|d| d.field.ends_with("labels") || d.field.ends_with("annotations"))
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
        };
        // "63 characters" before 1.34's apimachinery, "63 bytes" from it.
        let label_err = format!("Invalid value: \"{key}\": name part must be no more than 63 ");
        for (av, kind, _) in CONTROLLERS.iter().chain(&[("v1", "PodTemplate", "")]) {
            let prefix = if *kind == "PodTemplate" {
                "template"
            } else {
                "spec.template"
            };
            for minor in [31, 33, 37] {
                let got = bad(av, kind, minor);
                assert_eq!(got.len(), 2, "{kind} 1.{minor}: {got:?}");
                assert!(
                    got[0].starts_with(&format!("{prefix}.labels: {label_err}")),
                    "{kind}: {}",
                    got[0]
                );
                assert!(got[1].starts_with(&format!("{prefix}.annotations: Invalid value: \"bad key\": name part must consist of")), "{kind}: {}", got[1]);
            }
        }
        // A Job's template (validateJobSpec) and a valid template.
        let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
            "spec": {"template": {"metadata": {"annotations": {"bad key": "v"}, "labels": {"ok.example/x": "y"}},
                     "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}});
        let e = errs(job);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].0, "spec.template.annotations");
        let ok = with_template(
            "apps/v1",
            "Deployment",
            json!({"containers": [{"name": "c", "image": "i"}]}),
        );
        assert!(errs(ok).is_empty());
    }

    /// pkg/apis/apps/validation and ValidatePodTemplateSpecForRC: only `Always`, no
    /// activeDeadlineSeconds, with upstream's field paths and messages.
    #[test]
    fn controllers_refuse_other_restart_policies_and_deadlines() {
        for (av, kind, owner) in CONTROLLERS {
            let obj = with_template(
                av,
                kind,
                json!({"restartPolicy": "Never", "activeDeadlineSeconds": 30, "containers": [{"name": "c", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}),
            );
            assert_eq!(
                errs(obj),
                vec![
                    (
                        "spec.template.spec.restartPolicy".to_owned(),
                        "FieldValueNotSupported".to_owned(),
                        "spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\"".to_owned()
                    ),
                    (
                        "spec.template.spec.activeDeadlineSeconds".to_owned(),
                        "FieldValueForbidden".to_owned(),
                        format!("spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in {owner} is not Supported")
                    ),
                ],
                "{kind}"
            );
            // Unset restartPolicy defaults to Always.
            let ok = with_template(
                av,
                kind,
                json!({"containers": [{"name": "c", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}),
            );
            assert_eq!(errs(ok), vec![], "{kind}");
        }
    }

    #[test]
    fn unknown_policy_gets_both_errors() {
        let obj = with_template(
            "apps/v1",
            "Deployment",
            json!({"restartPolicy": "Sometimes", "containers": [{"name": "c", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}),
        );
        let e = errs(obj);
        assert_eq!(e.len(), 2);
        assert!(
            e[0].2
                .ends_with("supported values: \"Always\", \"OnFailure\", \"Never\"")
        );
        assert!(e[1].2.ends_with("supported values: \"Always\""));
    }

    /// ValidatePodTemplate: no restartPolicy restriction, but the PodSpec checks.
    #[test]
    fn pod_template_allows_any_policy_but_checks_the_spec() {
        let obj = with_template(
            "v1",
            "PodTemplate",
            json!({"restartPolicy": "Never", "activeDeadlineSeconds": 30, "containers": [{"name": "c", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}),
        );
        assert_eq!(errs(obj), vec![]);
        let obj = with_template(
            "v1",
            "PodTemplate",
            json!({"activeDeadlineSeconds": 0, "containers": [{"name": "c", "restartPolicy": "Sometimes", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}],
                   "ephemeralContainers": [{"name": "e"}]}),
        );
        let fields: Vec<String> = errs(obj).into_iter().map(|e| e.0).collect();
        assert_eq!(
            fields,
            vec![
                "template.spec.containers[0].restartPolicy",
                "template.spec.activeDeadlineSeconds",
                "template.spec.ephemeralContainers"
            ]
        );
    }

    #[test]
    fn container_rules_in_templates() {
        let rules = json!([{"action": "Bogus", "exitCodes": {"operator": "In", "values": [1]}}]);
        let obj = with_template(
            "apps/v1",
            "StatefulSet",
            json!({"containers": [{"name": "c", "restartPolicy": "Never", "restartPolicyRules": rules, "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}),
        );
        assert_eq!(
            errs(obj)[0].0,
            "spec.template.spec.containers[0].restartPolicyRules[0].action"
        );
    }

    #[test]
    fn absent_templates() {
        let rc = json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "x"}, "spec": {"selector": {"a": "b"}}});
        assert_eq!(
            errs(rc),
            vec![(
                "spec.template".to_owned(),
                "FieldValueRequired".to_owned(),
                "spec.template: Required value".to_owned()
            )]
        );
        // A Deployment without a spec: no selector (Required, and the nil selector matches no
        // labels), and an empty template.
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"}});
        let fields: Vec<String> = errs(d).into_iter().map(|e| e.0).collect();
        assert_eq!(
            fields,
            vec![
                "spec.selector",
                "spec.template.metadata.labels",
                "spec.template.spec.containers"
            ]
        );
    }

    /// SetDefaults_Job does not run on a CronJob's template: Indexed needs explicit completions.
    #[test]
    fn cronjob_template_is_not_job_defaulted() {
        let cj = |spec: Value| {
            json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "x"},
                   "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": spec}}})
        };
        let tmpl = json!({"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}});
        let e = errs(cj(json!({"completionMode": "Indexed", "template": tmpl})));
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0, "spec.jobTemplate.spec.completions");
        assert_eq!(
            errs(cj(
                json!({"completionMode": "Indexed", "completions": 2, "template": tmpl,
                "successPolicy": {"rules": [{"succeededIndexes": "1-"}]}})
            ))[0]
                .0,
            "spec.jobTemplate.spec.successPolicy.rules[0].succeededIndexes"
        );
        // Always (the Pod default) is refused for a Job's Pods; a missing template likewise.
        let e = errs(cj(
            json!({"template": {"spec": {"containers": [{"name": "c", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}}}),
        ));
        assert_eq!(e[0].0, "spec.jobTemplate.spec.template.spec.restartPolicy");
        let e =
            errs(json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "x"}}));
        let fields: Vec<&str> = e.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(
            fields,
            vec![
                "spec.schedule",
                "spec.jobTemplate.spec.template.spec.containers",
                "spec.jobTemplate.spec.template.spec.restartPolicy"
            ]
        );
    }

    fn lws(leader: Option<Value>, worker: Value, size: i64) -> Value {
        let mut lwt = json!({"size": size, "restartPolicy": "RecreateGroupOnPodRestart", "workerTemplate": worker});
        if let Some(l) = leader {
            lwt["leaderTemplate"] = l;
        }
        json!({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
               "metadata": {"name": "x"}, "spec": {"leaderWorkerTemplate": lwt}})
    }

    /// The LWS controller creates StatefulSets from the templates: StatefulSet's rules apply to
    /// the templates it uses.
    #[test]
    fn leader_worker_set_templates_are_statefulset_templates() {
        let never = json!({"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}});
        let ok = json!({"spec": {"containers": [{"name": "c", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}});
        let fields = |obj| -> Vec<String> { errs(obj).into_iter().map(|e| e.0).collect() };
        assert_eq!(
            fields(lws(None, never.clone(), 1)),
            vec!["spec.leaderWorkerTemplate.workerTemplate.spec.restartPolicy"]
        );
        assert_eq!(
            fields(lws(Some(never.clone()), ok.clone(), 4)),
            vec!["spec.leaderWorkerTemplate.leaderTemplate.spec.restartPolicy"]
        );
        // size 1 with a leader template: no worker StatefulSet, the worker template is unused.
        assert!(fields(lws(Some(ok.clone()), never.clone(), 1)).is_empty());
        assert_eq!(
            fields(lws(Some(ok), never, 2)),
            vec!["spec.leaderWorkerTemplate.workerTemplate.spec.restartPolicy"]
        );
        let deadline = json!({"spec": {"activeDeadlineSeconds": 5, "containers": [{"name": "c", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}});
        let e = errs(lws(None, deadline, 3));
        assert_eq!(
            e[0].2,
            "spec.leaderWorkerTemplate.workerTemplate.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported"
        );
    }

    /// The training operator writes the replica's restartPolicy over the template's.
    #[test]
    fn kubeflow_replica_restart_policy_replaces_the_templates() {
        let job = |replica_policy: Option<&str>, template_policy: &str| {
            let mut r = json!({"replicas": 1, "template": {"spec": {"restartPolicy": template_policy,
                "containers": [{"name": "pytorch", "restartPolicy": "Never",
                    "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [1]}}], "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}}});
            if let Some(p) = replica_policy {
                r["restartPolicy"] = json!(p);
            }
            json!({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "x"},
                   "spec": {"pytorchReplicaSpecs": {"Worker": r}}})
        };
        assert!(errs(job(Some("OnFailure"), "Bogus")).is_empty());
        assert!(errs(job(Some("ExitCode"), "Bogus")).is_empty());
        let e = errs(job(None, "Bogus"));
        assert_eq!(
            e[0].0,
            "spec.pytorchReplicaSpecs.Worker.template.spec.restartPolicy"
        );
    }
}
