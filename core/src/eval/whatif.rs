//! "What if container X exits with code N?": the kubelet's decision, then — for a Pod of a Job
//! or JobSet — the Job controller's outcome and the JobSet controller's action, chained the way
//! the components hand the failure on. Each step is the function the engine's own op calls, on
//! typed values; this module only builds the objects one component passes to the next.

use crate::api::{
    Condition, ContainerState, ContainerStateTerminated, ContainerStatus, Job, JobSet, JobStatus,
    Pod, PodSpec, PodStatus,
};
use crate::diag::Diagnostic;
use crate::features::FeatureGates;
use crate::validate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WhatIfInput {
    /// A Pod, Job or JobSet (API JSON). Upstream defaulting is applied first.
    pub object: Value,
    /// The container that exits; default: the first regular container.
    #[serde(default)]
    pub container: Option<String>,
    pub exit_code: i32,
    /// In a JobSet, the replicatedJob whose Pod fails; default: the first.
    #[serde(default)]
    pub replicated_job: Option<String>,
    /// Pod condition types present (status True) when the Pod fails, e.g. `DisruptionTarget`.
    #[serde(default)]
    pub pod_conditions: Vec<String>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
    /// Proposals to answer under (docs/proposals.md); the result lists them.
    #[serde(default)]
    pub proposals: Vec<crate::proposals::Proposal>,
    /// When `object` is a Kubeflow TrainJob: the runtime it names (the JobSet the trainer builds
    /// from the two is what is evaluated; `replicatedJob` defaults to the trainer's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtimes: Vec<crate::trainer::op::RuntimeInput>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WhatIfOutput {
    pub container: String,
    pub exit_code: i32,
    /// The kubelet's `containerRestart` result.
    pub kubelet: Value,
    /// The Pod's phase after this exit, assuming its other regular containers have finished:
    /// `Running` (restarted in place), `Succeeded` or `Failed`.
    pub pod_phase: String,
    /// For a Pod of a Job: the `podFailurePolicy` result and what it means for the Job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<Value>,
    /// For a Job of a JobSet: the `jobsetFailurePolicy` result once the Job has failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobset: Option<Value>,
    /// The same, in sentences.
    pub story: Vec<String>,
    /// The proposals this result was made under (absent: upstream semantics only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposals: Vec<crate::proposals::Proposal>,
}

fn to_value<T: Serialize>(t: &T) -> Result<Value, Diagnostic> {
    serde_json::to_value(t)
        .map_err(|e| Diagnostic::request("internal", "", format!("cannot encode: {e}")))
}

fn str_of<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// The kinds `whatIf` evaluates directly, each with where its Pod spec is (a JobSet's: its first
/// replicatedJob's, the default of `replicatedJob`). A TrainJob is evaluated as the JobSet the
/// trainer builds from it.
const EVALUATED: [(&str, &str); 3] = [
    ("Pod", "/spec"),
    ("Job", "/spec/template/spec"),
    (
        "JobSet",
        "/spec/replicatedJobs/0/template/spec/template/spec",
    ),
];

/// The Pod spec the what-if of `object` reads (a Pod's, a Job's template's, a JobSet's first
/// replicatedJob's), or None for a kind `whatIf` does not evaluate directly (a TrainJob
/// included). The CLI's `evaluate` and the editor's lenses use it.
pub fn evaluated_pod_spec(object: &Value) -> Option<&Value> {
    let kind = object.get("kind").and_then(Value::as_str)?;
    let (_, pointer) = EVALUATED.iter().find(|(k, _)| *k == kind)?;
    object.pointer(pointer)
}

/// Whether `whatIf` evaluates `object` directly: a Pod, a Job or a JobSet.
pub fn evaluated_directly(object: &Value) -> bool {
    let kind = object.get("kind").and_then(Value::as_str);
    EVALUATED.iter().any(|(k, _)| Some(*k) == kind)
}

