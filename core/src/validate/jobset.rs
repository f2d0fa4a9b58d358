//! JobSet admission (kubernetes-sigs/jobset v1alpha2), restart and failure scope:
//! the CRD's structural defaults, the mutating webhook's `Default`, the CRD schema checks of the
//! failure policy, the validating webhook's `ValidateCreate` checks that concern restarts, and the
//! Job templates inside `replicatedJobs` (the API server validates those Jobs when the JobSet
//! controller creates them). restartkit's own lints come last, as warnings.
//!
//! Order on the API server: CRD defaults (decoding) → mutating webhook → CRD schema validation →
//! validating webhook. A schema error ends the request before the validating webhook runs.

use super::Ctx;
use crate::api::{JobSet, JobSetFailurePolicyRule, JobSetSpec, JobSpec, ReplicatedJob};
use crate::diag::{Diagnostic, FieldPath, Findings, Origin};
use serde_json::{Value, json};

/// `failurePolicy.rules[].action` values (CRD enum).
pub const ACTIONS: [&str; 5] = [
    "FailJobSet",
    "RestartJobSet",
    "RestartJobSetAndIgnoreMaxRestarts",
    "RestartJob",
    "RestartJobAndIgnoreMaxRestarts",
];
/// `failurePolicy.restartStrategy` values (CRD enum).
pub const RESTART_STRATEGIES: [&str; 3] = ["Recreate", "BlockingRecreate", "InPlaceRestart"];
/// The Job failure reasons the webhook accepts in `onJobFailureReasons` (batch/v1 JobReason*).
pub const JOB_FAILURE_REASONS: [&str; 5] = [
    "BackoffLimitExceeded",
    "DeadlineExceeded",
    "FailedIndexes",
    "MaxFailedIndexesExceeded",
    "PodFailurePolicy",
];
/// Replicas limit for RestartJob actions (the MaxItems of `jobRestarts`).
pub const MAX_REPLICAS_RESTART_JOB: i32 = 1024;
const MIN_RULE_NAME_LEN: usize = 1;
const MAX_RULE_NAME_LEN: usize = 128;

/// Lint codes (stable).
pub mod lint {
    pub const RULE_SHADOWED: &str = "jobset-rule-shadowed";
    pub const REASON_UNREACHABLE: &str = "jobset-reason-unreachable";
    pub const MAX_RESTARTS_ZERO: &str = "jobset-restart-rule-max-restarts-zero";
    pub const INVALID_PATTERN: &str = "jobset-invalid-message-pattern";
    /// A pattern Go accepts that regex-lite cannot build (past its size limit).
    pub const PATTERN_TOO_LARGE: &str = "jobset-message-pattern-too-large";
    pub const UNBOUNDED_RESTARTS: &str = "jobset-unbounded-restarts";
}

fn is_restart_job(action: &str) -> bool {
    action == "RestartJob" || action == "RestartJobAndIgnoreMaxRestarts"
}

/// The CRD's structural defaults (applied when the API server decodes the object) and the
/// mutating webhook's `Default()`, as far as restart and failure behaviour depends on them.
pub fn default_jobset_spec(spec: &mut JobSetSpec) {
    // CRD defaults: replicas 1, groupName "default", failurePolicy.restartStrategy Recreate.
    for rj in &mut spec.replicated_jobs {
        if rj.replicas.is_none() {
            rj.replicas = Some(1);
        }
        if rj.group_name.is_none() {
            rj.group_name = Some("default".to_owned());
        }
    }
    if let Some(fp) = spec
        .failure_policy
        .as_mut()
        .filter(|f| f.restart_strategy.is_none())
    {
        fp.restart_strategy = Some("Recreate".to_owned());
    }
    // Webhook Default().
    if spec.success_policy.is_none() {
        spec.success_policy = Some(json!({"operator": "All"}));
    }
    if spec.startup_policy.is_none() {
        spec.startup_policy = Some(json!({"startupPolicyOrder": "AnyOrder"}));
    }
    for rj in &mut spec.replicated_jobs {
        let js = &mut rj.template.spec;
        if js.completion_mode.is_none() {
            js.completion_mode = Some("Indexed".to_owned());
        }
        if js
            .template
            .spec
            .restart_policy
            .as_deref()
            .unwrap_or("")
            .is_empty()
        {
            js.template.spec.restart_policy = Some("OnFailure".to_owned());
        }
    }
    let net = spec.network.get_or_insert_with(|| json!({}));
    if let Some(m) = net.as_object_mut() {
        for k in ["enableDNSHostnames", "publishNotReadyAddresses"] {
            if m.get(k).is_none_or(Value::is_null) {
                m.insert(k.to_owned(), Value::Bool(true));
            }
        }
    }
    if let Some(fp) = spec.failure_policy.as_mut() {
        for (i, rule) in fp.rules.iter_mut().enumerate() {
            if rule.name.is_empty() {
                rule.name = format!("failurePolicyRule{i}");
            }
        }
    }
}

fn plain(path: &FieldPath, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::plain(Origin::JobsetWebhook, path, msg)
}

