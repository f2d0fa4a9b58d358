//! validateJobSpec (pkg/apis/batch/validation/validation.go), failure scope: the counts, the
//! completion mode, managedBy, the successPolicy with its index lists, podReplacementPolicy and
//! the template's restartPolicy; the podFailurePolicy is [`super::pod_failure_policy`]'s.

use super::pod_failure_policy::validate_pod_failure_policy;
use crate::api::{JobSpec, SuccessPolicy};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::go_strconv::quote as go_quote;
use crate::validate::Ctx;
use serde_json::Value;
use crate::versions::Change;

const MAX_PARALLELISM_FOR_INDEXED_JOB: i32 = 100_000;
const MAX_FAILED_INDEXES_FOR_INDEXED_JOB: i32 = 100_000;
const COMPLETIONS_SOFT_LIMIT: i32 = 100_000;
const PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS: i32 = 10_000;
const MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS: i32 = 10_000;
const MAX_SUCCESS_POLICY_RULES: usize = 20;
/// Longest succeededIndexes string, in bytes.
const MAX_SUCCEEDED_INDEXES_LENGTH: usize = 64 * 1024;
const POD_REPLACEMENT_POLICIES: [&str; 2] = ["Failed", "TerminatingOrFailed"];

fn nonnegative(v: i32, path: &FieldPath, out: &mut Findings) {
    if v < 0 {
        out.push(Diagnostic::invalid(
            path,
            v,
            "must be greater than or equal to 0",
        ));
    }
}

fn is_indexed(spec: &JobSpec) -> bool {
    spec.completion_mode.as_deref() == Some("Indexed")
}

/// validateJobSpec's managedBy check (pkg/apis/batch/validation, 1.31 to 1.37, wherever the
/// field survives the JobManagedBy gate): a domain-prefixed path of at most 63 bytes. 1.31
/// words the length error with field.TooLongMaxLength (`may not be longer than 63`).
fn validate_managed_by(value: &str, p: &FieldPath, minor: u32, out: &mut Findings) {
    const MAX_MANAGED_BY_LENGTH: usize = 63;
    for d in crate::validate::meta::domain_prefixed_path(p, value) {
        out.push(d);
    }
    if value.len() > MAX_MANAGED_BY_LENGTH {
        let mut d = Diagnostic::too_long(p, value, MAX_MANAGED_BY_LENGTH);
        if !Change::TooLongMaxLengthGone.at(minor) {
            let detail = format!("may not be longer than {MAX_MANAGED_BY_LENGTH}");
            d.message = format!("{}: Too long: {detail}", p.as_str());
            d.detail = Some(detail);
        }
        out.push(d);
    }
}

/// validateJobSpec, failure scope. `path` is the JobSpec's path (`spec`, or
/// `spec.replicatedJobs[0].template.spec`). Also adds restartkit's lints as warnings.
pub fn validate_job_spec(spec: &JobSpec, path: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    if let Some(p) = spec.parallelism {
        nonnegative(p, &path.child("parallelism"), out);
    }
    if let Some(c) = spec.completions {
        nonnegative(c, &path.child("completions"), out);
    }
    if let Some(a) = spec.active_deadline_seconds
        && a < 0
    {
        out.push(Diagnostic::invalid(
            &path.child("activeDeadlineSeconds"),
            a,
            "must be greater than or equal to 0",
        ));
    }
    if let Some(b) = spec.backoff_limit {
        nonnegative(b, &path.child("backoffLimit"), out);
    }
    if let Some(ttl) = spec
        .other
        .get("ttlSecondsAfterFinished")
        .and_then(serde_json::Value::as_i64)
        && ttl < 0
    {
        out.push(Diagnostic::invalid(
            &path.child("ttlSecondsAfterFinished"),
            ttl,
            "must be greater than or equal to 0",
        ));
    }
    if let Some(b) = spec.backoff_limit_per_index {
        nonnegative(b, &path.child("backoffLimitPerIndex"), out);
    }
    if let Some(m) = spec.max_failed_indexes {
        nonnegative(m, &path.child("maxFailedIndexes"), out);
        if spec.backoff_limit_per_index.is_none() {
            out.push(Diagnostic::required(
                &path.child("backoffLimitPerIndex"),
                "when maxFailedIndexes is specified",
            ));
        }
    }
    if let Some(m) = &spec.managed_by {
        validate_managed_by(m, &path.child("managedBy"), ctx.gates.version.minor, out);
    }
    validate_completion_mode(spec, path, out);
    if spec.pod_failure_policy.is_some() {
        validate_pod_failure_policy(
            spec,
            &path.child("podFailurePolicy"),
            ctx.gates.version.minor,
            out,
        );
    }
    if let Some(sp) = &spec.success_policy {
        validate_success_policy(
            spec,
            sp,
            &path.child("successPolicy"),
            ctx.gates.version.minor,
            out,
        );
    }
    validate_pod_replacement_policy(spec, &path.child("podReplacementPolicy"), out);

    let template_spec = path.child("template").child("spec");
    crate::validate::meta::template_metadata(
        spec.template.metadata.as_ref(),
        &path.child("template"),
        ctx.gates.version.minor,
        out,
    );
    crate::validate::pod::validate_pod_template_spec(
        &spec.template.spec,
        &path.child("template"),
        ctx,
        out,
    );
    crate::validate::pod_security::template_annotations(
        spec.template.metadata.as_ref(),
        &spec.template.spec,
        &path.child("template"),
        ctx,
        out,
    );
    validate_template_restart_policy(spec, &template_spec.child("restartPolicy"), out);

    for lint in crate::validate::job_lint::lint_job_spec(spec, path, &ctx.gates) {
        out.push(lint);
    }
}

