//! The `explain` op: a running or failed workload explained from its live objects (what
//! `kubectl get pod,job,jobset -o yaml` prints, status included): what happened, why, and what
//! comes next.
//!
//! Nothing here decides anything itself: every answer is the engine's. The kubelet's decision per
//! container is `eval::kubelet::container_restart`, its CrashLoopBackOff wait the
//! `backoff::kubelet` curve (its 600 s reset and GC, KEP-4603 and the node's
//! maxContainerRestartPeriod by minor, gates and kubelet configuration), a failed Pod's
//! podFailurePolicy match `eval::job::evaluate`, the Job controller's Pod-creation back-off
//! `backoff::job` (newBackoffRecord, getRemainingTime, getRemainingTimePerIndex,
//! getFinishedTime), and a JobSet's next failure `eval::jobset::failure_policy`. What the
//! objects cannot tell (a deleted Pod's history, the kubelet's in-memory back-off entry, a
//! missing timestamp) is said in `notes`, with what was assumed.

mod read;
#[cfg(test)]
mod tests;
pub mod text;
mod types;

pub use types::*;

use crate::api::{Job, JobSet, Pod};
use crate::backoff::job::{
    DEFAULT_JOB_POD_FAILURE_BACKOFF_SECONDS, MAX_JOB_POD_FAILURE_BACKOFF_SECONDS, finished_time,
    format_rfc3339, index_absolute_failure_count, new_backoff_record, parse_rfc3339,
    remaining_for_failures,
};
use crate::backoff::kubelet::{self as kubelet_backoff, StepReason, TimelineEvent};
use crate::diag::Diagnostic;
use crate::eval::kubelet::{ContainerKind, ContainerRestartInput, DecidedBy};
use crate::features::FeatureGates;
use read::{Owner, Read};
use std::collections::BTreeMap;
use std::time::Duration;

const NANOS_PER_SECOND: i64 = 1_000_000_000;
/// The Pod label (and annotation) holding a Pod's completion index in an Indexed Job.
const COMPLETION_INDEX: &str = "batch.kubernetes.io/job-completion-index";
/// Restarts past which the kubelet's curve is at its cap whatever the settings (the doubling
/// from the smallest initial reaches any max within far fewer steps): the curve is walked at
/// most this far, so a restartCount of millions costs nothing.
const CURVE_STEPS: i32 = 64;

/// What one run sees: the version's gates, the kubelet's curve, the instant.
struct Ctx<'a> {
    input: &'a ExplainInput,
    gates: FeatureGates,
    initial: Duration,
    max: Duration,
    now: i64,
    minor: u32,
}

pub fn run(input: ExplainInput) -> Result<ExplainOutput, Diagnostic> {
    let (gates, _) = FeatureGates::resolve(
        input.kubernetes_version.as_deref(),
        input.feature_gates.as_ref(),
    )?;
    let version = match input.kubernetes_version.as_deref() {
        Some(v) => crate::features::KubeVersion::parse(v)?,
        None => crate::features::KubeVersion::default(),
    };
    let setup = kubelet_backoff::kubelet_setup(&gates, input.kubelet_config.as_deref().cloned())?;
    let objects = read::read(input.objects.clone(), input.source.as_deref())?;
    let (now, now_from) = match input.now.as_deref() {
        Some(s) => (
            parse_rfc3339(s).map_err(|e| {
                Diagnostic::request("invalid-input", "input.now", format!("input.now: {e}"))
            })?,
            "input",
        ),
        None => match objects.newest {
            Some(t) => (t, "newestTimestamp"),
            None => {
                return Err(Diagnostic::request(
                    "invalid-input",
                    "input.now",
                    "the objects hold no timestamp to take `now` from; give `now` (RFC 3339)",
                ));
            }
        },
    };
    let ctx = Ctx {
        input: &input,
        gates,
        initial: setup.initial,
        max: setup.max,
        now,
        minor: version.minor,
    };
    let crash_loop_curve = format!(
        "{}s doubling to {}s, reset after {}s of running",
        crate::validate::kubelet_config::go_float(setup.initial.as_secs_f64()),
        crate::validate::kubelet_config::go_float(setup.max.as_secs_f64()),
        kubelet_backoff::RESET_AFTER_RUN.as_secs()
    );
    let mut notes = objects.notes.clone();
    if now_from == "newestTimestamp" {
        notes.push(format!(
            "now is {}, the newest timestamp in the input (assumed: the objects were read then)",
            format_rfc3339(now)
        ));
    }
    let workloads = group(&ctx, objects);
    let mut out = ExplainOutput {
        kubernetes_version: version.as_string(),
        now: format_rfc3339(now),
        now_from: now_from.to_owned(),
        crash_loop_curve,
        workloads,
        notes,
        text: None,
    };
    if input.text {
        out.text = Some(text::render(&out));
    }
    Ok(out)
}

