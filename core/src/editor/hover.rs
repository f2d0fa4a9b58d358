//! Hover: what the field under the cursor does for this object, worked out by the same code that
//! evaluates it (the Job controller's podFailurePolicy matcher, the kubelet's restart decision,
//! the JobSet controller's rule applicability), for the version and gates in force. Fields
//! without such an answer get their description from the core's types.

use super::complete::{SchemaSource, schema_field};
use crate::api::{
    Condition, ContainerState, ContainerStateTerminated, ContainerStatus, Job,
    JobSetFailurePolicyRule, JobSpec, ObjectMeta, Pod, PodSpec, PodStatus,
};
#[cfg(feature = "schemas")]
use crate::diag::Diagnostic;
use crate::diag::Range;
use crate::eval::job::{FAIL_INDEX_GATE, PolicyAction, fail_job_message, match_policy};
use crate::eval::kubelet::{CompiledContainerPolicy, KubeletDecision, find_matching_rule};
use crate::features::FeatureGates;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// `hover` op input: a text and a place in it, with the target (a settings comment in the text
/// wins, as for `validate`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HoverInput {
    pub source: String,
    /// 1-based line and column (characters) of the cursor.
    pub line: u32,
    pub column: u32,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HoverOutput {
    /// Markdown; absent when nothing is known about the place.
    pub contents: Option<String>,
    /// The field path under the cursor.
    pub field: Option<String>,
    /// The key of that field in the text.
    pub range: Option<Range>,
}

/// The `hover` op.
#[cfg(feature = "schemas")]
pub fn run(input: HoverInput) -> Result<HoverOutput, Diagnostic> {
    let (file, _) = crate::source::settings::read(&input.source);
    let (version, gates) = file.over(
        input.kubernetes_version.as_deref(),
        input.feature_gates.as_ref(),
    );
    let (gates, _) = FeatureGates::resolve(version.as_deref(), gates.as_ref())?;
    Ok(hover(
        &input.source,
        input.line,
        input.column,
        &gates,
        &super::complete::schema_of,
    ))
}

/// What the field at 1-based `line`:`column` of `text` does for its object, or its description
/// from `schemas`.
pub fn hover(
    text: &str,
    line: u32,
    column: u32,
    gates: &FeatureGates,
    schemas: SchemaSource,
) -> HoverOutput {
    let none = HoverOutput {
        contents: None,
        field: None,
        range: None,
    };
    let docs: Vec<_> = crate::source::read_stream(text)
        .into_iter()
        .filter_map(Result::ok)
        .collect();
    let Some(doc) = docs.iter().rev().find(|d| d.line <= line) else {
        return none;
    };
    let Some(field) = doc.field_at(line, column) else {
        return none;
    };
    let range = doc.range_of(
        &field,
        crate::source::Part::Key,
        &crate::source::LineIndex::new(text),
    );
    let kind = doc.value.get("kind").and_then(Value::as_str).unwrap_or("");
    let explained = explain(&doc.value, kind, &field, gates);
    let described = || {
        let (type_, description) = schema_field(kind, &field, schemas)?;
        let mut s = format!("**{}**", field.rsplit('.').next().unwrap_or(&field));
        if let Some(t) = type_ {
            let _ = write!(s, " `{t}`");
        }
        if let Some(d) = description {
            let _ = write!(s, "\n\n{d}");
        }
        Some(s)
    };
    let contents = explained.or_else(described);
    HoverOutput {
        contents,
        field: Some(field),
        range,
    }
}

/// The value at a field path (`a.b[0].c`) of a document.
fn value_at<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    let mut v = root;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, indexes) = part.split_once('[').map_or((part, ""), |(n, r)| (n, r));
        if !name.is_empty() {
            v = v.get(name)?;
        }
        for ix in indexes.split('[').filter(|x| !x.is_empty()) {
            v = v.get(ix.trim_end_matches(']').parse::<usize>().ok()?)?;
        }
    }
    Some(v)
}

/// The index after `marker` in `field` (`rules[3]` → 3) and the path before it.
fn indexed<'a>(field: &'a str, marker: &str) -> Option<(&'a str, usize)> {
    let at = field.rfind(marker)?;
    let rest = field.get(at + marker.len()..)?;
    let n = rest.split(']').next()?.parse().ok()?;
    Some((field.get(..at)?.trim_end_matches('.'), n))
}

