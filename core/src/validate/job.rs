//! Job admission (batch/v1), restart and failure scope: `SetDefaults_Job`
//! (pkg/apis/batch/v1/defaults.go), the gate-dependent field dropping of the Job strategy's
//! `PrepareForCreate` (pkg/registry/batch/job/strategy.go) and `validateJobSpec` /
//! `validatePodFailurePolicy` (pkg/apis/batch/validation/validation.go).
//!
//! Selector, metadata and the Pod template itself are other validators' business; the template's
//! PodSpec is handed to [`crate::validate::pod::validate_pod_spec`].

use super::Ctx;
use crate::api::{
    Job, JobSpec, PodFailurePolicyOnExitCodesRequirement, PodFailurePolicyOnPodConditionsPattern,
    PodFailurePolicyRule, SuccessPolicy,
};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::features::FeatureGates;
use serde_json::Value;
use super::names::{is_dns1123_label, qualified_name};
use std::collections::BTreeSet;

pub use crate::api::batch::{
    MAX_ON_EXIT_CODES_VALUES, MAX_ON_POD_CONDITIONS_PATTERNS, MAX_POD_FAILURE_POLICY_RULES,
};
const MAX_PARALLELISM_FOR_INDEXED_JOB: i32 = 100_000;
const MAX_FAILED_INDEXES_FOR_INDEXED_JOB: i32 = 100_000;
const COMPLETIONS_SOFT_LIMIT: i32 = 100_000;
const PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS: i32 = 10_000;
const MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS: i32 = 10_000;
const MAX_SUCCESS_POLICY_RULES: usize = 20;
/// Longest succeededIndexes string, in bytes.
const MAX_SUCCEEDED_INDEXES_LENGTH: usize = 64 * 1024;

/// The actions upstream accepts, sorted as `sets.List` prints them.
pub const POD_FAILURE_POLICY_ACTIONS: [&str; 4] = ["Count", "FailIndex", "FailJob", "Ignore"];
const ON_EXIT_CODES_OPERATORS: [&str; 2] = ["In", "NotIn"];
const CONDITION_STATUSES: [&str; 3] = ["False", "True", "Unknown"];
const POD_REPLACEMENT_POLICIES: [&str; 2] = ["Failed", "TerminatingOrFailed"];

const GATE_BACKOFF_LIMIT_PER_INDEX: &str = "JobBackoffLimitPerIndex";
const GATE_POD_REPLACEMENT_POLICY: &str = "JobPodReplacementPolicy";
const GATE_SUCCESS_POLICY: &str = "JobSuccessPolicy";
const GATE_MANAGED_BY: &str = "JobManagedBy";

/// SetDefaults_Job with the JobPodReplacementPolicy gate on (its default in every modelled
/// version; from 1.37 the gate is gone and defaults.go always defaults podReplacementPolicy).
/// Use [`default_job_spec_with_gates`] when the request names gates.
pub fn default_job_spec(spec: &mut JobSpec) {
    default_job_spec_with(spec, true);
}

/// SetDefaults_Job for the given gates.
pub fn default_job_spec_with_gates(spec: &mut JobSpec, gates: &FeatureGates) {
    default_job_spec_with(spec, gates.enabled(GATE_POD_REPLACEMENT_POLICY));
}

fn default_job_spec_with(spec: &mut JobSpec, pod_replacement_policy_gate: bool) {
    if spec.completions.is_none() && spec.parallelism.is_none() {
        spec.completions = Some(1);
        spec.parallelism = Some(1);
    }
    if spec.parallelism.is_none() {
        spec.parallelism = Some(1);
    }
    if spec.backoff_limit.is_none() {
        spec.backoff_limit = Some(if spec.backoff_limit_per_index.is_some() {
            i32::MAX
        } else {
            6
        });
    }
    if spec.completion_mode.is_none() {
        spec.completion_mode = Some("NonIndexed".to_owned());
    }
    if spec.suspend.is_none() {
        spec.suspend = Some(false);
    }
    default_pod_failure_policy(spec);
    if pod_replacement_policy_gate && spec.pod_replacement_policy.is_none() {
        let v = if spec.pod_failure_policy.is_some() {
            "Failed"
        } else {
            "TerminatingOrFailed"
        };
        spec.pod_replacement_policy = Some(v.to_owned());
    }
    crate::validate::pod::default_pod_spec(&mut spec.template.spec);
}

/// The part of SetDefaults_Job that touches the podFailurePolicy: an empty
/// `onPodConditions[].status` becomes `True`. The Job controller only ever sees defaulted Jobs,
/// so the matcher applies this too.
pub fn default_pod_failure_policy(spec: &mut JobSpec) {
    if let Some(pfp) = spec.pod_failure_policy.as_mut() {
        for rule in &mut pfp.rules {
            for pattern in rule.on_pod_conditions.iter_mut().flatten() {
                if pattern.status.is_empty() {
                    pattern.status = "True".to_owned();
                }
            }
        }
    }
}

/// The Job strategy's `PrepareForCreate`: fields of disabled gates are dropped before
/// validation (including FailIndex rules when JobBackoffLimitPerIndex is off).
pub fn prepare_for_create(spec: &mut JobSpec, gates: &FeatureGates) {
    if !gates.enabled(GATE_MANAGED_BY) {
        spec.managed_by = None;
    }
    if !gates.enabled(GATE_SUCCESS_POLICY) {
        spec.success_policy = None;
    }
    if !gates.enabled(GATE_BACKOFF_LIMIT_PER_INDEX) {
        spec.backoff_limit_per_index = None;
        spec.max_failed_indexes = None;
        if let Some(pfp) = spec.pod_failure_policy.as_mut() {
            pfp.rules.retain(|r| r.action != "FailIndex");
        }
    }
    if !gates.enabled(GATE_POD_REPLACEMENT_POLICY) {
        spec.pod_replacement_policy = None;
    }
}