fn ns_of(meta: &crate::api::ObjectMeta) -> String {
    meta.namespace
        .clone()
        .unwrap_or_else(|| "default".to_owned())
}

/// Groups the objects by owner: JobSet → Jobs → Pods; other Pods by their owner.
fn group(ctx: &Ctx<'_>, objects: read::Objects) -> Vec<Workload> {
    let read::Objects {
        pods,
        jobs,
        jobsets,
        ..
    } = objects;
    // Pods by (namespace, Job name); the rest by (namespace, owner).
    let mut job_pods: BTreeMap<(String, String), Vec<Pod>> = BTreeMap::new();
    let mut other_pods: BTreeMap<(String, Option<Owner>), Vec<Pod>> = BTreeMap::new();
    for Read { object, owner } in pods {
        let ns = ns_of(&object.metadata);
        match owner {
            Some(o) if o.kind == "Job" => job_pods.entry((ns, o.name)).or_default().push(object),
            o => other_pods.entry((ns, o)).or_default().push(object),
        }
    }
    let mut jobset_jobs: BTreeMap<(String, String), Vec<Job>> = BTreeMap::new();
    let mut lone_jobs: Vec<Job> = Vec::new();
    for Read { object, owner } in jobs {
        match owner {
            Some(o) if o.kind == "JobSet" => jobset_jobs
                .entry((ns_of(&object.metadata), o.name))
                .or_default()
                .push(object),
            _ => lone_jobs.push(object),
        }
    }
    let mut out = Vec::new();
    for Read { object: js, .. } in jobsets {
        let key = (ns_of(&js.metadata), js.metadata.name_or_empty().to_owned());
        let jobs = jobset_jobs.remove(&key).unwrap_or_default();
        let explained_jobs = jobs
            .iter()
            .map(|j| {
                explain_job(
                    ctx,
                    Some(j),
                    j.metadata.name_or_empty(),
                    take_pods(&mut job_pods, j),
                )
            })
            .collect();
        out.push(Workload {
            kind: "JobSet".to_owned(),
            namespace: key.0,
            name: key.1,
            present: true,
            jobset: Some(explain_jobset(ctx, &js)),
            jobs: explained_jobs,
            pods: vec![],
            notes: vec![],
        });
    }
    for ((ns, name), jobs) in jobset_jobs {
        out.push(Workload {
            kind: "JobSet".to_owned(),
            namespace: ns,
            name,
            present: false,
            jobset: None,
            jobs: jobs
                .iter()
                .map(|j| {
                    explain_job(
                        ctx,
                        Some(j),
                        j.metadata.name_or_empty(),
                        take_pods(&mut job_pods, j),
                    )
                })
                .collect(),
            pods: vec![],
            notes: vec![
                "the JobSet is not in the input: its failurePolicy and restarts cannot be known"
                    .to_owned(),
            ],
        });
    }
    for j in &lone_jobs {
        out.push(Workload {
            kind: "Job".to_owned(),
            namespace: ns_of(&j.metadata),
            name: j.metadata.name_or_empty().to_owned(),
            present: true,
            jobset: None,
            jobs: vec![explain_job(
                ctx,
                Some(j),
                j.metadata.name_or_empty(),
                take_pods(&mut job_pods, j),
            )],
            pods: vec![],
            notes: vec![],
        });
    }
    for ((ns, name), pods) in job_pods {
        out.push(Workload {
            kind: "Job".to_owned(),
            namespace: ns,
            name: name.clone(),
            present: false,
            jobset: None,
            jobs: vec![explain_job(ctx, None, &name, pods)],
            pods: vec![],
            notes: vec![],
        });
    }
    for ((ns, owner), pods) in other_pods {
        let (kind, name, present) = match owner {
            Some(o) => (o.kind, o.name, false),
            None => (
                "Pod".to_owned(),
                pods.first()
                    .map(|p| p.metadata.name_or_empty().to_owned())
                    .unwrap_or_default(),
                true,
            ),
        };
        let notes = if present {
            vec![]
        } else {
            vec![format!(
                "the {kind} itself is not in the input (explain reads Pods, Jobs and JobSets); its Pods are explained one by one"
            )]
        };
        out.push(Workload {
            kind,
            namespace: ns,
            name,
            present,
            jobset: None,
            jobs: vec![],
            pods: pods.iter().map(|p| explain_pod(ctx, p)).collect(),
            notes,
        });
    }
    out
}

