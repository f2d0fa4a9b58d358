//! Restart timelines: a deterministic discrete-event simulation of a Pod, Job or JobSet over the
//! same semantics restartkit validates and evaluates. See docs/simulation.md.

mod decide;
mod engine;
pub mod scenario;
mod summary;
mod train_job;

pub use scenario::{Fault, FaultKind, Scenario, ScriptedExit};
pub use summary::{
    ContainerSummary, JobSetSummary, JobSummary, PodSummary, SimulationEvent, SimulationRun,
    Summary,
};

use crate::api::{Job, JobSet, Pod};
use crate::diag::Diagnostic;
use crate::validate;
use engine::{Engine, Template};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// `simulate` op input: a scenario, and optionally a second one to run side by side.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SimulateInput {
    pub scenario: Scenario,
    /// A counterfactual: the same questions under another scenario (another policy, curve, …).
    #[serde(default)]
    pub compare: Option<Scenario>,
}

/// `simulate` op result: the scenario's run, and the counterfactual's under `compare`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SimulateOutput {
    #[serde(flatten)]
    pub run: SimulationRun,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<SimulationRun>,
}

/// A Job's Pods as its controllers see them: a `v1` Pod named `pod` with the template's spec.
fn pod_of(spec: &crate::api::PodSpec) -> Pod {
    Pod {
        api_version: Some("v1".into()),
        kind: Some("Pod".into()),
        metadata: crate::api::ObjectMeta {
            name: Some("pod".into()),
            ..Default::default()
        },
        spec: spec.clone(),
        ..Default::default()
    }
}

/// The first field of a Job or JobSet that would make its controllers act in a way the
/// simulator does not model, as (path below the workload, what the controllers would do).
/// Such a workload is refused rather than simulated as if the field were absent.
fn unmodelled_field(kind: &str, w: &Value) -> Option<(String, &'static str)> {
    let spec = w.get("spec")?;
    let truthy = |v: Option<&Value>| v.and_then(Value::as_bool) == Some(true);
    if truthy(spec.get("suspend")) {
        return Some((
            "spec.suspend".into(),
            "a suspended workload creates no Pods until it is resumed",
        ));
    }
    // A Pod's own activeDeadlineSeconds: the kubelet fails the Pod (reason DeadlineExceeded)
    // once it has been active that long; not modelled (a Job's is).
    const POD_DEADLINE: &str = "the kubelet fails a Pod active longer than its activeDeadlineSeconds, which is not modelled (a Job's activeDeadlineSeconds is)";
    let pod_template = match kind {
        "Pod" => Some(("spec.activeDeadlineSeconds".to_owned(), spec)),
        "Job" => spec
            .pointer("/template/spec")
            .map(|p| ("spec.template.spec.activeDeadlineSeconds".to_owned(), p)),
        _ => None,
    };
    if let Some((field, pod)) = pod_template
        && pod
            .get("activeDeadlineSeconds")
            .is_some_and(|v| !v.is_null())
    {
        return Some((field, POD_DEADLINE));
    }
    if kind != "JobSet" {
        return None;
    }
    if spec
        .pointer("/startupPolicy/startupPolicyOrder")
        .and_then(Value::as_str)
        == Some("InOrder")
    {
        return Some((
            "spec.startupPolicy.startupPolicyOrder".into(),
            "InOrder creates each replicatedJob's Jobs once the previous ones are ready, and Pod readiness is not modelled",
        ));
    }
    if let Some(s) = spec
        .pointer("/failurePolicy/restartStrategy")
        .and_then(Value::as_str)
        && s == "InPlaceRestart"
    {
        return Some((
            "spec.failurePolicy.restartStrategy".into(),
            "the InPlaceRestart strategy (restarting Pods in place behind the JobSet's barrier) is not modelled; Recreate and BlockingRecreate are",
        ));
    }
    let rjs = spec.get("replicatedJobs").and_then(Value::as_array)?;
    for (i, rj) in rjs.iter().enumerate() {
        if rj
            .get("dependsOn")
            .and_then(Value::as_array)
            .is_some_and(|d| !d.is_empty())
        {
            return Some((
                format!("spec.replicatedJobs[{i}].dependsOn"),
                "dependsOn creates a replicatedJob's Jobs once those it depends on are ready or complete, and Pod readiness is not modelled",
            ));
        }
        if rj
            .pointer("/template/spec/template/spec/activeDeadlineSeconds")
            .is_some_and(|v| !v.is_null())
        {
            return Some((
                format!(
                    "spec.replicatedJobs[{i}].template.spec.template.spec.activeDeadlineSeconds"
                ),
                POD_DEADLINE,
            ));
        }
        if truthy(rj.pointer("/template/spec/suspend")) {
            return Some((
                format!("spec.replicatedJobs[{i}].template.spec.suspend"),
                "a suspended Job creates no Pods until it is resumed",
            ));
        }
    }
    None
}