fn validate_completion_mode(spec: &JobSpec, path: &FieldPath, out: &mut Findings) {
    if let Some(mode) = spec.completion_mode.as_deref() {
        if mode != "NonIndexed" && mode != "Indexed" {
            out.push(Diagnostic::not_supported(
                &path.child("completionMode"),
                mode,
                &["NonIndexed", "Indexed"],
            ));
        }
        if mode == "Indexed" {
            let mfi_path = path.child("maxFailedIndexes");
            if spec.completions.is_none() {
                out.push(Diagnostic::required(
                    &path.child("completions"),
                    "when completion mode is Indexed",
                ));
            }
            if let Some(p) = spec
                .parallelism
                .filter(|p| *p > MAX_PARALLELISM_FOR_INDEXED_JOB)
            {
                out.push(Diagnostic::invalid(
                    &path.child("parallelism"),
                    p,
                    format!("must be less than or equal to {MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed"),
                ));
            }
            if let (Some(c), Some(m)) = (spec.completions, spec.max_failed_indexes)
                && m > c
            {
                out.push(Diagnostic::invalid(
                    &mfi_path,
                    m,
                    "must be less than or equal to completions",
                ));
            }
            if let Some(m) = spec
                .max_failed_indexes
                .filter(|m| *m > MAX_FAILED_INDEXES_FOR_INDEXED_JOB)
            {
                out.push(Diagnostic::invalid(
                    &mfi_path,
                    m,
                    format!("must be less than or equal to {MAX_FAILED_INDEXES_FOR_INDEXED_JOB}"),
                ));
            }
            let high = spec.completions.is_some_and(|c| c > COMPLETIONS_SOFT_LIMIT);
            if high && spec.backoff_limit_per_index.is_some() {
                if spec.max_failed_indexes.is_none() {
                    out.push(Diagnostic::required(
                        &mfi_path,
                        format!(
                            "must be specified when completions is above {COMPLETIONS_SOFT_LIMIT}"
                        ),
                    ));
                }
                if let Some(p) = spec
                    .parallelism
                    .filter(|p| *p > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS)
                {
                    out.push(Diagnostic::invalid(
                        &path.child("parallelism"),
                        p,
                        format!(
                            "must be less than or equal to {PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index"
                        ),
                    ));
                }
                if let Some(m) = spec
                    .max_failed_indexes
                    .filter(|m| *m > MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS)
                {
                    out.push(Diagnostic::invalid(
                        &mfi_path,
                        m,
                        format!(
                            "must be less than or equal to {MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index"
                        ),
                    ));
                }
            }
        }
    }
    if spec.completion_mode.is_none() || spec.completion_mode.as_deref() == Some("NonIndexed") {
        if let Some(b) = spec.backoff_limit_per_index {
            out.push(Diagnostic::invalid(
                &path.child("backoffLimitPerIndex"),
                b,
                "requires indexed completion mode",
            ));
        }
        if let Some(m) = spec.max_failed_indexes {
            out.push(Diagnostic::invalid(
                &path.child("maxFailedIndexes"),
                m,
                "requires indexed completion mode",
            ));
        }
    }
}