/// Whether `prepare_for_create` would change `spec`: with the gates on (every default from
/// 1.33) it changes nothing, and validation skips copying the whole spec and Pod template.
fn prepare_changes(spec: &JobSpec, gates: &FeatureGates) -> bool {
    (!gates.enabled(GATE_MANAGED_BY) && spec.managed_by.is_some())
        || (!gates.enabled(GATE_SUCCESS_POLICY) && spec.success_policy.is_some())
        || (!gates.enabled(GATE_BACKOFF_LIMIT_PER_INDEX)
            && (spec.backoff_limit_per_index.is_some()
                || spec.max_failed_indexes.is_some()
                || spec
                    .pod_failure_policy
                    .as_ref()
                    .is_some_and(|p| p.rules.iter().any(|r| r.action == "FailIndex"))))
        || (!gates.enabled(GATE_POD_REPLACEMENT_POLICY) && spec.pod_replacement_policy.is_some())
}

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

/// validateJobSpec, failure scope. `path` is the JobSpec's path (`spec`, or
/// `spec.replicatedJobs[0].template.spec`). Also adds restartkit's lints as warnings.
/// validateJobSpec's managedBy check (pkg/apis/batch/validation, 1.31 to 1.37, wherever the
/// field survives the JobManagedBy gate): a domain-prefixed path of at most 63 bytes. 1.31
/// words the length error with field.TooLongMaxLength (`may not be longer than 63`).
fn validate_managed_by(value: &str, p: &FieldPath, minor: u32, out: &mut Findings) {
    const MAX_MANAGED_BY_LENGTH: usize = 63;
    for d in super::meta::domain_prefixed_path(p, value) {
        out.push(d);
    }
    if value.len() > MAX_MANAGED_BY_LENGTH {
        let mut d = Diagnostic::too_long(p, value, MAX_MANAGED_BY_LENGTH);
        if minor <= 31 {
            let detail = format!("may not be longer than {MAX_MANAGED_BY_LENGTH}");
            d.message = format!("{}: Too long: {detail}", p.as_str());
            d.detail = Some(detail);
        }
        out.push(d);
    }
}

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
    super::meta::template_metadata(
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
    super::pod_security::template_annotations(
        spec.template.metadata.as_ref(),
        &spec.template.spec,
        &path.child("template"),
        ctx,
        out,
    );
    validate_template_restart_policy(spec, &template_spec.child("restartPolicy"), out);

    for lint in super::job_lint::lint_job_spec(spec, path, &ctx.gates) {
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
        out.push(if minor >= 34 {
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

pub(super) use crate::go_strconv::quote as go_quote;

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

fn validate_pod_failure_policy(spec: &JobSpec, path: &FieldPath, minor: u32, out: &mut Findings) {
    let Some(pfp) = &spec.pod_failure_policy else {
        return;
    };
    let rules_path = path.child("rules");
    if pfp.rules.len() > MAX_POD_FAILURE_POLICY_RULES {
        out.push(Diagnostic::too_many(
            &rules_path,
            pfp.rules.len(),
            MAX_POD_FAILURE_POLICY_RULES,
        ));
    }
    let t = &spec.template.spec;
    let names: BTreeSet<&str> = t
        .containers
        .iter()
        .chain(&t.init_containers)
        .map(|c| c.name.as_str())
        .collect();
    for (i, rule) in pfp.rules.iter().enumerate() {
        validate_rule(spec, rule, &rules_path.index(i), &names, minor, out);
    }
}

fn quoted_list(items: &[&str]) -> String {
    let q: Vec<String> = items.iter().map(|s| format!("{s:?}")).collect();
    format!("[{}]", q.join(" "))
}

fn validate_rule(
    spec: &JobSpec,
    rule: &PodFailurePolicyRule,
    path: &FieldPath,
    names: &BTreeSet<&str>,
    minor: u32,
    out: &mut Findings,
) {
    let action_path = path.child("action");
    if rule.action.is_empty() {
        out.push(Diagnostic::required(
            &action_path,
            format!("valid values: {}", quoted_list(&POD_FAILURE_POLICY_ACTIONS)),
        ));
    } else if rule.action == "FailIndex" {
        if spec.backoff_limit_per_index.is_none() {
            // `path` is spec.podFailurePolicy.rules[i]: the Job's spec is two levels up.
            let spec_path = action_path
                .as_str()
                .split(".podFailurePolicy.")
                .next()
                .unwrap_or("spec");
            out.push(
                Diagnostic::invalid(
                    &action_path,
                    rule.action.as_str(),
                    "requires the backoffLimitPerIndex to be set",
                )
                .with_fix(
                    "set backoffLimitPerIndex: 1 (FailIndex fails one index after its own retries)",
                    vec![(format!("{spec_path}.backoffLimitPerIndex"), Value::from(1))],
                ),
            );
        }
    } else if !POD_FAILURE_POLICY_ACTIONS.contains(&rule.action.as_str()) {
        out.push(Diagnostic::not_supported(
            &action_path,
            rule.action.as_str(),
            &POD_FAILURE_POLICY_ACTIONS,
        ));
    }
    let patterns = rule.on_pod_conditions.as_deref().unwrap_or(&[]);
    if let Some(oec) = &rule.on_exit_codes {
        validate_on_exit_codes(oec, &path.child("onExitCodes"), names, out);
    }
    if !patterns.is_empty() {
        validate_on_pod_conditions(patterns, &path.child("onPodConditions"), minor, out);
    }
    if rule.on_exit_codes.is_some() && !patterns.is_empty() {
        out.push(Diagnostic::invalid_omit_value(
            path,
            "specifying both OnExitCodes and OnPodConditions is not supported",
        ));
    }
    if rule.on_exit_codes.is_none() && patterns.is_empty() {
        out.push(Diagnostic::invalid_omit_value(
            path,
            "specifying one of OnExitCodes and OnPodConditions is required",
        ));
    }
}

fn validate_on_exit_codes(
    req: &PodFailurePolicyOnExitCodesRequirement,
    path: &FieldPath,
    names: &BTreeSet<&str>,
    out: &mut Findings,
) {
    let op_path = path.child("operator");
    if req.operator.is_empty() {
        out.push(Diagnostic::required(
            &op_path,
            format!("valid values: {}", quoted_list(&ON_EXIT_CODES_OPERATORS)),
        ));
    } else if !ON_EXIT_CODES_OPERATORS.contains(&req.operator.as_str()) {
        out.push(Diagnostic::not_supported(
            &op_path,
            req.operator.as_str(),
            &ON_EXIT_CODES_OPERATORS,
        ));
    }
    if let Some(name) = req.container_name.as_deref()
        && !names.contains(name)
    {
        out.push(Diagnostic::invalid(
            &path.child("containerName"),
            name,
            "must be one of the container or initContainer names in the pod template",
        ));
    }
    let values_path = path.child("values");
    if req.values.is_empty() {
        out.push(Diagnostic::invalid(
            &values_path,
            serde_json::json!([]),
            "at least one value is required",
        ));
    } else if req.values.len() > MAX_ON_EXIT_CODES_VALUES {
        out.push(Diagnostic::too_many(
            &values_path,
            req.values.len(),
            MAX_ON_EXIT_CODES_VALUES,
        ));
    }
    let mut ordered = true;
    let mut seen = BTreeSet::new();
    let mut prev: Option<i32> = None;
    for (j, &v) in req.values.iter().enumerate() {
        let vp = values_path.index(j);
        if req.operator == "In" && v == 0 {
            let mut d = Diagnostic::invalid(&vp, v, "must not be 0 for the In operator");
            // The obvious repair drops 0 (a succeeded container is never a failure); a list of
            // nothing but 0 has none (an empty list is an error of its own).
            let rest: Vec<i32> = req.values.iter().copied().filter(|&x| x != 0).collect();
            if !rest.is_empty() {
                d = d.with_fix(
                    "remove 0 from the In values (exit code 0 is a success, never a failure)",
                    vec![(values_path.as_str().to_owned(), Value::from(rest))],
                );
            }
            out.push(d);
        }
        if !seen.insert(v) {
            out.push(Diagnostic::duplicate(&vp, v));
        }
        if prev.is_some_and(|p| p > v) {
            ordered = false;
        }
        prev = Some(v);
    }
    if !ordered {
        out.push(Diagnostic::invalid(
            &values_path,
            serde_json::json!(req.values),
            "must be ordered",
        ));
    }
}

fn validate_on_pod_conditions(
    patterns: &[PodFailurePolicyOnPodConditionsPattern],
    path: &FieldPath,
    minor: u32,
    out: &mut Findings,
) {
    if patterns.len() > MAX_ON_POD_CONDITIONS_PATTERNS {
        out.push(Diagnostic::too_many(
            path,
            patterns.len(),
            MAX_ON_POD_CONDITIONS_PATTERNS,
        ));
    }
    for (j, p) in patterns.iter().enumerate() {
        let pp = path.index(j);
        let type_path = pp.child("type");
        // ValidateQualifiedName: IsQualifiedName, content.IsLabelKey's wording from 1.35.
        for msg in qualified_name(&p.type_, minor) {
            out.push(Diagnostic::invalid(&type_path, p.type_.as_str(), msg));
        }
        let status_path = pp.child("status");
        if p.status.is_empty() {
            out.push(Diagnostic::required(
                &status_path,
                format!("valid values: {}", quoted_list(&CONDITION_STATUSES)),
            ));
        } else if !CONDITION_STATUSES.contains(&p.status.as_str()) {
            out.push(Diagnostic::not_supported(
                &status_path,
                p.status.as_str(),
                &CONDITION_STATUSES,
            ));
        }
    }
}

/// ValidateJob, failure scope: the Job strategy's PrepareForCreate (unless the request asks to
/// validate the object exactly as given), the Indexed-hostname check on `metadata.name`, then
/// [`validate_job_spec`].
pub fn validate_job(job: &Job, ctx: &Ctx, out: &mut Findings) {
    let path = FieldPath::new("spec");
    // The name the API server checks: an object with only generateName is named first.
    let (name, generated) = super::meta::name_on_create(
        job.metadata.name.as_deref(),
        job.metadata.generate_name.as_deref(),
    );
    if let (Some("Indexed"), Some(c)) = (job.spec.completion_mode.as_deref(), job.spec.completions)
        && c > 0
    {
        let host = format!("{name}-{}", c - 1);
        if !is_dns1123_label(&host) {
            let mut d = Diagnostic::invalid(
                &FieldPath::new("metadata").child("name"),
                name.as_str(),
                format!("will not able to create pod with invalid DNS label: {host}"),
            );
            d.message.push_str(super::meta::generated_note(generated));
            out.push(d);
        }
    }
    if ctx.skip_defaulting || !prepare_changes(&job.spec, &ctx.gates) {
        validate_job_spec(&job.spec, &path, ctx, out);
    } else {
        let mut spec = job.spec.clone();
        prepare_for_create(&mut spec, &ctx.gates);
        lint_dropped_fields(&job.spec, &spec, &path, out);
        validate_job_spec(&spec, &path, ctx, out);
    }
}

/// Warns when PrepareForCreate silently dropped something the user wrote.
fn lint_dropped_fields(before: &JobSpec, after: &JobSpec, path: &FieldPath, out: &mut Findings) {
    let rules_before = before
        .pod_failure_policy
        .as_ref()
        .map_or(0, |p| p.rules.len());
    let rules_after = after
        .pod_failure_policy
        .as_ref()
        .map_or(0, |p| p.rules.len());
    if before.backoff_limit_per_index.is_some() && after.backoff_limit_per_index.is_none()
        || rules_before != rules_after
    {
        out.push(Diagnostic::lint(
            "job-gate-dropped-fields",
            path,
            "the JobBackoffLimitPerIndex feature gate is disabled: the API server drops backoffLimitPerIndex, maxFailedIndexes and every FailIndex rule before validation",
        ));
    }
    if before.managed_by.is_some() && after.managed_by.is_none() {
        out.push(Diagnostic::lint(
            "job-gate-dropped-fields",
            &path.child("managedBy"),
            "the JobManagedBy feature gate is disabled: the API server drops managedBy",
        ));
    }
    if before.success_policy.is_some() && after.success_policy.is_none() {
        out.push(Diagnostic::lint(
            "job-gate-dropped-fields",
            &path.child("successPolicy"),
            "the JobSuccessPolicy feature gate is disabled: the API server drops successPolicy",
        ));
    }
    if before.pod_replacement_policy.is_some() && after.pod_replacement_policy.is_none() {
        out.push(Diagnostic::lint(
            "job-gate-dropped-fields",
            &path.child("podReplacementPolicy"),
            "the JobPodReplacementPolicy feature gate is disabled: the API server drops podReplacementPolicy",
        ));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use crate::diag::ErrorType;
    use serde_json::json;

    fn job(spec: serde_json::Value) -> Job {
        serde_json::from_value(json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": spec})).unwrap()
    }

    fn tmpl(rp: &str) -> serde_json::Value {
        json!({"spec": {"restartPolicy": rp, "dnsPolicy": "ClusterFirst", "terminationGracePeriodSeconds": 30, "containers": [{"name": "main", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}], "initContainers": [{"name": "init", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}})
    }

    fn errors_with(spec: serde_json::Value, ctx: &Ctx) -> Vec<(String, ErrorType)> {
        let mut out = Findings::default();
        validate_job(&job(spec), ctx, &mut out);
        out.errors
            .into_iter()
            .map(|d| (d.field, d.error_type.unwrap()))
            .collect()
    }

    /// Validates the object exactly as given (no defaulting), as upstream's unit tests do.
    fn errors(spec: serde_json::Value) -> Vec<(String, ErrorType)> {
        errors_with(
            spec,
            &Ctx {
                skip_defaulting: true,
                ..Ctx::default()
            },
        )
    }

    fn e(f: &str, t: ErrorType) -> (String, ErrorType) {
        (f.to_owned(), t)
    }

    fn pfp(rules: serde_json::Value) -> serde_json::Value {
        json!({"completions": 1, "template": tmpl("Never"), "podFailurePolicy": {"rules": rules}})
    }

    use ErrorType::*;

    #[test]
    fn prepare_changes_agrees_with_prepare_for_create() {
        let gates = [
            GATE_MANAGED_BY,
            GATE_SUCCESS_POLICY,
            GATE_BACKOFF_LIMIT_PER_INDEX,
            GATE_POD_REPLACEMENT_POLICY,
        ];
        let specs = [
            json!({"template": tmpl("Never")}),
            json!({"template": tmpl("Never"), "managedBy": "x/y"}),
            json!({"template": tmpl("Never"), "successPolicy": {"rules": [{"succeededCount": 1}]}}),
            json!({"template": tmpl("Never"), "backoffLimitPerIndex": 1}),
            json!({"template": tmpl("Never"), "maxFailedIndexes": 1}),
            json!({"template": tmpl("Never"), "podFailurePolicy": {"rules": [{"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [1]}}]}}),
            json!({"template": tmpl("Never"), "podFailurePolicy": {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1]}}]}}),
            json!({"template": tmpl("Never"), "podReplacementPolicy": "Failed"}),
        ];
        for mask in 0..16u32 {
            let mut fg =
                FeatureGates::for_version(crate::features::KubeVersion::parse("1.33").unwrap());
            for (i, g) in gates.iter().enumerate() {
                fg.set(g, mask & (1 << i) != 0);
            }
            for spec in &specs {
                let before = job(spec.clone()).spec;
                let mut after = before.clone();
                prepare_for_create(&mut after, &fg);
                assert_eq!(
                    prepare_changes(&before, &fg),
                    before != after,
                    "gates {mask:04b}, spec {spec}"
                );
            }
        }
    }

    #[test]
    fn valid_policy_with_init_container_name() {
        let s = pfp(json!([
            {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
            {"action": "Count", "onExitCodes": {"containerName": "init", "operator": "In", "values": [1, 2]}},
            {"action": "FailJob", "onExitCodes": {"operator": "NotIn", "values": [0, 5]}}
        ]));
        assert_eq!(errors(s), vec![]);
    }

    #[test]
    fn negative_fields() {
        let s = json!({"completions": -1, "parallelism": -1, "backoffLimit": -1, "activeDeadlineSeconds": -5,
            "ttlSecondsAfterFinished": -1, "template": tmpl("Never")});
        assert_eq!(
            errors(s),
            vec![
                e("spec.parallelism", FieldValueInvalid),
                e("spec.completions", FieldValueInvalid),
                e("spec.activeDeadlineSeconds", FieldValueInvalid),
                e("spec.backoffLimit", FieldValueInvalid),
                e("spec.ttlSecondsAfterFinished", FieldValueInvalid),
            ]
        );
    }

    #[test]
    fn max_failed_indexes_needs_backoff_limit_per_index_and_indexed() {
        let s = json!({"completions": 10, "maxFailedIndexes": -1, "template": tmpl("Never")});
        assert_eq!(
            errors(s),
            vec![
                e("spec.maxFailedIndexes", FieldValueInvalid),
                e("spec.backoffLimitPerIndex", FieldValueRequired),
                e("spec.maxFailedIndexes", FieldValueInvalid),
            ]
        );
    }

    #[test]
    fn backoff_limit_per_index_requires_indexed() {
        let s = json!({"completions": 2, "completionMode": "NonIndexed", "backoffLimitPerIndex": 1, "template": tmpl("Never")});
        assert_eq!(
            errors(s),
            vec![e("spec.backoffLimitPerIndex", FieldValueInvalid)]
        );
    }

    #[test]
    fn indexed_limits() {
        let s =
            json!({"completionMode": "Indexed", "parallelism": 100001, "template": tmpl("Never")});
        assert_eq!(
            errors(s),
            vec![
                e("spec.completions", FieldValueRequired),
                e("spec.parallelism", FieldValueInvalid)
            ]
        );
        let s = json!({"completionMode": "Indexed", "completions": 5, "backoffLimitPerIndex": 1, "maxFailedIndexes": 6, "template": tmpl("Never")});
        assert_eq!(
            errors(s),
            vec![e("spec.maxFailedIndexes", FieldValueInvalid)]
        );
        let s = json!({"completionMode": "Indexed", "completions": 100001, "parallelism": 10001, "backoffLimitPerIndex": 1, "template": tmpl("Never")});
        assert_eq!(
            errors(s),
            vec![
                e("spec.maxFailedIndexes", FieldValueRequired),
                e("spec.parallelism", FieldValueInvalid)
            ]
        );
        let s = json!({"completionMode": "Indexed", "completions": 100001, "maxFailedIndexes": 100001, "backoffLimitPerIndex": 1, "template": tmpl("Never")});
        assert_eq!(
            errors(s),
            vec![
                e("spec.maxFailedIndexes", FieldValueInvalid),
                e("spec.maxFailedIndexes", FieldValueInvalid)
            ]
        );
    }

    #[test]
    fn unknown_completion_mode() {
        let s = json!({"completions": 1, "completionMode": "Sometimes", "template": tmpl("Never")});
        assert_eq!(
            errors(s),
            vec![e("spec.completionMode", FieldValueNotSupported)]
        );
    }

    #[test]
    fn too_many_rules_still_checks_each() {
        let mut rules: Vec<_> = (0..21)
            .map(|_| json!({"action": "Count", "onExitCodes": {"operator": "In", "values": [1]}}))
            .collect();
        rules[3] = json!({"action": "Count"});
        assert_eq!(
            errors(pfp(json!(rules))),
            vec![
                e("spec.podFailurePolicy.rules", FieldValueTooMany),
                e("spec.podFailurePolicy.rules[3]", FieldValueInvalid)
            ]
        );
    }

    #[test]
    fn actions() {
        let s = pfp(json!([
            {"action": "", "onExitCodes": {"operator": "In", "values": [1]}},
            {"action": "Explode", "onExitCodes": {"operator": "In", "values": [1]}},
            {"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [1]}}
        ]));
        let got = errors(s);
        assert_eq!(
            got,
            vec![
                e("spec.podFailurePolicy.rules[0].action", FieldValueRequired),
                e(
                    "spec.podFailurePolicy.rules[1].action",
                    FieldValueNotSupported
                ),
                e("spec.podFailurePolicy.rules[2].action", FieldValueInvalid),
            ]
        );
        let mut out = Findings::default();
        validate_job(
            &job(pfp(
                json!([{"action": "", "onExitCodes": {"operator": "In", "values": [1]}}]),
            )),
            &Ctx::default(),
            &mut out,
        );
        assert_eq!(
            out.errors[0].message,
            "spec.podFailurePolicy.rules[0].action: Required value: valid values: [\"Count\" \"FailIndex\" \"FailJob\" \"Ignore\"]"
        );
    }

    #[test]
    fn failindex_ok_with_backoff_limit_per_index() {
        let s = json!({"completionMode": "Indexed", "completions": 2, "backoffLimitPerIndex": 1, "template": tmpl("Never"),
            "podFailurePolicy": {"rules": [{"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [42]}}]}});
        assert_eq!(errors(s), vec![]);
    }

    #[test]
    fn both_or_neither_requirement() {
        let s = pfp(json!([
            {"action": "Count", "onExitCodes": {"operator": "In", "values": [1]}, "onPodConditions": [{"type": "A", "status": "True"}]},
            {"action": "Count", "onPodConditions": []}
        ]));
        let mut out = Findings::default();
        validate_job(
            &job(s),
            &Ctx {
                skip_defaulting: true,
                ..Ctx::default()
            },
            &mut out,
        );
        let got: Vec<_> = out.errors.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            got,
            vec![
                "spec.podFailurePolicy.rules[0]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported",
                "spec.podFailurePolicy.rules[1]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
            ]
        );
    }

    #[test]
    fn exit_code_checks() {
        let s = pfp(json!([
            {"action": "Count", "onExitCodes": {"operator": "", "values": [1]}},
            {"action": "Count", "onExitCodes": {"operator": "Within", "values": [1]}},
            {"action": "Count", "onExitCodes": {"containerName": "ghost", "operator": "In", "values": []}},
            {"action": "Count", "onExitCodes": {"operator": "In", "values": [1, 0, 2]}},
            {"action": "Count", "onExitCodes": {"operator": "In", "values": [12, 13, 13, 13]}},
            {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [-1073741676, -1073741510, 0]}}
        ]));
        assert_eq!(
            errors(s),
            vec![
                e(
                    "spec.podFailurePolicy.rules[0].onExitCodes.operator",
                    FieldValueRequired
                ),
                e(
                    "spec.podFailurePolicy.rules[1].onExitCodes.operator",
                    FieldValueNotSupported
                ),
                e(
                    "spec.podFailurePolicy.rules[2].onExitCodes.containerName",
                    FieldValueInvalid
                ),
                e(
                    "spec.podFailurePolicy.rules[2].onExitCodes.values",
                    FieldValueInvalid
                ),
                e(
                    "spec.podFailurePolicy.rules[3].onExitCodes.values[1]",
                    FieldValueInvalid
                ),
                e(
                    "spec.podFailurePolicy.rules[3].onExitCodes.values",
                    FieldValueInvalid
                ),
                e(
                    "spec.podFailurePolicy.rules[4].onExitCodes.values[2]",
                    FieldValueDuplicate
                ),
                e(
                    "spec.podFailurePolicy.rules[4].onExitCodes.values[3]",
                    FieldValueDuplicate
                ),
            ]
        );
    }

    #[test]
    fn too_many_values_and_in_zero() {
        let values: Vec<i32> = (0..256).collect();
        let s =
            pfp(json!([{"action": "Count", "onExitCodes": {"operator": "In", "values": values}}]));
        assert_eq!(
            errors(s),
            vec![
                e(
                    "spec.podFailurePolicy.rules[0].onExitCodes.values",
                    FieldValueTooMany
                ),
                e(
                    "spec.podFailurePolicy.rules[0].onExitCodes.values[0]",
                    FieldValueInvalid
                ),
            ]
        );
    }

    #[test]
    fn pod_condition_checks() {
        let many: Vec<_> = (0..21)
            .map(|i| json!({"type": format!("T{i}"), "status": "True"}))
            .collect();
        let s = pfp(json!([
            {"action": "Count", "onPodConditions": many},
            {"action": "Count", "onPodConditions": [{"type": "", "status": "True"}, {"type": "ok", "status": ""}, {"type": "ok", "status": "Maybe"}]},
            {"action": "Count", "onPodConditions": [{"type": "example.com/Custom", "status": "False"}, {"type": "Bad_", "status": "True"}, {"type": "a/b/c", "status": "True"}]}
        ]));
        assert_eq!(
            errors(s),
            vec![
                e(
                    "spec.podFailurePolicy.rules[0].onPodConditions",
                    FieldValueTooMany
                ),
                e(
                    "spec.podFailurePolicy.rules[1].onPodConditions[0].type",
                    FieldValueInvalid
                ),
                e(
                    "spec.podFailurePolicy.rules[1].onPodConditions[0].type",
                    FieldValueInvalid
                ),
                e(
                    "spec.podFailurePolicy.rules[1].onPodConditions[1].status",
                    FieldValueRequired
                ),
                e(
                    "spec.podFailurePolicy.rules[1].onPodConditions[2].status",
                    FieldValueNotSupported
                ),
                e(
                    "spec.podFailurePolicy.rules[2].onPodConditions[1].type",
                    FieldValueInvalid
                ),
                e(
                    "spec.podFailurePolicy.rules[2].onPodConditions[2].type",
                    FieldValueInvalid
                ),
            ]
        );
    }

    #[test]
    fn qualified_names() {
        for minor in [31, 37] {
            assert!(qualified_name("DisruptionTarget", minor).is_empty());
            assert!(qualified_name("example.com/My.Cond-1", minor).is_empty());
            assert_eq!(qualified_name("", minor).len(), 2);
            assert_eq!(qualified_name("/x", minor).len(), 1);
            assert_eq!(qualified_name("Example.com/x", minor).len(), 1);
            assert_eq!(qualified_name(&"a".repeat(64), minor).len(), 1);
            assert_eq!(qualified_name("-a", minor).len(), 1);
        }
        // The condition type is checked by IsQualifiedName, which from 1.35 is content's
        // IsLabelKey: its words for a length and for too many slashes changed.
        assert_eq!(
            qualified_name(&"a".repeat(64), 34),
            ["name part must be no more than 63 characters"]
        );
        assert_eq!(
            qualified_name(&"a".repeat(64), 35),
            ["name part must be no more than 63 bytes"]
        );
        assert!(qualified_name("a/b/c", 34)[0].starts_with("a qualified name "));
        assert!(qualified_name("a/b/c", 37)[0].starts_with("a valid label key "));
    }

    #[test]
    fn defaulting_sets_condition_status_true() {
        let s =
            pfp(json!([{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]));
        assert_eq!(
            errors(s.clone()),
            vec![e(
                "spec.podFailurePolicy.rules[0].onPodConditions[0].status",
                FieldValueRequired
            )]
        );
        let mut j = job(s);
        default_job_spec(&mut j.spec);
        let mut out = Findings::default();
        validate_job(&j, &Ctx::default(), &mut out);
        assert!(out.errors.is_empty(), "{:?}", out.errors);
    }

    #[test]
    fn defaults() {
        let mut s = JobSpec::default();
        default_job_spec(&mut s);
        assert_eq!(
            (s.completions, s.parallelism, s.backoff_limit),
            (Some(1), Some(1), Some(6))
        );
        assert_eq!(s.completion_mode.as_deref(), Some("NonIndexed"));
        assert_eq!(
            s.pod_replacement_policy.as_deref(),
            Some("TerminatingOrFailed")
        );
        let mut s = job(
            json!({"completions": 4, "backoffLimitPerIndex": 1, "podFailurePolicy": {"rules": []}}),
        )
        .spec;
        default_job_spec(&mut s);
        assert_eq!(
            (s.completions, s.parallelism, s.backoff_limit),
            (Some(4), Some(1), Some(i32::MAX))
        );
        assert_eq!(s.pod_replacement_policy.as_deref(), Some("Failed"));
        let mut s = JobSpec::default();
        let mut g = FeatureGates::default();
        g.set("JobPodReplacementPolicy", false);
        default_job_spec_with_gates(&mut s, &g);
        assert_eq!(s.pod_replacement_policy, None);
    }

    #[test]
    fn pod_replacement_policy() {
        let mut s = pfp(json!([]));
        s["podReplacementPolicy"] = json!("TerminatingOrFailed");
        assert_eq!(
            errors(s.clone()),
            vec![e("spec.podReplacementPolicy", FieldValueNotSupported)]
        );
        s["podReplacementPolicy"] = json!("Failed");
        assert_eq!(errors(s), vec![]);
        let s = json!({"completions": 1, "podReplacementPolicy": "Sometimes", "template": tmpl("Never")});
        assert_eq!(
            errors(s),
            vec![e("spec.podReplacementPolicy", FieldValueNotSupported)]
        );
    }

    #[test]
    fn restart_policy_else_if_chain() {
        for (rp, t) in [
            ("Always", FieldValueRequired),
            ("", FieldValueRequired),
            ("Sometimes", FieldValueNotSupported),
        ] {
            let mut s = pfp(json!([]));
            s["template"] = tmpl(rp);
            // The Pod template's own validation reports "" and unknown values too (upstream
            // lists both); conformance compares errors as a set.
            let mut got = errors(s);
            got.dedup();
            assert_eq!(got, vec![e("spec.template.spec.restartPolicy", t)], "{rp}");
        }
        let mut s = pfp(json!([]));
        s["template"] = tmpl("OnFailure");
        assert_eq!(
            errors(s),
            vec![e("spec.template.spec.restartPolicy", FieldValueInvalid)]
        );
        let s = json!({"completions": 1, "template": tmpl("OnFailure")});
        assert_eq!(errors(s), vec![]);
    }

    #[test]
    fn success_policy_needs_indexed() {
        let s = json!({"completions": 3, "successPolicy": {"rules": [{"succeededCount": 1}]}, "template": tmpl("Never")});
        assert_eq!(errors(s), vec![e("spec.successPolicy", FieldValueInvalid)]);
        let s = json!({"completions": 3, "completionMode": "Indexed", "successPolicy": {"rules": [{"succeededCount": 4}, {}]}, "template": tmpl("Never")});
        assert_eq!(
            errors(s),
            vec![
                e(
                    "spec.successPolicy.rules[0].succeededCount",
                    FieldValueInvalid
                ),
                e("spec.successPolicy.rules[1]", FieldValueRequired)
            ]
        );
    }

    fn sp_errors(completions: i32, rules: serde_json::Value) -> Vec<(String, String)> {
        let s = json!({"completions": completions, "parallelism": 1, "completionMode": "Indexed",
            "successPolicy": {"rules": rules}, "template": tmpl("Never")});
        let mut out = Findings::default();
        validate_job(&job(s), &Ctx::default(), &mut out);
        out.errors
            .iter()
            .map(|d| (d.field.clone(), d.message.clone()))
            .collect()
    }

    /// Messages from pkg/apis/batch/validation/validation.go (parseIndexInterval,
    /// validateIndexesFormat, validateSuccessPolicyRule) at v1.37.2.
    #[test]
    fn succeeded_indexes_parse_errors() {
        let one = |idx: &str, c: i32| sp_errors(c, json!([{"succeededIndexes": idx}]));
        let f = "spec.successPolicy.rules[0].succeededIndexes";
        let cases: [(&str, i32, &str); 12] = [
            ("1-", 5, "cannot convert string to integer for index: \"\""),
            ("-1", 5, "cannot convert string to integer for index: \"\""),
            ("3-1", 5, "non-increasing order, previous: 3, current: 1"),
            ("1-1", 5, "non-increasing order, previous: 1, current: 1"),
            ("0,0", 5, "non-increasing order, previous: 0, current: 0"),
            ("0-2,2", 5, "non-increasing order, previous: 2, current: 2"),
            (
                "1,,2",
                5,
                "cannot convert string to integer for index: \"\"",
            ),
            (
                " 1",
                5,
                "cannot convert string to integer for index: \" 1\"",
            ),
            (
                "1-2-3",
                5,
                "the fragment \"1-2-3\" violates the requirement that an index interval can have at most two parts separated by '-'",
            ),
            ("5", 5, "too large index: \"5\""),
            (
                "99999999999999999999",
                5,
                "cannot convert string to integer for index: \"99999999999999999999\"",
            ),
            ("7-2", 5, "too large index: \"7\""),
        ];
        for (idx, c, msg) in cases {
            let e = one(idx, c);
            assert_eq!(e.len(), 1, "{idx}: {e:?}");
            assert_eq!(e[0].0, f, "{idx}");
            assert!(
                e[0].1
                    .ends_with(&format!("error parsing succeededIndexes: {msg}")),
                "{idx}: {}",
                e[0].1
            );
        }
        // Accepted: Atoi takes a leading '+' and leading zeros; the empty list is valid.
        for idx in ["+1", "0,2-4", "004", "", "0-4"] {
            assert_eq!(one(idx, 5), vec![], "{idx}");
        }
        assert_eq!(count_indexes("0,2-4,6", 7), Ok(5));
        assert_eq!(count_indexes("", 0), Ok(0));
        assert_eq!(
            count_indexes("0", 0),
            Err("too large index: \"0\"".to_owned())
        );
    }

    #[test]
    fn succeeded_count_bounds() {
        let c = "spec.successPolicy.rules[0].succeededCount";
        let e = sp_errors(
            5,
            json!([{"succeededIndexes": "0,2-3", "succeededCount": 4}]),
        );
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0, c);
        assert_eq!(
            e[0].1,
            "spec.successPolicy.rules[0].succeededCount: Invalid value: 4: must be less than or equal to 3 (the number of indexes in the specified succeededIndexes field)"
        );
        assert_eq!(
            sp_errors(
                5,
                json!([{"succeededIndexes": "0,2-3", "succeededCount": 3}])
            ),
            vec![]
        );
        // Beyond completions and beyond the listed indexes: two errors.
        let e = sp_errors(5, json!([{"succeededIndexes": "0", "succeededCount": 6}]));
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(
            e[0].1
                .ends_with("must be less than or equal to 5 (the number of specified completions)")
        );
        assert!(e[1].1.ends_with("must be less than or equal to 1 (the number of indexes in the specified succeededIndexes field)"));
        // A list that does not parse counts as no index at all.
        let e = sp_errors(5, json!([{"succeededIndexes": "x", "succeededCount": 1}]));
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(e[1].1.ends_with("must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)"));
        let e = sp_errors(5, json!([{"succeededCount": -1}]));
        assert_eq!(
            e,
            vec![(
                c.to_owned(),
                format!("{c}: Invalid value: -1: must be greater than or equal to 0")
            )]
        );
        assert_eq!(sp_errors(5, json!([{"succeededCount": 0}])), vec![]);
    }

    #[test]
    fn success_policy_rules_count_length_and_shape() {
        let r = json!({"succeededCount": 1});
        let e = sp_errors(5, json!((0..21).map(|_| r.clone()).collect::<Vec<_>>()));
        assert_eq!(
            e,
            vec![(
                "spec.successPolicy.rules".to_owned(),
                "spec.successPolicy.rules: Too many: 21: must have at most 20 items".to_owned()
            )]
        );
        assert!(sp_errors(5, json!((0..20).map(|_| r.clone()).collect::<Vec<_>>())).is_empty());
        let e = sp_errors(5, json!([]));
        assert_eq!(e[0].0, "spec.successPolicy.rules");
        assert!(
            e[0].1
                .contains("Required value: at least one rules must be specified")
        );
        let long = "1,".repeat(32 * 1024 + 1);
        let e = sp_errors(5, json!([{"succeededIndexes": long}]));
        assert!(e.iter().any(|(f, m)| f.ends_with("succeededIndexes")
            && m.ends_with("succeededIndexes: Too long: may not be more than 65536 bytes")));
    }

    #[test]
    fn success_policy_on_non_indexed_prints_the_internal_value() {
        let s = json!({"completions": 3, "successPolicy": {"rules": [{"succeededIndexes": "0", "succeededCount": 1}]}, "template": tmpl("Never")});
        let mut out = Findings::default();
        validate_job(&job(s), &Ctx::default(), &mut out);
        assert_eq!(
            out.errors[0].message,
            "spec.successPolicy: Invalid value: {\"Rules\":[{\"SucceededIndexes\":\"0\",\"SucceededCount\":1}]}: requires indexed completion mode"
        );
    }

    /// Upstream panics (nil completions); the request is refused for completions alone here.
    #[test]
    fn success_policy_without_completions() {
        let s = json!({"parallelism": 2, "completionMode": "Indexed",
            "successPolicy": {"rules": [{"succeededIndexes": "0-9", "succeededCount": 3}]}, "template": tmpl("Never")});
        assert_eq!(errors(s), vec![e("spec.completions", FieldValueRequired)]);
    }

    #[test]
    fn success_policy_gate_off_is_dropped_with_a_warning() {
        let (gates, _) = FeatureGates::resolve(
            Some("1.32"),
            Some(
                &[("JobSuccessPolicy".to_owned(), false)]
                    .into_iter()
                    .collect(),
            ),
        )
        .unwrap();
        let ctx = Ctx {
            gates,
            ..Default::default()
        };
        let s =
            json!({"completions": 3, "successPolicy": {"rules": []}, "template": tmpl("Never")});
        let mut out = Findings::default();
        validate_job(&job(s), &ctx, &mut out);
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        let mut off = ctx.clone();
        off.gates.set("JobManagedBy", false);
        let mut out2 = Findings::default();
        validate_job(
            &job(json!({"managedBy": "x/y", "template": tmpl("Never")})),
            &off,
            &mut out2,
        );
        assert!(out2.warnings.iter().any(|w| w.field == "spec.managedBy"));
        assert!(out.warnings.iter().any(|w| w.field == "spec.successPolicy"
            && w.code.as_deref() == Some("job-gate-dropped-fields")));
    }

    #[test]
    fn managed_by_is_a_domain_prefixed_path_of_at_most_63_bytes() {
        let at = |minor: u32, m: &str| {
            let ctx = Ctx {
                gates: FeatureGates::for_version(crate::features::KubeVersion { minor }),
                ..Ctx::default()
            };
            let mut out = Findings::default();
            validate_job(
                &job(json!({"managedBy": m, "template": tmpl("Never")})),
                &ctx,
                &mut out,
            );
            out.errors
                .into_iter()
                .filter(|d| d.field == "spec.managedBy")
                .map(|d| d.message)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            at(33, "kueue"),
            vec![
                "spec.managedBy: Invalid value: \"kueue\": must be a domain-prefixed path (such as \"acme.io/foo\")"
            ]
        );
        assert!(at(37, "kueue.x-k8s.io/multikueue").is_empty());
        assert!(at(33, "kubernetes.io/job-controller").is_empty());
        assert_eq!(at(37, "").len(), 1);
        assert_eq!(at(37, "Example.com/x").len(), 1);
        assert_eq!(
            at(37, "example.com/a b"),
            vec![
                "spec.managedBy: Invalid value: \"a b\": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"
            ]
        );
        let long = format!("example.com/{}", "a".repeat(52));
        assert_eq!(
            at(37, &long),
            vec!["spec.managedBy: Too long: may not be more than 63 bytes"]
        );
        assert!(at(37, &long[..63]).is_empty());
        // 1.31 (JobManagedBy alpha, off: the field is dropped first) words TooLongMaxLength.
        assert!(at(31, "kueue").is_empty());
        let ctx = Ctx {
            gates: {
                let mut g = FeatureGates::for_version(crate::features::KubeVersion { minor: 31 });
                g.set(GATE_MANAGED_BY, true);
                g
            },
            ..Ctx::default()
        };
        let mut out = Findings::default();
        validate_job(
            &job(json!({"managedBy": long, "template": tmpl("Never")})),
            &ctx,
            &mut out,
        );
        assert_eq!(
            out.errors
                .iter()
                .map(|d| d.message.as_str())
                .collect::<Vec<_>>(),
            vec!["spec.managedBy: Too long: may not be longer than 63"]
        );
    }

    #[test]
    fn template_ephemeral_containers_forbidden() {
        let s = json!({"template": {"spec": {"restartPolicy": "Never", "dnsPolicy": "ClusterFirst", "terminationGracePeriodSeconds": 30, "containers": [{"name": "c", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}],
            "ephemeralContainers": [{"name": "d"}]}}});
        assert_eq!(
            errors(s),
            vec![e(
                "spec.template.spec.ephemeralContainers",
                FieldValueForbidden
            )]
        );
    }

    #[test]
    fn indexed_hostname_check() {
        let mut j =
            job(json!({"completionMode": "Indexed", "completions": 2, "template": tmpl("Never")}));
        j.metadata.name = Some("Bad_Name".to_owned());
        let mut out = Findings::default();
        validate_job(&j, &Ctx::default(), &mut out);
        assert_eq!(out.errors.len(), 1);
        assert_eq!(out.errors[0].field, "metadata.name");
    }

    #[test]
    fn gate_off_drops_fields_before_validation() {
        let s = json!({"completionMode": "Indexed", "completions": 2, "backoffLimitPerIndex": 1, "template": tmpl("Never"),
            "podReplacementPolicy": "TerminatingOrFailed",
            "podFailurePolicy": {"rules": [{"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [42]}}]}});
        let mut gates = FeatureGates::default();
        assert_eq!(
            errors_with(
                s.clone(),
                &Ctx {
                    gates: gates.clone(),
                    skip_defaulting: false,
                    future_rules: false,
                    always_pod: false,
                    field_validation: Default::default(),
                }
            ),
            vec![e("spec.podReplacementPolicy", FieldValueNotSupported)]
        );
        gates.set("JobBackoffLimitPerIndex", false);
        gates.set("JobPodReplacementPolicy", false);
        let mut out = Findings::default();
        validate_job(
            &job(s),
            &Ctx {
                gates,
                skip_defaulting: false,
                future_rules: false,
                always_pod: false,
                field_validation: Default::default(),
            },
            &mut out,
        );
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert!(
            out.warnings
                .iter()
                .any(|w| w.code.as_deref() == Some("job-gate-dropped-fields"))
        );
    }

    #[test]
    fn nested_path_for_templates() {
        let spec: JobSpec = serde_json::from_value(json!({"template": tmpl("Always")})).unwrap();
        let mut out = Findings::default();
        let p = FieldPath::new("spec")
            .child("replicatedJobs")
            .index(0)
            .child("template")
            .child("spec");
        validate_job_spec(&spec, &p, &Ctx::default(), &mut out);
        assert_eq!(
            out.errors[0].field,
            "spec.replicatedJobs[0].template.spec.template.spec.restartPolicy"
        );
    }

    #[test]
    fn realworld_jobs_have_no_errors() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/realworld");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !(name.starts_with("k8s-website__job-") || name == "kueue__sample-job.yaml") {
                continue;
            }
            seen += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            let out = crate::validate::run(crate::validate::ValidateInput {
                source: Some(text),
                ..Default::default()
            })
            .unwrap();
            assert!(out.valid, "{name}: {:?}", out.errors);
        }
        assert!(seen >= 9, "found only {seen} realworld Job files");
    }
}