/// `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`
pub fn rule_name_matches(name: &str) -> bool {
    let b = name.as_bytes();
    let Some((first, rest)) = b.split_first() else {
        return false;
    };
    if !first.is_ascii_alphabetic() {
        return false;
    }
    let Some((last, middle)) = rest.split_last() else {
        return true;
    };
    (last.is_ascii_alphanumeric() || *last == b'_')
        && middle
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b',' | b':'))
}

/// Validates a (defaulted, unless `ctx.skip_defaulting`) JobSet spec at `path`.
pub fn validate_jobset_spec(spec: &JobSetSpec, path: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let schema_errors = validate_schema(spec, path, out);
    if schema_errors == 0 {
        validate_webhook(spec, path, ctx, out);
    }
    validate_job_templates(spec, path, ctx, out);
    lints(spec, path, out);
}

pub fn validate_jobset(js: &JobSet, ctx: &Ctx, out: &mut Findings) {
    validate_jobset_spec(&js.spec, &FieldPath::new("spec"), ctx, out);
}

/// The CRD schema's checks on the fields restartkit models; returns how many errors it added.
fn validate_schema(spec: &JobSetSpec, path: &FieldPath, out: &mut Findings) -> usize {
    let before = out.errors.len();
    for (i, rj) in spec.replicated_jobs.iter().enumerate() {
        if let Some(r) = rj.replicas.filter(|r| *r < 0) {
            let p = path.child("replicatedJobs").index(i).child("replicas");
            let detail = format!(
                "{} in body should be greater than or equal to 0",
                p.as_str()
            );
            out.push(Diagnostic::invalid(&p, r, detail));
        }
    }
    if let Some(fp) = &spec.failure_policy {
        let fpp = path.child("failurePolicy");
        if let Some(s) = fp
            .restart_strategy
            .as_deref()
            .filter(|s| !RESTART_STRATEGIES.contains(s))
        {
            out.push(Diagnostic::not_supported(
                &fpp.child("restartStrategy"),
                s,
                &RESTART_STRATEGIES,
            ));
        }
        for (i, rule) in fp.rules.iter().enumerate() {
            let ap = fpp.child("rules").index(i).child("action");
            if rule.action.is_empty() {
                out.push(Diagnostic::required(&ap, ""));
            } else if !ACTIONS.contains(&rule.action.as_str()) {
                out.push(Diagnostic::not_supported(
                    &ap,
                    rule.action.as_str(),
                    &ACTIONS,
                ));
            }
        }
    }
    out.errors.len() - before
}

/// `ValidateCreate`, the checks that concern restarts and failures, in upstream order.
fn validate_webhook(spec: &JobSetSpec, path: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let fp = spec.failure_policy.as_ref();
    let in_place = fp.and_then(|f| f.restart_strategy.as_deref()) == Some("InPlaceRestart");
    let fpp = path.child("failurePolicy");
    if !ctx.gates.enabled("InPlaceRestart") && in_place {
        out.push(plain(
            &fpp.child("restartStrategy"),
            "InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled",
        ));
    }
    for (i, rj) in spec.replicated_jobs.iter().enumerate() {
        let rp = path.child("replicatedJobs").index(i);
        let replicas = rj.replicas.unwrap_or(0);
        let parallelism = rj.template.spec.parallelism.unwrap_or(1);
        if i64::from(parallelism) * i64::from(replicas) > i64::from(i32::MAX) {
            out.push(plain(
                &rp.child("replicas"),
                format!(
                    "the product of replicas and parallelism must not exceed {} for replicatedJob '{}'",
                    i32::MAX,
                    rj.name
                ),
            ));
        }
        if ctx.gates.enabled("InPlaceRestart") && in_place {
            in_place_checks(rj, &rp.child("template").child("spec"), out);
        }
    }
    if fp.is_some() {
        validate_failure_policy(spec, path, ctx, out);
    }
}

fn in_place_checks(rj: &ReplicatedJob, sp: &FieldPath, out: &mut Findings) {
    let js = &rj.template.spec;
    let opt = |v: Option<i32>| v.map_or(Value::Null, Value::from);
    if js.backoff_limit != Some(i32::MAX) {
        out.push(
            Diagnostic::invalid(
                &sp.child("backoffLimit"),
                opt(js.backoff_limit),
                format!("replicatedJob {}: must be set to {} (MaxInt32) when in-place restart is enabled", rj.name, i32::MAX),
            )
            .with_origin(Origin::JobsetWebhook),
        );
    }
    if js.pod_replacement_policy.as_deref() != Some("Failed") {
        let v = js
            .pod_replacement_policy
            .clone()
            .map_or(Value::Null, Value::from);
        out.push(
            Diagnostic::invalid(
                &sp.child("podReplacementPolicy"),
                v,
                format!(
                    "replicatedJob {}: must be set to Failed when in-place restart is enabled",
                    rj.name
                ),
            )
            .with_origin(Origin::JobsetWebhook),
        );
    }
    let equal = matches!((js.completions, js.parallelism), (Some(c), Some(p)) if c == p);
    if !equal {
        out.push(
            Diagnostic::invalid(
                &sp.child("completions"),
                opt(js.completions),
                format!(
                    "replicatedJob {}: completions and parallelism must be set and equal to each other when in-place restart is enabled",
                    rj.name
                ),
            )
            .with_origin(Origin::JobsetWebhook),
        );
    }
}

