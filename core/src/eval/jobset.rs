//! The JobSet controller's failure policy (kubernetes-sigs/jobset `pkg/controllers/failure_policy.go`,
//! `executeFailurePolicy` and the condition helpers of `jobset_controller.go`), run once per
//! reconcile in which at least one child Job of the current run has failed.
//!
//! [`execute_failure_policy`] takes typed values and returns the new status, so a simulator can
//! call it again and again; [`jobset_failure_policy`] is the contract op around it.

use crate::api::{
    Condition, Job, JobSet, JobSetFailurePolicyRule, JobSetStatus, ReplicatedJobStatus,
};
use crate::diag::Diagnostic;
use crate::features::FeatureGates;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Label linking a child Job to its ReplicatedJob.
pub const REPLICATED_JOB_NAME_KEY: &str = "jobset.sigs.k8s.io/replicatedjob-name";
/// Label holding a child Job's index within its ReplicatedJob.
pub const JOB_INDEX_KEY: &str = "jobset.sigs.k8s.io/job-index";
/// The JobSet's condition types.
pub const CONDITION_FAILED: &str = "Failed";
pub const CONDITION_COMPLETED: &str = "Completed";
/// `jobset.JobSetRestarting` (api/jobset/v1alpha2/jobset_types.go).
pub const CONDITION_RESTARTING: &str = "RestartingJobSet";
/// The controller name that leaves a JobSet to the default controller.
pub const JOBSET_CONTROLLER_NAME: &str = "jobset.sigs.k8s.io/jobset-controller";

// pkg/constants: condition and event reasons and messages.
const REACHED_MAX_RESTARTS_REASON: &str = "ReachedMaxRestarts";
const REACHED_MAX_RESTARTS_MESSAGE: &str = "jobset failed due to reaching max number of restarts";
const FAILED_JOBS_REASON: &str = "FailedJobs";
const FAILED_JOBS_MESSAGE: &str = "jobset failed due to one or more job failures";
const DEFAULT_FAILURE_POLICY_REASON: &str = "DefaultFailurePolicy";
const JOBSET_FAILED_RESTARTING_REASON: &str = "JobSetFailed";
const JOBSET_FAILED_RESTARTING_MESSAGE: &str = "jobset failed";
const FAIL_JOBSET_REASON: &str = "FailJobSetFailurePolicyAction";
const FAIL_JOBSET_MESSAGE: &str = "applying FailJobSet failure policy action";
const RESTART_JOBSET_REASON: &str = "RestartJobSetFailurePolicyAction";
const RESTART_JOBSET_MESSAGE: &str = "applying RestartJobSet failure policy action";
const RESTART_JOBSET_IGNORE_REASON: &str = "RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction";
const RESTART_JOBSET_IGNORE_MESSAGE: &str =
    "applying RestartJobSetAndIgnoreMaxRestarts failure policy action";
const RESTART_JOB_REASON: &str = "RestartJobFailurePolicyAction";
const RESTART_JOB_MESSAGE: &str = "applying RestartJob failure policy action";
const RESTART_JOB_IGNORE_REASON: &str = "RestartJobAndIgnoreMaxRestartsFailurePolicyAction";
const RESTART_JOB_IGNORE_MESSAGE: &str =
    "applying RestartJobAndIgnoreMaxRestarts failure policy action";

/// The action applied when no rule matches.
pub const DEFAULT_ACTION: &str = "RestartJobSet";

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JobSetFailurePolicyInput {
    pub jobset: JobSet,
    /// The failed child Jobs of the current run (with their status conditions).
    pub failed_jobs: Vec<Job>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
    /// RFC 3339 time written as `lastTransitionTime` of conditions this step changes; without
    /// it those conditions carry no time (restartkit has no clock).
    #[serde(default)]
    pub now: Option<String>,
}

/// An event the controller emits (after a successful status update).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetEvent {
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub type_: String,
    pub reason: String,
    pub message: String,
}

/// The Job a RestartJob action recreates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RestartedJob {
    pub replicated_job: String,
    pub index: usize,
}

/// What one run of the failure policy decides, and the JobSet status after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailurePolicyOutcome {
    /// Whether the controller ran the failure policy at all (see `skipped`).
    pub executed: bool,
    /// Why it did not: the JobSet has finished, is managed elsewhere, or no Job has failed.
    pub skipped: Option<String>,
    /// The action applied: the matched rule's, `RestartJobSet` when no rule matched, null without
    /// `spec.failurePolicy` (the JobSet then fails at once).
    pub action: Option<String>,
    /// Index of the rule that matched.
    pub matched_rule: Option<usize>,
    pub matched_rule_name: Option<String>,
    /// Whether any rule applied to a failed Job.
    pub rule_applicable: bool,
    /// The Job the action is applied to (named in the messages).
    pub matched_job: Option<String>,
    /// The controller returned this error; the status is then left as it was.
    pub error: Option<String>,
    /// The JobSet status after the step.
    pub status: JobSetStatus,
    /// Whether the step changed the status.
    pub status_changed: bool,
    pub events: Vec<JobSetEvent>,
    /// Set for RestartJob and RestartJobAndIgnoreMaxRestarts when the Job is recreated.
    pub restarted_job: Option<RestartedJob>,
    /// The JobSet failed in this step.
    pub failed: bool,
    /// All Jobs are recreated (RestartJobSet, RestartJobSetAndIgnoreMaxRestarts).
    pub restarted_jobset: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetFailurePolicyOutput {
    pub action: Option<String>,
    pub matched_rule: Option<usize>,
    pub matched_rule_name: Option<String>,
    pub matched_job: Option<String>,
    pub rule_applicable: bool,
    pub executed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(rename = "jobSetStatus")]
    pub jobset_status: JobSetStatus,
    /// `jobSetStatus.conditions`, repeated for convenience.
    pub conditions: Vec<Condition>,
    pub status_changed: bool,
    pub events: Vec<JobSetEvent>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restarted_job: Option<RestartedJob>,
    pub failed: bool,
    pub restarted_jobset: bool,
}

