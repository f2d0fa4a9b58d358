#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
use super::strategy::{
    GATE_BACKOFF_LIMIT_PER_INDEX, GATE_MANAGED_BY, GATE_POD_REPLACEMENT_POLICY,
    GATE_SUCCESS_POLICY, prepare_changes,
};
use super::*;
use crate::api::JobSpec;
use crate::diag::ErrorType;
use crate::features::FeatureGates;
use crate::validate::names::qualified_name;
use serde_json::json;

fn job(spec: serde_json::Value) -> Job {
    serde_json::from_value(
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": spec}),
    )
    .unwrap()
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
    let s = json!({"completionMode": "Indexed", "parallelism": 100001, "template": tmpl("Never")});
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
    let s = pfp(json!([{"action": "Count", "onExitCodes": {"operator": "In", "values": values}}]));
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
    let s = pfp(json!([{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]));
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
    let s =
        json!({"completions": 1, "podReplacementPolicy": "Sometimes", "template": tmpl("Never")});
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
    let s = json!({"completions": 3, "successPolicy": {"rules": []}, "template": tmpl("Never")});
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
    assert!(
        out.warnings.iter().any(|w| w.field == "spec.successPolicy"
            && w.code.as_deref() == Some("job-gate-dropped-fields"))
    );
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