/// Why-and-what for the restart and failure fields; None for other fields.
fn explain(doc: &Value, kind: &str, field: &str, gates: &FeatureGates) -> Option<String> {
    if let Some((spec_path, i)) = indexed(field, "podFailurePolicy.rules[") {
        let spec: JobSpec = serde_json::from_value(value_at(doc, spec_path)?.clone()).ok()?;
        return Some(pod_failure_rule(&spec, i, gates));
    }
    if let Some((prefix, i)) = indexed(field, "restartPolicyRules[") {
        let (spec_path, container) = prefix.rsplit_once('.')?;
        let init = container.starts_with("initContainers[");
        let (_, c) = indexed(container, "ontainers[")?;
        let spec: PodSpec = serde_json::from_value(value_at(doc, spec_path)?.clone()).ok()?;
        return Some(container_rules(&spec, init, c, Some(i), gates));
    }
    if field.ends_with(".restartPolicy") && field.contains("ontainers[") {
        let prefix = field.strip_suffix(".restartPolicy")?;
        let (spec_path, container) = prefix.rsplit_once('.')?;
        let init = container.starts_with("initContainers[");
        let (_, c) = indexed(container, "ontainers[")?;
        let spec: PodSpec = serde_json::from_value(value_at(doc, spec_path)?.clone()).ok()?;
        return Some(container_rules(&spec, init, c, None, gates));
    }
    for limit in ["backoffLimitPerIndex", "maxFailedIndexes", "backoffLimit"] {
        if let Some(spec_path) = field.strip_suffix(&format!(".{limit}"))
            && (spec_path.ends_with("spec") && kind != "Pod")
        {
            let spec: JobSpec = serde_json::from_value(value_at(doc, spec_path)?.clone()).ok()?;
            return Some(backoff_limits(&spec));
        }
    }
    if kind == "JobSet"
        && let Some((_, i)) = indexed(field, "failurePolicy.rules[")
    {
        let js: crate::api::JobSet = serde_json::from_value(doc.clone()).ok()?;
        return Some(jobset_rule(&js, i, gates));
    }
    None
}