/// `validateFailurePolicy`.
fn validate_failure_policy(spec: &JobSetSpec, path: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let Some(fp) = &spec.failure_policy else {
        return;
    };
    let rules_path = path.child("failurePolicy").child("rules");
    if let Some(i) = fp.rules.iter().position(|r| is_restart_job(&r.action)) {
        if !ctx.gates.enabled("RestartJob") {
            out.push(plain(
                &rules_path.index(i).child("action"),
                "RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob feature gate is disabled",
            ));
            return;
        }
        if let Some(k) = spec
            .replicated_jobs
            .iter()
            .position(|rj| rj.replicas.unwrap_or(0) > MAX_REPLICAS_RESTART_JOB)
        {
            out.push(plain(
                &path.child("replicatedJobs").index(k).child("replicas"),
                format!(
                    "JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts action and a replicated job with replicas > {MAX_REPLICAS_RESTART_JOB}"
                ),
            ));
        }
    }
    let rj_names: Vec<&str> = spec
        .replicated_jobs
        .iter()
        .map(|rj| rj.name.as_str())
        .collect();
    // Names in order of first appearance, with the indices that carry them.
    let mut by_name: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, rule) in fp.rules.iter().enumerate() {
        let rp = rules_path.index(i);
        let len = rule.name.len();
        if !(MIN_RULE_NAME_LEN..=MAX_RULE_NAME_LEN).contains(&len) {
            out.push(plain(
                &rp.child("name"),
                format!(
                    "invalid failure policy rule name of length {len}, the rule name must be at least {MIN_RULE_NAME_LEN} characters long and at most {MAX_RULE_NAME_LEN} characters long"
                ),
            ));
        }
        match by_name.iter_mut().find(|(n, _)| *n == rule.name) {
            Some((_, v)) => v.push(i),
            None => by_name.push((rule.name.as_str(), vec![i])),
        }
        if !rule_name_matches(&rule.name) {
            out.push(plain(
                &rp.child("name"),
                format!(
                    "invalid failure policy rule name '{}', a failure policy rule name must start with an alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
                    rule.name
                ),
            ));
        }
        for (j, t) in rule.target_replicated_jobs.iter().enumerate() {
            if !rj_names.contains(&t.as_str()) {
                out.push(plain(
                    &rp.child("targetReplicatedJobs").index(j),
                    format!("invalid replicatedJob name '{t}' in failure policy does not appear in .spec.ReplicatedJobs"),
                ));
            }
        }
        for (j, r) in rule.on_job_failure_reasons.iter().enumerate() {
            if !JOB_FAILURE_REASONS.contains(&r.as_str()) {
                out.push(plain(
                    &rp.child("onJobFailureReasons").index(j),
                    format!("invalid job failure reason '{r}' in failure policy is not a recognized job failure reason"),
                ));
            }
        }
    }
    // Upstream walks a Go map here, so with several duplicated names its order varies.
    for (name, idx) in &by_name {
        if idx.len() > 1 {
            let list: Vec<String> = idx.iter().map(ToString::to_string).collect();
            let at = idx.get(1).copied().unwrap_or(0);
            out.push(plain(
                &rules_path.index(at).child("name"),
                format!("rule names are not unique, rules with indices [{}] all have the same name '{name}'", list.join(" ")),
            ));
        }
    }
}

/// The Job templates, as the API server validates the Jobs the controller creates from them
/// (SetDefaults_Job first, unless the request skips defaulting).
fn validate_job_templates(spec: &JobSetSpec, path: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    for (i, rj) in spec.replicated_jobs.iter().enumerate() {
        let p = path
            .child("replicatedJobs")
            .index(i)
            .child("template")
            .child("spec");
        // volumeClaimPolicies: the JobSet controller adds a claim-backed volume per template to
        // the Pods it creates (every replicated Job is assumed targeted).
        let claims = claim_volumes(spec);
        if ctx.skip_defaulting && claims.is_empty() {
            crate::validate::job::validate_job_spec(&rj.template.spec, &p, ctx, out);
        } else {
            let mut js = rj.template.spec.clone();
            add_claim_volumes(&mut js, &claims);
            if !ctx.skip_defaulting {
                crate::validate::job::default_job_spec(&mut js);
            }
            crate::validate::job::validate_job_spec(&js, &p, ctx, out);
        }
    }
}

/// The names of `volumeClaimPolicies`' claim templates.
fn claim_volumes(spec: &JobSetSpec) -> Vec<String> {
    let Some(ps) = spec.other.get("volumeClaimPolicies").and_then(serde_json::Value::as_array) else {
        return Vec::new();
    };
    ps.iter()
        .filter_map(|p| p.get("templates").and_then(serde_json::Value::as_array))
        .flatten()
        .filter_map(|t| t.get("metadata")?.get("name")?.as_str().map(str::to_owned))
        .collect()
}