fn take_pods(job_pods: &mut BTreeMap<(String, String), Vec<Pod>>, job: &Job) -> Vec<Pod> {
    job_pods
        .remove(&(
            ns_of(&job.metadata),
            job.metadata.name_or_empty().to_owned(),
        ))
        .unwrap_or_default()
}

fn seconds(ns: i64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let s = ns as f64 / 1e9;
    s
}

fn nanos(d: Duration) -> i64 {
    i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)
}

/// The Linux name of signal `n` for the signals containers are commonly stopped by.
fn signal_name(n: i32) -> Option<&'static str> {
    Some(match n {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => return None,
    })
}

fn explain_pod(ctx: &Ctx<'_>, pod: &Pod) -> PodExplained {
    let mut notes = Vec::new();
    let status = pod.status.clone().unwrap_or_default();
    if pod.status.is_none() {
        notes.push("the Pod has no status (not read with `kubectl get -o yaml`?): nothing is known of its containers".to_owned());
    }
    let mut spec = pod.spec.clone();
    crate::validate::pod::default_pod_spec(&mut spec);
    let mut containers = Vec::new();
    let statuses = status
        .init_container_statuses
        .iter()
        .chain(status.container_statuses.iter());
    for cs in statuses {
        let Some((_, kind)) = crate::eval::kubelet::find_container(&spec, &cs.name) else {
            notes.push(format!(
                "container status {:?} has no container of that name in the spec",
                cs.name
            ));
            continue;
        };
        containers.push(explain_container(ctx, pod, cs, kind, &mut notes));
    }
    hold_for_last_sidecar(ctx, &spec, &mut containers, &mut notes);
    if pod.metadata.deletion_timestamp.is_some() {
        notes.push("the Pod is terminating (deletionTimestamp set): the kubelet restarts none of its containers".to_owned());
    }
    PodExplained {
        name: pod.metadata.name_or_empty().to_owned(),
        phase: status.phase.clone().unwrap_or_else(|| "Unknown".to_owned()),
        completion_index: completion_index(pod),
        containers,
        failure: None,
        notes,
    }
}

/// Whether the Pod can have been reset by a RestartAllContainers rule (a rule with that action
/// on any of its containers, with the gates that act on it).
fn pod_may_restart_all(ctx: &Ctx<'_>, pod: &Pod) -> bool {
    use crate::eval::kubelet::{ACTION_RESTART_ALL, GATE_RESTART_ALL, GATE_RULES};
    ctx.gates.enabled(GATE_RULES)
        && ctx.gates.enabled(GATE_RESTART_ALL)
        && pod
            .spec
            .init_containers
            .iter()
            .chain(pod.spec.containers.iter())
            .any(|c| c.rules().iter().any(|r| r.action == ACTION_RESTART_ALL))
}