/// Which of a file's documents `whatIf` evaluates: the first Pod, Job or JobSet, else the first
/// TrainJob.
pub fn evaluated_document<T>(docs: &[T], value: impl Fn(&T) -> &Value) -> Option<&T> {
    docs.iter()
        .find(|d| evaluated_directly(value(d)))
        .or_else(|| {
            docs.iter()
                .find(|d| value(d).get("kind").and_then(Value::as_str) == Some("TrainJob"))
        })
}

/// The `whatIf` op's answer, typed: [`what_if_any`] with, as warnings, the evaluated object's
/// own validation errors (for a TrainJob, its and its runtime's admission errors), as the
/// contract's `whatIf` gives them.
pub fn what_if_checked(
    input: WhatIfInput,
) -> Result<crate::eval::object_warnings::Evaluated<WhatIfOutput>, Diagnostic> {
    use crate::eval::object_warnings::{Evaluated, Subject, object_warnings};
    let own = (!crate::trainer::op::is_train_job(&input.object)).then(|| {
        (
            input.object.clone(),
            input.kubernetes_version.clone(),
            input.feature_gates.clone(),
            input.proposals.clone(),
        )
    });
    let (result, extra) = what_if_any(input)?;
    let warnings = match own {
        None => extra,
        Some((object, version, gates, proposals)) => {
            match (
                Subject::of(&object),
                FeatureGates::resolve(version.as_deref(), gates.as_ref()),
            ) {
                (Some(subject), Ok((gates, _))) => {
                    object_warnings(&object, subject, &gates, &proposals)
                }
                _ => Vec::new(),
            }
        }
    };
    Ok(Evaluated { result, warnings })
}

/// [`what_if`] of any object, a Kubeflow TrainJob included (the JobSet the trainer builds from it
/// and its runtime is evaluated, as the `whatIf` op does): the answer and the TrainJob's own
/// admission errors, placed at its fields.
pub fn what_if_any(input: WhatIfInput) -> Result<(WhatIfOutput, Vec<Diagnostic>), Diagnostic> {
    if !crate::trainer::op::is_train_job(&input.object) {
        return what_if(input).map(|out| (out, Vec::new()));
    }
    let mut as_json = serde_json::to_value(&input)
        .map_err(|e| Diagnostic::request("internal", "input", e.to_string()))?;
    // The input as a request gives it: unset members absent, not null.
    if let Some(m) = as_json.as_object_mut() {
        m.retain(|_, v| !v.is_null());
    }
    match crate::trainer::op::what_if_input(&as_json)? {
        Some((jobset_input, extra)) => {
            let jobset: WhatIfInput =
                crate::decode::input_at(&jobset_input, &crate::FieldPath::new("input"))?;
            what_if(jobset).map(|out| (out, extra))
        }
        None => what_if(input).map(|out| (out, Vec::new())),
    }
}

pub fn what_if(input: WhatIfInput) -> Result<WhatIfOutput, Diagnostic> {
    let proposals = crate::proposals::marker(&input.proposals);
    let mut out = what_if_upstream(input)?;
    out.proposals = proposals;
    Ok(out)
}

