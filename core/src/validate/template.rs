//! The Pod, Job and JobSet templates that workloads embed (Deployment, StatefulSet, CronJob,
//! LeaderWorkerSet, Kubeflow runtimes, ...), decoded and checked as the workload's validation
//! checks them upstream.

use super::{Ctx, decode_at};
use crate::api::{JobSpec, PodTemplateSpec};
use crate::diag::{Diagnostic, FieldPath, Findings, Severity};
use serde_json::Value;

fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |cur, k| cur.get(*k))
}

pub(super) fn decode<T: serde::de::DeserializeOwned>(
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

/// A Kubeflow replica's Pod template: the operator creates Pods from it with `restart_policy`
/// (the replica's, when it names one) in place of the template's, and kube-apiserver validates
/// them as Pods (ValidatePodCreate's PodSpec checks).
pub(super) fn pod_template_at(
    v: Option<&Value>,
    p: &FieldPath,
    restart_policy: Option<&str>,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let Some(v) = v else { return };
    if let Some(mut t) = decode::<PodTemplateSpec>(v, p, out) {
        if let Some(rp) = restart_policy {
            t.spec.restart_policy = Some(rp.to_owned());
        }
        if !ctx.skip_defaulting {
            super::pod::default_pod_spec(&mut t.spec);
        }
        super::pod::validate_pod_spec(&t.spec, &p.child("spec"), ctx, out);
    }
}

/// LeaderWorkerSet: the LWS webhook does not look inside the templates, but the LWS controller
/// puts them into StatefulSets (the leader StatefulSet gets `leaderTemplate`, or `workerTemplate`
/// when there is none; each group's worker StatefulSet, made only when `size` > 1, gets
/// `workerTemplate`), and kube-apiserver validates those as StatefulSet templates:
/// restartPolicy `Always` only, no activeDeadlineSeconds. `leaderWorkerTemplate.restartPolicy`
/// is LWS's own field (RecreateGroupOnPodRestart, …), not a Pod restartPolicy.
pub(super) fn leader_worker_templates(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let lwt = at(obj, &["spec", "leaderWorkerTemplate"]);
    let base = FieldPath::new("spec").child("leaderWorkerTemplate");
    let leader = lwt
        .and_then(|t| t.get("leaderTemplate"))
        .filter(|v| !v.is_null());
    let worker = lwt
        .and_then(|t| t.get("workerTemplate"))
        .filter(|v| !v.is_null());
    // The LWS webhook defaults size to 1.
    let size = lwt
        .and_then(|t| t.get("size"))
        .and_then(Value::as_i64)
        .unwrap_or(1);
    if let Some(v) = leader {
        controller_template_value(
            v,
            &base.child("leaderTemplate"),
            Some("StatefulSet"),
            ctx,
            out,
        );
    }
    if let Some(v) = worker
        && (leader.is_none() || size > 1)
    {
        controller_template_value(
            v,
            &base.child("workerTemplate"),
            Some("StatefulSet"),
            ctx,
            out,
        );
    }
}

/// A PodTemplate's template: ValidatePodTemplate, which checks the Pod spec but puts no
/// restriction of its own on it.
pub(super) fn pod_template(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    controller_template_in(obj, &FieldPath::new("template"), None, ctx, out);
}

/// [`controller_template_value`] on `parent`'s `template`, which every kind but
/// ReplicationController holds by value: an absent one is validated (and defaulted) as an empty
/// template.
pub(super) fn controller_template_in(
    parent: &Value,
    p: &FieldPath,
    always_only: Option<&str>,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let empty = Value::Object(serde_json::Map::new());
    let v = parent
        .get("template")
        .filter(|v| !v.is_null())
        .unwrap_or(&empty);
    controller_template_value(v, p, always_only, ctx, out);
}

/// ValidatePodTemplateSpec on a template at `p`, then, when `always_only` names the validating
/// kind, the controllers' own rules: restartPolicy `Always` only and no activeDeadlineSeconds
/// (pkg/apis/apps/validation ValidatePodTemplateSpecForReplicaSet, used by Deployment and
/// ReplicaSet; ValidateStatefulSetSpec; ValidateDaemonSetSpec; pkg/apis/core/validation
/// ValidatePodTemplateSpecForRC). Deployment's message names ReplicaSet, whose function it uses.
pub(super) fn controller_template_value(
    v: &Value,
    p: &FieldPath,
    always_only: Option<&str>,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let Some(template) = decode::<PodTemplateSpec>(v, p, out) else {
        return;
    };
    super::meta::template_metadata(template.metadata.as_ref(), p, ctx.gates.version.minor, out);
    let mut spec = template.spec;
    if !ctx.skip_defaulting {
        super::pod::default_pod_spec(&mut spec);
    }
    if always_only == Some("StatefulSet")
        && !crate::versions::Change::StatefulSetTemplateOnCreate.at(ctx.gates.version.minor)
    {
        // Before 1.34 ValidatePodTemplateSpecForStatefulSet leaves the Pod spec unchecked (its
        // call to ValidatePodTemplateSpec is commented out): the StatefulSet is accepted, and
        // what is wrong shows when its controller creates the Pods, which are refused.
        let mut later = Findings::default();
        super::pod::validate_pod_template_spec(&spec, p, ctx, &mut later);
        super::pod_security::template_annotations(template.metadata.as_ref(), &spec, p, ctx, &mut later);
        for e in later.errors {
            let message = format!(
                "{}; Kubernetes 1.{} accepts the StatefulSet without checking its Pod template (it does from 1.34), and refuses the Pods its controller creates from it",
                e.message, ctx.gates.version.minor
            );
            out.push(
                Diagnostic { message, ..e }
                    .with_severity(Severity::Warning)
                    .with_code("pod-template-refused-later"),
            );
        }
        out.warnings.extend(later.warnings);
        out.infos.extend(later.infos);
    } else {
        super::pod::validate_pod_template_spec(&spec, p, ctx, out);
        super::pod_security::template_annotations(template.metadata.as_ref(), &spec, p, ctx, out);
    }
    let Some(owner) = always_only else { return };
    let sp = p.child("spec");
    // "RestartPolicy has already been first-order validated": an unknown value gets both errors.
    let rp = spec.restart_policy.as_deref().unwrap_or("");
    if rp != "Always" {
        out.push(Diagnostic::not_supported(
            &sp.child("restartPolicy"),
            rp,
            &["Always"],
        ));
    }
    if spec.active_deadline_seconds.is_some() {
        out.push(Diagnostic::forbidden(
            &sp.child("activeDeadlineSeconds"),
            format!("activeDeadlineSeconds in {owner} is not Supported"),
        ));
    }
}

/// A CronJob's `spec.jobTemplate.spec`, as ValidateCronJobCreate checks it (ValidateJobTemplateSpec
/// → validateJobSpec). The CronJob defaulter does not run SetDefaults_Job on the template (that
/// happens when the controller creates each Job): only the Pod spec and the podFailurePolicy
/// patterns are defaulted, so e.g. an Indexed template without completions is refused. The
/// CronJob strategy does not drop the Job's gated fields either (only the Pod template's).
pub(super) fn cronjob_job_spec(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let p = FieldPath::new("spec").child("jobTemplate").child("spec");
    let mut spec = match at(obj, &["spec", "jobTemplate", "spec"]).filter(|v| !v.is_null()) {
        Some(v) => match decode::<JobSpec>(v, &p, out) {
            Some(s) => s,
            None => return,
        },
        None => JobSpec::default(),
    };
    if !ctx.skip_defaulting {
        super::job::default_pod_failure_policy(&mut spec);
        super::pod::default_pod_spec(&mut spec.template.spec);
    }
    super::job::validate_job_spec(&spec, &p, ctx, out);
}