/// Up to 1.36 the kubelet counts a Pod as initialized only while one of its regular containers
/// runs, or when its last init container is done (a sidecar running, an init container
/// completed): computeInitContainerActions (v1.36.3 kuberuntime_container.go:1070-1095,
/// :1160-1163, :1240-1242), after which computePodActions returns before the regular containers
/// (kuberuntime_manager.go:1283-1288). So with no regular container running and the last init
/// container a sidecar that is not running, a regular container restarts only with that sidecar:
/// at the later of its own instant and the sidecar's, or not at all while the sidecar is not
/// restarted.
fn hold_for_last_sidecar(
    ctx: &Ctx<'_>,
    spec: &crate::api::PodSpec,
    containers: &mut [ContainerExplained],
    notes: &mut Vec<String>,
) {
    if crate::versions::Change::RegularsRestartPastSidecarBackoff.at(ctx.minor) {
        return;
    }
    let Some(last) = spec.init_containers.last() else {
        return;
    };
    if !crate::api::core::is_sidecar(last) {
        return;
    }
    let running = |c: &ContainerExplained| c.state == "running";
    if containers
        .iter()
        .any(|c| c.container_kind == ContainerKind::Container && running(c))
    {
        return;
    }
    let Some(sidecar) = containers.iter().find(|c| c.name == last.name) else {
        return;
    };
    if running(sidecar) {
        return;
    }
    let sidecar_at = sidecar.crash_loop_back_off.as_ref().and_then(|b| {
        b.next_restart_at
            .clone()
            .map(|at| (at, b.next_restart_latest_at.clone()))
    });
    let sidecar_name = sidecar.name.clone();
    for c in containers.iter_mut() {
        if c.container_kind != ContainerKind::Container {
            continue;
        }
        let Some(b) = c.crash_loop_back_off.as_mut() else {
            continue;
        };
        let (Some(own), Some(own_in)) = (b.next_restart_at.clone(), b.next_restart_in_seconds)
        else {
            continue;
        };
        let own_at = parse_rfc3339(&own).ok();
        match &sidecar_at {
            Some((at, latest)) => {
                let side = parse_rfc3339(at).ok();
                if let (Some(o), Some(sd)) = (own_at, side)
                    && sd > o
                {
                    b.next_restart_at = Some(at.clone());
                    b.next_restart_latest_at = latest.clone();
                    b.next_restart_in_seconds = Some(own_in + seconds(sd - o));
                }
                notes.push(format!(
                    "container {:?}: up to 1.36 the kubelet restarts the Pod's containers only once its last sidecar {sidecar_name:?} runs again (none of them runs now): not before {at}",
                    c.name
                ));
            }
            None => {
                b.next_restart_at = None;
                b.next_restart_in_seconds = None;
                b.next_restart_latest_at = None;
                notes.push(format!(
                    "container {:?}: up to 1.36 the kubelet restarts the Pod's containers only once its last sidecar {sidecar_name:?} runs again, and it is not restarted: the container waits",
                    c.name
                ));
            }
        }
    }
}

fn completion_index(pod: &Pod) -> Option<i32> {
    pod.metadata
        .label(COMPLETION_INDEX)
        .or_else(|| pod.metadata.annotation(COMPLETION_INDEX))
        .and_then(|s| s.parse().ok())
}

fn state_words(s: Option<&crate::api::ContainerState>) -> String {
    match s {
        Some(s) if s.running.is_some() => "running".to_owned(),
        Some(crate::api::ContainerState {
            waiting: Some(w), ..
        }) => format!("waiting: {}", w.reason.as_deref().unwrap_or("(no reason)")),
        Some(crate::api::ContainerState {
            terminated: Some(t),
            ..
        }) => format!(
            "terminated: {} (exit code {})",
            t.reason.as_deref().unwrap_or("(no reason)"),
            t.exit_code
        ),
        _ => "unknown".to_owned(),
    }
}

fn explain_container(
    ctx: &Ctx<'_>,
    pod: &Pod,
    cs: &crate::api::ContainerStatus,
    kind: ContainerKind,
    notes: &mut Vec<String>,
) -> ContainerExplained {
    let name = cs.name.clone();
    let state = state_words(cs.state.as_ref());
    // The termination the kubelet decides on: the current one when the container is
    // terminated, else the last one.
    let current = cs.state.as_ref().and_then(|s| s.terminated.as_ref());
    let waiting = cs.state.as_ref().and_then(|s| s.waiting.as_ref()).is_some();
    let last = current.or_else(|| cs.last_state.as_ref().and_then(|s| s.terminated.as_ref()));
    let last_termination = last.map(|t| {
        let signal = t
            .signal
            .filter(|s| *s > 0)
            .or_else(|| (t.exit_code > 128).then(|| t.exit_code - 128));
        Termination {
            exit_code: t.exit_code,
            reason: t.reason.clone(),
            signal,
            signal_name: signal.and_then(signal_name).map(str::to_owned),
            started_at: t.started_at.clone(),
            finished_at: t.finished_at.clone(),
        }
    });
    let completed = last.is_some_and(|t| {
        crate::eval::kubelet::init_container_completed(kind, t.exit_code, t.reason.as_deref())
    });
    let decision = last.and_then(|t| {
        if completed {
            return Some(Decision {
                action: "DoNotRestart".to_owned(),
                restart_all_containers: false,
                decided_by: DecidedBy::InitContainerCompleted,
                rule_index: None,
                reason: crate::eval::kubelet::init_container_completed_reason(&name),
            });
        }
        let out = crate::eval::kubelet::container_restart(ContainerRestartInput {
            pod: pod.clone(),
            container: name.clone(),
            exit_code: t.exit_code,
            kubernetes_version: ctx.input.kubernetes_version.clone(),
            feature_gates: ctx.input.feature_gates.clone(),
            proposals: vec![],
            restart_count: None,
            reason: None,
        });
        match out {
            Ok(o) => Some(Decision {
                action: o.action,
                restart_all_containers: o.restart_all_containers,
                decided_by: o.decided_by,
                rule_index: o.rule_index,
                reason: o.reason,
            }),
            Err(e) => {
                notes.push(format!("container {name:?}: {}", e.message));
                None
            }
        }
    });
    let restarts_next = decision.as_ref().is_some_and(|d| d.action == "Restart")
        && (waiting || current.is_some())
        && pod.metadata.deletion_timestamp.is_none();
    let crash_loop_back_off = match (restarts_next, last) {
        (true, Some(t)) => crash_loop(
            ctx,
            &name,
            cs.restart_count,
            t,
            pod_may_restart_all(ctx, pod),
            notes,
        ),
        _ => None,
    };
    ContainerExplained {
        name,
        container_kind: kind,
        restart_count: cs.restart_count,
        state,
        last_termination,
        decision,
        crash_loop_back_off,
    }
}