fn what_if_upstream(input: WhatIfInput) -> Result<WhatIfOutput, Diagnostic> {
    let kind = input
        .object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let mut story = Vec::new();
    // The Job (if any) and the Pod template the failing Pod comes from.
    let (jobset, job, pod_spec, pod_meta_name, ns): (
        Option<JobSet>,
        Option<Job>,
        PodSpec,
        String,
        String,
    ) = match kind.as_str() {
        "Pod" => {
            let mut pod: Pod =
                validate::decode_at(&input.object, &crate::FieldPath::new("object"))?;
            validate::pod::default_pod_spec(&mut pod.spec);
            let ns = pod
                .metadata
                .namespace
                .clone()
                .unwrap_or_else(|| "default".into());
            (
                None,
                None,
                pod.spec,
                pod.metadata.name.unwrap_or_else(|| "pod".into()),
                ns,
            )
        }
        "Job" => {
            let mut job: Job =
                validate::decode_at(&input.object, &crate::FieldPath::new("object"))?;
            validate::job::default_job_spec(&mut job.spec);
            let ns = job
                .metadata
                .namespace
                .clone()
                .unwrap_or_else(|| "default".into());
            let name = format!(
                "{}-0",
                job.metadata.name.clone().unwrap_or_else(|| "job".into())
            );
            let spec = job.spec.template.spec.clone();
            (None, Some(job), spec, name, ns)
        }
        "JobSet" => {
            let mut js: JobSet =
                validate::decode_at(&input.object, &crate::FieldPath::new("object"))?;
            validate::jobset::default_jobset_spec(&mut js.spec);
            let rj = match &input.replicated_job {
                Some(n) => js
                    .spec
                    .replicated_jobs
                    .iter()
                    .find(|r| &r.name == n)
                    .ok_or_else(|| {
                        Diagnostic::request(
                            "not-found",
                            "input.replicatedJob",
                            format!("the JobSet has no replicatedJob named {n:?}"),
                        )
                    })?,
                None => js.spec.replicated_jobs.first().ok_or_else(|| {
                    Diagnostic::request(
                        "not-found",
                        "input.object.spec.replicatedJobs",
                        "the JobSet has no replicatedJobs",
                    )
                })?,
            };
            let js_name = js.metadata.name.clone().unwrap_or_else(|| "jobset".into());
            let ns = js
                .metadata
                .namespace
                .clone()
                .unwrap_or_else(|| "default".into());
            let job_name = format!("{js_name}-{}-0", rj.name);
            let mut labels = BTreeMap::new();
            labels.insert("jobset.sigs.k8s.io/jobset-name".to_owned(), js_name.clone());
            labels.insert(
                "jobset.sigs.k8s.io/replicatedjob-name".to_owned(),
                rj.name.clone(),
            );
            labels.insert("jobset.sigs.k8s.io/job-index".to_owned(), "0".to_owned());
            let mut job = Job {
                api_version: Some("batch/v1".into()),
                kind: Some("Job".into()),
                spec: rj.template.spec.clone(),
                ..Default::default()
            };
            job.metadata.name = Some(job_name.clone());
            job.metadata.namespace = Some(ns.clone());
            job.metadata.labels = Some(labels);
            validate::job::default_job_spec(&mut job.spec);
            let spec = job.spec.template.spec.clone();
            (Some(js), Some(job), spec, format!("{job_name}-0"), ns)
        }
        other => {
            return Err(Diagnostic::request(
                "unsupported-kind",
                "input.object.kind",
                format!("whatIf takes a Pod, Job or JobSet, not {other:?}"),
            ));
        }
    };
    let container = match &input.container {
        Some(c) => c.clone(),
        None => pod_spec
            .containers
            .first()
            .map(|c| c.name.clone())
            .ok_or_else(|| {
                Diagnostic::request(
                    "not-found",
                    "input.object",
                    "the Pod template has no containers",
                )
            })?,
    };
    let pod = Pod {
        api_version: Some("v1".into()),
        kind: Some("Pod".into()),
        metadata: crate::api::ObjectMeta {
            name: Some(pod_meta_name.clone()),
            namespace: Some(ns.clone()),
            ..Default::default()
        },
        spec: pod_spec.clone(),
        status: None,
        other: Default::default(),
    };
    // The kubelet step is the one proposals change (RestartRulesFuture, AlwaysPod): it gets them,
    // so a result marked as made under a proposal was decided under it.
    let mut kubelet_out =
        crate::eval::kubelet::container_restart(crate::eval::kubelet::ContainerRestartInput {
            pod: pod.clone(),
            container: container.clone(),
            exit_code: input.exit_code,
            kubernetes_version: input.kubernetes_version.clone(),
            feature_gates: input.feature_gates.clone(),
            proposals: input.proposals.clone(),
            restart_count: None,
            reason: None,
        })?;
    let completed = crate::eval::kubelet::init_container_completed(
        kubelet_out.container_kind,
        input.exit_code,
        None,
    );
    if completed {
        kubelet_out.action = "DoNotRestart".to_owned();
        kubelet_out.restart_all_containers = false;
        kubelet_out.rule_index = None;
        kubelet_out.decided_by = crate::eval::kubelet::DecidedBy::InitContainerCompleted;
        kubelet_out.reason = crate::eval::kubelet::init_container_completed_reason(&container);
        kubelet_out.proposed_action = None;
    }
    // The kubelet step has resolved the same version and gates (and refused bad ones).
    let (gates, _) = FeatureGates::resolve(
        input.kubernetes_version.as_deref(),
        input.feature_gates.as_ref(),
    )?;
    let kubelet = to_value(&kubelet_out)?;
    let action = str_of(&kubelet, "action").to_owned();
    let is_init = pod_spec.init_containers.iter().any(|c| c.name == container);
    story.push(format!(
        "kubelet: container {container:?} exited with code {}: {action}",
        input.exit_code
    ));
    if let Some(r) = kubelet.get("reason").and_then(Value::as_str) {
        story.push(format!("  because {r}"));
    }
    if completed {
        story.push(format!("pod {ns}/{pod_meta_name} stays Pending until its last init container completes; no failure reaches the Job"));
        return Ok(WhatIfOutput {
            container,
            exit_code: input.exit_code,
            kubelet,
            pod_phase: "Pending".into(),
            job: None,
            jobset: None,
            story,
            proposals: Vec::new(),
        });
    }
    if action != "DoNotRestart" {
        story.push(format!("pod {ns}/{pod_meta_name} stays Running; the container restarts in place after its CrashLoopBackOff delay"));
        return Ok(WhatIfOutput {
            container,
            exit_code: input.exit_code,
            kubelet,
            pod_phase: "Running".into(),
            job: None,
            jobset: None,
            story,
            proposals: Vec::new(),
        });
    }
    let failed = input.exit_code != 0;
    let pod_phase = if failed { "Failed" } else { "Succeeded" };
    story.push(format!("pod {ns}/{pod_meta_name} becomes {pod_phase} (assuming its other regular containers have finished)"));
    let Some(job) = job else {
        return Ok(WhatIfOutput {
            container,
            exit_code: input.exit_code,
            kubelet,
            pod_phase: pod_phase.into(),
            job: None,
            jobset: None,
            story,
            proposals: Vec::new(),
        });
    };
    if !failed {
        story.push("job: the Pod succeeded and counts as a completion".to_owned());
        return Ok(WhatIfOutput {
            container,
            exit_code: input.exit_code,
            kubelet,
            pod_phase: pod_phase.into(),
            job: Some(json!({"outcome": "PodSucceeded"})),
            jobset: None,
            story,
            proposals: Vec::new(),
        });
    }
    let exited = vec![ContainerStatus {
        name: container.clone(),
        state: Some(ContainerState {
            terminated: Some(ContainerStateTerminated {
                exit_code: input.exit_code,
                reason: Some("Error".into()),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    }];
    let (container_statuses, init_container_statuses) = if is_init {
        (Vec::new(), exited)
    } else {
        (exited, Vec::new())
    };
    let failed_pod = Pod {
        status: Some(PodStatus {
            phase: Some("Failed".into()),
            conditions: input
                .pod_conditions
                .iter()
                .map(|t| Condition {
                    type_: t.clone(),
                    status: "True".into(),
                    ..Default::default()
                })
                .collect(),
            container_statuses,
            init_container_statuses,
            ..Default::default()
        }),
        ..pod
    };
    let pfp_out = crate::eval::job::evaluate(&job, &failed_pod, &gates);
    let pfp = to_value(&pfp_out)?;
    let pfp_action = pfp
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or("Count")
        .to_owned();
    let backoff_limit = job.spec.backoff_limit.unwrap_or(6);
    let per_index = job.spec.backoff_limit_per_index;
    let job_name = job.metadata.name.clone().unwrap_or_default();
    // What the Job does with this failure, and with the same failure repeated.
    let (outcome, reason, message, failures_to_fail): (
        &str,
        Option<&str>,
        Option<String>,
        Option<i64>,
    ) = match pfp_action.as_str() {
        "FailJob" => (
            "JobFailed",
            Some("PodFailurePolicy"),
            pfp.get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
            Some(1),
        ),
        "Ignore" => ("PodReplaced", None, None, None),
        "FailIndex" => (
            "IndexFailed",
            Some("FailedIndexes"),
            Some("Job has failed indexes".to_owned()),
            Some(1),
        ),
        _ => match per_index {
            Some(pi) => (
                "PodReplaced",
                Some("FailedIndexes"),
                Some("Job has failed indexes".to_owned()),
                Some(i64::from(pi) + 1),
            ),
            None if backoff_limit == 0 => (
                "JobFailed",
                Some("BackoffLimitExceeded"),
                Some("Job has reached the specified backoff limit".to_owned()),
                Some(1),
            ),
            None => (
                "PodReplaced",
                Some("BackoffLimitExceeded"),
                Some("Job has reached the specified backoff limit".to_owned()),
                Some(i64::from(backoff_limit) + 1),
            ),
        },
    };
    match outcome {
        "JobFailed" => story.push(format!(
            "job {job_name}: {pfp_action} — the Job fails with reason {} and message {:?}",
            reason.unwrap_or(""),
            message.as_deref().unwrap_or("")
        )),
        "IndexFailed" => story.push(format!("job {job_name}: FailIndex — index 0 fails at once")),
        _ if pfp_action == "Ignore" => story.push(format!("job {job_name}: Ignore — the failure does not count; a replacement Pod is created")),
        _ => story.push(format!(
            "job {job_name}: the failure counts ({}); a replacement Pod is created after the pod-failure backoff; the same failure {} times fails the {} with reason {}",
            if pfp.get("matched").and_then(Value::as_bool).unwrap_or(false) { "Count rule" } else { "no podFailurePolicy rule matched" },
            failures_to_fail.unwrap_or(0),
            if per_index.is_some() { "index" } else { "Job" },
            reason.unwrap_or("")
        )),
    }
    let job_result = json!({
        "podFailurePolicy": pfp,
        "outcome": outcome,
        "failureReason": reason,
        "failureMessage": message,
        "failuresUntilFailed": failures_to_fail,
    });
    let (Some(js), Some(reason)) = (jobset, reason) else {
        return Ok(WhatIfOutput {
            container,
            exit_code: input.exit_code,
            kubelet,
            pod_phase: pod_phase.into(),
            job: Some(job_result),
            jobset: None,
            story,
            proposals: Vec::new(),
        });
    };
    let failed_job = Job {
        status: Some(JobStatus {
            failed: Some(1),
            conditions: vec![Condition {
                type_: "Failed".into(),
                status: "True".into(),
                reason: Some(reason.to_owned()),
                message: message.clone(),
                last_transition_time: Some("2026-01-01T00:00:00Z".into()),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..job
    };
    let js_out = crate::eval::jobset::failure_policy(&js, &[failed_job], &gates, None)?;
    let jsv = to_value(&js_out)?;
    let when = if outcome == "JobFailed" {
        "at once"
    } else {
        "once the Job has failed"
    };
    story.push(format!(
        "jobset: {when}, the JobSet controller applies {}",
        str_of(&jsv, "action")
    ));
    for c in jsv
        .get("conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        story.push(format!(
            "  condition {}={} reason {} message {:?}",
            str_of(c, "type"),
            str_of(c, "status"),
            str_of(c, "reason"),
            str_of(c, "message")
        ));
    }
    Ok(WhatIfOutput {
        container,
        exit_code: input.exit_code,
        kubelet,
        pod_phase: pod_phase.into(),
        job: Some(job_result),
        jobset: Some(jsv),
        story,
        proposals: Vec::new(),
    })
}
