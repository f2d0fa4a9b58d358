//! `simulate` of a TrainJob: the JobSet the Kubeflow Trainer builds from it
//! ([`crate::trainer::op::jobset_for`]), run as any JobSet, capped at the TrainJob's deadline.

use crate::diag::Diagnostic;
use crate::trainer::op::{RuntimeInput, TrainJobSummary, active_deadline, jobset_for};
use serde_json::Value;

/// `simulate` of a scenario whose workload is a TrainJob: the JobSet the trainer builds, run
/// until the TrainJob's deadline at the latest, and the TrainJob's state.
pub fn simulate_train_job(
    sc: &super::scenario::Scenario,
    run: fn(&super::scenario::Scenario) -> Result<super::summary::SimulationRun, Diagnostic>,
) -> Result<super::summary::SimulationRun, Diagnostic> {
    let runtimes: Vec<RuntimeInput> = sc
        .runtime
        .iter()
        .map(|r| RuntimeInput {
            object: Some(r.clone()),
            ..Default::default()
        })
        .collect();
    let (jobset, _) = jobset_for(&sc.workload, &runtimes, "scenario.workload", None)?;
    let deadline = active_deadline(&sc.workload);
    let mut js_sc = sc.clone();
    js_sc.workload = jobset;
    js_sc.runtime = None;
    let run_for_ms = super::scenario::parse_duration_ms(sc.run_for.as_deref().unwrap_or("1h"))?;
    let capped = deadline
        .and_then(|d| u64::try_from(d).ok())
        .map(|d| d.saturating_mul(1000))
        .filter(|d| *d < run_for_ms);
    if let Some(ms) = capped {
        js_sc.run_for = Some(format!("{}", ms as f64 / 1000.0));
    }
    let mut out = run(&js_sc)?;
    let name = sc
        .workload
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let js = out.jobset.clone();
    let finished = js
        .as_ref()
        .is_some_and(|j| j.phase == "Completed" || j.phase == "Failed");
    let summary = match (&js, capped) {
        (Some(j), _) if finished => TrainJobSummary {
            name,
            phase: if j.phase == "Completed" {
                "Complete"
            } else {
                "Failed"
            }
            .into(),
            reason: j.reason.clone(),
            message: j.message.clone(),
            jobset_deleted_at_seconds: None,
        },
        (_, Some(ms)) => {
            let t = ms as f64 / 1000.0;
            let ns = sc
                .workload
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or("default");
            out.timeline.push(super::summary::SimulationEvent {
                t,
                object: format!("trainjob/{ns}/{name}"),
                container: None,
                pod_index: None,
                event: "Failed".into(),
                reason: "DeadlineExceeded".into(),
                message: Some(
                    "TrainJob exceeded its active deadline; the TrainJob controller deletes its JobSet".into(),
                ),
            });
            TrainJobSummary {
                name,
                phase: "Failed".into(),
                reason: Some("DeadlineExceeded".into()),
                message: Some("TrainJob exceeded its active deadline".into()),
                jobset_deleted_at_seconds: Some(t),
            }
        }
        _ => TrainJobSummary {
            name,
            phase: "Running".into(),
            reason: None,
            message: None,
            jobset_deleted_at_seconds: None,
        },
    };
    out.train_job = Some(summary);
    Ok(out)
}