/// The kubelet's wait before the next restart of a container that has restarted
/// `restart_count` times and last ran from `t.startedAt` to `t.finishedAt`: the curve walked
/// over `restart_count` crashes at once, then the last run (whose length decides the 600 s reset
/// and the GC of the entry).
fn crash_loop(
    ctx: &Ctx<'_>,
    name: &str,
    restart_count: i32,
    t: &crate::api::ContainerStateTerminated,
    may_restart_all: bool,
    notes: &mut Vec<String>,
) -> Option<CrashLoopBackOff> {
    let parse = |s: Option<&str>| s.and_then(|s| parse_rfc3339(s).ok());
    let finished = parse(t.finished_at.as_deref());
    let started = parse(t.started_at.as_deref());
    let ran = match (started, finished) {
        (Some(s), Some(f)) if f >= s => seconds(f - s),
        _ => {
            notes.push(format!(
                "container {name:?}: the last run has no startedAt/finishedAt pair; assumed it crashed as soon as it started"
            ));
            0.0
        }
    };
    let earlier = usize::try_from(restart_count.clamp(0, CURVE_STEPS)).unwrap_or(0);
    let mut events = kubelet_backoff::crashes(earlier);
    events.push(TimelineEvent {
        event: "crash".to_owned(),
        ran_seconds: Some(ran),
    });
    // The restart after, were it to crash at once again.
    events.push(TimelineEvent {
        event: "crash".to_owned(),
        ran_seconds: None,
    });
    let steps = kubelet_backoff::simulate(ctx.initial, ctx.max, &events).ok()?;
    let step = steps.get(earlier)?;
    let following = steps
        .get(earlier + 1)
        .map_or(0.0, |s| s.delay.as_secs_f64());
    if restart_count > 0 {
        let resets = if may_restart_all {
            "; and that none was a RestartAllContainers reset of the Pod (the reset removes the containers and starts them afresh: restartCount counts those starts, the back-off does not)"
        } else {
            ""
        };
        notes.push(format!(
            "container {name:?}: the kubelet keeps its back-off in memory, not in the status; assumed each of its {restart_count} restarts came within 600 s of the one before and the kubelet did not restart{resets} (a longer gap lets the kubelet forget the back-off, as does a kubelet restart: either would make the wait shorter)"
        ));
    }
    let (next_restart_at, next_restart_in_seconds, next_restart_latest_at) = match finished {
        Some(f) => {
            if f > ctx.now {
                notes.push(format!(
                    "container {name:?}: finishedAt {} is after now {} (clock skew, or now too early): the wait is counted from finishedAt",
                    format_rfc3339(f),
                    format_rfc3339(ctx.now)
                ));
            }
            let at = f.saturating_add(nanos(step.delay));
            let latest = (step.why == StepReason::GarbageCollected).then(|| {
                format_rfc3339(at.saturating_add(nanos(kubelet_backoff::HOUSEKEEPING_PERIOD)))
            });
            (
                Some(format_rfc3339(at)),
                Some(seconds(at.saturating_sub(ctx.now))),
                latest,
            )
        }
        None => {
            notes.push(format!(
                "container {name:?}: the last termination has no finishedAt: the instant of the next restart cannot be known"
            ));
            (None, None, None)
        }
    };
    Some(CrashLoopBackOff {
        delay_seconds: step.delay.as_secs_f64(),
        why: step.why,
        next_restart_at,
        next_restart_in_seconds,
        next_restart_latest_at,
        following_delay_seconds: following,
    })
}