/// validateSuccessPolicy and validateSuccessPolicyRule. Upstream dereferences `completions`
/// for every rule; an Indexed Job without completions (parallelism set, so SetDefaults_Job leaves
/// completions unset; or a CronJob's template, which is not defaulted) makes the API server
/// panic, and the request fails with an internal error. That request is refused anyway
/// (completions is Required when Indexed), so here the checks that need completions are skipped.
fn validate_success_policy(
    spec: &JobSpec,
    sp: &SuccessPolicy,
    path: &FieldPath,
    minor: u32,
    out: &mut Findings,
) {
    if !is_indexed(spec) {
        let detail = "requires indexed completion mode";
        out.push(if Change::FieldErrorJsonValues.at(minor) {
            Diagnostic::invalid(path, go_internal_success_policy(sp), detail)
        } else {
            // apimachinery before v0.34 prints a struct value with Go's %#v.
            Diagnostic::invalid_printed(
                path,
                go_internal_success_policy(sp),
                &go_syntax_success_policy(sp),
                detail,
            )
        });
        return;
    }
    let rules_path = path.child("rules");
    let rules = sp.rules.as_deref().unwrap_or(&[]);
    if rules.is_empty() {
        out.push(Diagnostic::required(
            &rules_path,
            "at least one rules must be specified when the successPolicy is specified",
        ));
    }
    if rules.len() > MAX_SUCCESS_POLICY_RULES {
        out.push(Diagnostic::too_many(
            &rules_path,
            rules.len(),
            MAX_SUCCESS_POLICY_RULES,
        ));
    }
    for (i, rule) in rules.iter().enumerate() {
        let rp = rules_path.index(i);
        if rule.succeeded_count.is_none() && rule.succeeded_indexes.is_none() {
            out.push(Diagnostic::required(
                &rp,
                "at least one of succeededCount or succeededIndexes must be specified",
            ));
        }
        // The number of indexes listed; 0 when the list does not parse (as upstream).
        let mut listed: Option<i64> = None;
        if let Some(indexes) = rule.succeeded_indexes.as_deref() {
            let ip = rp.child("succeededIndexes");
            if indexes.len() > MAX_SUCCEEDED_INDEXES_LENGTH {
                out.push(Diagnostic::too_long(
                    &ip,
                    "<value omitted>",
                    MAX_SUCCEEDED_INDEXES_LENGTH,
                ));
            }
            if let Some(completions) = spec.completions {
                match count_indexes(indexes, completions) {
                    Ok(n) => listed = Some(n),
                    Err(e) => {
                        listed = Some(0);
                        out.push(Diagnostic::invalid(
                            &ip,
                            indexes,
                            format!("error parsing succeededIndexes: {e}"),
                        ));
                    }
                }
            }
        }
        if let Some(c) = rule.succeeded_count {
            let cp = rp.child("succeededCount");
            nonnegative(c, &cp, out);
            if let Some(completions) = spec.completions
                && c > completions
            {
                out.push(Diagnostic::invalid(
                    &cp,
                    c,
                    format!("must be less than or equal to {completions} (the number of specified completions)"),
                ));
            }
            if let Some(n) = listed
                && i64::from(c) > n
            {
                out.push(Diagnostic::invalid(
                    &cp,
                    c,
                    format!("must be less than or equal to {n} (the number of indexes in the specified succeededIndexes field)"),
                ));
            }
        }
    }
}

/// The value upstream prints for a successPolicy refused as a whole: the internal Go type, which
/// has no JSON tags, so Go field names and nulls for unset pointers.
fn go_internal_success_policy(sp: &SuccessPolicy) -> serde_json::Value {
    let rules = sp.rules.as_ref().map(|rules| {
        rules
            .iter()
            .map(|r| {
                serde_json::json!({
                    "SucceededIndexes": r.succeeded_indexes,
                    "SucceededCount": r.succeeded_count,
                })
            })
            .collect::<Vec<_>>()
    });
    serde_json::json!({ "Rules": rules })
}

