//! The Job controller's pod-failure backoff (kubernetes/kubernetes
//! pkg/controller/job/backoff_utils.go): the per-Job backoff record (`newBackoffRecord`), the
//! finish time of a Pod (`getFinishedTime`), and the delay before replacement Pods may be created
//! (`getRemainingTime`, `getRemainingTimePerIndex`, both through
//! `getRemainingTimeForFailuresCount`).
//!
//! Times are RFC 3339 strings (as the API writes them); internally nanoseconds since the Unix
//! epoch, parsed by the small [`parse_rfc3339`] below.

// Diagnostic is the crate's one error type (as in contract.rs); boxing it here alone would not help.
#![allow(clippy::result_large_err)]

use crate::api::Pod;
use crate::diag::Diagnostic;
use crate::features::FeatureGates;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `DefaultJobPodFailureBackOff` (job_controller.go).
pub const DEFAULT_JOB_POD_FAILURE_BACKOFF_SECONDS: f64 = 10.0;
/// `MaxJobPodFailureBackOff` (job_controller.go).
pub const MAX_JOB_POD_FAILURE_BACKOFF_SECONDS: f64 = 600.0;
/// Annotation counting the counted failures of an index so far.
pub const INDEX_FAILURE_COUNT_ANNOTATION: &str = "batch.kubernetes.io/job-index-failure-count";
/// Annotation counting the ignored failures of an index so far.
pub const INDEX_IGNORED_FAILURE_COUNT_ANNOTATION: &str =
    "batch.kubernetes.io/job-index-ignored-failure-count";

const NANOS_PER_SECOND: i64 = 1_000_000_000;
const NANOS_PER_MILLI: i64 = 1_000_000;

/// A backoff record as the controller stores it per Job.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StoredBackoffRecord {
    #[serde(default)]
    pub failures_after_last_success: i32,
    /// RFC 3339, or null.
    #[serde(default)]
    pub last_failure_time: Option<String>,
    /// Alternative to `lastFailureTime`: milliseconds from `T0`.
    #[serde(default)]
    pub last_failure_time_ms_from_t0: Option<i64>,
}

/// `backoff` op input for `component: job-controller`. `function` names the upstream helper.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JobBackoffInput {
    /// `getRemainingTime`, `getRemainingTimePerIndex`, `newBackoffRecord` or `getFinishedTime`.
    pub function: String,
    /// Defaults to `DefaultJobPodFailureBackOff` (10 s).
    #[serde(default)]
    pub default_backoff_seconds: Option<f64>,
    /// Defaults to `MaxJobPodFailureBackOff` (600 s).
    #[serde(default)]
    pub max_backoff_seconds: Option<f64>,
    /// getRemainingTime: the record's failure count.
    #[serde(default)]
    pub failures_after_last_success: Option<i32>,
    /// getRemainingTime: the record's last failure time (RFC 3339).
    #[serde(default)]
    pub last_failure_time: Option<String>,
    /// The controller's clock (RFC 3339).
    #[serde(default)]
    pub now: Option<String>,
    /// getRemainingTime curve: evaluate every failure count in this list…
    #[serde(default)]
    pub failures_after_last_success_range: Option<Vec<i32>>,
    /// …with this much time since the last failure (also usable instead of `now`).
    #[serde(default)]
    pub seconds_since_last_failure: Option<f64>,
    /// getRemainingTimePerIndex: the index's last failed Pod (null: no failure yet).
    #[serde(default)]
    pub last_failed_pod: Option<Box<Pod>>,
    /// newBackoffRecord: the record already stored for the Job (null: none).
    #[serde(default)]
    pub stored_record: Option<StoredBackoffRecord>,
    /// newBackoffRecord: finish times of the newly succeeded Pods, in ms from `T0`.
    #[serde(default)]
    pub new_succeeded_pods_finished_at_ms_from_t0: Option<Vec<i64>>,
    /// newBackoffRecord: finish times of the newly failed Pods, in ms from `T0`.
    #[serde(default)]
    pub new_failed_pods_finished_at_ms_from_t0: Option<Vec<i64>>,
    /// newBackoffRecord: the newly succeeded Pods as objects (finish time by getFinishedTime).
    #[serde(default)]
    pub new_succeeded_pods: Option<Vec<Pod>>,
    /// newBackoffRecord: the newly failed Pods as objects.
    #[serde(default)]
    pub new_failed_pods: Option<Vec<Pod>>,
    /// The instant the `…MsFromT0` offsets count from (RFC 3339).
    #[serde(default, rename = "T0")]
    pub t0: Option<String>,
    /// getFinishedTime: the Pod.
    #[serde(default)]
    pub pod: Option<Box<Pod>>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}