/// The `jobsetFailurePolicy` op: the input's version and gates, then [`failure_policy`].
pub fn jobset_failure_policy(
    i: JobSetFailurePolicyInput,
) -> Result<JobSetFailurePolicyOutput, Diagnostic> {
    let (gates, _) =
        FeatureGates::resolve(i.kubernetes_version.as_deref(), i.feature_gates.as_ref())?;
    failure_policy(&i.jobset, &i.failed_jobs, &gates, i.now.as_deref())
}

/// What the op answers, on typed values: the simulator and `whatIf` call this with the objects
/// they hold, so their answers are the op's by construction.
pub fn failure_policy(
    jobset: &JobSet,
    failed_jobs: &[Job],
    gates: &FeatureGates,
    now: Option<&str>,
) -> Result<JobSetFailurePolicyOutput, Diagnostic> {
    if let Some(now) = now.filter(|n| parse_time(n).is_none()) {
        return Err(Diagnostic::request(
            "invalid-input",
            "input.now",
            format!("input.now: {now:?} is not an RFC 3339 time"),
        ));
    }
    unbuildable_pattern(jobset)?;
    let o = execute_failure_policy(jobset, failed_jobs, gates, now);
    Ok(JobSetFailurePolicyOutput {
        action: o.action,
        matched_rule: o.matched_rule,
        matched_rule_name: o.matched_rule_name,
        matched_job: o.matched_job,
        rule_applicable: o.rule_applicable,
        executed: o.executed,
        skipped: o.skipped,
        error: o.error,
        conditions: o.status.conditions.clone(),
        jobset_status: o.status,
        status_changed: o.status_changed,
        events: o.events,
        restarted_job: o.restarted_job,
        failed: o.failed,
        restarted_jobset: o.restarted_jobset,
    })
}

// ---------------------------------------------------------------------------------------------
// Times

/// Nanoseconds since the Unix epoch of an RFC 3339 time (`2025-01-01T12:00:00Z`,
/// `…T12:00:00.5+02:00`).
pub fn parse_time(s: &str) -> Option<i128> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(r)?;
        if part.is_empty() || !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    let sep = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(sep(4, b'-')
        && sep(7, b'-')
        && (sep(10, b'T') || sep(10, b't') || sep(10, b' '))
        && sep(13, b':')
        && sep(16, b':'))
    {
        return None;
    }
    let (y, mo, d, h, mi, se) = (
        num(0..4)?,
        num(5..7)?,
        num(8..10)?,
        num(11..13)?,
        num(14..16)?,
        num(17..19)?,
    );
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let mut i = 19;
    let mut nanos: i64 = 0;
    if sep(i, b'.') {
        let start = i + 1;
        let mut end = start;
        while b.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
        if end == start {
            return None;
        }
        let frac = s.get(start..end.min(start + 9))?;
        nanos = frac.parse::<i64>().ok()? * 10i64.pow(9 - u32::try_from(frac.len()).ok()?);
        i = end;
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(c @ (b'+' | b'-')) if i + 6 == b.len() && sep(i + 3, b':') => {
            let v = num(i + 1..i + 3)? * 3600 + num(i + 4..i + 6)? * 60;
            if *c == b'+' { v } else { -v }
        }
        _ => return None,
    };
    // Days from civil (proleptic Gregorian).
    let (yy, m) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 + se - offset;
    Some(i128::from(secs) * 1_000_000_000 + i128::from(nanos))
}

/// Go's zero `time.Time` (0001-01-01T00:00:00Z), the failure time of a condition without one.
const ZERO_TIME: i128 = -62_135_596_800 * 1_000_000_000;

fn condition_time(c: &Condition) -> i128 {
    c.last_transition_time
        .as_deref()
        .and_then(parse_time)
        .unwrap_or(ZERO_TIME)
}

// ---------------------------------------------------------------------------------------------
// Rule selection

/// The Job's `Failed=True` condition (`findJobFailureCondition`).
pub fn job_failure_condition(job: &Job) -> Option<&Condition> {
    job.status
        .as_ref()?
        .conditions
        .iter()
        .find(|c| c.type_ == "Failed" && c.status == "True")
}

/// Whether the Job has finished as Failed (`JobFinished`: the first Complete or Failed
/// condition that is True decides).
pub fn job_finished_failed(job: &Job) -> bool {
    job.status
        .as_ref()
        .and_then(|s| {
            s.conditions
                .iter()
                .find(|c| (c.type_ == "Complete" || c.type_ == "Failed") && c.status == "True")
        })
        .is_some_and(|c| c.type_ == "Failed")
}

fn parent_replicated_job(job: &Job) -> Option<&str> {
    job.metadata
        .label(REPLICATED_JOB_NAME_KEY)
        .filter(|s| !s.is_empty())
}

/// A message pattern Go accepts but regex-lite cannot build (only past its size limit,
/// e.g. thousands of copies of `\pL`) would be skipped as if Go had refused it: refused here
/// instead, so that no answer differs from upstream silently.
pub fn unbuildable_pattern(jobset: &JobSet) -> Result<(), Diagnostic> {
    let rules = jobset
        .spec
        .failure_policy
        .as_ref()
        .map(|fp| fp.rules.as_slice())
        .unwrap_or_default();
    for (r, rule) in rules.iter().enumerate() {
        for (k, p) in rule.on_job_failure_message_patterns.iter().enumerate() {
            if crate::go_regexp::translate(p).is_ok()
                && let Err(why) = crate::go_regexp::compile(p)
            {
                let field = format!(
                    "input.jobset.spec.failurePolicy.rules[{r}].onJobFailureMessagePatterns[{k}]"
                );
                return Err(Diagnostic::request(
                    "unsupported-pattern",
                    &field,
                    format!("{field}: {p:?} is valid RE2, but restartkit cannot build it ({why})"),
                ));
            }
        }
    }
    Ok(())
}