fn add_claim_volumes(js: &mut crate::api::JobSpec, claims: &[String]) {
    if claims.is_empty() {
        return;
    }
    let other = &mut js.template.spec.other;
    let vols = other
        .entry("volumes")
        .or_insert_with(|| serde_json::Value::Array(Vec::new()));
    if let Some(list) = vols.as_array_mut() {
        for c in claims {
            if !list.iter().any(|v| v.get("name").and_then(serde_json::Value::as_str) == Some(c)) {
                list.push(serde_json::json!({"name": c, "persistentVolumeClaim": {"claimName": c}}));
            }
        }
    }
}

/// Job templates a rule applies to (all, when it names none; unknown names are skipped).
fn targeted<'a>(spec: &'a JobSetSpec, rule: &JobSetFailurePolicyRule) -> Vec<&'a ReplicatedJob> {
    spec.replicated_jobs
        .iter()
        .filter(|rj| {
            rule.target_replicated_jobs.is_empty() || rule.target_replicated_jobs.contains(&rj.name)
        })
        .collect()
}

/// Whether a Job from this template can fail with `reason`; None when restartkit cannot tell.
fn reason_possible(js: &JobSpec, reason: &str) -> Option<bool> {
    match reason {
        "PodFailurePolicy" => Some(
            js.pod_failure_policy
                .as_ref()
                .is_some_and(|p| p.rules.iter().any(|r| r.action == "FailJob")),
        ),
        "FailedIndexes" => Some(js.backoff_limit_per_index.is_some()),
        "MaxFailedIndexesExceeded" => {
            Some(js.backoff_limit_per_index.is_some() && js.max_failed_indexes.is_some())
        }
        "DeadlineExceeded" => Some(js.active_deadline_seconds.is_some()),
        _ => None,
    }
}

fn what_enables(reason: &str) -> &'static str {
    match reason {
        "PodFailurePolicy" => "a podFailurePolicy with a FailJob rule",
        "FailedIndexes" => "backoffLimitPerIndex",
        "MaxFailedIndexesExceeded" => "backoffLimitPerIndex and maxFailedIndexes",
        _ => "activeDeadlineSeconds",
    }
}

/// Whether every Job failure `later` matches is also matched by `earlier`.
fn covers(earlier: &JobSetFailurePolicyRule, later: &JobSetFailurePolicyRule) -> bool {
    let subset = |a: &[String], b: &[String]| {
        a.is_empty() || (!b.is_empty() && b.iter().all(|x| a.contains(x)))
    };
    subset(
        &earlier.on_job_failure_reasons,
        &later.on_job_failure_reasons,
    ) && subset(
        &earlier.on_job_failure_message_patterns,
        &later.on_job_failure_message_patterns,
    ) && subset(
        &earlier.target_replicated_jobs,
        &later.target_replicated_jobs,
    )
}

