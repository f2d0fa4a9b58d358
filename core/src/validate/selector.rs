//! Label selectors (metav1.LabelSelector) as the workload controllers' validation reads them:
//! ValidateLabelSelector (k8s.io/apimachinery/pkg/apis/meta/v1/validation), whether
//! LabelSelectorAsSelector accepts the selector (pkg/apis/meta/v1/helpers.go, whose
//! labels.NewRequirement refuses what the validation refuses, plus an unknown operator), and
//! whether the selector matches a set of labels (labels.Selector.Matches).
//!
//! Selectors are read from the JSON the decoding pass has already accepted, so every member has
//! its declared type; what is not there is read as Go's zero value.

use super::names::{label_value, qualified_name};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::versions::Change;
use serde_json::{Map, Value};

const OPERATORS: [&str; 4] = ["In", "NotIn", "Exists", "DoesNotExist"];

/// One `matchExpressions` entry.
struct Requirement<'a> {
    key: &'a str,
    operator: &'a str,
    values: Vec<&'a str>,
}

fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn requirements(selector: &Map<String, Value>) -> Vec<Requirement<'_>> {
    selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|r| Requirement {
                    key: r.get("key").and_then(Value::as_str).unwrap_or(""),
                    operator: r.get("operator").and_then(Value::as_str).unwrap_or(""),
                    values: strings(r.get("values")),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `matchLabels` as (key, value) pairs, in key order (Go ranges a map in random order; the
/// errors are the same set).
pub fn match_labels(selector: &Map<String, Value>) -> Vec<(&str, &str)> {
    string_map(selector.get("matchLabels"))
}

/// A `map[string]string` member as pairs, in key order (as Go prints a map).
pub fn string_map(v: Option<&Value>) -> Vec<(&str, &str)> {
    let mut pairs: Vec<(&str, &str)> = v
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or("")))
                .collect()
        })
        .unwrap_or_default();
    pairs.sort_unstable();
    pairs
}

/// A `map[string]string` as json.Marshal writes it: keys sorted.
fn json_string_map(v: &Value) -> String {
    let m: Map<String, Value> = string_map(Some(v))
        .into_iter()
        .map(|(k, v)| (k.to_owned(), Value::from(v)))
        .collect();
    Value::Object(m).to_string()
}

/// ValidateLabels on a map at `p`: each key a qualified name, each value a label value.
pub fn validate_labels(labels: &[(&str, &str)], p: &FieldPath, minor: u32, out: &mut Findings) {
    for (k, v) in labels {
        for msg in qualified_name(k, minor) {
            out.push(Diagnostic::invalid(p, *k, msg));
        }
        for msg in label_value(v, minor) {
            out.push(Diagnostic::invalid(p, *v, msg));
        }
    }
}