/// Unanchored RE2 search of any pattern; a pattern that does not compile is skipped (upstream
/// logs it).
pub fn any_pattern_matches(patterns: &[String], message: &str) -> bool {
    patterns
        .iter()
        .any(|p| crate::go_regexp::matches(p, message) == Some(true))
}

/// `ruleIsApplicable`.
pub fn rule_is_applicable(
    rule: &JobSetFailurePolicyRule,
    job: &Job,
    reason: &str,
    message: &str,
) -> bool {
    if !(rule.on_job_failure_reasons.is_empty()
        || rule.on_job_failure_reasons.iter().any(|r| r == reason))
    {
        return false;
    }
    if !(rule.on_job_failure_message_patterns.is_empty()
        || any_pattern_matches(&rule.on_job_failure_message_patterns, message))
    {
        return false;
    }
    let Some(parent) = parent_replicated_job(job) else {
        return false;
    };
    rule.target_replicated_jobs.is_empty()
        || rule.target_replicated_jobs.iter().any(|t| t == parent)
}

/// `findFirstFailedPolicyRuleAndJob`: the first rule that applies to any failed Job, with the
/// earliest-failed Job it applies to (ties: the first in the list). Indices into the arguments.
pub fn find_first_failed_policy_rule_and_job(
    rules: &[JobSetFailurePolicyRule],
    jobs: &[&Job],
) -> Option<(usize, usize)> {
    for (ri, rule) in rules.iter().enumerate() {
        let mut best: Option<(usize, i128)> = None;
        for (ji, job) in jobs.iter().enumerate() {
            let Some(cond) = job_failure_condition(job) else {
                continue;
            };
            let t = condition_time(cond);
            let earlier = best.is_none_or(|(_, bt)| t < bt);
            let reason = cond.reason.as_deref().unwrap_or("");
            let message = cond.message.as_deref().unwrap_or("");
            if earlier && rule_is_applicable(rule, job, reason, message) {
                best = Some((ji, t));
            }
        }
        if let Some((ji, _)) = best {
            return Some((ri, ji));
        }
    }
    None
}

/// `findFirstFailedJob`: the Job whose `Failed=True` condition is the oldest.
pub fn find_first_failed_job(jobs: &[&Job]) -> Option<usize> {
    let mut best: Option<(usize, i128)> = None;
    for (ji, job) in jobs.iter().enumerate() {
        let Some(cond) = job_failure_condition(job) else {
            continue;
        };
        let t = condition_time(cond);
        if best.is_none_or(|(_, bt)| t < bt) {
            best = Some((ji, t));
        }
    }
    best.map(|(i, _)| i)
}

// ---------------------------------------------------------------------------------------------
// Status changes

struct Step<'a> {
    js: &'a JobSet,
    status: JobSetStatus,
    changed: bool,
    events: Vec<JobSetEvent>,
    now: Option<&'a str>,
    failed: bool,
    restarted_jobset: bool,
    restarted_job: Option<RestartedJob>,
}