#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobBackoffOutput {
    /// Delay before replacement Pods may be created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining_seconds: Option<f64>,
    /// getRemainingTimePerIndex: the failure count used (counted + ignored + 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failures_count: Option<i32>,
    /// Curve: the default and maximum backoff, and the delay for each failure count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delays_seconds: Option<Vec<f64>>,
    /// newBackoffRecord: the new record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failures_after_last_success: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_failure_time_ms_from_t0: Option<Option<i64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_failure_time: Option<Option<String>>,
    /// getFinishedTime (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_time: Option<String>,
}

fn bad(field: &str, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::request("invalid-input", &format!("input.{field}"), msg)
}

fn seconds_to_nanos(s: f64, field: &str) -> Result<i64, Diagnostic> {
    let ns = (s * 1e9).round();
    if !ns.is_finite() || ns.abs() > 9.2e18 {
        return Err(bad(field, format!("{field}: {s} seconds is out of range")));
    }
    // In range by the check above.
    #[allow(clippy::cast_possible_truncation)]
    Ok(ns as i64)
}

fn nanos_to_seconds(ns: i64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let s = ns as f64 / 1e9;
    s
}

fn time_at(s: Option<&str>, field: &str) -> Result<i64, Diagnostic> {
    let s = s.ok_or_else(|| bad(field, format!("{field} is required here")))?;
    parse_rfc3339(s).map_err(|e| bad(field, format!("{field}: {e}")))
}

/// `getRemainingTimeForFailuresCount`: the delay left, in nanoseconds, after `failures`
/// consecutive failures, the last one `elapsed` nanoseconds ago. Arithmetic wraps as Go's
/// `time.Duration` does.
pub fn remaining_for_failures(
    default_backoff: i64,
    max_backoff: i64,
    failures: i32,
    elapsed: i64,
) -> i64 {
    if failures == 0 {
        return 0;
    }
    let mut backoff = default_backoff;
    for _ in 1..failures.max(1) {
        backoff = backoff.wrapping_mul(2);
        if backoff >= max_backoff {
            backoff = max_backoff;
            break;
        }
    }
    if backoff < elapsed {
        0
    } else {
        backoff.wrapping_sub(elapsed)
    }
}

fn parse_count(v: Option<&str>) -> i32 {
    // strconv.Atoi, then 0 when unparsable, negative or above MaxInt32.
    v.and_then(|s| s.parse::<i64>().ok())
        .filter(|n| (0..=i64::from(i32::MAX)).contains(n))
        .map_or(0, |n| i32::try_from(n).unwrap_or(0))
}

/// `getIndexFailureCount`: the counted failures of the Pod's index before it (the failure-count
/// annotation, 0 when missing or bad).
pub fn index_failure_count(pod: &Pod) -> i32 {
    parse_count(pod.metadata.annotation(INDEX_FAILURE_COUNT_ANNOTATION))
}

/// `getIndexAbsoluteFailureCount`: the failure-count plus the ignored-failure-count annotations
/// (each read as 0 when missing or bad), summed in int32 as upstream does.
pub fn index_absolute_failure_count(pod: &Pod) -> i32 {
    parse_count(pod.metadata.annotation(INDEX_FAILURE_COUNT_ANNOTATION)).wrapping_add(parse_count(
        pod.metadata
            .annotation(INDEX_IGNORED_FAILURE_COUNT_ANNOTATION),
    ))
}

