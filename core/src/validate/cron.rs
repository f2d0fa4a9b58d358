//! A CronJob's spec as validateCronJobSpec (pkg/apis/batch/validation) checks it on create, after
//! the v1 defaulting: its own fields, the Job template (the caller's), the selector rules and the
//! history limits.
//!
//! Of those, `schedule` and `timeZone`: the schedule must parse with github.com/robfig/cron/v3's
//! standard parser (five fields or a descriptor, v3.0.1's parser.go, pinned by every supported
//! minor), whose error text becomes the message; the time zone must be one the API server's Go
//! runtime can load (kube-apiserver links Go's embedded tz database, cmd/kube-apiserver/apiserver.go
//! imports time/tzdata), whose names are generated into [`crate::generated::tz_names`].

use super::Ctx;
use super::controllers::{defaulted_spec, int, invalid_selector, nonnegative, object, str_of};
use super::job::go_quote;
use crate::diag::{Diagnostic, FieldPath, Findings};
use serde_json::Value;
use crate::versions::Change;

/// One field's bounds and, for months and weekdays, its names.
struct Bounds {
    min: u64,
    max: u64,
    names: &'static [(&'static str, u64)],
}

/// A field without names.
const fn numeric(min: u64, max: u64) -> Bounds {
    Bounds {
        min,
        max,
        names: &[],
    }
}

const MINUTES: Bounds = numeric(0, 59);
const HOURS: Bounds = numeric(0, 23);
const DOM: Bounds = numeric(1, 31);
const MONTHS: Bounds = Bounds {
    min: 1,
    max: 12,
    names: &[
        ("jan", 1),
        ("feb", 2),
        ("mar", 3),
        ("apr", 4),
        ("may", 5),
        ("jun", 6),
        ("jul", 7),
        ("aug", 8),
        ("sep", 9),
        ("oct", 10),
        ("nov", 11),
        ("dec", 12),
    ],
};
const DOW: Bounds = Bounds {
    min: 0,
    max: 6,
    names: &[
        ("sun", 0),
        ("mon", 1),
        ("tue", 2),
        ("wed", 3),
        ("thu", 4),
        ("fri", 5),
        ("sat", 6),
    ],
};

/// What the Go runtime's time.LoadLocation says of a name (before looking it up, it refuses a
/// name containing `..` or with a leading slash or backslash; "" and "UTC" are UTC, "Local" the
/// host's).
pub fn load_location(name: &str) -> Result<(), String> {
    if name.is_empty() || name == "UTC" || name == "Local" {
        return Ok(());
    }
    if name.contains("..") || name.starts_with('/') || name.starts_with('\\') {
        return Err("time: invalid location name".to_owned());
    }
    if crate::generated::tz_names::TZ_NAMES
        .lines()
        .any(|known| known == name)
    {
        Ok(())
    } else {
        Err(format!("unknown time zone {name}"))
    }
}

/// cron.ParseStandard: `Ok` when the schedule parses, else the parser's error text. `minor`
/// decides what a `TZ=` prefix without a following space does: the parser slices out of range
/// and panics; from 1.35 the API server recovers that panic into an error
/// (pkg/util/parsers ParseCronScheduleWithPanicRecovery), before it the request fails with the
/// handler's panic (`None`: no field error to report).
pub fn parse_standard(spec: &str, minor: u32) -> Option<Result<(), String>> {
    if spec.is_empty() {
        return Some(Err("empty spec string".to_owned()));
    }
    let mut spec = spec;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let eq = spec.find('=').unwrap_or(0);
        let Some(space) = spec.find(' ') else {
            // spec[eq+1 : -1]: Go's runtime error for a negative high bound.
            return Change::CronTzPanicRecovered.at(minor).then(|| {
                Err(
                    "invalid schedule format: runtime error: slice bounds out of range [:-1]"
                        .to_owned(),
                )
            });
        };
        let name = spec.get(eq + 1..space).unwrap_or("");
        if let Err(e) = load_location(name) {
            return Some(Err(format!("provided bad location {name}: {e}")));
        }
        spec = spec.get(space..).unwrap_or("").trim_matches(go_space);
    }
    if spec.starts_with('@') {
        return Some(descriptor(spec));
    }
    let fields: Vec<&str> = spec.split(go_space).filter(|f| !f.is_empty()).collect();
    if fields.len() != 5 {
        return Some(Err(format!(
            "expected exactly 5 fields, found {}: [{}]",
            fields.len(),
            fields.join(" ")
        )));
    }
    for (f, b) in fields.iter().zip([&MINUTES, &HOURS, &DOM, &MONTHS, &DOW]) {
        if let Err(e) = field(f, b) {
            return Some(Err(e));
        }
    }
    Some(Ok(()))
}