impl Step<'_> {
    /// `updateCondition` + `setCondition`: replaces a condition of the same type when its status
    /// changes (new time) or its reason/message change (time kept); adds it only when True.
    fn set_condition(
        &mut self,
        type_: &str,
        status: &str,
        reason: &str,
        message: &str,
        event_type: &str,
    ) {
        let mut cond = Condition {
            type_: type_.to_owned(),
            status: status.to_owned(),
            reason: Some(reason.to_owned()),
            message: Some(message.to_owned()),
            last_transition_time: self.now.map(str::to_owned),
            ..Condition::default()
        };
        let mut found = false;
        let mut update = false;
        for cur in &mut self.status.conditions {
            if cur.type_ != type_ {
                // Only the StartupPolicy conditions are mutually exclusive; none is set here.
                continue;
            }
            found = true;
            if cur.status != status {
                *cur = cond.clone();
                update = true;
            } else if cur.reason.as_deref() != Some(reason)
                || cur.message.as_deref() != Some(message)
            {
                cond.last_transition_time = cur.last_transition_time.clone();
                *cur = cond.clone();
                update = true;
            }
        }
        if !found && status == "True" {
            self.status.conditions.push(cond);
            update = true;
        }
        if update {
            self.changed = true;
            self.events.push(JobSetEvent {
                type_: event_type.to_owned(),
                reason: reason.to_owned(),
                message: message.to_owned(),
            });
        }
    }

    /// `setJobSetFailedCondition`.
    fn fail(&mut self, reason: &str, message: &str) {
        self.set_condition(CONDITION_FAILED, "True", reason, message, "Warning");
        self.set_condition(
            CONDITION_RESTARTING,
            "False",
            JOBSET_FAILED_RESTARTING_REASON,
            JOBSET_FAILED_RESTARTING_MESSAGE,
            "Normal",
        );
        self.status.terminal_state = Some("Failed".to_owned());
        self.changed = true;
        self.failed = true;
    }

    fn total_restarts_count_towards_max(&self) -> i64 {
        let per_job: i64 = self
            .status
            .replicated_jobs_status
            .iter()
            .flat_map(|r| r.job_restarts_count_towards_max.iter().flatten())
            .map(|v| i64::from(*v))
            .sum();
        i64::from(self.status.restarts_count_towards_max) + per_job
    }

    /// `failurePolicyRecreateAll`.
    fn recreate_all(
        &mut self,
        count_towards_max: bool,
        reason: String,
        message: &str,
        event_reason: &str,
    ) {
        self.status.restarts = self.status.restarts.saturating_add(1);
        if count_towards_max {
            self.status.restarts_count_towards_max =
                self.status.restarts_count_towards_max.saturating_add(1);
        }
        self.changed = true;
        self.set_condition(CONDITION_RESTARTING, "True", &reason, message, "Warning");
        self.events.push(JobSetEvent {
            type_: "Warning".to_owned(),
            reason: event_reason.to_owned(),
            message: message.to_owned(),
        });
        self.restarted_jobset = true;
    }

    fn replicas_of(&self, rj: &str) -> usize {
        self.js
            .spec
            .replicated_jobs
            .iter()
            .find(|r| r.name == rj)
            .and_then(|r| r.replicas)
            .and_then(|r| usize::try_from(r).ok())
            .unwrap_or(0)
    }

    /// `failurePolicyRecreateJob`. Errors leave the status untouched (the reconcile returns
    /// before its status update).
    fn recreate_job(
        &mut self,
        job: &Job,
        count_towards_max: bool,
        message: &str,
        event_reason: &str,
    ) -> Result<(), String> {
        let name = job.metadata.name_or_empty();
        let rj = job
            .metadata
            .label(REPLICATED_JOB_NAME_KEY)
            .ok_or_else(|| format!("failed job {name} missing {REPLICATED_JOB_NAME_KEY} label"))?
            .to_owned();
        let idx_str = job
            .metadata
            .label(JOB_INDEX_KEY)
            .ok_or_else(|| format!("failed job {name} missing {JOB_INDEX_KEY} label"))?;
        let index: i64 = crate::go_strconv::atoi(idx_str).ok().ok_or_else(|| {
            format!("failed job {name} has invalid {JOB_INDEX_KEY} label: {idx_str}: strconv.Atoi: parsing {idx_str:?}: invalid syntax")
        })?;
        let replicas = self.replicas_of(&rj);
        // The reconcile has already listed a status entry for every ReplicatedJob of the spec.
        if !self
            .status
            .replicated_jobs_status
            .iter()
            .any(|r| r.name == rj)
            && self.js.spec.replicated_jobs.iter().any(|r| r.name == rj)
        {
            self.status
                .replicated_jobs_status
                .push(ReplicatedJobStatus {
                    name: rj.clone(),
                    ..ReplicatedJobStatus::default()
                });
        }
        let current = |v: &Option<Vec<i32>>| match v {
            Some(a) if !a.is_empty() => a.clone(),
            _ => vec![0; replicas],
        };
        let entry = self
            .status
            .replicated_jobs_status
            .iter()
            .find(|r| r.name == rj);
        let mut restarts = entry.map_or_else(|| vec![0; replicas], |e| current(&e.job_restarts));
        let mut towards = entry.map_or_else(
            || vec![0; replicas],
            |e| current(&e.job_restarts_count_towards_max),
        );
        let out_of_bounds = |len: usize| {
            format!(
                "failed job {name} has index {index} out of bounds for replicated job {rj} (replicas: {len})"
            )
        };
        let slot = usize::try_from(index)
            .ok()
            .filter(|i| *i < restarts.len())
            .ok_or_else(|| out_of_bounds(restarts.len()))?;
        if let Some(v) = restarts.get_mut(slot) {
            *v = v.saturating_add(1);
        }
        if count_towards_max {
            let n = restarts.len();
            let v = towards.get_mut(slot).ok_or_else(|| out_of_bounds(n))?;
            *v = v.saturating_add(1);
        }
        if let Some(e) = self
            .status
            .replicated_jobs_status
            .iter_mut()
            .find(|r| r.name == rj)
        {
            e.job_restarts = Some(restarts);
            if count_towards_max {
                e.job_restarts_count_towards_max = Some(towards);
            }
        }
        self.changed = true;
        self.events.push(JobSetEvent {
            type_: "Warning".to_owned(),
            reason: event_reason.to_owned(),
            message: message.to_owned(),
        });
        self.restarted_job = Some(RestartedJob {
            replicated_job: rj,
            index: slot,
        });
        Ok(())
    }
}

fn with_job(msg: &str, job: &str) -> String {
    format!("{msg} (first failed job: {job})")
}

fn is_finished(status: &JobSetStatus) -> bool {
    status.conditions.iter().any(|c| {
        (c.type_ == CONDITION_COMPLETED || c.type_ == CONDITION_FAILED) && c.status == "True"
    })
}