/// Latest FinishedAt over `statuses` (those `check` keeps); None as soon as one kept status is
/// not terminated or has no finish time — which also forgets `prev`, as upstream does.
fn latest_finish(
    prev: Option<i64>,
    statuses: &[crate::api::ContainerStatus],
    check: impl Fn(&str) -> bool,
) -> Result<Option<i64>, Diagnostic> {
    let mut finish = prev;
    for cs in statuses {
        if !check(&cs.name) {
            continue;
        }
        let Some(t) = cs.state.as_ref().and_then(|s| s.terminated.as_ref()) else {
            return Ok(None);
        };
        let Some(at) = t.finished_at.as_deref() else {
            return Ok(None);
        };
        let at = parse_rfc3339(at)
            .map_err(|e| bad("pod", format!("finishedAt of {:?}: {e}", cs.name)))?;
        if at == ZERO_TIME_NANOS {
            return Ok(None);
        }
        if finish.is_none_or(|f| f < at) {
            finish = Some(at);
        }
    }
    Ok(finish)
}

/// Go's zero `time.Time` (0001-01-01T00:00:00Z), which marks an unset metav1.Time.
const ZERO_TIME_NANOS: i64 = i64::MIN;

/// `getFinishedTime`: all containers (and, with the SidecarContainers gate -- always from 1.37,
/// where the gate is removed -- the restartable init containers) terminated → the latest finish; else a Ready=False condition's transition time;
/// else deletionTimestamp − deletionGracePeriodSeconds; else the creation time.
pub fn finished_time(pod: &Pod, gates: &FeatureGates) -> Result<i64, Diagnostic> {
    let empty = Vec::new();
    let status = pod.status.as_ref();
    let cs = status.map_or(&empty, |s| &s.container_statuses);
    let mut finish = latest_finish(None, cs, |_| true)?;
    if gates.enabled("SidecarContainers") {
        let sidecars: Vec<&str> = pod
            .spec
            .init_containers
            .iter()
            .filter(|c| c.restart_policy.as_deref() == Some("Always"))
            .map(|c| c.name.as_str())
            .collect();
        let ics = status.map_or(&empty, |s| &s.init_container_statuses);
        finish = latest_finish(finish, ics, |n| sidecars.contains(&n))?;
    }
    if let Some(f) = finish {
        return Ok(f);
    }
    if let Some(c) = status.and_then(|s| s.conditions.iter().find(|c| c.type_ == "Ready"))
        && c.status == "False"
        && let Some(t) = c.last_transition_time.as_deref()
    {
        let t =
            parse_rfc3339(t).map_err(|e| bad("pod", format!("Ready lastTransitionTime: {e}")))?;
        if t != ZERO_TIME_NANOS {
            return Ok(t);
        }
    }
    if let Some(d) = pod.metadata.deletion_timestamp.as_deref() {
        let d = parse_rfc3339(d).map_err(|e| bad("pod", format!("deletionTimestamp: {e}")))?;
        let grace = pod.metadata.deletion_grace_period_seconds.unwrap_or(0);
        return Ok(d.wrapping_sub(grace.wrapping_mul(NANOS_PER_SECOND)));
    }
    match pod.metadata.creation_timestamp.as_deref() {
        Some(c) => parse_rfc3339(c).map_err(|e| bad("pod", format!("creationTimestamp: {e}"))),
        None => Ok(ZERO_TIME_NANOS),
    }
}

/// `newBackoffRecord` on finish times (nanoseconds): the stored record (count, last failure)
/// updated with the newly succeeded and failed Pods.
pub fn new_backoff_record(
    stored: (i32, Option<i64>),
    succeeded: &[i64],
    failed: &[i64],
) -> (i32, Option<i64>) {
    let mut s = succeeded.to_vec();
    let mut f = failed.to_vec();
    s.sort_unstable();
    f.sort_unstable();
    match (s.last(), f.last()) {
        (None, None) => stored,
        (None, Some(&last_failure)) => {
            let n = i32::try_from(f.len()).unwrap_or(i32::MAX);
            (stored.0.wrapping_add(n), Some(last_failure))
        }
        (Some(_), None) => (0, None),
        (Some(&last_success), Some(_)) => {
            let after: Vec<i64> = f
                .iter()
                .rev()
                .copied()
                .take_while(|t| *t > last_success)
                .collect();
            let n = i32::try_from(after.len()).unwrap_or(i32::MAX);
            (n, after.first().copied())
        }
    }
}