/// Defaults the workload as the API server and webhooks would and splits it into Pod templates.
fn templates(
    sc: &Scenario,
    gates: &crate::FeatureGates,
) -> Result<(Vec<Template>, Option<JobSet>), Diagnostic> {
    let w = &sc.workload;
    let at = crate::FieldPath::new("scenario").child("workload");
    let kind = w.get("kind").and_then(Value::as_str).unwrap_or("");
    if let Some((field, why)) = unmodelled_field(kind, w) {
        return Err(Diagnostic::request(
            "not-modelled",
            &format!("scenario.workload.{field}"),
            format!(
                "the simulator does not model this field: {why}; remove it to simulate the workload without it"
            ),
        ));
    }
    match kind {
        "Pod" => {
            let mut pod: Pod = validate::decode_at(w, &at)?;
            validate::pod::default_pod_spec(&mut pod.spec);
            Ok((vec![Template::new(pod, gates, None, None, 1)], None))
        }
        "Job" => {
            let mut job: Job = validate::decode_at(w, &at)?;
            validate::job::default_job_spec(&mut job.spec);
            let pod = pod_of(&job.spec.template.spec);
            Ok((vec![Template::new(pod, gates, Some(job), None, 1)], None))
        }
        "JobSet" => {
            let mut js: JobSet = validate::decode_at(w, &at)?;
            validate::jobset::default_jobset_spec(&mut js.spec);
            let mut out = Vec::new();
            for rj in &js.spec.replicated_jobs {
                let mut spec = rj.template.spec.clone();
                validate::job::default_job_spec(&mut spec);
                let pod = pod_of(&spec.template.spec);
                let job = Job {
                    api_version: Some("batch/v1".into()),
                    kind: Some("Job".into()),
                    spec,
                    ..Default::default()
                };
                out.push(Template::new(
                    pod,
                    gates,
                    Some(job),
                    Some(rj.name.clone()),
                    rj.replicas.unwrap_or(1).max(0) as u32,
                ));
            }
            Ok((out, Some(js)))
        }
        other => Err(Diagnostic::request(
            "unsupported-kind",
            "scenario.workload.kind",
            format!("a scenario's workload is a Pod, Job or JobSet, not {other:?}"),
        )),
    }
}