/// unicode.IsSpace, which strings.Fields and strings.TrimSpace split on.
fn go_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{85}' | '\u{a0}'
    ) || (c as u32 > 0xff && c.is_whitespace())
}

fn descriptor(d: &str) -> Result<(), String> {
    match d {
        "@yearly" | "@annually" | "@monthly" | "@weekly" | "@daily" | "@midnight" | "@hourly" => {
            Ok(())
        }
        _ => match d.strip_prefix("@every ") {
            Some(duration) => super::kubelet_config::parse_go_duration(duration)
                .map(|_| ())
                .map_err(|e| format!("failed to parse duration {d}: {e}")),
            None => Err(format!("unrecognized descriptor: {d}")),
        },
    }
}

/// getField: comma-separated ranges (empty pieces skipped).
fn field(f: &str, b: &Bounds) -> Result<(), String> {
    f.split(',')
        .filter(|r| !r.is_empty())
        .try_for_each(|r| range(r, b))
}

/// getRange: `*`, `?`, a number or name, `a-b`, each with an optional `/step`.
fn range(expr: &str, b: &Bounds) -> Result<(), String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let first = range_and_step.first().copied().unwrap_or("");
    let low_high: Vec<&str> = first.split('-').collect();
    let single = low_high.len() == 1;
    let (start, mut end) = match low_high.as_slice() {
        ["*" | "?", ..] => (b.min, b.max),
        [low] => {
            let s = int_or_name(low, b)?;
            (s, s)
        }
        [low, high] => (int_or_name(low, b)?, int_or_name(high, b)?),
        _ => {
            // The first element decides before the count is looked at.
            int_or_name(low_high.first().copied().unwrap_or(""), b)?;
            return Err(format!("too many hyphens: {expr}"));
        }
    };
    let step = match range_and_step.as_slice() {
        [_] => 1,
        [_, step] => {
            let s = must_parse_int(step)?;
            if single {
                end = b.max;
            }
            s
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < b.min {
        return Err(format!(
            "beginning of range ({start}) below minimum ({}): {expr}",
            b.min
        ));
    }
    if end > b.max {
        return Err(format!(
            "end of range ({end}) above maximum ({}): {expr}",
            b.max
        ));
    }
    if start > end {
        return Err(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    Ok(())
}

fn int_or_name(expr: &str, b: &Bounds) -> Result<u64, String> {
    let lower = expr.to_lowercase();
    match b.names.iter().find(|(n, _)| *n == lower) {
        Some((_, v)) => Ok(*v),
        None => must_parse_int(expr),
    }
}

/// mustParseInt: strconv.Atoi, then no negative numbers.
fn must_parse_int(expr: &str) -> Result<u64, String> {
    let n = crate::go_strconv::atoi(expr).map_err(|why| {
        format!(
            "failed to parse int from {expr}: strconv.Atoi: parsing {}: {}",
            go_quote(expr),
            why.reason()
        )
    })?;
    u64::try_from(n).map_err(|_| format!("negative number ({n}) not allowed: {expr}"))
}

/// validateCronJobSpec in its order, on the spec as defaulted once: the CronJob's own fields up
/// to the Job template, the template (`job_template`: the caller's Job validation, which reads
/// the template as the CronJob defaulter leaves it), its selector rules, the history limits.
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate_cron_job(
    obj: &Value,
    ctx: &Ctx,
    out: &mut Findings,
    job_template: impl FnOnce(&mut Findings),
) {
    let spec = defaulted_spec("CronJob", obj, ctx);
    let sp = FieldPath::new("spec");
    let minor = ctx.gates.version.minor;
    cron_job(&spec, &sp, minor, out);
    job_template(out);
    cron_job_limits(&spec, &sp, minor, out);
}

/// validateCronJobSpec's own fields, up to the Job template.
fn cron_job(spec: &Value, sp: &FieldPath, minor: u32, out: &mut Findings) {
    let schedule = str_of(spec, "schedule");
    let p = sp.child("schedule");
    if schedule.is_empty() {
        out.push(Diagnostic::required(&p, ""));
    } else {
        match parse_standard(schedule, minor) {
            Some(Ok(())) => {}
            Some(Err(e)) => out.push(Diagnostic::invalid(&p, schedule, e)),
            None => out.push(Diagnostic::internal(
                &p,
                format!(
                    "Kubernetes 1.{minor}'s API server panics parsing this schedule (a `TZ=` prefix with no space after it; robfig/cron slices out of range), so the request fails; from 1.35 it is refused with a field error"
                ),
            )),
        }
        if schedule.contains("TZ") {
            out.push(Diagnostic::invalid(
                &p,
                schedule,
                "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
            ));
        }
    }
    if let Some(d) = int(spec, "startingDeadlineSeconds") {
        nonnegative(d, &sp.child("startingDeadlineSeconds"), out);
    }
    if let Some(tz) = spec.get("timeZone").and_then(Value::as_str) {
        time_zone(tz, &sp.child("timeZone"), out);
    }
    let policy = str_of(spec, "concurrencyPolicy");
    let cp = sp.child("concurrencyPolicy");
    match policy {
        "Allow" | "Forbid" | "Replace" => {}
        "" => out.push(Diagnostic::required(&cp, "")),
        other => out.push(Diagnostic::not_supported(
            &cp,
            other,
            &["Allow", "Forbid", "Replace"],
        )),
    }
}

/// validateTimeZone.
fn time_zone(tz: &str, p: &FieldPath, out: &mut Findings) {
    if tz.is_empty() {
        out.push(Diagnostic::invalid(
            p,
            tz,
            "timeZone must be nil or non-empty string",
        ));
        return;
    }
    let part_ok = |part: &str| {
        part != "."
            && part != ".."
            && !part.starts_with('-')
            && (1..=14).contains(&part.len())
            && part
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_' | b'+'))
    };
    if !tz.split('/').all(part_ok) {
        out.push(Diagnostic::invalid(
            p,
            tz,
            format!("unknown time zone {tz}"),
        ));
        return;
    }
    if tz.eq_ignore_ascii_case("Local") {
        out.push(Diagnostic::invalid(
            p,
            tz,
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
        ));
    }
    if let Err(e) = load_location(tz) {
        out.push(Diagnostic::invalid(p, tz, e));
    }
}

/// The checks validateCronJobSpec makes after the Job template: ValidateJobTemplateSpec's
/// selector rules, then the history limits.
fn cron_job_limits(spec: &Value, sp: &FieldPath, minor: u32, out: &mut Findings) {
    let js = spec.get("jobTemplate").and_then(|t| t.get("spec"));
    let jp = sp.child("jobTemplate").child("spec");
    if let Some(s) = js.and_then(|js| object(js, "selector")) {
        out.push(invalid_selector(
            &jp.child("selector"),
            s,
            "`selector` will be auto-generated",
            minor,
        ));
    }
    if js
        .and_then(|js| js.get("manualSelector"))
        .and_then(Value::as_bool)
        == Some(true)
    {
        out.push(Diagnostic::not_supported(
            &jp.child("manualSelector"),
            true,
            &["nil", "false"],
        ));
    }
    for k in ["successfulJobsHistoryLimit", "failedJobsHistoryLimit"] {
        if let Some(v) = int(spec, k) {
            nonnegative(v, &sp.child(k), out);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::KubeVersion;
    use crate::features::FeatureGates;
    use serde_json::json;

    fn err(s: &str) -> String {
        match parse_standard(s, 37) {
            Some(Err(e)) => e,
            other => format!("{other:?}"),
        }
    }

    /// Messages as robfig/cron v3.0.1 words them.
    #[test]
    fn schedules() {
        for ok in [
            "*/5 * * * *",
            "0 0 * * SUN",
            "0 0 1 jan-mar ?",
            "@daily",
            "@every 1h30m",
            "TZ=UTC 0 0 * * *",
            "5/10 1,,2 * * *",
        ] {
            assert_eq!(parse_standard(ok, 37), Some(Ok(())), "{ok}");
        }
        assert_eq!(err("foo"), "expected exactly 5 fields, found 1: [foo]");
        assert_eq!(
            err("* * * *"),
            "expected exactly 5 fields, found 4: [* * * *]"
        );
        assert_eq!(
            err("60 * * * *"),
            "end of range (60) above maximum (59): 60"
        );
        assert_eq!(
            err("* * 0 * *"),
            "beginning of range (0) below minimum (1): 0"
        );
        assert_eq!(
            err("5-1 * * * *"),
            "beginning of range (5) beyond end of range (1): 5-1"
        );
        assert_eq!(
            err("*/0 * * * *"),
            "step of range should be a positive number: */0"
        );
        assert_eq!(
            err("x * * * *"),
            "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"
        );
        assert_eq!(
            err("-1 * * * *"),
            "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax"
        );
        assert_eq!(err("1-2-3 * * * *"), "too many hyphens: 1-2-3");
        assert_eq!(err("1/2/3 * * * *"), "too many slashes: 1/2/3");
        assert_eq!(err("@sometimes"), "unrecognized descriptor: @sometimes");
        assert_eq!(
            err("@every 5"),
            "failed to parse duration @every 5: time: missing unit in duration \"5\""
        );
        assert_eq!(
            err("TZ=Mars/Base 0 0 * * *"),
            "provided bad location Mars/Base: unknown time zone Mars/Base"
        );
        assert_eq!(
            err("TZ=0"),
            "invalid schedule format: runtime error: slice bounds out of range [:-1]"
        );
        assert_eq!(parse_standard("TZ=0", 34), None);
    }

    #[test]
    fn locations() {
        assert!(load_location("Europe/Berlin").is_ok());
        assert!(load_location("Local").is_ok());
        assert_eq!(
            load_location("Europe/Nowhere"),
            Err("unknown time zone Europe/Nowhere".to_owned())
        );
        assert_eq!(
            load_location("../etc"),
            Err("time: invalid location name".to_owned())
        );
    }

    fn ctx(minor: u32) -> Ctx {
        Ctx {
            gates: FeatureGates::for_version(KubeVersion::parse(&format!("1.{minor}")).unwrap()),
            ..Ctx::default()
        }
    }

    fn messages(kind: &str, av: &str, spec: Value, minor: u32) -> Vec<String> {
        let obj = json!({"apiVersion": av, "kind": kind, "metadata": {"name": "w"}, "spec": spec});
        let (f, _) = super::super::validate_value(&obj, &ctx(minor));
        f.errors.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn cronjob_without_schedule() {
        let spec = json!({"jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}});
        assert_eq!(
            messages("CronJob", "batch/v1", spec, 37),
            vec!["spec.schedule: Required value"]
        );
    }

    #[test]
    fn cron_schedules_and_zones() {
        let base = |extra: Value| {
            let mut s = json!({"jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}});
            for (k, v) in extra.as_object().unwrap() {
                s[k] = v.clone();
            }
            s
        };
        assert_eq!(
            messages(
                "CronJob",
                "batch/v1",
                base(json!({"schedule": "TZ=UTC * * * * * *"})),
                37
            ),
            vec![
                "spec.schedule: Invalid value: \"TZ=UTC * * * * * *\": expected exactly 5 fields, found 6: [* * * * * *]",
                "spec.schedule: Invalid value: \"TZ=UTC * * * * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
            ]
        );
        assert_eq!(
            messages(
                "CronJob",
                "batch/v1",
                base(json!({"schedule": "@daily", "timeZone": "Mars/Olympus",
                "concurrencyPolicy": "Sometimes", "failedJobsHistoryLimit": -1})),
                37
            ),
            vec![
                "spec.timeZone: Invalid value: \"Mars/Olympus\": unknown time zone Mars/Olympus",
                "spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: \"Allow\", \"Forbid\", \"Replace\"",
                "spec.failedJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
            ]
        );
        assert!(
            messages(
                "CronJob",
                "batch/v1",
                base(json!({"schedule": "0 3 * * MON-FRI", "timeZone": "Europe/Berlin"})),
                37
            )
            .is_empty()
        );
    }
}