/// Runs one job-controller backoff function.
pub fn run(i: JobBackoffInput) -> Result<JobBackoffOutput, Diagnostic> {
    let (gates, _) =
        FeatureGates::resolve(i.kubernetes_version.as_deref(), i.feature_gates.as_ref())?;
    let default_s = i
        .default_backoff_seconds
        .unwrap_or(DEFAULT_JOB_POD_FAILURE_BACKOFF_SECONDS);
    let max_s = i
        .max_backoff_seconds
        .unwrap_or(MAX_JOB_POD_FAILURE_BACKOFF_SECONDS);
    let d = seconds_to_nanos(default_s, "defaultBackoffSeconds")?;
    let m = seconds_to_nanos(max_s, "maxBackoffSeconds")?;
    let elapsed_since = |last: Option<&str>, field: &str| -> Result<i64, Diagnostic> {
        match (&i.now, i.seconds_since_last_failure) {
            (Some(now), _) => Ok(time_at(Some(now), "now")?.saturating_sub(time_at(last, field)?)),
            (None, Some(s)) => seconds_to_nanos(s, "secondsSinceLastFailure"),
            (None, None) => Err(bad(
                "now",
                "now (or secondsSinceLastFailure) is required when there are failures",
            )),
        }
    };
    let mut out = JobBackoffOutput::default();
    match i.function.as_str() {
        "getRemainingTime" => {
            if let Some(range) = &i.failures_after_last_success_range {
                let elapsed = seconds_to_nanos(
                    i.seconds_since_last_failure.unwrap_or(0.0),
                    "secondsSinceLastFailure",
                )?;
                out.initial_seconds = Some(default_s);
                out.max_seconds = Some(max_s);
                out.delays_seconds = Some(
                    range
                        .iter()
                        .map(|f| nanos_to_seconds(remaining_for_failures(d, m, *f, elapsed)))
                        .collect(),
                );
            } else {
                let f = i.failures_after_last_success.unwrap_or(0);
                let elapsed = if f == 0 {
                    0
                } else {
                    elapsed_since(i.last_failure_time.as_deref(), "lastFailureTime")?
                };
                out.remaining_seconds =
                    Some(nanos_to_seconds(remaining_for_failures(d, m, f, elapsed)));
            }
        }
        "getRemainingTimePerIndex" => match &i.last_failed_pod {
            None => out.remaining_seconds = Some(0.0),
            Some(pod) => {
                let f = index_absolute_failure_count(pod).wrapping_add(1);
                let last = finished_time(pod, &gates)?;
                let elapsed = match (&i.now, i.seconds_since_last_failure) {
                    (Some(now), _) => time_at(Some(now), "now")?.saturating_sub(last),
                    (None, Some(s)) => seconds_to_nanos(s, "secondsSinceLastFailure")?,
                    (None, None) => {
                        return Err(bad(
                            "now",
                            "now (or secondsSinceLastFailure) is required with lastFailedPod",
                        ));
                    }
                };
                out.failures_count = Some(f);
                out.remaining_seconds =
                    Some(nanos_to_seconds(remaining_for_failures(d, m, f, elapsed)));
            }
        },
        "newBackoffRecord" => {
            let t0 =
                i.t0.as_deref()
                    .map(|t| time_at(Some(t), "T0"))
                    .transpose()?;
            let offsets = |v: &Option<Vec<i64>>, field: &str| -> Result<Vec<i64>, Diagnostic> {
                let v = v.as_deref().unwrap_or(&[]);
                if v.is_empty() {
                    return Ok(Vec::new());
                }
                let base = t0.ok_or_else(|| bad("T0", format!("T0 is required with {field}")))?;
                Ok(v.iter()
                    .map(|ms| base.wrapping_add(ms.wrapping_mul(NANOS_PER_MILLI)))
                    .collect())
            };
            let pods = |v: &Option<Vec<Pod>>| -> Result<Vec<i64>, Diagnostic> {
                v.iter()
                    .flatten()
                    .map(|p| finished_time(p, &gates))
                    .collect()
            };
            let mut succeeded = offsets(
                &i.new_succeeded_pods_finished_at_ms_from_t0,
                "newSucceededPodsFinishedAtMsFromT0",
            )?;
            succeeded.extend(pods(&i.new_succeeded_pods)?);
            let mut failed = offsets(
                &i.new_failed_pods_finished_at_ms_from_t0,
                "newFailedPodsFinishedAtMsFromT0",
            )?;
            failed.extend(pods(&i.new_failed_pods)?);
            let stored = match &i.stored_record {
                None => (0, None),
                Some(r) => {
                    let last = match (&r.last_failure_time, r.last_failure_time_ms_from_t0) {
                        (Some(t), _) => Some(time_at(Some(t), "storedRecord.lastFailureTime")?),
                        (None, Some(ms)) => Some(
                            t0.ok_or_else(|| {
                                bad(
                                    "T0",
                                    "T0 is required with storedRecord.lastFailureTimeMsFromT0",
                                )
                            })?
                            .wrapping_add(ms.wrapping_mul(NANOS_PER_MILLI)),
                        ),
                        (None, None) => None,
                    };
                    (r.failures_after_last_success, last)
                }
            };
            let (count, last) = new_backoff_record(stored, &succeeded, &failed);
            out.failures_after_last_success = Some(count);
            out.last_failure_time = Some(last.map(format_rfc3339));
            out.last_failure_time_ms_from_t0 = match t0 {
                Some(base) => Some(last.map(|l| l.wrapping_sub(base).div_euclid(NANOS_PER_MILLI))),
                None if last.is_none() => Some(None),
                None => None,
            };
        }
        "getFinishedTime" => {
            let pod = i
                .pod
                .as_ref()
                .ok_or_else(|| bad("pod", "pod is required for getFinishedTime"))?;
            out.finished_time = Some(format_rfc3339(finished_time(pod, &gates)?));
        }
        other => {
            return Err(bad(
                "function",
                format!(
                    "unknown job-controller backoff function {other:?}; known: getRemainingTime, getRemainingTimePerIndex, newBackoffRecord, getFinishedTime"
                ),
            ));
        }
    }
    Ok(out)
}