/// ValidateLabelSelector with AllowInvalidLabelValueInSelector off (every create).
pub fn validate(selector: &Map<String, Value>, p: &FieldPath, minor: u32, out: &mut Findings) {
    validate_labels(&match_labels(selector), &p.child("matchLabels"), minor, out);
    let ep = p.child("matchExpressions");
    for (i, r) in requirements(selector).iter().enumerate() {
        let rp = ep.index(i);
        match r.operator {
            "In" | "NotIn" if r.values.is_empty() => out.push(Diagnostic::required(
                &rp.child("values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if !r.values.is_empty() => out.push(Diagnostic::forbidden(
                &rp.child("values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            op if !OPERATORS.contains(&op) => out.push(Diagnostic::invalid(
                &rp.child("operator"),
                op,
                "not a valid selector operator",
            )),
            _ => {}
        }
        for msg in qualified_name(r.key, minor) {
            out.push(Diagnostic::invalid(&rp.child("key"), r.key, msg));
        }
        let vp = rp.child("values");
        for (j, v) in r.values.iter().enumerate() {
            for msg in label_value(v, minor) {
                out.push(Diagnostic::invalid(&vp.index(j), *v, msg));
            }
        }
    }
}

/// What LabelSelectorAsSelector makes of a selector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Converted {
    /// No selector (nil): labels.Nothing(), which is not empty and matches nothing.
    Nothing,
    /// No requirement at all: labels.Everything(), empty, matches everything.
    Everything,
    /// Some requirements, all accepted.
    Requirements,
    /// labels.NewRequirement or the operator switch refused one.
    Error,
}

/// LabelSelectorAsSelector's outcome for `selector` (None: the field is absent or null).
pub fn convert(selector: Option<&Map<String, Value>>) -> Converted {
    let Some(s) = selector else {
        return Converted::Nothing;
    };
    let labels = match_labels(s);
    let reqs = requirements(s);
    if labels.is_empty() && reqs.is_empty() {
        return Converted::Everything;
    }
    // The minor does not matter here: only whether a message comes out.
    let bad_key = |k: &str| !qualified_name(k, 0).is_empty();
    let bad_value = |v: &str| !label_value(v, 0).is_empty();
    if labels.iter().any(|(k, v)| bad_key(k) || bad_value(v)) {
        return Converted::Error;
    }
    for r in &reqs {
        let count_ok = match r.operator {
            "In" | "NotIn" => !r.values.is_empty(),
            "Exists" | "DoesNotExist" => r.values.is_empty(),
            _ => return Converted::Error,
        };
        if !count_ok || bad_key(r.key) || r.values.iter().any(|v| bad_value(v)) {
            return Converted::Error;
        }
    }
    Converted::Requirements
}

/// Whether the selector LabelSelectorAsSelector made (`converted` must not be `Error`) matches
/// `labels`.
pub fn matches(
    selector: Option<&Map<String, Value>>,
    converted: Converted,
    labels: &[(&str, &str)],
) -> bool {
    let get = |k: &str| labels.iter().find(|(lk, _)| *lk == k).map(|(_, v)| *v);
    match (converted, selector) {
        (Converted::Everything, _) => true,
        (Converted::Requirements, Some(s)) => {
            match_labels(s).iter().all(|(k, v)| get(k) == Some(*v))
                && requirements(s).iter().all(|r| match r.operator {
                    "In" => get(r.key).is_some_and(|v| r.values.contains(&v)),
                    "NotIn" => get(r.key).is_none_or(|v| !r.values.contains(&v)),
                    "Exists" => get(r.key).is_some(),
                    "DoesNotExist" => get(r.key).is_none(),
                    _ => false,
                })
        }
        _ => false,
    }
}

/// A `map[string]string` as a field error prints it: JSON from 1.34 (`{"app":"w"}`, `null` for a
/// nil map), Go's `%#v` before (`map[string]string{"app":"w"}`, `map[string]string(nil)`).
pub fn print_string_map(v: Option<&Value>, minor: u32) -> String {
    let Some(map) = v.filter(|m| m.is_object()) else {
        return if Change::FieldErrorJsonValues.at(minor) {
            "null"
        } else {
            "map[string]string(nil)"
        }
        .to_owned();
    };
    if Change::FieldErrorJsonValues.at(minor) {
        return json_string_map(map);
    }
    let inner: Vec<String> = string_map(Some(map))
        .iter()
        .map(|(k, v)| format!("{k:?}:{v:?}"))
        .collect();
    format!("map[string]string{{{}}}", inner.join(", "))
}

/// A `*metav1.LabelSelector` as a field error prints it (see [`print_string_map`]).
pub fn print_selector(s: &Map<String, Value>, minor: u32) -> String {
    if Change::FieldErrorJsonValues.at(minor) {
        // json.Marshal with omitempty: empty maps and lists are left out; the fields in their
        // declared order, a map's keys sorted.
        let mut parts = Vec::new();
        if let Some(m) = s
            .get("matchLabels")
            .filter(|m| m.as_object().is_some_and(|o| !o.is_empty()))
        {
            parts.push(format!("\"matchLabels\":{}", json_string_map(m)));
        }
        if let Some(list) = s
            .get("matchExpressions")
            .and_then(Value::as_array)
            .filter(|a| !a.is_empty())
        {
            let items: Vec<String> = list
                .iter()
                .map(|r| {
                    let mut m = Map::new();
                    m.insert(
                        "key".into(),
                        Value::from(r.get("key").and_then(Value::as_str).unwrap_or("")),
                    );
                    m.insert(
                        "operator".into(),
                        Value::from(r.get("operator").and_then(Value::as_str).unwrap_or("")),
                    );
                    if let Some(vs) = r
                        .get("values")
                        .and_then(Value::as_array)
                        .filter(|a| !a.is_empty())
                    {
                        m.insert("values".into(), Value::Array(vs.clone()));
                    }
                    Value::Object(m).to_string()
                })
                .collect();
            parts.push(format!("\"matchExpressions\":[{}]", items.join(",")));
        }
        return format!("{{{}}}", parts.join(","));
    }
    let labels = print_string_map(s.get("matchLabels"), minor);
    let exprs = match s.get("matchExpressions").and_then(Value::as_array) {
        None => "[]v1.LabelSelectorRequirement(nil)".to_owned(),
        Some(list) => {
            let items: Vec<String> = list
                .iter()
                .map(|r| {
                    let values = match r.get("values").and_then(Value::as_array) {
                        None => "[]string(nil)".to_owned(),
                        Some(vs) => crate::go_strconv::string_slice(
                            &vs.iter()
                                .map(|v| v.as_str().unwrap_or(""))
                                .collect::<Vec<_>>(),
                        ),
                    };
                    format!(
                        "v1.LabelSelectorRequirement{{Key:{:?}, Operator:{:?}, Values:{values}}}",
                        r.get("key").and_then(Value::as_str).unwrap_or(""),
                        r.get("operator").and_then(Value::as_str).unwrap_or(""),
                    )
                })
                .collect();
            format!("[]v1.LabelSelectorRequirement{{{}}}", items.join(", "))
        }
    };
    format!("v1.LabelSelector{{MatchLabels:{labels}, MatchExpressions:{exprs}}}")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn sel(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn conversion_and_matching() {
        assert_eq!(convert(None), Converted::Nothing);
        assert!(!matches(None, Converted::Nothing, &[]));
        let empty = sel(json!({"matchLabels": {}}));
        assert_eq!(convert(Some(&empty)), Converted::Everything);
        let s = sel(json!({"matchLabels": {"app": "w"},
            "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]}]}));
        let c = convert(Some(&s));
        assert_eq!(c, Converted::Requirements);
        assert!(matches(Some(&s), c, &[("app", "w")]));
        assert!(matches(Some(&s), c, &[("app", "w"), ("tier", "web")]));
        assert!(!matches(Some(&s), c, &[("app", "w"), ("tier", "db")]));
        assert!(!matches(Some(&s), c, &[("app", "x")]));
        let bad = sel(json!({"matchExpressions": [{"key": "a", "operator": "Has"}]}));
        assert_eq!(convert(Some(&bad)), Converted::Error);
        let bad = sel(json!({"matchExpressions": [{"key": "a", "operator": "In"}]}));
        assert_eq!(convert(Some(&bad)), Converted::Error);
        let bad = sel(json!({"matchLabels": {"a": "-x"}}));
        assert_eq!(convert(Some(&bad)), Converted::Error);
    }

    #[test]
    fn validation_messages() {
        let s = sel(json!({"matchExpressions": [
            {"key": "a", "operator": "In"},
            {"key": "b", "operator": "Exists", "values": ["x"]},
            {"key": "c", "operator": "Has"}]}));
        let mut out = Findings::default();
        validate(&s, &FieldPath::new("spec").child("selector"), 37, &mut out);
        let msgs: Vec<&str> = out.errors.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            msgs,
            vec![
                "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
                "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                "spec.selector.matchExpressions[2].operator: Invalid value: \"Has\": not a valid selector operator",
            ]
        );
    }

    #[test]
    fn printing_per_minor() {
        let labels = json!({"app": "w", "b": "c"});
        assert_eq!(
            print_string_map(Some(&labels), 34),
            r#"{"app":"w","b":"c"}"#
        );
        assert_eq!(
            print_string_map(Some(&labels), 33),
            r#"map[string]string{"app":"w", "b":"c"}"#
        );
        assert_eq!(print_string_map(None, 33), "map[string]string(nil)");
        assert_eq!(print_string_map(None, 37), "null");
        let s = sel(json!({"matchLabels": {}}));
        assert_eq!(print_selector(&s, 37), "{}");
        assert_eq!(
            print_selector(&s, 31),
            "v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}"
        );
    }
}