/// The same value as apimachinery before v0.34 prints it: Go's `%#v` of the internal type, with
/// each pointer's address (which is no fact about the object) written `0x…`.
fn go_syntax_success_policy(sp: &SuccessPolicy) -> String {
    let ptr = |ty: &str, set: bool| {
        if set {
            format!("(*{ty})(0x…)")
        } else {
            format!("(*{ty})(nil)")
        }
    };
    let rules = match &sp.rules {
        None => "[]batch.SuccessPolicyRule(nil)".to_owned(),
        Some(rules) => format!(
            "[]batch.SuccessPolicyRule{{{}}}",
            rules
                .iter()
                .map(|r| format!(
                    "batch.SuccessPolicyRule{{SucceededIndexes:{}, SucceededCount:{}}}",
                    ptr("string", r.succeeded_indexes.is_some()),
                    ptr("int32", r.succeeded_count.is_some())
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!("batch.SuccessPolicy{{Rules:{rules}}}")
}

/// validateIndexesFormat: `indexes` is a comma-separated list of indexes and `a-b` intervals
/// (a < b), strictly increasing, each index below `completions`. Returns how many indexes it
/// lists, or upstream's error text. An empty string lists none.
pub fn count_indexes(indexes: &str, completions: i32) -> Result<i64, String> {
    if indexes.is_empty() {
        return Ok(0);
    }
    let mut last: Option<i64> = None;
    let mut total = 0i64;
    for interval in indexes.split(',') {
        let (x, y) = parse_index_interval(interval, completions)?;
        if let Some(l) = last
            && l >= x
        {
            return Err(format!("non-increasing order, previous: {l}, current: {x}"));
        }
        total += y - x + 1;
        last = Some(y);
    }
    Ok(total)
}

/// parseIndexInterval: `a` or `a-b`.
fn parse_index_interval(interval: &str, completions: i32) -> Result<(i64, i64), String> {
    let limits: Vec<&str> = interval.split('-').collect();
    if limits.len() > 2 {
        return Err(format!(
            "the fragment {} violates the requirement that an index interval can have at most two parts separated by '-'",
            go_quote(interval)
        ));
    }
    let index = |s: &str| -> Result<i64, String> {
        let v = crate::go_strconv::atoi(s).ok().ok_or_else(|| {
            format!(
                "cannot convert string to integer for index: {}",
                go_quote(s)
            )
        })?;
        if v >= i64::from(completions) {
            return Err(format!("too large index: {}", go_quote(s)));
        }
        Ok(v)
    };
    let first = limits.first().copied().unwrap_or("");
    let x = index(first)?;
    match limits.get(1) {
        Some(second) => {
            let y = index(second)?;
            if x >= y {
                return Err(format!("non-increasing order, previous: {x}, current: {y}"));
            }
            Ok((x, y))
        }
        None => Ok((x, x)),
    }
}

fn validate_pod_replacement_policy(spec: &JobSpec, path: &FieldPath, out: &mut Findings) {
    let Some(prp) = spec.pod_replacement_policy.as_deref() else {
        return;
    };
    if spec.pod_failure_policy.is_some() {
        if prp != "Failed" {
            out.push(Diagnostic::not_supported(path, prp, &["Failed"]));
        }
    } else if !POD_REPLACEMENT_POLICIES.contains(&prp) {
        out.push(Diagnostic::not_supported(
            path,
            prp,
            &POD_REPLACEMENT_POLICIES,
        ));
    }
}

/// The else-if chain on the template's restartPolicy: at most one error.
fn validate_template_restart_policy(spec: &JobSpec, path: &FieldPath, out: &mut Findings) {
    let rp = spec.template.spec.restart_policy.as_deref().unwrap_or("");
    if rp == "Always" || rp.is_empty() {
        out.push(Diagnostic::required(
            path,
            "valid values: \"OnFailure\", \"Never\"",
        ));
    } else if rp != "OnFailure" && rp != "Never" {
        out.push(Diagnostic::not_supported(path, rp, &["OnFailure", "Never"]));
    } else if spec.pod_failure_policy.is_some() && rp != "Never" {
        out.push(
            Diagnostic::invalid(
                path,
                rp,
                "only \"Never\" is supported when podFailurePolicy is specified",
            )
            .with_fix(
                "set restartPolicy to \"Never\" (a podFailurePolicy needs it)",
                vec![(path.as_str().to_owned(), Value::from("Never"))],
            ),
        );
    }
}