// ---- RFC 3339 ------------------------------------------------------------------------------

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn digits(s: &[u8], n: usize) -> Option<i64> {
    let part = s.get(..n)?;
    part.iter().try_fold(0i64, |acc, c| {
        c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
    })
}

/// Parses an RFC 3339 timestamp (`2009-11-10T23:00:00Z`, `…T23:00:00.5+01:00`) into nanoseconds
/// since the Unix epoch. `0001-01-01T00:00:00Z` (Go's zero time) maps to `i64::MIN`, the marker
/// of an unset time.
pub fn parse_rfc3339(s: &str) -> Result<i64, String> {
    let err = || format!("{s:?} is not an RFC 3339 time such as \"2009-11-10T23:00:00Z\"");
    let b = s.as_bytes();
    let year = digits(b, 4).ok_or_else(err)?;
    let sep = |i: usize, c: &[u8]| b.get(i).is_some_and(|x| c.contains(x));
    if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"Tt ") && sep(13, b":") && sep(16, b":")) {
        return Err(err());
    }
    let field = |from: usize| b.get(from..).and_then(|r| digits(r, 2)).ok_or_else(err);
    let (month, day, hour, min, sec) = (field(5)?, field(8)?, field(11)?, field(14)?, field(17)?);
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || min > 59
        || sec > 59
    {
        return Err(err());
    }
    let mut pos = 19;
    let mut frac: i64 = 0;
    if b.get(pos) == Some(&b'.') {
        pos += 1;
        let start = pos;
        let mut scale = 100_000_000i64;
        while let Some(c) = b.get(pos).filter(|c| c.is_ascii_digit()) {
            frac += i64::from(c - b'0') * scale;
            scale /= 10;
            pos += 1;
        }
        if pos == start {
            return Err(err());
        }
    }
    let offset_s = match b.get(pos) {
        Some(b'Z' | b'z') if pos + 1 == b.len() => 0,
        Some(&c @ (b'+' | b'-')) if pos + 6 == b.len() && b.get(pos + 3) == Some(&b':') => {
            let (oh, om) = (field(pos + 1)?, field(pos + 4)?);
            if oh > 23 || om > 59 {
                return Err(err());
            }
            let o = oh * 3600 + om * 60;
            if c == b'-' { -o } else { o }
        }
        _ => return Err(err()),
    };
    if (year, month, day, hour, min, sec, frac, offset_s) == (1, 1, 1, 0, 0, 0, 0, 0) {
        return Ok(ZERO_TIME_NANOS);
    }
    let secs = days_from_civil(year, month, day) * 86_400 + hour * 3600 + min * 60 + sec - offset_s;
    secs.checked_mul(NANOS_PER_SECOND)
        .and_then(|n| n.checked_add(frac))
        .ok_or_else(|| format!("{s:?} is out of the supported range"))
}