fn condition_meaning(type_: &str, reason: Option<&str>) -> String {
    match (type_, reason) {
        ("Failed", Some("BackoffLimitExceeded")) => "the Job failed: more counted Pod failures than backoffLimit".to_owned(),
        ("Failed", Some("PodFailurePolicy")) => "the Job failed: a Pod matched a FailJob rule of its podFailurePolicy".to_owned(),
        ("Failed", Some("DeadlineExceeded")) => "the Job failed: it ran longer than activeDeadlineSeconds".to_owned(),
        ("Failed", Some("FailedIndexes")) => "the Job failed: some indexes failed (backoffLimitPerIndex or FailIndex)".to_owned(),
        ("Failed", Some("MaxFailedIndexesExceeded")) => "the Job failed: more failed indexes than maxFailedIndexes".to_owned(),
        ("Failed", _) => "the Job failed; no more Pods are created".to_owned(),
        ("FailureTarget", _) => "the controller has decided the Job fails; it terminates the remaining Pods, then sets Failed".to_owned(),
        ("SuccessCriteriaMet", _) => "the Job met its successPolicy (or completions); it terminates the remaining Pods, then sets Complete".to_owned(),
        ("Complete", _) => "the Job completed; no more Pods are created".to_owned(),
        ("Suspended", _) => "the Job is suspended: its Pods are deleted and none are created".to_owned(),
        _ => "a condition the Job controller does not act on".to_owned(),
    }
}

fn is_true(conds: &[crate::api::Condition], t: &str) -> bool {
    conds.iter().any(|c| c.type_ == t && c.status == "True")
}

/// Counts indexes in a Job's `failedIndexes` (`"1,3-5"`).
fn count_indexes(s: &str) -> i64 {
    s.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('-') {
            Some((a, b)) => match (a.parse::<i64>(), b.parse::<i64>()) {
                (Ok(a), Ok(b)) if b >= a => b - a + 1,
                _ => 1,
            },
            None => 1,
        })
        .sum()
}

fn creation_back_off(ctx: &Ctx<'_>, failures: i32, last: i64) -> PodCreationBackOff {
    let d = (DEFAULT_JOB_POD_FAILURE_BACKOFF_SECONDS as i64).saturating_mul(NANOS_PER_SECOND);
    let m = (MAX_JOB_POD_FAILURE_BACKOFF_SECONDS as i64).saturating_mul(NANOS_PER_SECOND);
    let delay = remaining_for_failures(d, m, failures, 0);
    let remaining = remaining_for_failures(d, m, failures, ctx.now.saturating_sub(last));
    let next = last.saturating_add(delay);
    PodCreationBackOff {
        failures,
        last_failure_at: format_rfc3339(last),
        delay_seconds: seconds(delay),
        next_pod_at: format_rfc3339(next),
        next_pod_in_seconds: if remaining > 0 {
            seconds(remaining)
        } else {
            seconds(next.saturating_sub(ctx.now))
        },
    }
}