/// One reconcile's failure-policy step: given the JobSet (spec and status) and its child Jobs
/// that failed in the current run, the action and the new status. `now` stamps changed conditions.
pub fn execute_failure_policy(
    js: &JobSet,
    failed_jobs: &[Job],
    gates: &FeatureGates,
    now: Option<&str>,
) -> FailurePolicyOutcome {
    let status = js.status.clone().unwrap_or_default();
    let mut out = FailurePolicyOutcome {
        executed: false,
        skipped: None,
        action: None,
        matched_rule: None,
        matched_rule_name: None,
        rule_applicable: false,
        matched_job: None,
        error: None,
        status: status.clone(),
        status_changed: false,
        events: vec![],
        restarted_job: None,
        failed: false,
        restarted_jobset: false,
    };
    if let Some(m) = js
        .spec
        .managed_by
        .as_deref()
        .filter(|m| *m != JOBSET_CONTROLLER_NAME)
    {
        out.skipped = Some(format!(
            "the JobSet is managed by {m}; the JobSet controller skips it"
        ));
        return out;
    }
    if is_finished(&status) {
        out.skipped = Some("the JobSet has already finished (Completed or Failed); the controller does not run the failure policy".to_owned());
        return out;
    }
    let failed: Vec<&Job> = failed_jobs
        .iter()
        .filter(|j| job_finished_failed(j))
        .collect();
    if failed.is_empty() {
        out.skipped = Some("no Job has finished with a Failed=True condition; the failure policy runs only when one has".to_owned());
        return out;
    }
    out.executed = true;
    let mut step = Step {
        js,
        status,
        changed: false,
        events: vec![],
        now,
        failed: false,
        restarted_jobset: false,
        restarted_job: None,
    };

    let Some(fp) = &js.spec.failure_policy else {
        let first = find_first_failed_job(&failed)
            .and_then(|i| failed.get(i))
            .map(|j| j.metadata.name_or_empty())
            .unwrap_or("");
        out.matched_job = Some(first.to_owned());
        step.fail(FAILED_JOBS_REASON, &with_job(FAILED_JOBS_MESSAGE, first));
        return finish(out, step);
    };

    let (rule, job) = match find_first_failed_policy_rule_and_job(&fp.rules, &failed) {
        Some((ri, ji)) => {
            out.matched_rule = Some(ri);
            out.rule_applicable = true;
            (fp.rules.get(ri), failed.get(ji).copied())
        }
        None => (
            None,
            find_first_failed_job(&failed).and_then(|i| failed.get(i).copied()),
        ),
    };
    let Some(job) = job else {
        return finish(out, step);
    };
    let action = rule.map_or(DEFAULT_ACTION, |r| r.action.as_str());
    out.action = Some(action.to_owned());
    out.matched_rule_name = rule.map(|r| r.name.clone());
    let job_name = job.metadata.name_or_empty();
    out.matched_job = Some(job_name.to_owned());
    let restarting_reason = rule.map_or_else(
        || DEFAULT_FAILURE_POLICY_REASON.to_owned(),
        |r| format!("FailurePolicy_{}", r.name),
    );
    let max = i64::from(fp.max_restarts);
    let restart_job_gate = gates.enabled("RestartJob");

    let result: Result<(), String> = match action {
        "FailJobSet" => {
            step.fail(FAIL_JOBSET_REASON, &with_job(FAIL_JOBSET_MESSAGE, job_name));
            Ok(())
        }
        "RestartJobSet" => {
            let reached = (restart_job_gate && step.total_restarts_count_towards_max() >= max)
                || i64::from(step.status.restarts_count_towards_max) >= max;
            if reached {
                step.fail(
                    REACHED_MAX_RESTARTS_REASON,
                    &with_job(REACHED_MAX_RESTARTS_MESSAGE, job_name),
                );
            } else {
                step.recreate_all(
                    true,
                    restarting_reason,
                    &with_job(RESTART_JOBSET_MESSAGE, job_name),
                    RESTART_JOBSET_REASON,
                );
            }
            Ok(())
        }
        "RestartJobSetAndIgnoreMaxRestarts" => {
            step.recreate_all(
                false,
                restarting_reason,
                &with_job(RESTART_JOBSET_IGNORE_MESSAGE, job_name),
                RESTART_JOBSET_IGNORE_REASON,
            );
            Ok(())
        }
        "RestartJob" => {
            if !restart_job_gate {
                Err("RestartJob failure policy action cannot be used when the feature gate RestartJob is disabled".to_owned())
            } else if step.total_restarts_count_towards_max() >= max {
                step.fail(
                    REACHED_MAX_RESTARTS_REASON,
                    &with_job(REACHED_MAX_RESTARTS_MESSAGE, job_name),
                );
                Ok(())
            } else {
                step.recreate_job(
                    job,
                    true,
                    &with_job(RESTART_JOB_MESSAGE, job_name),
                    RESTART_JOB_REASON,
                )
            }
        }
        "RestartJobAndIgnoreMaxRestarts" => {
            if restart_job_gate {
                step.recreate_job(
                    job,
                    false,
                    &with_job(RESTART_JOB_IGNORE_MESSAGE, job_name),
                    RESTART_JOB_IGNORE_REASON,
                )
            } else {
                Err("RestartJobAndIgnoreMaxRestarts failure policy action cannot be used when the feature gate RestartJob is disabled".to_owned())
            }
        }
        other => Err(format!(
            "failed to find a corresponding action for the FailurePolicyRuleAction {other}"
        )),
    };
    if let Err(e) = result {
        out.error = Some(e);
        return out;
    }
    finish(out, step)
}