fn run_one(sc: &Scenario) -> Result<SimulationRun, Diagnostic> {
    // A TrainJob runs as the JobSet the trainer builds from it (crate::trainer::op).
    if crate::trainer::op::is_train_job(&sc.workload) {
        return train_job::simulate_train_job(sc, run_one);
    }
    if sc.workload.is_null() {
        return Err(Diagnostic::request(
            "invalid-input",
            "scenario.workload",
            "the scenario has no workload",
        ));
    }
    let (gates, _) =
        crate::FeatureGates::resolve(sc.kubernetes_version.as_deref(), sc.feature_gates.as_ref())?;
    // A workload the API server would reject never runs: say why instead of simulating it.
    let checked = validate::run(validate::ValidateInput {
        object: Some(sc.workload.clone()),
        kubernetes_version: sc.kubernetes_version.clone(),
        feature_gates: sc.feature_gates.clone(),
        proposals: sc.proposals.clone(),
        ..Default::default()
    })?;
    if let Some(first) = checked.errors.first() {
        let mut d = first.clone();
        d.message = format!(
            "the workload would be rejected at admission ({} error(s)); first: {}",
            checked.errors.len(),
            d.message
        );
        return Err(d);
    }
    let end_ms = scenario::parse_duration_ms(sc.run_for.as_deref().unwrap_or("1h"))?;
    // Proposal AlwaysPod: the kubelet runs the Pod as Always would; the engine widens each
    // restart to the whole Pod.
    let always_pod = sc
        .proposals
        .contains(&crate::proposals::Proposal::AlwaysPod)
        && sc.workload.get("kind").and_then(Value::as_str) == Some("Pod")
        && sc
            .workload
            .pointer("/spec/restartPolicy")
            .and_then(Value::as_str)
            == Some("AlwaysPod");
    let sandbox_ms = match sc.always_pod_sandbox.as_deref() {
        None | Some("Recreate") => {
            scenario::secs_to_ms(sc.sandbox_recreate_seconds).ok_or_else(|| {
                Diagnostic::request(
                    "invalid-input",
                    "scenario.sandboxRecreateSeconds",
                    "scenario.sandboxRecreateSeconds: not a duration in seconds",
                )
            })?
        }
        Some("Reuse") => 0,
        Some(other) => {
            return Err(Diagnostic::request(
                "invalid-input",
                "scenario.alwaysPodSandbox",
                format!(
                    "scenario.alwaysPodSandbox: unknown value {other:?}; known: Recreate, Reuse"
                ),
            ));
        }
    };
    let as_always;
    let sc = if always_pod {
        let mut copy = sc.clone();
        if let Some(p) = copy.workload.pointer_mut("/spec/restartPolicy") {
            *p = json!("Always");
        }
        as_always = copy;
        &as_always
    } else {
        sc
    };
    let (tmpls, jobset) = templates(sc, &gates)?;
    let mut engine = Engine::new(
        sc,
        tmpls,
        jobset,
        decide::Decider::new(gates.clone()),
        end_ms,
    )?;
    if always_pod {
        engine.set_always_pod(sandbox_ms);
    }
    engine.run()?;
    let (pods, jobs, jobset) = engine.results();
    Ok(SimulationRun {
        name: sc.name.clone(),
        kubernetes_version: gates.version.as_string(),
        summary: engine.summary.clone(),
        pods,
        jobs,
        jobset,
        timeline: std::mem::take(&mut engine.timeline),
        proposals: crate::proposals::marker(&sc.proposals),
        train_job: None,
    })
}

/// The `simulate` op.
pub fn run(input: SimulateInput) -> Result<SimulateOutput, Diagnostic> {
    let run = run_one(&input.scenario)?;
    let compare = match &input.compare {
        Some(c) => Some(run_one(c)?),
        None => None,
    };
    Ok(SimulateOutput { run, compare })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Runs `sc` and returns the Pod slots the engine held at the end and the Pods replaced.
    fn slots_and_replacements(sc: Value) -> (usize, u64) {
        let sc: Scenario = serde_json::from_value(sc).unwrap();
        let (gates, _) = crate::FeatureGates::resolve(
            sc.kubernetes_version.as_deref(),
            sc.feature_gates.as_ref(),
        )
        .unwrap();
        let (tmpls, jobset) = templates(&sc, &gates).unwrap();
        let end_ms = scenario::parse_duration_ms(sc.run_for.as_deref().unwrap()).unwrap();
        let mut engine =
            Engine::new(&sc, tmpls, jobset, decide::Decider::new(gates), end_ms).unwrap();
        engine.run().unwrap();
        (engine.pod_slots(), engine.summary.pods_replaced)
    }

    #[test]
    fn replaced_pods_of_a_live_job_do_not_stay_in_memory() {
        // 2 Pods, one fault each per hour, each replacing its Pod (the Ignore rule), for 20
        // days: about 960 replacements, and the slots of the ended ones are used again.
        let (slots, replaced) = slots_and_replacements(json!({
            "kubernetesVersion": "1.35", "runFor": "20d", "seed": 5, "maxTimelineEvents": 50,
            "startupSeconds": 20, "podRescheduleSeconds": 90,
            "workload": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "w", "namespace": "ml"},
                "spec": {"parallelism": 2, "completions": 2, "completionMode": "Indexed", "backoffLimit": 1_000_000,
                    "podFailurePolicy": {"rules": [{"action": "Ignore", "onExitCodes": {
                        "containerName": "trainer", "operator": "In", "values": [42]}}]},
                    "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "trainer", "image": "t"}]}}}},
            "faults": [{"kind": "containerExit", "container": "trainer", "ratePerHour": 1, "exitCodes": [42]}],
        }));
        assert!(replaced > 800, "{replaced} replaced");
        assert!(
            slots <= 6,
            "{slots} Pod slots held for {replaced} replacements"
        );
    }
}