fn explain_job(ctx: &Ctx<'_>, job: Option<&Job>, name: &str, mut pods: Vec<Pod>) -> JobExplained {
    let mut notes = Vec::new();
    pods.sort_by(|a, b| {
        a.metadata
            .creation_timestamp
            .cmp(&b.metadata.creation_timestamp)
    });
    let mut explained: Vec<PodExplained> = pods.iter().map(|p| explain_pod(ctx, p)).collect();
    let Some(job) = job else {
        notes.push(format!(
            "the Job {name:?} is not in the input: its podFailurePolicy, backoffLimit and counts cannot be known; its Pods are explained by the kubelet alone"
        ));
        return JobExplained {
            name: name.to_owned(),
            present: false,
            phase: "Unknown".to_owned(),
            active: 0,
            succeeded: 0,
            failed: 0,
            backoff_limit: 0,
            failures_left: None,
            backoff_limit_per_index: None,
            indexes: vec![],
            failed_indexes: None,
            max_failed_indexes: None,
            pod_creation_back_off: None,
            conditions: vec![],
            pods: explained,
            notes,
        };
    };
    let mut j = job.clone();
    crate::validate::job::default_job_spec_with_gates(&mut j.spec, &ctx.gates);
    let status = j.status.clone().unwrap_or_default();
    let conds = &status.conditions;
    let phase = if is_true(conds, "Complete") {
        "Complete"
    } else if is_true(conds, "Failed") {
        "Failed"
    } else if is_true(conds, "Suspended") {
        "Suspended"
    } else {
        "Running"
    };
    let finished = phase == "Complete" || phase == "Failed";
    let backoff_limit = j.spec.backoff_limit.unwrap_or(6);
    let per_index = j.spec.backoff_limit_per_index;
    // Each failed Pod through the podFailurePolicy; the finish times feed the back-off record.
    let mut failed_times = Vec::new();
    let mut succeeded_times = Vec::new();
    let mut counted_visible = 0i32;
    let mut index_last: BTreeMap<i32, (&Pod, bool)> = BTreeMap::new();
    for (pod, ex) in pods.iter().zip(explained.iter_mut()) {
        let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
        let at = match finished_time(pod, &ctx.gates) {
            Ok(t) => t,
            Err(e) => {
                ex.notes.push(format!("finish time: {}", e.message));
                continue;
            }
        };
        match phase {
            Some("Succeeded") => succeeded_times.push(at),
            Some("Failed") => {
                let o = crate::eval::job::evaluate(&j, pod, &ctx.gates);
                if o.count_failed {
                    counted_visible += 1;
                }
                failed_times.push(at);
                if let Some(ix) = ex.completion_index {
                    let later = index_last.get(&ix).is_none_or(|(p, _)| {
                        finished_time(p, &ctx.gates).unwrap_or(i64::MIN) <= at
                    });
                    if later {
                        index_last.insert(ix, (pod, o.count_failed));
                    }
                }
                ex.failure = Some(PodFailureExplained {
                    rule_index: o.rule_index,
                    action: o.action,
                    counted: o.count_failed,
                    reason: o.reason,
                    finished_at: format_rfc3339(at),
                });
            }
            _ => {}
        }
    }
    let failed = status.failed.unwrap_or(0);
    if failed > counted_visible {
        notes.push(format!(
            "status.failed is {failed} but only {counted_visible} counted failed Pods are in the input: the other {} were deleted, and their history (exit codes, rules matched, finish times) cannot be known",
            failed - counted_visible
        ));
    }
    let failures_left = per_index
        .is_none()
        .then(|| (i64::from(backoff_limit) - i64::from(failed)).max(0));
    if j.spec.template.spec.restart_policy.as_deref() == Some("OnFailure") {
        let restarts: i64 = pods
            .iter()
            .filter(|p| {
                matches!(
                    p.status.as_ref().and_then(|s| s.phase.as_deref()),
                    Some("Running" | "Pending")
                )
            })
            .flat_map(|p| {
                p.status.iter().flat_map(|s| {
                    s.init_container_statuses
                        .iter()
                        .chain(s.container_statuses.iter())
                        .map(|c| i64::from(c.restart_count))
                })
            })
            .sum();
        notes.push(format!(
            "restartPolicy OnFailure: container restarts of the running Pods count too; the Job fails when they reach backoffLimit ({restarts} of {backoff_limit} now)"
        ));
    }
    let mut indexes = Vec::new();
    if let Some(limit) = per_index {
        for (ix, (pod, counted)) in &index_last {
            let before = i64::from(crate::backoff::job::index_failure_count(pod));
            let failures = before + i64::from(*counted);
            let back_off = (!finished).then(|| {
                let count = index_absolute_failure_count(pod).saturating_add(1);
                let last = finished_time(pod, &ctx.gates).unwrap_or(ctx.now);
                creation_back_off(ctx, count, last)
            });
            indexes.push(IndexExplained {
                index: *ix,
                failures,
                failures_left: (i64::from(limit) - failures).max(0),
                pod_creation_back_off: back_off,
            });
        }
        if let (Some(fi), Some(max)) = (&status.failed_indexes, j.spec.max_failed_indexes) {
            notes.push(format!(
                "failedIndexes {fi:?}: {} of maxFailedIndexes {max}; the Job fails when more than {max} indexes have failed",
                count_indexes(fi)
            ));
        }
    }
    let pod_creation_back_off = if finished || per_index.is_some() {
        None
    } else {
        let (count, last) = new_backoff_record((0, None), &succeeded_times, &failed_times);
        last.map(|l| creation_back_off(ctx, count, l))
    };
    if pod_creation_back_off.is_some() {
        notes.push("the Job controller's back-off record is in memory; rebuilt here from the Pods in the input (failures after the last success, Ignore matches included, as newBackoffRecord counts them)".to_owned());
    }
    JobExplained {
        name: name.to_owned(),
        present: true,
        phase: phase.to_owned(),
        active: status.active.unwrap_or(0),
        succeeded: status.succeeded.unwrap_or(0),
        failed,
        backoff_limit,
        failures_left,
        backoff_limit_per_index: per_index,
        indexes,
        failed_indexes: status.failed_indexes.clone(),
        max_failed_indexes: j.spec.max_failed_indexes,
        pod_creation_back_off,
        conditions: conds
            .iter()
            .map(|c| ConditionExplained {
                type_: c.type_.clone(),
                status: c.status.clone(),
                reason: c.reason.clone(),
                meaning: condition_meaning(&c.type_, c.reason.as_deref()),
            })
            .collect(),
        pods: explained,
        notes,
    }
}