/// Formats nanoseconds since the epoch as RFC 3339 in UTC, with as many fractional digits as
/// needed (Go's RFC3339Nano).
pub fn format_rfc3339(ns: i64) -> String {
    if ns == ZERO_TIME_NANOS {
        return "0001-01-01T00:00:00Z".to_owned();
    }
    let secs = ns.div_euclid(NANOS_PER_SECOND);
    let frac = ns.rem_euclid(NANOS_PER_SECOND);
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    let mut s = format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    );
    if frac != 0 {
        let f = format!("{frac:09}");
        s.push('.');
        s.push_str(f.trim_end_matches('0'));
    }
    s.push('Z');
    s
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use serde_json::json;

    const T: &str = "2009-11-10T23:00:00Z";

    fn input(v: serde_json::Value) -> JobBackoffInput {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn rfc3339_round_trip_and_offsets() {
        let t = parse_rfc3339(T).unwrap();
        assert_eq!(t, 1_257_894_000 * NANOS_PER_SECOND);
        assert_eq!(format_rfc3339(t), T);
        assert_eq!(parse_rfc3339("2009-11-11T00:00:00+01:00").unwrap(), t);
        assert_eq!(parse_rfc3339("2009-11-10T22:30:00-00:30").unwrap(), t);
        assert_eq!(
            parse_rfc3339("2009-11-10T23:00:00.25Z").unwrap(),
            t + 250_000_000
        );
        assert_eq!(format_rfc3339(t + 250_000_000), "2009-11-10T23:00:00.25Z");
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z").unwrap(), 0);
        assert_eq!(format_rfc3339(-1), "1969-12-31T23:59:59.999999999Z");
        assert_eq!(
            parse_rfc3339("2024-02-29T12:00:00Z")
                .map(format_rfc3339)
                .unwrap(),
            "2024-02-29T12:00:00Z"
        );
        assert_eq!(
            parse_rfc3339("0001-01-01T00:00:00Z").unwrap(),
            ZERO_TIME_NANOS
        );
    }

    #[test]
    fn rfc3339_rejects_garbage() {
        for s in [
            "",
            "2009-11-10",
            "2009-11-10T23:00:00",
            "2009-13-10T23:00:00Z",
            "2023-02-29T00:00:00Z",
            "2009-11-10T24:00:00Z",
            "2009-11-10T23:00:00.Z",
            "2009-11-10T23:00:00+0100",
            "2009-11-10T23:00:00Zx",
        ] {
            assert!(parse_rfc3339(s).is_err(), "{s}");
        }
    }

    #[test]
    fn curve_doubles_then_caps() {
        let d = 10 * NANOS_PER_SECOND;
        let m = 600 * NANOS_PER_SECOND;
        let got: Vec<i64> = (1..=8)
            .map(|f| remaining_for_failures(d, m, f, 0) / NANOS_PER_SECOND)
            .collect();
        assert_eq!(got, vec![10, 20, 40, 80, 160, 320, 600, 600]);
        assert_eq!(remaining_for_failures(d, m, 0, 0), 0);
        assert_eq!(
            remaining_for_failures(d, m, 1, 4 * NANOS_PER_SECOND),
            6 * NANOS_PER_SECOND
        );
        assert_eq!(
            remaining_for_failures(d, m, 1, 10 * NANOS_PER_SECOND),
            0,
            "backoff == elapsed gives 0"
        );
        assert_eq!(remaining_for_failures(d, m, 1, 11 * NANOS_PER_SECOND), 0);
        assert_eq!(
            remaining_for_failures(d, m, -3, 0),
            d,
            "a negative count skips the doubling"
        );
    }

    #[test]
    fn remaining_time_needs_time_only_with_failures() {
        let o = run(input(
            json!({"function": "getRemainingTime", "failuresAfterLastSuccess": 0}),
        ))
        .unwrap();
        assert_eq!(o.remaining_seconds, Some(0.0));
        assert!(
            run(input(
                json!({"function": "getRemainingTime", "failuresAfterLastSuccess": 1})
            ))
            .is_err()
        );
        let o = run(input(json!({"function": "getRemainingTime", "defaultBackoffSeconds": 5, "maxBackoffSeconds": 700,
            "failuresAfterLastSuccess": 9, "lastFailureTime": T, "now": "2009-11-10T23:00:01Z"})))
        .unwrap();
        assert_eq!(o.remaining_seconds, Some(699.0));
    }

    #[test]
    fn curve_output() {
        let o = run(input(json!({"function": "getRemainingTime", "failuresAfterLastSuccessRange": [1, 7], "secondsSinceLastFailure": 5})))
            .unwrap();
        assert_eq!(o.delays_seconds, Some(vec![5.0, 595.0]));
        assert_eq!(
            (o.initial_seconds, o.max_seconds),
            (Some(10.0), Some(600.0))
        );
    }

    #[test]
    fn annotation_counts() {
        let pod = |a: serde_json::Value| -> Pod {
            serde_json::from_value(json!({"metadata": {"annotations": a}})).unwrap()
        };
        assert_eq!(
            index_absolute_failure_count(&pod(json!({INDEX_FAILURE_COUNT_ANNOTATION: "2"}))),
            2
        );
        assert_eq!(
            index_absolute_failure_count(&pod(
                json!({INDEX_FAILURE_COUNT_ANNOTATION: "2", INDEX_IGNORED_FAILURE_COUNT_ANNOTATION: "3"})
            )),
            5
        );
        assert_eq!(
            index_absolute_failure_count(&pod(json!({INDEX_FAILURE_COUNT_ANNOTATION: "x"}))),
            0
        );
        assert_eq!(
            index_absolute_failure_count(&pod(json!({INDEX_FAILURE_COUNT_ANNOTATION: "-1"}))),
            0
        );
        assert_eq!(
            index_absolute_failure_count(&pod(
                json!({INDEX_FAILURE_COUNT_ANNOTATION: "2147483648"})
            )),
            0
        );
        assert_eq!(index_absolute_failure_count(&pod(json!({}))), 0);
    }

    #[test]
    fn per_index() {
        let o = run(input(
            json!({"function": "getRemainingTimePerIndex", "lastFailedPod": null}),
        ))
        .unwrap();
        assert_eq!(o.remaining_seconds, Some(0.0));
        let o = run(input(json!({"function": "getRemainingTimePerIndex", "defaultBackoffSeconds": 5, "maxBackoffSeconds": 700,
            "now": "2009-11-10T23:00:02Z",
            "lastFailedPod": {"metadata": {"annotations": {INDEX_FAILURE_COUNT_ANNOTATION: "2"}, "deletionTimestamp": T}}})))
        .unwrap();
        assert_eq!(
            (o.failures_count, o.remaining_seconds),
            (Some(3), Some(18.0))
        );
    }

    fn pod(v: serde_json::Value) -> Pod {
        serde_json::from_value(v).unwrap()
    }

    fn finish(p: &Pod) -> String {
        format_rfc3339(finished_time(p, &FeatureGates::default()).unwrap())
    }

    #[test]
    fn finished_time_from_containers() {
        let p = pod(json!({"status": {"containerStatuses": [
            {"name": "a", "state": {"terminated": {"finishedAt": "2009-11-10T22:59:59Z"}}},
            {"name": "b", "state": {"terminated": {"finishedAt": T}}}]}}));
        assert_eq!(finish(&p), T);
    }

    #[test]
    fn finished_time_with_sidecar_and_gate() {
        let p = pod(
            json!({"spec": {"initContainers": [{"name": "side", "restartPolicy": "Always"}, {"name": "init"}]},
            "status": {
                "containerStatuses": [{"name": "a", "state": {"terminated": {"finishedAt": "2009-11-10T22:59:59Z"}}}],
                "initContainerStatuses": [
                    {"name": "init", "state": {"terminated": {"finishedAt": "2009-11-10T23:30:00Z"}}},
                    {"name": "side", "state": {"terminated": {"finishedAt": T}}}]}}),
        );
        assert_eq!(finish(&p), T);
        let mut g = FeatureGates::default();
        g.set("SidecarContainers", false);
        assert_eq!(
            format_rfc3339(finished_time(&p, &g).unwrap()),
            "2009-11-10T22:59:59Z"
        );
    }

    #[test]
    fn running_sidecar_discards_container_finish() {
        let p = pod(
            json!({"metadata": {"creationTimestamp": "2009-11-10T20:00:00Z"},
            "spec": {"initContainers": [{"name": "side", "restartPolicy": "Always"}]},
            "status": {
                "containerStatuses": [{"name": "a", "state": {"terminated": {"finishedAt": T}}}],
                "initContainerStatuses": [{"name": "side", "state": {"running": {}}}]}}),
        );
        assert_eq!(finish(&p), "2009-11-10T20:00:00Z");
    }

    #[test]
    fn finished_time_fallbacks() {
        let ready_false = pod(
            json!({"metadata": {"deletionTimestamp": "2009-11-10T23:10:00Z"},
            "status": {"containerStatuses": [{"name": "a", "state": {"terminated": {}}}],
            "conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": T}]}}),
        );
        assert_eq!(finish(&ready_false), T);
        let ready_true = pod(json!({"metadata": {"deletionTimestamp": T},
            "status": {"containerStatuses": [{"name": "a", "state": {"running": {}}}],
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2009-11-10T22:00:00Z"}]}}));
        assert_eq!(finish(&ready_true), T);
        let grace =
            pod(json!({"metadata": {"deletionTimestamp": T, "deletionGracePeriodSeconds": 30}}));
        assert_eq!(finish(&grace), "2009-11-10T22:59:30Z");
        let created = pod(json!({"metadata": {"creationTimestamp": T}}));
        assert_eq!(finish(&created), T);
    }

    fn ms(v: &[i64]) -> Vec<i64> {
        v.iter().map(|x| x * NANOS_PER_MILLI).collect()
    }

    #[test]
    fn backoff_record_cases() {
        assert_eq!(new_backoff_record((0, None), &[], &ms(&[0])), (1, Some(0)));
        assert_eq!(
            new_backoff_record((0, None), &[], &ms(&[0, -1])),
            (2, Some(0))
        );
        assert_eq!(
            new_backoff_record((0, None), &ms(&[0]), &ms(&[-2, -1])),
            (0, None)
        );
        assert_eq!(
            new_backoff_record((0, None), &ms(&[-2]), &ms(&[0, -4, -3, -1])),
            (2, Some(0))
        );
        assert_eq!(new_backoff_record((2, None), &[], &ms(&[0])), (3, Some(0)));
        assert_eq!(
            new_backoff_record((0, None), &ms(&[0]), &ms(&[0])),
            (0, None),
            "same instant does not count"
        );
        assert_eq!(new_backoff_record((4, Some(7)), &[], &[]), (4, Some(7)));
        assert_eq!(new_backoff_record((4, Some(7)), &ms(&[0]), &[]), (0, None));
    }

    #[test]
    fn backoff_record_op_with_stored_time() {
        let o = run(input(json!({"function": "newBackoffRecord", "T0": T,
            "storedRecord": {"failuresAfterLastSuccess": 2, "lastFailureTime": "2009-11-10T22:59:59Z"},
            "newSucceededPodsFinishedAtMsFromT0": [], "newFailedPodsFinishedAtMsFromT0": []})))
        .unwrap();
        assert_eq!(o.failures_after_last_success, Some(2));
        assert_eq!(o.last_failure_time_ms_from_t0, Some(Some(-1000)));
        let v = serde_json::to_value(run(input(json!({"function": "newBackoffRecord"}))).unwrap())
            .unwrap();
        assert_eq!(
            v,
            json!({"failuresAfterLastSuccess": 0, "lastFailureTimeMsFromT0": null, "lastFailureTime": null})
        );
    }

    #[test]
    fn unknown_function_and_field_are_errors() {
        assert!(run(input(json!({"function": "nope"}))).is_err());
        assert!(
            serde_json::from_value::<JobBackoffInput>(
                json!({"function": "getRemainingTime", "bogus": 1})
            )
            .is_err()
        );
    }

    #[test]
    fn finished_time_op() {
        let o = run(input(
            json!({"function": "getFinishedTime", "pod": {"metadata": {"creationTimestamp": T}}}),
        ))
        .unwrap();
        assert_eq!(o.finished_time.as_deref(), Some(T));
    }
}