fn finish(mut out: FailurePolicyOutcome, step: Step<'_>) -> FailurePolicyOutcome {
    out.status_changed = step.changed && step.status != out.status;
    out.status = step.status;
    out.events = step.events;
    out.failed = step.failed;
    out.restarted_jobset = step.restarted_jobset;
    out.restarted_job = step.restarted_job;
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use serde_json::{Value, json};

    fn jobset(fp: Value, status: Value) -> JobSet {
        let mut v = json!({"metadata": {"name": "js"}, "spec": {"replicatedJobs": [
            {"name": "a", "replicas": 2, "template": {"spec": {}}},
            {"name": "b", "replicas": 1, "template": {"spec": {}}}
        ]}, "status": status});
        if !fp.is_null() {
            v["spec"]["failurePolicy"] = fp;
        }
        serde_json::from_value(v).unwrap()
    }
    fn job(name: &str, rj: &str, index: &str, time: &str, reason: &str, message: &str) -> Job {
        let mut labels = serde_json::Map::new();
        if !rj.is_empty() {
            labels.insert(REPLICATED_JOB_NAME_KEY.into(), json!(rj));
        }
        if !index.is_empty() {
            labels.insert(JOB_INDEX_KEY.into(), json!(index));
        }
        serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}, "status": {"conditions": [
            {"type": "Failed", "status": "True", "lastTransitionTime": time, "reason": reason, "message": message}]}}))
        .unwrap()
    }
    fn gates(restart_job: bool) -> FeatureGates {
        let mut g = FeatureGates::default();
        g.set("RestartJob", restart_job);
        g
    }
    const T0: &str = "2025-01-01T00:00:00Z";
    const T1: &str = "2025-01-01T01:00:00Z";

    #[test]
    fn parses_rfc3339() {
        assert_eq!(parse_time("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_time("1970-01-01T00:00:01.5Z"), Some(1_500_000_000));
        assert_eq!(parse_time("1970-01-01T02:00:00+02:00"), Some(0));
        assert_eq!(
            parse_time("2025-01-01T12:00:00Z"),
            Some(1_735_732_800 * 1_000_000_000)
        );
        assert!(parse_time("2025-01-01").is_none());
        assert!(parse_time("2025-13-01T00:00:00Z").is_none());
        assert!(parse_time("2025-01-01T00:00:00").is_none());
    }

    #[test]
    fn no_failure_policy_fails_with_earliest_job() {
        let js = jobset(Value::Null, json!({}));
        let o = execute_failure_policy(
            &js,
            &[
                job("late", "a", "0", T1, "BackoffLimitExceeded", ""),
                job("early", "a", "1", T0, "BackoffLimitExceeded", ""),
            ],
            &gates(false),
            None,
        );
        assert!(o.executed && o.failed);
        assert_eq!(o.action, None);
        assert_eq!(o.matched_job.as_deref(), Some("early"));
        assert_eq!(o.status.terminal_state.as_deref(), Some("Failed"));
        assert_eq!(o.status.conditions.len(), 1);
        let c = &o.status.conditions[0];
        assert_eq!(
            (c.type_.as_str(), c.reason.as_deref()),
            ("Failed", Some("FailedJobs"))
        );
        assert_eq!(
            c.message.as_deref(),
            Some("jobset failed due to one or more job failures (first failed job: early)")
        );
    }

    #[test]
    fn rule_applicability_branches() {
        let rule: JobSetFailurePolicyRule = serde_json::from_value(json!({"name": "r", "action": "FailJobSet",
            "onJobFailureReasons": ["BackoffLimitExceeded"], "onJobFailureMessagePatterns": ["^oom", "(bad"], "targetReplicatedJobs": ["a"]})).unwrap();
        let j = job("j", "a", "0", T0, "BackoffLimitExceeded", "oom killed");
        assert!(rule_is_applicable(
            &rule,
            &j,
            "BackoffLimitExceeded",
            "oom killed"
        ));
        assert!(
            !rule_is_applicable(&rule, &j, "DeadlineExceeded", "oom killed"),
            "reason"
        );
        assert!(
            !rule_is_applicable(&rule, &j, "BackoffLimitExceeded", "killed: oom"),
            "anchored pattern, bad one skipped"
        );
        assert!(
            !rule_is_applicable(
                &rule,
                &job("j", "b", "0", T0, "", ""),
                "BackoffLimitExceeded",
                "oom"
            ),
            "target"
        );
        assert!(
            !rule_is_applicable(
                &rule,
                &job("j", "", "0", T0, "", ""),
                "BackoffLimitExceeded",
                "oom"
            ),
            "no label"
        );
        let any: JobSetFailurePolicyRule =
            serde_json::from_value(json!({"name": "r", "action": "FailJobSet"})).unwrap();
        assert!(
            !rule_is_applicable(&any, &job("j", "", "0", T0, "", ""), "x", "y"),
            "a Job without replicatedjob-name never matches"
        );
        assert!(rule_is_applicable(
            &any,
            &job("j", "zz", "0", T0, "", ""),
            "x",
            "y"
        ));
    }

    #[test]
    fn first_rule_wins_and_earliest_job_within_it() {
        let js = jobset(
            json!({"maxRestarts": 5, "rules": [
                {"name": "none", "action": "FailJobSet", "targetReplicatedJobs": ["zzz"]},
                {"name": "r1", "action": "RestartJobSet", "onJobFailureReasons": ["BackoffLimitExceeded"]},
                {"name": "r2", "action": "FailJobSet"}
            ]}),
            json!({}),
        );
        let jobs = [
            job("j1", "a", "0", T1, "BackoffLimitExceeded", ""),
            job("j2", "a", "1", T0, "DeadlineExceeded", ""),
            job("j3", "b", "0", T1, "BackoffLimitExceeded", ""),
        ];
        let o = execute_failure_policy(&js, &jobs, &gates(false), Some(T1));
        assert_eq!(o.matched_rule, Some(1));
        assert_eq!(o.matched_rule_name.as_deref(), Some("r1"));
        // j1 and j3 tie: the first in the list wins.
        assert_eq!(o.matched_job.as_deref(), Some("j1"));
        assert_eq!(o.action.as_deref(), Some("RestartJobSet"));
        assert_eq!(
            (o.status.restarts, o.status.restarts_count_towards_max),
            (1, 1)
        );
        let c = &o.status.conditions[0];
        assert_eq!(c.type_, CONDITION_RESTARTING);
        assert_eq!(c.reason.as_deref(), Some("FailurePolicy_r1"));
        assert_eq!(
            c.message.as_deref(),
            Some("applying RestartJobSet failure policy action (first failed job: j1)")
        );
        assert_eq!(c.last_transition_time.as_deref(), Some(T1));
        let reasons: Vec<&str> = o.events.iter().map(|e| e.reason.as_str()).collect();
        assert_eq!(
            reasons,
            ["FailurePolicy_r1", "RestartJobSetFailurePolicyAction"]
        );
        assert!(o.restarted_jobset && o.status_changed && !o.failed);
    }

    #[test]
    fn default_action_uses_earliest_failed_job() {
        let js = jobset(
            json!({"maxRestarts": 1, "rules": [{"name": "r", "action": "FailJobSet", "onJobFailureReasons": ["PodFailurePolicy"]}]}),
            json!({}),
        );
        let o = execute_failure_policy(
            &js,
            &[
                job("j1", "a", "0", T1, "BackoffLimitExceeded", ""),
                job("j2", "a", "1", T0, "BackoffLimitExceeded", ""),
            ],
            &gates(false),
            None,
        );
        assert_eq!(o.matched_rule, None);
        assert!(!o.rule_applicable);
        assert_eq!(o.action.as_deref(), Some("RestartJobSet"));
        assert_eq!(o.matched_job.as_deref(), Some("j2"));
        assert_eq!(
            o.status.conditions[0].reason.as_deref(),
            Some("DefaultFailurePolicy")
        );
    }

    #[test]
    fn fail_jobset_flips_restarting_condition() {
        let js = jobset(
            json!({"rules": [{"name": "f", "action": "FailJobSet"}]}),
            json!({"restarts": 1, "restartsCountTowardsMax": 1,
            "conditions": [{"type": "RestartingJobSet", "status": "True", "reason": "DefaultFailurePolicy", "message": "m", "lastTransitionTime": T0}]}),
        );
        let o = execute_failure_policy(
            &js,
            &[job("j", "a", "0", T0, "BackoffLimitExceeded", "")],
            &gates(false),
            Some(T1),
        );
        assert_eq!(o.action.as_deref(), Some("FailJobSet"));
        assert_eq!(o.status.terminal_state.as_deref(), Some("Failed"));
        let r = o
            .status
            .conditions
            .iter()
            .find(|c| c.type_ == CONDITION_RESTARTING)
            .unwrap();
        assert_eq!(
            (r.status.as_str(), r.reason.as_deref(), r.message.as_deref()),
            ("False", Some("JobSetFailed"), Some("jobset failed"))
        );
        assert_eq!(r.last_transition_time.as_deref(), Some(T1));
        let f = o
            .status
            .conditions
            .iter()
            .find(|c| c.type_ == "Failed")
            .unwrap();
        assert_eq!(f.reason.as_deref(), Some("FailJobSetFailurePolicyAction"));
        assert_eq!(
            f.message.as_deref(),
            Some("applying FailJobSet failure policy action (first failed job: j)")
        );
        assert_eq!(
            (o.status.restarts, o.status.restarts_count_towards_max),
            (1, 1)
        );
    }

    #[test]
    fn restarting_condition_updated_in_place_keeps_time() {
        let js = jobset(
            json!({"maxRestarts": 5, "rules": [{"name": "x", "action": "RestartJobSet"}]}),
            json!({"restarts": 1, "restartsCountTowardsMax": 1,
            "conditions": [{"type": "RestartingJobSet", "status": "True", "reason": "DefaultFailurePolicy", "message": "old", "lastTransitionTime": T0}]}),
        );
        let o = execute_failure_policy(
            &js,
            &[job("j", "a", "0", T1, "BackoffLimitExceeded", "")],
            &gates(false),
            Some(T1),
        );
        assert_eq!(o.status.conditions.len(), 1);
        assert_eq!(
            o.status.conditions[0].reason.as_deref(),
            Some("FailurePolicy_x")
        );
        assert_eq!(
            o.status.conditions[0].last_transition_time.as_deref(),
            Some(T0)
        );
        assert_eq!(o.status.restarts, 2);
    }

    #[test]
    fn restart_jobset_limit_with_and_without_gate() {
        let status = json!({"restarts": 3, "restartsCountTowardsMax": 1, "replicatedJobsStatus": [{"name": "a", "jobRestartsCountTowardsMax": [1, 0]}]});
        let js = jobset(json!({"maxRestarts": 2}), status);
        let jobs = [job("j", "a", "0", T0, "BackoffLimitExceeded", "")];
        // Gate off: only restartsCountTowardsMax (1 < 2) counts.
        let o = execute_failure_policy(&js, &jobs, &gates(false), None);
        assert!(o.restarted_jobset);
        assert_eq!(
            (o.status.restarts, o.status.restarts_count_towards_max),
            (4, 2)
        );
        // Gate on: 1 + 1 >= 2.
        let o = execute_failure_policy(&js, &jobs, &gates(true), None);
        assert!(o.failed);
        assert_eq!(
            o.status.conditions[0].reason.as_deref(),
            Some("ReachedMaxRestarts")
        );
        assert_eq!(
            o.status.conditions[0].message.as_deref(),
            Some("jobset failed due to reaching max number of restarts (first failed job: j)")
        );
        assert_eq!(
            (o.status.restarts, o.status.restarts_count_towards_max),
            (3, 1)
        );
    }

    #[test]
    fn restart_jobset_ignore_max_restarts() {
        let js = jobset(
            json!({"maxRestarts": 0, "rules": [{"name": "i", "action": "RestartJobSetAndIgnoreMaxRestarts"}]}),
            json!({"restarts": 7}),
        );
        let o = execute_failure_policy(
            &js,
            &[job("j", "a", "0", T0, "BackoffLimitExceeded", "")],
            &gates(false),
            None,
        );
        assert_eq!(
            (o.status.restarts, o.status.restarts_count_towards_max),
            (8, 0)
        );
        assert_eq!(
            o.status.conditions[0].message.as_deref(),
            Some(
                "applying RestartJobSetAndIgnoreMaxRestarts failure policy action (first failed job: j)"
            )
        );
        assert_eq!(
            o.events.last().unwrap().reason,
            "RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction"
        );
    }

    #[test]
    fn restart_job_gate_off_is_an_error() {
        let js = jobset(
            json!({"maxRestarts": 3, "rules": [{"name": "r", "action": "RestartJob"}, {"name": "s", "action": "RestartJobAndIgnoreMaxRestarts"}]}),
            json!({}),
        );
        let o = execute_failure_policy(
            &js,
            &[job("j", "a", "0", T0, "BackoffLimitExceeded", "")],
            &gates(false),
            None,
        );
        assert_eq!(
            o.error.as_deref(),
            Some(
                "RestartJob failure policy action cannot be used when the feature gate RestartJob is disabled"
            )
        );
        assert!(!o.status_changed);
        assert_eq!(o.status, JobSetStatus::default());
    }

    #[test]
    fn restart_job_increments_one_index() {
        let js = jobset(
            json!({"maxRestarts": 3, "rules": [{"name": "r", "action": "RestartJob"}]}),
            json!({}),
        );
        let o = execute_failure_policy(
            &js,
            &[job("j", "a", "1", T0, "BackoffLimitExceeded", "")],
            &gates(true),
            None,
        );
        assert!(o.error.is_none(), "{:?}", o.error);
        let e = o
            .status
            .replicated_jobs_status
            .iter()
            .find(|r| r.name == "a")
            .unwrap();
        assert_eq!(e.job_restarts, Some(vec![0, 1]));
        assert_eq!(e.job_restarts_count_towards_max, Some(vec![0, 1]));
        assert_eq!(
            o.restarted_job,
            Some(RestartedJob {
                replicated_job: "a".into(),
                index: 1
            })
        );
        assert!(
            o.status.conditions.is_empty(),
            "RestartJob sets no condition"
        );
        assert_eq!(o.events[0].reason, "RestartJobFailurePolicyAction");
        assert_eq!(o.status.restarts, 0);
    }

    #[test]
    fn restart_job_limit_counts_both_parts() {
        let js = jobset(
            json!({"maxRestarts": 2, "rules": [{"name": "r", "action": "RestartJob"}]}),
            json!({"restartsCountTowardsMax": 1, "replicatedJobsStatus": [{"name": "b", "jobRestarts": [1], "jobRestartsCountTowardsMax": [1]}]}),
        );
        let o = execute_failure_policy(
            &js,
            &[job("j", "a", "0", T0, "BackoffLimitExceeded", "")],
            &gates(true),
            None,
        );
        assert!(o.failed);
        assert_eq!(
            o.status.conditions[0].reason.as_deref(),
            Some("ReachedMaxRestarts")
        );
    }

    #[test]
    fn restart_job_ignore_max_only_bumps_job_restarts() {
        let js = jobset(
            json!({"maxRestarts": 0, "rules": [{"name": "r", "action": "RestartJobAndIgnoreMaxRestarts"}]}),
            json!({"replicatedJobsStatus": [{"name": "a", "jobRestarts": [2, 0], "jobRestartsCountTowardsMax": [1, 0]}]}),
        );
        let o = execute_failure_policy(
            &js,
            &[job("j", "a", "0", T0, "BackoffLimitExceeded", "")],
            &gates(true),
            None,
        );
        let e = &o.status.replicated_jobs_status[0];
        assert_eq!(e.job_restarts, Some(vec![3, 0]));
        assert_eq!(e.job_restarts_count_towards_max, Some(vec![1, 0]));
        assert_eq!(
            o.events[0].reason,
            "RestartJobAndIgnoreMaxRestartsFailurePolicyAction"
        );
    }

    #[test]
    fn restart_job_label_errors() {
        let js = jobset(
            json!({"maxRestarts": 3, "rules": [{"name": "r", "action": "RestartJob"}]}),
            json!({}),
        );
        let g = gates(true);
        let o = execute_failure_policy(&js, &[job("j", "a", "", T0, "", "")], &g, None);
        assert_eq!(
            o.error.as_deref(),
            Some("failed job j missing jobset.sigs.k8s.io/job-index label")
        );
        let o = execute_failure_policy(&js, &[job("j", "a", "x", T0, "", "")], &g, None);
        assert!(
            o.error
                .unwrap()
                .starts_with("failed job j has invalid jobset.sigs.k8s.io/job-index label: x")
        );
        let o = execute_failure_policy(&js, &[job("j", "a", "2", T0, "", "")], &g, None);
        assert_eq!(
            o.error.as_deref(),
            Some("failed job j has index 2 out of bounds for replicated job a (replicas: 2)")
        );
        let o = execute_failure_policy(&js, &[job("j", "zz", "0", T0, "", "")], &g, None);
        assert_eq!(
            o.error.as_deref(),
            Some("failed job j has index 0 out of bounds for replicated job zz (replicas: 0)")
        );
    }

    #[test]
    fn unknown_action_is_an_error() {
        let js = jobset(
            json!({"rules": [{"name": "r", "action": "Explode"}]}),
            json!({}),
        );
        let o = execute_failure_policy(&js, &[job("j", "a", "0", T0, "", "")], &gates(false), None);
        assert_eq!(
            o.error.as_deref(),
            Some("failed to find a corresponding action for the FailurePolicyRuleAction Explode")
        );
    }

    #[test]
    fn skipped_when_finished_managed_or_nothing_failed() {
        let js = jobset(
            Value::Null,
            json!({"conditions": [{"type": "Completed", "status": "True"}]}),
        );
        let o = execute_failure_policy(&js, &[job("j", "a", "0", T0, "", "")], &gates(false), None);
        assert!(!o.executed && o.skipped.is_some());
        let mut js = jobset(Value::Null, json!({}));
        js.spec.managed_by = Some("kueue.x-k8s.io/multikueue".into());
        assert!(
            !execute_failure_policy(&js, &[job("j", "a", "0", T0, "", "")], &gates(false), None)
                .executed
        );
        js.spec.managed_by = Some(JOBSET_CONTROLLER_NAME.into());
        assert!(
            execute_failure_policy(&js, &[job("j", "a", "0", T0, "", "")], &gates(false), None)
                .executed
        );
        let mut not_failed = job("j", "a", "0", T0, "", "");
        not_failed.status.as_mut().unwrap().conditions[0].status = "False".into();
        let o = execute_failure_policy(
            &jobset(Value::Null, json!({})),
            &[not_failed],
            &gates(false),
            None,
        );
        assert!(!o.executed);
    }

    #[test]
    fn simulator_can_chain_steps() {
        let mut js = jobset(json!({"maxRestarts": 2}), json!({}));
        let jobs = [job("j", "a", "0", T0, "BackoffLimitExceeded", "")];
        let mut actions = vec![];
        for _ in 0..4 {
            let o = execute_failure_policy(&js, &jobs, &gates(false), None);
            actions.push((o.executed, o.failed));
            js.status = Some(o.status);
        }
        assert_eq!(
            actions,
            [(true, false), (true, false), (true, true), (false, false)]
        );
    }

    #[test]
    fn op_output_shape() {
        let input: JobSetFailurePolicyInput = serde_json::from_value(json!({
            "jobset": {"spec": {"replicatedJobs": [{"name": "a", "replicas": 1}], "failurePolicy": {"maxRestarts": 0}}},
            "failedJobs": [{"metadata": {"name": "j", "labels": {REPLICATED_JOB_NAME_KEY: "a"}}, "status": {"conditions": [{"type": "Failed", "status": "True"}]}}]
        })).unwrap();
        let out = serde_json::to_value(jobset_failure_policy(input).unwrap()).unwrap();
        assert_eq!(out["action"], json!("RestartJobSet"));
        assert_eq!(out["jobSetStatus"]["terminalState"], json!("Failed"));
        assert_eq!(out["conditions"][0]["reason"], json!("ReachedMaxRestarts"));
        assert_eq!(out["matchedRule"], Value::Null);
    }
}