/// restartkit's warnings: upstream accepts these, but they rarely do what was meant.
fn lints(spec: &JobSetSpec, path: &FieldPath, out: &mut Findings) {
    let Some(fp) = &spec.failure_policy else {
        return;
    };
    let rules_path = path.child("failurePolicy").child("rules");
    for (j, rule) in fp.rules.iter().enumerate() {
        let rp = rules_path.index(j);
        if let Some((i, earlier)) = fp
            .rules
            .iter()
            .enumerate()
            .take(j)
            .find(|(_, e)| covers(e, rule))
        {
            out.push(Diagnostic::lint(
                lint::RULE_SHADOWED,
                &rp,
                format!(
                    "rule '{}' can never be chosen: the earlier rule '{}' (rules[{i}]) matches every Job failure it matches, and the first matching rule wins",
                    rule.name, earlier.name
                ),
            ));
        }
        let targets = targeted(spec, rule);
        for (k, reason) in rule.on_job_failure_reasons.iter().enumerate() {
            let possible: Vec<Option<bool>> = targets
                .iter()
                .map(|rj| reason_possible(&rj.template.spec, reason))
                .collect();
            if !targets.is_empty() && possible.iter().all(|p| *p == Some(false)) {
                out.push(Diagnostic::lint(
                    lint::REASON_UNREACHABLE,
                    &rp.child("onJobFailureReasons").index(k),
                    format!(
                        "no Job template this rule targets can fail with reason {reason}: that needs {} in the Job template",
                        what_enables(reason)
                    ),
                ));
            }
        }
        let counts_towards_max = rule.action == "RestartJobSet" || rule.action == "RestartJob";
        if counts_towards_max && fp.max_restarts <= 0 {
            out.push(Diagnostic::lint(
                lint::MAX_RESTARTS_ZERO,
                &rp.child("action"),
                format!(
                    "rule '{}' restarts with action {}, but failurePolicy.maxRestarts is {}: the JobSet fails (ReachedMaxRestarts) instead of restarting",
                    rule.name, rule.action, fp.max_restarts
                ),
            ));
        }
        for (k, pat) in rule.on_job_failure_message_patterns.iter().enumerate() {
            let field = rp.child("onJobFailureMessagePatterns").index(k);
            if let Err(first) = crate::go_regexp::translate(pat) {
                out.push(Diagnostic::lint(
                    lint::INVALID_PATTERN,
                    &field,
                    format!(
                        "{pat:?} is not a valid RE2 regular expression ({first}); the webhook accepts it, and the controller logs an error and skips it, so it never matches"
                    ),
                ));
            } else if let Err(why) = crate::go_regexp::compile(pat) {
                out.push(Diagnostic::lint(
                    lint::PATTERN_TOO_LARGE,
                    &field,
                    format!(
                        "{pat:?} is valid RE2 and the controller uses it, but restartkit cannot build it ({why}), so evaluating or simulating this JobSet's failures is refused"
                    ),
                ));
            }
        }
        let catch_all = rule.on_job_failure_reasons.is_empty()
            && rule.on_job_failure_message_patterns.is_empty()
            && rule.target_replicated_jobs.is_empty();
        if catch_all && rule.action.ends_with("AndIgnoreMaxRestarts") {
            out.push(Diagnostic::lint(
                lint::UNBOUNDED_RESTARTS,
                &rp.child("action"),
                format!(
                    "rule '{}' matches every Job failure with {}: failures never count towards maxRestarts, so the JobSet restarts without end and never fails",
                    rule.name, rule.action
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use crate::diag::Severity;
    use crate::features::FeatureGates;

    fn spec(v: Value) -> JobSetSpec {
        serde_json::from_value(v).unwrap()
    }
    fn rj(name: &str) -> Value {
        json!({"name": name, "replicas": 1, "template": {"spec": {"completions": 1, "parallelism": 1,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}})
    }
    fn ctx_with(gates: &[(&str, bool)]) -> Ctx {
        let mut g = FeatureGates::default();
        for (n, on) in gates {
            g.set(n, *on);
        }
        Ctx {
            gates: g,
            skip_defaulting: false,
            future_rules: false,
            always_pod: false,
            field_validation: Default::default(),
        }
    }
    fn run(v: Value, gates: &[(&str, bool)]) -> Findings {
        let mut s = spec(v);
        default_jobset_spec(&mut s);
        let mut out = Findings::default();
        validate_jobset_spec(&s, &FieldPath::new("spec"), &ctx_with(gates), &mut out);
        out
    }
    fn msgs(f: &Findings) -> Vec<String> {
        f.errors.iter().map(|e| e.message.clone()).collect()
    }
    fn codes(f: &Findings) -> Vec<String> {
        f.warnings.iter().filter_map(|w| w.code.clone()).collect()
    }
    fn with_rules(rules: Value) -> Value {
        json!({"replicatedJobs": [rj("a"), rj("b")], "failurePolicy": {"maxRestarts": 3, "rules": rules}})
    }

    #[test]
    fn defaulting_sets_upstream_defaults() {
        let mut s = spec(
            json!({"replicatedJobs": [{"name": "a", "template": {"spec": {"template": {"spec": {"containers": []}}}}}],
            "failurePolicy": {"rules": [{"action": "FailJobSet"}, {"name": "x", "action": "FailJobSet"}, {"action": "FailJobSet"}]}}),
        );
        default_jobset_spec(&mut s);
        let r = &s.replicated_jobs[0];
        assert_eq!(r.replicas, Some(1));
        assert_eq!(r.group_name.as_deref(), Some("default"));
        assert_eq!(r.template.spec.completion_mode.as_deref(), Some("Indexed"));
        assert_eq!(
            r.template.spec.template.spec.restart_policy.as_deref(),
            Some("OnFailure")
        );
        let fp = s.failure_policy.as_ref().unwrap();
        assert_eq!(fp.restart_strategy.as_deref(), Some("Recreate"));
        let names: Vec<&str> = fp.rules.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["failurePolicyRule0", "x", "failurePolicyRule2"]);
        assert_eq!(s.success_policy, Some(json!({"operator": "All"})));
        assert_eq!(
            s.startup_policy,
            Some(json!({"startupPolicyOrder": "AnyOrder"}))
        );
        assert_eq!(
            s.network,
            Some(json!({"enableDNSHostnames": true, "publishNotReadyAddresses": true}))
        );
    }

    #[test]
    fn defaulting_keeps_set_values() {
        let mut s = spec(
            json!({"replicatedJobs": [{"name": "a", "replicas": 0, "groupName": "g", "template": {"spec": {
            "completionMode": "NonIndexed", "template": {"spec": {"restartPolicy": "Never"}}}}}],
            "network": {"enableDNSHostnames": false}, "failurePolicy": {"restartStrategy": "BlockingRecreate"}}),
        );
        default_jobset_spec(&mut s);
        let r = &s.replicated_jobs[0];
        assert_eq!(r.replicas, Some(0));
        assert_eq!(r.group_name.as_deref(), Some("g"));
        assert_eq!(
            r.template.spec.completion_mode.as_deref(),
            Some("NonIndexed")
        );
        assert_eq!(
            r.template.spec.template.spec.restart_policy.as_deref(),
            Some("Never")
        );
        assert_eq!(
            s.network,
            Some(json!({"enableDNSHostnames": false, "publishNotReadyAddresses": true}))
        );
        assert_eq!(
            s.failure_policy.unwrap().restart_strategy.as_deref(),
            Some("BlockingRecreate")
        );
    }

    #[test]
    fn rule_name_pattern() {
        for ok in [
            "a",
            "ab",
            "a_",
            "a,b",
            "a:b_",
            "superAwesomeFailurePolicyRule",
            "Z9",
        ] {
            assert!(rule_name_matches(ok), "{ok}");
        }
        for bad in ["", "1a", "_a", "a,", "a:", "a-b", "ä", "a b"] {
            assert!(!rule_name_matches(bad), "{bad}");
        }
    }

    #[test]
    fn valid_policy_has_no_errors() {
        let f = run(
            with_rules(
                json!([{"name": "r1", "action": "RestartJobSet", "onJobFailureReasons": ["BackoffLimitExceeded"]}]),
            ),
            &[],
        );
        assert!(f.errors.is_empty(), "{:?}", f.errors);
    }

    #[test]
    fn rule_name_length_and_format() {
        let long = "a".repeat(129);
        let f = run(
            with_rules(json!([{"name": long, "action": "FailJobSet"}])),
            &[],
        );
        assert_eq!(
            msgs(&f),
            [
                "invalid failure policy rule name of length 129, the rule name must be at least 1 characters long and at most 128 characters long"
            ]
        );
        assert_eq!(f.errors[0].field, "spec.failurePolicy.rules[0].name");
        assert_eq!(f.errors[0].origin, Origin::JobsetWebhook);
        assert!(f.errors[0].error_type.is_none());
        let f = run(
            with_rules(json!([{"name": "r,", "action": "FailJobSet"}])),
            &[],
        );
        assert_eq!(
            msgs(&f),
            [
                "invalid failure policy rule name 'r,', a failure policy rule name must start with an alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'"
            ]
        );
    }

    #[test]
    fn empty_name_without_defaulting_fails_both_checks() {
        let s = spec(with_rules(json!([{"name": "", "action": "FailJobSet"}])));
        let mut out = Findings::default();
        let ctx = Ctx {
            gates: FeatureGates::default(),
            skip_defaulting: true,
            future_rules: false,
            always_pod: false,
            field_validation: Default::default(),
        };
        validate_jobset_spec(&s, &FieldPath::new("spec"), &ctx, &mut out);
        // Undefaulted Job templates also lack terminationGracePeriodSeconds; only the webhook's
        // rule-name messages matter here.
        let m: Vec<String> = msgs(&out)
            .into_iter()
            .filter(|x| x.starts_with("invalid failure policy"))
            .map(|x| x.to_string())
            .collect();
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(m[0].starts_with("invalid failure policy rule name of length 0"));
        assert!(m[1].starts_with("invalid failure policy rule name '',"));
    }

    #[test]
    fn unknown_target_and_reason() {
        let f = run(
            with_rules(
                json!([{"name": "r", "action": "FailJobSet", "targetReplicatedJobs": ["a", "zz"], "onJobFailureReasons": ["Evicted"]}]),
            ),
            &[],
        );
        assert_eq!(
            msgs(&f),
            [
                "invalid replicatedJob name 'zz' in failure policy does not appear in .spec.ReplicatedJobs",
                "invalid job failure reason 'Evicted' in failure policy is not a recognized job failure reason",
            ]
        );
        assert_eq!(
            f.errors[0].field,
            "spec.failurePolicy.rules[0].targetReplicatedJobs[1]"
        );
        assert_eq!(
            f.errors[1].field,
            "spec.failurePolicy.rules[0].onJobFailureReasons[0]"
        );
    }

    #[test]
    fn duplicate_names_after_per_rule_errors() {
        let f = run(
            with_rules(
                json!([{"name": "x", "action": "FailJobSet"}, {"name": "y", "action": "FailJobSet", "targetReplicatedJobs": ["q"]}, {"name": "x", "action": "RestartJobSet"}, {"name": "x", "action": "RestartJobSet"}]),
            ),
            &[],
        );
        assert_eq!(
            msgs(&f),
            [
                "invalid replicatedJob name 'q' in failure policy does not appear in .spec.ReplicatedJobs",
                "rule names are not unique, rules with indices [0 2 3] all have the same name 'x'",
            ]
        );
        assert_eq!(f.errors[1].field, "spec.failurePolicy.rules[2].name");
    }

    #[test]
    fn restart_job_gate_off_stops_failure_policy_checks() {
        let f = run(
            with_rules(
                json!([{"name": "bad,", "action": "FailJobSet"}, {"name": "r", "action": "RestartJobAndIgnoreMaxRestarts"}]),
            ),
            &[("RestartJob", false)],
        );
        assert_eq!(
            msgs(&f),
            [
                "RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob feature gate is disabled"
            ]
        );
        assert_eq!(f.errors[0].field, "spec.failurePolicy.rules[1].action");
    }

    #[test]
    fn restart_job_replicas_limit() {
        let mut v = with_rules(json!([{"name": "r", "action": "RestartJob"}]));
        v["replicatedJobs"][1]["replicas"] = json!(1025);
        v["replicatedJobs"][0]["replicas"] = json!(2000);
        let f = run(v.clone(), &[("RestartJob", true)]);
        assert_eq!(
            msgs(&f),
            [
                "JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts action and a replicated job with replicas > 1024"
            ]
        );
        v["replicatedJobs"][0]["replicas"] = json!(1024);
        v["replicatedJobs"][1]["replicas"] = json!(1024);
        assert!(run(v.clone(), &[("RestartJob", true)]).errors.is_empty());
        // Without a RestartJob rule, replicas above 1024 are fine.
        v["failurePolicy"]["rules"][0]["action"] = json!("RestartJobSet");
        v["replicatedJobs"][0]["replicas"] = json!(5000);
        assert!(run(v, &[]).errors.is_empty());
    }

    #[test]
    fn replicas_times_parallelism_limit() {
        let mut v = json!({"replicatedJobs": [rj("a")]});
        v["replicatedJobs"][0]["replicas"] = json!(65536);
        v["replicatedJobs"][0]["template"]["spec"]["parallelism"] = json!(32768);
        let f = run(v.clone(), &[]);
        assert_eq!(
            msgs(&f),
            [
                "the product of replicas and parallelism must not exceed 2147483647 for replicatedJob 'a'"
            ]
        );
        v["replicatedJobs"][0]["template"]["spec"]["parallelism"] = json!(32767);
        assert!(run(v, &[]).errors.is_empty());
    }

    #[test]
    fn in_place_restart_gate_off() {
        let v = json!({"replicatedJobs": [rj("a")], "failurePolicy": {"restartStrategy": "InPlaceRestart"}});
        let f = run(v, &[("InPlaceRestart", false)]);
        assert_eq!(
            msgs(&f),
            [
                "InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled"
            ]
        );
        assert_eq!(f.errors[0].field, "spec.failurePolicy.restartStrategy");
    }

    #[test]
    fn in_place_restart_requirements() {
        let v = json!({"replicatedJobs": [rj("a")], "failurePolicy": {"restartStrategy": "InPlaceRestart"}});
        let f = run(v.clone(), &[("InPlaceRestart", true)]);
        let fields: Vec<&str> = f.errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.replicatedJobs[0].template.spec.backoffLimit",
                "spec.replicatedJobs[0].template.spec.podReplacementPolicy",
            ]
        );
        assert_eq!(
            f.errors[0].message,
            "spec.replicatedJobs[0].template.spec.backoffLimit: Invalid value: null: replicatedJob a: must be set to 2147483647 (MaxInt32) when in-place restart is enabled"
        );
        assert_eq!(
            f.errors[1].message,
            "spec.replicatedJobs[0].template.spec.podReplacementPolicy: Invalid value: null: replicatedJob a: must be set to Failed when in-place restart is enabled"
        );
        let mut ok = v.clone();
        ok["replicatedJobs"][0]["template"]["spec"]["backoffLimit"] = json!(2147483647);
        ok["replicatedJobs"][0]["template"]["spec"]["podReplacementPolicy"] = json!("Failed");
        assert!(
            run(ok.clone(), &[("InPlaceRestart", true)])
                .errors
                .is_empty()
        );
        ok["replicatedJobs"][0]["template"]["spec"]["completions"] = json!(2);
        let f = run(ok, &[("InPlaceRestart", true)]);
        assert_eq!(f.errors.len(), 1);
        assert_eq!(
            f.errors[0].message,
            "spec.replicatedJobs[0].template.spec.completions: Invalid value: 2: replicatedJob a: completions and parallelism must be set and equal to each other when in-place restart is enabled"
        );
        assert_eq!(f.errors[0].origin, Origin::JobsetWebhook);
    }

    #[test]
    fn schema_errors_stop_the_webhook() {
        let f = run(
            with_rules(json!([{"name": "r,", "action": "Explode"}])),
            &[],
        );
        assert_eq!(f.errors.len(), 1, "{:?}", msgs(&f));
        assert_eq!(
            f.errors[0].message,
            "spec.failurePolicy.rules[0].action: Unsupported value: \"Explode\": supported values: \"FailJobSet\", \"RestartJobSet\", \"RestartJobSetAndIgnoreMaxRestarts\", \"RestartJob\", \"RestartJobAndIgnoreMaxRestarts\""
        );
        let f = run(with_rules(json!([{"name": "r"}])), &[]);
        assert_eq!(
            f.errors[0].message,
            "spec.failurePolicy.rules[0].action: Required value"
        );
        let mut v =
            json!({"replicatedJobs": [rj("a")], "failurePolicy": {"restartStrategy": "Whatever"}});
        let f = run(v.clone(), &[]);
        assert_eq!(f.errors[0].field, "spec.failurePolicy.restartStrategy");
        assert_eq!(f.errors.len(), 1);
        v["failurePolicy"]["restartStrategy"] = json!("Recreate");
        v["replicatedJobs"][0]["replicas"] = json!(-1);
        let f = run(v, &[]);
        assert_eq!(
            f.errors[0].message,
            "spec.replicatedJobs[0].replicas: Invalid value: -1: spec.replicatedJobs[0].replicas in body should be greater than or equal to 0"
        );
    }

    #[test]
    fn lint_shadowed_rule() {
        let f = run(
            with_rules(json!([
                {"name": "broad", "action": "FailJobSet", "onJobFailureReasons": ["BackoffLimitExceeded", "DeadlineExceeded"]},
                {"name": "narrow", "action": "RestartJobSet", "onJobFailureReasons": ["BackoffLimitExceeded"], "targetReplicatedJobs": ["a"]},
                {"name": "other", "action": "RestartJobSet", "onJobFailureReasons": ["PodFailurePolicy"]}
            ])),
            &[],
        );
        let w: Vec<_> = f
            .warnings
            .iter()
            .filter(|w| w.code.as_deref() == Some(lint::RULE_SHADOWED))
            .collect();
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].field, "spec.failurePolicy.rules[1]");
        assert_eq!(w[0].severity, Severity::Warning);
        // A narrower earlier rule does not shadow a broader later one.
        let f = run(
            with_rules(json!([
                {"name": "narrow", "action": "RestartJobSet", "onJobFailureMessagePatterns": ["oom"]},
                {"name": "broad", "action": "FailJobSet"}
            ])),
            &[],
        );
        assert!(!codes(&f).contains(&lint::RULE_SHADOWED.to_owned()));
        // A catch-all shadows everything after it.
        let f = run(
            with_rules(
                json!([{"name": "all", "action": "FailJobSet"}, {"name": "p", "action": "RestartJobSet", "onJobFailureMessagePatterns": ["x"]}]),
            ),
            &[],
        );
        assert!(codes(&f).contains(&lint::RULE_SHADOWED.to_owned()));
    }

    #[test]
    fn lint_pod_failure_policy_reason_without_pod_failure_policy() {
        let rules = json!([{"name": "r", "action": "RestartJobSetAndIgnoreMaxRestarts", "onJobFailureReasons": ["PodFailurePolicy"], "targetReplicatedJobs": ["a"]}]);
        let f = run(with_rules(rules.clone()), &[]);
        assert_eq!(codes(&f), [lint::REASON_UNREACHABLE]);
        assert_eq!(
            f.warnings[0].field,
            "spec.failurePolicy.rules[0].onJobFailureReasons[0]"
        );
        let mut v = with_rules(rules);
        v["replicatedJobs"][0]["template"]["spec"]["podFailurePolicy"] = json!({"rules": [{"action": "FailJob", "onPodConditions": [{"type": "DisruptionTarget"}]}]});
        assert!(run(v, &[]).warnings.is_empty());
    }

    #[test]
    fn lint_other_unreachable_reasons() {
        let f = run(
            with_rules(
                json!([{"name": "r", "action": "FailJobSet", "onJobFailureReasons": ["DeadlineExceeded", "FailedIndexes", "MaxFailedIndexesExceeded", "BackoffLimitExceeded"]}]),
            ),
            &[],
        );
        assert_eq!(
            codes(&f),
            [
                lint::REASON_UNREACHABLE,
                lint::REASON_UNREACHABLE,
                lint::REASON_UNREACHABLE
            ]
        );
        let mut v = with_rules(
            json!([{"name": "r", "action": "FailJobSet", "onJobFailureReasons": ["DeadlineExceeded", "FailedIndexes", "MaxFailedIndexesExceeded"]}]),
        );
        let t = &mut v["replicatedJobs"][1]["template"]["spec"];
        t["activeDeadlineSeconds"] = json!(60);
        t["backoffLimitPerIndex"] = json!(1);
        t["maxFailedIndexes"] = json!(1);
        assert!(run(v, &[]).warnings.is_empty());
    }

    #[test]
    fn lint_max_restarts_zero() {
        let mut v = with_rules(
            json!([{"name": "i", "action": "RestartJobSetAndIgnoreMaxRestarts", "onJobFailureReasons": ["BackoffLimitExceeded"]}, {"name": "r", "action": "RestartJobSet"}]),
        );
        v["failurePolicy"]["maxRestarts"] = json!(0);
        let f = run(v.clone(), &[]);
        assert_eq!(codes(&f), [lint::MAX_RESTARTS_ZERO]);
        assert_eq!(f.warnings[0].field, "spec.failurePolicy.rules[1].action");
        v["failurePolicy"]["maxRestarts"] = json!(1);
        assert!(run(v, &[]).warnings.is_empty());
    }

    #[test]
    fn lint_invalid_pattern() {
        let f = run(
            with_rules(
                json!([{"name": "r", "action": "FailJobSet", "onJobFailureMessagePatterns": ["ok.*", "(unclosed"]}]),
            ),
            &[],
        );
        assert_eq!(codes(&f), [lint::INVALID_PATTERN]);
        assert_eq!(
            f.warnings[0].field,
            "spec.failurePolicy.rules[0].onJobFailureMessagePatterns[1]"
        );
        assert!(f.errors.is_empty());
    }

    #[test]
    fn lint_unbounded_restarts() {
        let f = run(
            with_rules(json!([{"name": "r", "action": "RestartJobSetAndIgnoreMaxRestarts"}])),
            &[],
        );
        assert_eq!(codes(&f), [lint::UNBOUNDED_RESTARTS]);
        let f = run(
            with_rules(
                json!([{"name": "r", "action": "RestartJobSetAndIgnoreMaxRestarts", "targetReplicatedJobs": ["a"]}]),
            ),
            &[],
        );
        assert!(f.warnings.is_empty());
    }
}
