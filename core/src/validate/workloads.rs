//! Which validator a document goes to, by apiVersion and kind; and the workloads that only embed
//! a Pod, Job or JobSet template (Deployment, CronJob, Kubeflow runtimes, …).

use super::{Ctx, decode_at};
use crate::api::{
    ContainerRecreateRequest, Job, JobSet, JobSetSpec, JobSpec, KubeletConfiguration, Pod,
    PodTemplateSpec,
};
use crate::diag::{Diagnostic, FieldPath, Findings, Severity};
use serde_json::Value;

fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |cur, k| cur.get(*k))
}

fn info(out: &mut Findings, code: &str, msg: String) {
    out.push(Diagnostic::request(code, "", msg).with_severity(Severity::Info));
}

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
            true
        }
        ("batch", "CronJob") => {
            let p = FieldPath::new("spec").child("jobTemplate").child("spec");
            job_spec_at(obj, &["spec", "jobTemplate", "spec"], &p, ctx, out);
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
            // A runtime holds a JobSet spec; the JobSet webhook defaults and validates it when
            // the trainer creates the JobSet.
            let p = FieldPath::new("spec").child("template").child("spec");
            if let Some(v) = at(obj, &["spec", "template", "spec"])
                && let Some(mut spec) = decode::<JobSetSpec>(v, &p, out)
            {
                if !ctx.skip_defaulting {
                    super::jobset::default_jobset_spec(&mut spec);
                }
                super::jobset::validate_jobset_spec(&spec, &p, ctx, out);
            }
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
        | ("", "ReplicationController" | "PodTemplate") => {
            let (path, p): (&[&str], FieldPath) = if kind == "PodTemplate" {
                (&["template"], FieldPath::new("template"))
            } else {
                (
                    &["spec", "template"],
                    FieldPath::new("spec").child("template"),
                )
            };
            pod_template_at(obj, path, &p, ctx, out);
            true
        }
        ("leaderworkerset.x-k8s.io", "LeaderWorkerSet") => {
            // leaderWorkerTemplate.restartPolicy is LWS's own field (RecreateGroupOnPodRestart, …),
            // not a Pod restartPolicy.
            for t in ["leaderTemplate", "workerTemplate"] {
                let p = FieldPath::new("spec")
                    .child("leaderWorkerTemplate")
                    .child(t);
                pod_template_at(obj, &["spec", "leaderWorkerTemplate", t], &p, ctx, out);
            }
            true
        }
        ("kubeflow.org", k) if k.ends_with("Job") => {
            // Training-operator jobs: replicaSpecs.<role>.restartPolicy is the operator's field,
            // which it copies to the Pod; the Pod templates themselves are validated.
            if let Some(spec) = obj.get("spec").and_then(Value::as_object) {
                for (key, specs) in spec {
                    if !key.ends_with("ReplicaSpecs") {
                        continue;
                    }
                    if let Some(roles) = specs.as_object() {
                        for role in roles.keys() {
                            let p = FieldPath::new("spec")
                                .child(key)
                                .child(role)
                                .child("template");
                            pod_template_at(obj, &["spec", key, role, "template"], &p, ctx, out);
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
                format!(
                    "{api_version} {kind}: no restart or failure fields restartkit models; passed over"
                ),
            );
            false
        }
    }
}

/// Unknown-field warnings for the built-in kinds, and for the Job templates a JobSet embeds.
pub(super) fn check_unknown_fields(group: &str, kind: &str, obj: &Value, out: &mut Findings) {
    let root = FieldPath::root();
    match (group, kind) {
        ("", "Pod")
        | ("batch", "Job" | "CronJob")
        | ("apps", "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet") => {
            super::unknown_fields::check(kind, obj, &root, out);
        }
        ("jobset.x-k8s.io", "JobSet") => {
            let p = FieldPath::new("spec").child("replicatedJobs");
            for (i, rj) in at(obj, &["spec", "replicatedJobs"])
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if let Some(t) = rj.get("template") {
                    super::unknown_fields::check(
                        "JobTemplateSpec",
                        t,
                        &p.index(i).child("template"),
                        out,
                    );
                }
            }
        }
        _ => {}
    }
}

fn decode<T: serde::de::DeserializeOwned>(
    v: &Value,
    base: &FieldPath,
    out: &mut Findings,
) -> Option<T> {
    match decode_at::<T>(v, base) {
        Ok(t) => Some(t),
        Err(d) => {
            out.push(d);
            None
        }
    }
}

fn pod_template_at(obj: &Value, path: &[&str], p: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let Some(v) = at(obj, path) else { return };
    if let Some(mut t) = decode::<PodTemplateSpec>(v, p, out) {
        // Workload templates: restartPolicy rules of the owning API apply (Deployment only allows
        // Always, checked by apps validation); here the containers' restart fields.
        if !ctx.skip_defaulting {
            super::pod::default_pod_spec(&mut t.spec);
        }
        super::pod::validate_pod_spec(&t.spec, &p.child("spec"), ctx, out);
    }
}

fn job_spec_at(obj: &Value, path: &[&str], p: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let Some(v) = at(obj, path) else { return };
    if let Some(mut spec) = decode::<JobSpec>(v, p, out) {
        if !ctx.skip_defaulting {
            super::job::default_job_spec(&mut spec);
        }
        super::job::validate_job_spec(&spec, p, ctx, out);
    }
}