fn explain_jobset(ctx: &Ctx<'_>, js: &JobSet) -> JobSetExplained {
    let status = js.status.clone().unwrap_or_default();
    let conds = &status.conditions;
    let phase = if is_true(conds, "Completed") {
        "Completed"
    } else if is_true(conds, "Failed") {
        "Failed"
    } else if is_true(conds, "Suspended") {
        "Suspended"
    } else {
        "Running"
    };
    let now = format_rfc3339(ctx.now);
    let next_failure = js
        .spec
        .replicated_jobs
        .iter()
        .map(|rj| {
            let reason = "BackoffLimitExceeded";
            let js_name = js.metadata.name_or_empty();
            let job: Job = serde_json::from_value(serde_json::json!({
                "metadata": {
                    "name": format!("{js_name}-{}-0", rj.name),
                    "namespace": ns_of(&js.metadata),
                    "labels": {
                        crate::eval::jobset::REPLICATED_JOB_NAME_KEY: rj.name,
                        "jobset.sigs.k8s.io/jobset-name": js_name,
                        "jobset.sigs.k8s.io/job-index": "0",
                    }
                },
                "status": {"conditions": [{"type": "Failed", "status": "True", "reason": reason,
                    "message": "Job has reached the specified backoff limit", "lastTransitionTime": now}]}
            }))
            .unwrap_or_default();
            match crate::eval::jobset::failure_policy(js, &[job], &ctx.gates, Some(&now)) {
                Ok(o) => {
                    let outcome = o
                        .skipped
                        .clone()
                        .or_else(|| o.events.first().map(|e| format!("{}: {}", e.reason, e.message)))
                        .or_else(|| o.error.clone())
                        .unwrap_or_else(|| "no change".to_owned());
                    NextJobFailure {
                        replicated_job: rj.name.clone(),
                        job_failure_reason: reason.to_owned(),
                        action: o.action,
                        matched_rule: o
                            .matched_rule_name
                            .or_else(|| o.matched_rule.map(|k| format!("rules[{k}]"))),
                        jobset_fails: o.failed,
                        jobset_restarts: o.restarted_jobset,
                        outcome,
                    }
                }
                Err(e) => NextJobFailure {
                    replicated_job: rj.name.clone(),
                    job_failure_reason: reason.to_owned(),
                    action: None,
                    matched_rule: None,
                    jobset_fails: false,
                    jobset_restarts: false,
                    outcome: e.message,
                },
            }
        })
        .collect();
    JobSetExplained {
        restarts: status.restarts,
        restarts_count_towards_max: status.restarts_count_towards_max,
        max_restarts: js.spec.failure_policy.as_ref().map(|f| f.max_restarts),
        phase: phase.to_owned(),
        next_failure,
        job_restarts: job_restarts(&status),
    }
}

/// The Jobs a RestartJob action restarted, from the JobSet's status: a replicatedJob's
/// `jobRestarts[i]` is Job i's count, `jobRestartsCountTowardsMax[i]` those of them that count.
fn job_restarts(status: &crate::api::jobset::JobSetStatus) -> Vec<JobRestarts> {
    let mut out = Vec::new();
    for rj in &status.replicated_jobs_status {
        let counted = rj.job_restarts_count_towards_max.as_deref().unwrap_or(&[]);
        for (i, &n) in rj.job_restarts.as_deref().unwrap_or(&[]).iter().enumerate() {
            if n > 0 {
                out.push(JobRestarts {
                    replicated_job: rj.name.clone(),
                    job_index: i,
                    restarts: n,
                    count_towards_max: counted.get(i).copied().unwrap_or(0),
                });
            }
        }
    }
    out
}