/// Integers as ranges: `1–3, 42`.
fn ranges(codes: &[i32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(&start) = codes.get(i) {
        let mut end = start;
        while codes.get(i + 1) == Some(&(end + 1)) {
            end += 1;
            i += 1;
        }
        out.push(if start == end {
            start.to_string()
        } else {
            format!("{start}–{end}")
        });
        i += 1;
    }
    if out.is_empty() {
        "none".to_owned()
    } else {
        out.join(", ")
    }
}

/// The exit codes a hover enumerates: what a process can exit with (0–255).
const CODES: std::ops::RangeInclusive<i32> = 0..=255;

fn failed_pod(container: &str, init: bool, code: Option<i32>, condition: Option<&str>) -> Pod {
    let status = code.map(|c| ContainerStatus {
        name: container.to_owned(),
        state: Some(ContainerState {
            terminated: Some(ContainerStateTerminated {
                exit_code: c,
                reason: Some("Error".into()),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    });
    let mut pod_status = PodStatus {
        phase: Some("Failed".into()),
        conditions: condition
            .map(|t| Condition {
                type_: t.to_owned(),
                status: "True".into(),
                ..Default::default()
            })
            .into_iter()
            .collect(),
        ..Default::default()
    };
    if init {
        pod_status.init_container_statuses.extend(status);
    } else {
        pod_status.container_statuses.extend(status);
    }
    Pod {
        metadata: ObjectMeta {
            name: Some("<pod>".into()),
            namespace: Some("<namespace>".into()),
            ..Default::default()
        },
        status: Some(pod_status),
        ..Default::default()
    }
}

fn pod_failure_rule(spec: &JobSpec, i: usize, gates: &FeatureGates) -> String {
    let Some(policy) = &spec.pod_failure_policy else {
        return String::new();
    };
    let Some(rule) = policy.rules.get(i) else {
        return String::new();
    };
    let gate = gates.enabled(FAIL_INDEX_GATE);
    let mut s = format!("**podFailurePolicy rule {i}**: `{}`", rule.action);
    let Some(action) = PolicyAction::effective(&rule.action, gate) else {
        let _ = write!(
            s,
            "\n\nThe Job controller skips this rule: it acts on FailJob, Ignore, Count{} only.",
            if gate {
                " and FailIndex"
            } else {
                " (FailIndex needs the JobBackoffLimitPerIndex gate)"
            }
        );
        return s;
    };
    let meaning = match action {
        PolicyAction::FailJob => "the Job fails at once (reason `PodFailurePolicy`)".to_owned(),
        PolicyAction::FailIndex => {
            "the Pod's index fails at once, without its remaining retries".to_owned()
        }
        PolicyAction::Ignore => {
            "the failure does not count towards the backoff limits; a replacement Pod is created"
                .to_owned()
        }
        PolicyAction::Count => format!(
            "the failure counts towards backoffLimit ({})",
            spec.backoff_limit.unwrap_or(6)
        ),
    };
    let _ = write!(s, "\n\nWhen it decides: {meaning}.");
    let template = &spec.template.spec;
    let containers = template
        .containers
        .iter()
        .map(|c| (c, false))
        .chain(template.init_containers.iter().map(|c| (c, true)));
    let mut example: Option<Pod> = None;
    if let Some(req) = &rule.on_exit_codes {
        let _ = write!(
            s,
            "\n\nExit codes it decides (earlier rules first; exit code 0 never matches):"
        );
        for (c, init) in containers {
            if req.container_name.as_deref().is_some_and(|n| n != c.name) {
                continue;
            }
            let decided: Vec<i32> = CODES
                .filter(|code| {
                    let pod = failed_pod(&c.name, init, Some(*code), None);
                    let hit = match_policy(policy, &pod, gate).is_some_and(|m| m.rule_index == i);
                    if hit && example.is_none() {
                        example = Some(pod.clone());
                    }
                    hit
                })
                .collect();
            let shadowed: Vec<i32> = CODES
                .filter(|code| {
                    *code != 0
                        && crate::eval::job::operator_matches(req, *code)
                        && !decided.contains(code)
                })
                .collect();
            let _ = write!(s, "\n- container `{}`: {}", c.name, ranges(&decided));
            if !shadowed.is_empty() {
                let _ = write!(
                    s,
                    " (also listed, but an earlier rule decides: {})",
                    ranges(&shadowed)
                );
            }
        }
    }
    if let Some(patterns) = &rule.on_pod_conditions {
        let _ = write!(s, "\n\nPod conditions it decides:");
        for p in patterns {
            let pod = failed_pod("", false, None, Some(&p.type_));
            let m = match_policy(policy, &pod, gate);
            let _ = match m {
                Some(m) if m.rule_index == i => {
                    example.get_or_insert(pod.clone());
                    write!(
                        s,
                        "\n- `{}` (status {})",
                        p.type_,
                        if p.status.is_empty() {
                            "True"
                        } else {
                            &p.status
                        }
                    )
                }
                Some(m) => write!(
                    s,
                    "\n- `{}`: decided by rule {} first",
                    p.type_, m.rule_index
                ),
                None => write!(
                    s,
                    "\n- `{}`: never (status {} is not what a failed Pod's condition holds)",
                    p.type_, p.status
                ),
            };
        }
    }
    if let (PolicyAction::FailJob, Some(pod)) = (action, &example)
        && let Some(m) = match_policy(policy, pod, gate)
    {
        let _ = write!(
            s,
            "\n\nThe Job's failure message: `{}`",
            fail_job_message(pod, &m)
        );
    }
    s
}

fn decision_name(d: KubeletDecision) -> &'static str {
    match d {
        KubeletDecision::Restart => "restarts in place",
        KubeletDecision::DoNotRestart => "is not restarted",
        KubeletDecision::RestartAllContainers => "restarts every container of the Pod",
    }
}

fn container_rules(
    spec: &PodSpec,
    init: bool,
    c: usize,
    rule: Option<usize>,
    gates: &FeatureGates,
) -> String {
    let list = if init {
        &spec.init_containers
    } else {
        &spec.containers
    };
    let Some(container) = list.get(c) else {
        return String::new();
    };
    let mut spec = spec.clone();
    crate::validate::pod::default_pod_spec(&mut spec);
    let compiled = CompiledContainerPolicy::new(container, &spec, gates);
    let mut s = format!(
        "**container `{}`**: what the kubelet does when it exits",
        container.name
    );
    if !gates.enabled("ContainerRestartRules") && container.restart_policy.is_some() && !init {
        let _ = write!(
            s,
            "\n\n`ContainerRestartRules` is off here: the API server drops a regular container's restartPolicy and rules, and the kubelet follows the Pod's restartPolicy."
        );
    }
    let mut by: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for code in CODES {
        by.entry(decision_name(compiled.decide(code)))
            .or_default()
            .push(code);
    }
    for (what, codes) in &by {
        let _ = write!(s, "\n- exit code {}: {what}", ranges(codes));
    }
    if let Some(j) = rule
        && let Some(r) = container.rules().get(j)
    {
        let decided: Vec<i32> = CODES
            .filter(|code| find_matching_rule(container, *code).is_some_and(|(k, _)| k == j))
            .collect();
        let _ = write!(
            s,
            "\n\nRule {j} (`{}`) is the first matching rule for exit codes {}{}",
            r.action,
            ranges(&decided),
            if r.action == "Restart" || r.action == "RestartAllContainers" {
                ""
            } else {
                " (not a restart action: the container's restartPolicy decides those)"
            }
        );
    }
    s
}

fn backoff_limits(spec: &JobSpec) -> String {
    let mut s = String::new();
    match spec.backoff_limit_per_index {
        Some(per) => {
            let _ = write!(
                s,
                "**backoffLimitPerIndex {per}**: an index is retried {per} time(s); its failure number {} marks the index failed (the Job's other indexes go on).",
                i64::from(per) + 1
            );
            if let Some(max) = spec.max_failed_indexes {
                let _ = write!(
                    s,
                    "\n\n**maxFailedIndexes {max}**: once more than {max} index(es) have failed, the Job fails (reason `MaxFailedIndexesExceeded`)."
                );
            }
        }
        None => {
            let limit = spec.backoff_limit.unwrap_or(6);
            let _ = write!(
                s,
                "**backoffLimit {limit}**: the Job fails (reason `BackoffLimitExceeded`) at counted Pod failure number {}; failures a podFailurePolicy rule `Ignore`s do not count.",
                i64::from(limit) + 1
            );
        }
    }
    s
}

/// Failure reasons a JobSet failurePolicy rule can name (batch/v1 JobReason constants).
const JOB_REASONS: &[&str] = &[
    "BackoffLimitExceeded",
    "DeadlineExceeded",
    "FailedIndexes",
    "MaxFailedIndexesExceeded",
    "PodFailurePolicy",
];

fn jobset_rule(js: &crate::api::JobSet, i: usize, _gates: &FeatureGates) -> String {
    let Some(policy) = &js.spec.failure_policy else {
        return String::new();
    };
    let Some(rule) = policy.rules.get(i) else {
        return String::new();
    };
    let mut s = format!(
        "**failurePolicy rule {i}** `{}`: `{}`",
        rule.name, rule.action
    );
    let meaning = match rule.action.as_str() {
        "FailJobSet" => "the JobSet fails at once".to_owned(),
        "RestartJobSet" => format!(
            "every Job of the JobSet is recreated; this counts towards maxRestarts ({}), past which the JobSet fails",
            policy.max_restarts
        ),
        "RestartJobSetAndIgnoreMaxRestarts" => {
            "every Job of the JobSet is recreated, without counting towards maxRestarts".to_owned()
        }
        "RestartJob" => format!(
            "only the failed Job is recreated; this counts towards maxRestarts ({})",
            policy.max_restarts
        ),
        "RestartJobAndIgnoreMaxRestarts" => {
            "only the failed Job is recreated, without counting towards maxRestarts".to_owned()
        }
        other => format!("`{other}` is not an action the JobSet controller knows"),
    };
    let _ = write!(s, "\n\nWhen it applies: {meaning}.");
    let _ = write!(s, "\n\nFailed Jobs it is the first rule for:");
    let patterns = |r: &JobSetFailurePolicyRule| !r.on_job_failure_message_patterns.is_empty();
    for rj in &js.spec.replicated_jobs {
        let mut job = Job::default();
        let mut labels = BTreeMap::new();
        labels.insert(
            "jobset.sigs.k8s.io/replicatedjob-name".to_owned(),
            rj.name.clone(),
        );
        job.metadata.labels = Some(labels);
        let reasons: Vec<&str> = JOB_REASONS
            .iter()
            .copied()
            .filter(|reason| {
                let applies = |r: &JobSetFailurePolicyRule| {
                    crate::eval::jobset::rule_is_applicable(
                        &JobSetFailurePolicyRule {
                            on_job_failure_message_patterns: Vec::new(),
                            ..r.clone()
                        },
                        &job,
                        reason,
                        "",
                    )
                };
                applies(rule)
                    && !policy
                        .rules
                        .iter()
                        .take(i)
                        .any(|r| applies(r) && !patterns(r))
            })
            .collect();
        let _ = write!(
            s,
            "\n- replicatedJob `{}`: {}",
            rj.name,
            if reasons.is_empty() {
                "none".to_owned()
            } else {
                reasons.join(", ")
            }
        );
    }
    if patterns(rule) {
        let _ = write!(
            s,
            "\n\n…when the Job's failure message also matches one of {:?} (Go regexps).",
            rule.on_job_failure_message_patterns
        );
    }
    let _ = write!(
        s,
        "\n\nA failed Job no rule applies to: `RestartJobSet` while fewer than maxRestarts ({}) restarts have counted, then `FailJobSet`.",
        policy.max_restarts
    );
    s
}

#[cfg(all(test, feature = "schemas"))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn at(text: &str, line: u32, column: u32) -> String {
        hover(
            text,
            line,
            column,
            &FeatureGates::for_version(crate::features::KubeVersion::default()),
            &crate::editor::complete::schema_of,
        )
        .contents
        .unwrap_or_default()
    }

    const JOB: &str = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  backoffLimit: 2\n  podFailurePolicy:\n    rules:\n    - action: FailJob\n      onExitCodes:\n        containerName: main\n        operator: In\n        values: [1, 2, 3]\n    - action: Ignore\n      onExitCodes:\n        operator: In\n        values: [3, 42]\n    - action: Ignore\n      onPodConditions:\n      - type: DisruptionTarget\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: main\n        image: i\n        restartPolicy: Never\n        restartPolicyRules:\n        - action: Restart\n          exitCodes: {operator: In, values: [42]}\n      - name: side\n        image: i\n";

    #[test]
    fn a_pod_failure_rule_says_which_exit_codes_it_decides() {
        let h = at(JOB, 9, 9);
        assert!(h.contains("rule 0**: `FailJob`"), "{h}");
        assert!(h.contains("container `main`: 1–3"), "{h}");
        assert!(!h.contains("container `side`"), "{h}");
        assert!(h.contains("Container main for pod <namespace>/<pod> failed with exit code 1 matching FailJob rule at index 0"), "{h}");
        let h = at(JOB, 16, 9);
        assert!(
            h.contains("container `main`: 42 (also listed, but an earlier rule decides: 3)"),
            "{h}"
        );
        assert!(h.contains("container `side`: 3, 42"), "{h}");
        assert!(h.contains("does not count"), "{h}");
        let h = at(JOB, 20, 9);
        assert!(h.contains("`DisruptionTarget` (status True)"), "{h}");
    }

    #[test]
    fn restart_rules_and_limits() {
        let h = at(JOB, 29, 11);
        assert!(h.contains("exit code 42: restarts in place"), "{h}");
        assert!(
            h.contains("exit code 0–41, 43–255: is not restarted"),
            "{h}"
        );
        assert!(
            h.contains("Rule 0 (`Restart`) is the first matching rule for exit codes 42"),
            "{h}"
        );
        let h = at(JOB, 6, 4);
        assert!(h.contains("at counted Pod failure number 3"), "{h}");
    }

    #[test]
    fn other_fields_get_their_description() {
        let text = "kind: Pod\nspec:\n  containers:\n  - name: a\n    restartPolicy: Always\n";
        let h = at(text, 5, 6);
        assert!(h.contains("restarts in place"), "{h}");
        let h = at(
            "kind: Job\nspec:\n  template:\n    spec:\n      containers: []\n",
            5,
            8,
        );
        assert!(h.starts_with("**containers**"), "{h}");
    }
}
