//! ValidatingWebhookConfiguration and MutatingWebhookConfiguration (admissionregistration.k8s.io/v1)
//! on create: the v1 defaulting (SetDefaults_ValidatingWebhook / _MutatingWebhook, _Rule,
//! _ServiceReference), then `ValidateValidatingWebhookConfiguration` /
//! `ValidateMutatingWebhookConfiguration` (pkg/apis/admissionregistration/validation) with the
//! create options: side effects `None` or `NoneOnDryRun`, a recognised admissionReviewVersion
//! and unique webhook names required, match conditions checked, no params in them, invalid
//! selector label values refused. Then the strategy's additions: from 1.36 the reserved
//! `.static.k8s.io` name suffix (an error with ManifestBasedAdmissionControlConfig on, a warning
//! with it off) and from 1.37 the warnings for rules naming a resource admission webhooks never
//! see (ExcludeAdmissionWebhookVirtualResources). ObjectMeta (a DNS-subdomain name,
//! cluster-scoped) is meta.rs's.
//!
//! Not modelled: the CEL compilation of a match condition's expression (a syntax, type or cost
//! error of cel-go, whose messages the `cel` crate cannot reproduce); only its emptiness is
//! checked. The declarative validation the 1.37 strategy runs has only alpha ObjectMeta rules
//! for these kinds, which no default gate shows.

use super::Ctx;
use super::crd_schema::go::{json, quote, quote_bytes};
use super::json_read::{list, opt, opt_str, str_of, strings};
use super::names::{dns1035_label, dns1123_subdomain_errors, qualified_name};
use crate::diag::{Diagnostic, FieldPath, Findings, Origin};
use crate::versions::Change;
use serde_json::Value;
use std::collections::BTreeSet;

/// Which of the two configurations: they differ in the mutating webhook's reinvocationPolicy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flavour {
    Validating,
    Mutating,
}

// Each list as `sets.String.List()` prints it: sorted.
const OPERATIONS: [&str; 5] = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const SCOPES: [&str; 3] = ["*", "Cluster", "Namespaced"];
pub(super) const FAILURE_POLICIES: [&str; 2] = ["Fail", "Ignore"];
pub(super) const MATCH_POLICIES: [&str; 2] = ["Equivalent", "Exact"];
const NO_SIDE_EFFECTS: [&str; 2] = ["None", "NoneOnDryRun"];
const REINVOCATION_POLICIES: [&str; 2] = ["IfNeeded", "Never"];
const REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];
const MAX_MATCH_CONDITIONS: usize = 64;
pub(super) const STATIC_SUFFIX: &str = ".static.k8s.io";
pub(super) const GATE_STATIC: &str = "ManifestBasedAdmissionControlConfig";
const GATE_EXCLUDED: &str = "ExcludeAdmissionWebhookVirtualResources";
const URL_FORM: &str = "; desired format: https://host[/path]";

/// pkg/kubeapiserver/admission/exclusion's excluded resources (1.37), as group and resource.
const EXCLUDED: [(&str, &str); 6] = [
    ("authentication.k8s.io", "selfsubjectreviews"),
    ("authentication.k8s.io", "tokenreviews"),
    ("authorization.k8s.io", "localsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectrulesreviews"),
    ("authorization.k8s.io", "subjectaccessreviews"),
];

/// The context every check reads.
pub(super) struct Check<'a> {
    pub(super) minor: u32,
    pub(super) out: &'a mut Findings,
}

impl Check<'_> {
    pub(super) fn push(&mut self, d: Diagnostic) {
        self.out.push(d);
    }

    /// field.Invalid of a Go `string`: printed with `%q`.
    pub(super) fn invalid_str(&mut self, p: &FieldPath, value: &str, msg: impl Into<String>) {
        self.push(Diagnostic::invalid_printed(
            p,
            Value::from(value),
            &quote(value),
            msg,
        ));
    }

    /// field.Invalid of a string list of Go type `ty`: `%#v` before 1.34, JSON from.
    pub(super) fn invalid_list(&mut self, p: &FieldPath, items: &[&str], ty: &str, msg: &str) {
        let value = Value::from(items.to_vec());
        let printed = if Change::FieldErrorJsonValues.at(self.minor) {
            json(&value)
        } else {
            let quoted: Vec<String> = items.iter().map(|s| quote(s)).collect();
            format!("{ty}{{{}}}", quoted.join(", "))
        };
        self.push(Diagnostic::invalid_printed(p, value, &printed, msg));
    }

    /// field.NotSupported of a named string type (not a Go `string`, so `%#v` before 1.34 and
    /// JSON from: the two differ only in escapes).
    pub(super) fn not_supported(&mut self, p: &FieldPath, value: &str, supported: &[&str]) {
        let printed = if Change::FieldErrorJsonValues.at(self.minor) {
            json(&Value::from(value))
        } else {
            quote(value)
        };
        self.push(Diagnostic::not_supported(p, value, supported).with_printed_value(&printed));
    }

    /// A `*T` enum member after the defaulting: absent or null takes `default`.
    pub(super) fn one_of(&mut self, hook: &Value, p: &FieldPath, key: &str, default: &str, allowed: &[&str]) {
        let v = opt_str(hook, key).unwrap_or(default);
        if !allowed.contains(&v) {
            self.not_supported(&p.child(key), v, allowed);
        }
    }
}

/// A webhook configuration on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(flavour: Flavour, obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let before = out.errors.len();
    let mut c = Check { minor, out };
    let wp = FieldPath::new("webhooks");
    let hooks = list(obj, "webhooks");
    let mut names = BTreeSet::new();
    for (i, hook) in hooks.iter().enumerate() {
        let hp = wp.index(i);
        webhook(flavour, hook, &hp, &mut c);
        review_versions(hook, &hp.child("admissionReviewVersions"), &mut c);
        let name = str_of(hook, "name");
        if !name.is_empty() && !names.insert(name) {
            c.push(Diagnostic::duplicate(&hp.child("name"), name));
        }
    }
    let name = obj.get("metadata").map_or("", |m| str_of(m, "name"));
    let reserved = Change::WebhookStaticSuffix.at(minor) && name.ends_with(STATIC_SUFFIX);
    if reserved && ctx.gates.active(GATE_STATIC) {
        c.invalid_str(
            &FieldPath::new("metadata").child("name"),
            name,
            static_message(),
        );
    }
    if out.errors.len() != before {
        return;
    }
    // rest.BeforeCreate asks for the warnings only of an object that passed, metadata too.
    let kind = match flavour {
        Flavour::Validating => "ValidatingWebhookConfiguration",
        Flavour::Mutating => "MutatingWebhookConfiguration",
    };
    if !super::meta::passes("admissionregistration.k8s.io", kind, obj, ctx) {
        return;
    }
    if reserved && !ctx.gates.active(GATE_STATIC) {
        out.push(warning(
            "reserved-name-suffix",
            &FieldPath::new("metadata").child("name"),
            format!("metadata.name: {}", static_message()),
        ));
    }
    if Change::WebhookExcludedResourceWarnings.at(minor) && ctx.gates.active(GATE_EXCLUDED) {
        excluded_rule_warnings(hooks, out);
    }
}

pub(super) fn static_message() -> String {
    format!(
        "names ending with {} are reserved for static manifest-based configurations and cannot be managed via the API",
        quote(STATIC_SUFFIX)
    )
}

pub(super) fn warning(code: &str, p: &FieldPath, message: String) -> Diagnostic {
    Diagnostic::lint(code, p, message).with_origin(Origin::KubeApiserver)
}

/// validateValidatingWebhook / validateMutatingWebhook.
fn webhook(flavour: Flavour, hook: &Value, hp: &FieldPath, c: &mut Check) {
    fully_qualified_name(str_of(hook, "name"), &hp.child("name"), c);
    for (j, rule) in list(hook, "rules").iter().enumerate() {
        rule_with_operations(rule, &hp.child("rules").index(j), c);
    }
    c.one_of(hook, hp, "failurePolicy", "Fail", &FAILURE_POLICIES);
    c.one_of(hook, hp, "matchPolicy", "Equivalent", &MATCH_POLICIES);
    match opt_str(hook, "sideEffects") {
        None => c.push(Diagnostic::required(
            &hp.child("sideEffects"),
            format!("must specify one of {}", NO_SIDE_EFFECTS.join(", ")),
        )),
        Some(v) if !NO_SIDE_EFFECTS.contains(&v) => {
            c.not_supported(&hp.child("sideEffects"), v, &NO_SIDE_EFFECTS);
        }
        Some(_) => {}
    }
    let timeout = opt(hook, "timeoutSeconds")
        .and_then(Value::as_i64)
        .unwrap_or(10);
    if !(1..=30).contains(&timeout) {
        c.push(Diagnostic::invalid(
            &hp.child("timeoutSeconds"),
            timeout,
            "the timeout value must be between 1 and 30 seconds",
        ));
    }
    // Both selectors default to {} when absent, so both are always checked.
    for key in ["namespaceSelector", "objectSelector"] {
        if let Some(sel) = opt(hook, key).and_then(Value::as_object) {
            super::selector::validate(sel, &hp.child(key), c.minor, c.out);
        }
    }
    if flavour == Flavour::Mutating {
        c.one_of(
            hook,
            hp,
            "reinvocationPolicy",
            "Never",
            &REINVOCATION_POLICIES,
        );
    }
    client_config(hook, &hp.child("clientConfig"), c);
    match_conditions(
        list(hook, "matchConditions"),
        &hp.child("matchConditions"),
        c,
    );
}

/// utilvalidation.IsFullyQualifiedName: one error at most.
fn fully_qualified_name(name: &str, p: &FieldPath, c: &mut Check) {
    if name.is_empty() {
        c.push(Diagnostic::required(p, ""));
        return;
    }
    let errs = dns1123_subdomain_errors(name);
    if !errs.is_empty() {
        c.invalid_str(p, name, errs.join(","));
    } else if name.split('.').count() < 3 {
        c.invalid_str(
            p,
            name,
            "should be a domain with at least three segments separated by dots",
        );
    }
}

/// validateRuleWithOperations, then validateRule with subresources allowed.
pub(super) fn rule_with_operations(rule: &Value, rp: &FieldPath, c: &mut Check) {
    let op = rp.child("operations");
    let ops = wildcard_list(
        rule,
        "operations",
        &op,
        "[]admissionregistration.OperationType",
        "operations",
        c,
    );
    for (k, o) in ops.iter().enumerate() {
        if !OPERATIONS.contains(o) {
            c.not_supported(&op.index(k), o, &OPERATIONS);
        }
    }
    wildcard_list(
        rule,
        "apiGroups",
        &rp.child("apiGroups"),
        "[]string",
        "API groups",
        c,
    );
    let vp = rp.child("apiVersions");
    let versions = wildcard_list(rule, "apiVersions", &vp, "[]string", "API versions", c);
    for (k, v) in versions.iter().enumerate() {
        if v.is_empty() {
            c.push(Diagnostic::required(&vp.index(k), ""));
        }
    }
    resources(&strings(rule, "resources"), &rp.child("resources"), c);
    // SetDefaults_Rule: an absent scope is "*".
    if let Some(scope) = opt_str(rule, "scope")
        && !SCOPES.contains(&scope)
    {
        c.not_supported(&rp.child("scope"), scope, &SCOPES);
    }
}

/// One of validateRule's lists: Required when empty, and `*` only alone (`go_type` as the error
/// prints the list). Returns the list for the checks of its items.
fn wildcard_list<'a>(
    rule: &'a Value,
    key: &str,
    p: &FieldPath,
    go_type: &str,
    what: &str,
    c: &mut Check,
) -> Vec<&'a str> {
    let items = strings(rule, key);
    if items.is_empty() {
        c.push(Diagnostic::required(p, ""));
    }
    if items.len() > 1 && items.contains(&"*") {
        c.invalid_list(
            p,
            &items,
            go_type,
            &format!("if '*' is present, must not specify other {what}"),
        );
    }
    items
}

/// validateResources: `resource[/subresource]` with the wildcards' exclusions.
fn resources(res: &[&str], p: &FieldPath, c: &mut Check) {
    if res.is_empty() {
        c.push(Diagnostic::required(p, ""));
    }
    let mut wildcard_sub: BTreeSet<&str> = BTreeSet::new();
    let mut wildcard_res: BTreeSet<&str> = BTreeSet::new();
    let mut double_wildcard = false;
    let mut single_wildcard = false;
    // Upstream keeps only the last bare resource's verdict: `x` then `*` leaves it false.
    let mut bare_resource = false;
    for (i, rs) in res.iter().enumerate() {
        if rs.is_empty() {
            c.push(Diagnostic::required(&p.index(i), ""));
            continue;
        }
        double_wildcard |= *rs == "*/*";
        single_wildcard |= *rs == "*";
        let Some((r, sub)) = rs.split_once('/') else {
            bare_resource = *rs != "*";
            continue;
        };
        if wildcard_sub.contains(r) {
            c.invalid_str(
                &p.index(i),
                rs,
                format!("if '{r}/*' is present, must not specify {rs}"),
            );
        }
        if wildcard_res.contains(sub) {
            c.invalid_str(
                &p.index(i),
                rs,
                format!("if '*/{sub}' is present, must not specify {rs}"),
            );
        }
        if sub == "*" {
            wildcard_sub.insert(r);
        }
        if r == "*" {
            wildcard_res.insert(sub);
        }
    }
    if res.len() > 1 && double_wildcard {
        c.invalid_list(
            p,
            res,
            "[]string",
            "if '*/*' is present, must not specify other resources",
        );
    }
    if single_wildcard && bare_resource {
        c.invalid_list(
            p,
            res,
            "[]string",
            "if '*' is present, must not specify other resources without subresources",
        );
    }
}

/// validateAdmissionReviewVersions with a recognised version required.
fn review_versions(hook: &Value, p: &FieldPath, c: &mut Check) {
    let versions = strings(hook, "admissionReviewVersions");
    if versions.is_empty() {
        c.push(Diagnostic::required(
            p,
            format!("must specify one of {}", REVIEW_VERSIONS.join(", ")),
        ));
        return;
    }
    review_version_list(&versions, p, c);
}

/// A non-empty list of review versions (admission or conversion: the same rules): no
/// repeats, each a DNS-1035 label, one of them a version the API server speaks.
pub(super) fn review_version_list(versions: &[&str], p: &FieldPath, c: &mut Check) {
    let mut seen = BTreeSet::new();
    let mut accepted = false;
    for (i, v) in versions.iter().enumerate() {
        if !seen.insert(*v) {
            c.invalid_str(&p.index(i), v, "duplicate version");
            continue;
        }
        for msg in dns1035_label(v) {
            c.invalid_str(&p.index(i), v, msg);
        }
        accepted |= REVIEW_VERSIONS.contains(v);
    }
    if !accepted {
        c.invalid_list(
            p,
            versions,
            "[]string",
            &format!(
                "must include at least one of {}",
                REVIEW_VERSIONS.join(", ")
            ),
        );
    }
}

/// The clientConfig: a URL (ValidateWebhookURL, https forced) or a service
/// (ValidateWebhookService), exactly one.
fn client_config(hook: &Value, p: &FieldPath, c: &mut Check) {
    let cc = opt(hook, "clientConfig").unwrap_or(&Value::Null);
    let url = opt_str(cc, "url");
    let service = opt(cc, "service");
    match (url, service) {
        (Some(u), None) => webhook_url(u, &p.child("url"), c),
        (None, Some(s)) => webhook_service(s, &p.child("service"), c),
        _ => c.push(Diagnostic::required(
            p,
            "exactly one of url or service is required",
        )),
    }
}

pub(super) fn webhook_url(raw: &str, p: &FieldPath, c: &mut Check) {
    let u = match super::go_url::parse(raw) {
        Ok(u) => u,
        Err(e) => {
            c.push(Diagnostic::required(
                p,
                format!("url must be a valid URL: {e}{URL_FORM}"),
            ));
            return;
        }
    };
    if u.scheme != "https" {
        c.invalid_str(
            p,
            &u.scheme,
            format!("'https' is the only allowed URL scheme{URL_FORM}"),
        );
    }
    if !u.has_host {
        c.invalid_str(p, "", format!("host must be specified{URL_FORM}"));
    }
    if let Some(user) = &u.user {
        c.invalid_str(p, user, "user information is not permitted in the URL");
    }
    if !u.fragment.is_empty() {
        let lossy = String::from_utf8_lossy(&u.fragment).into_owned();
        let printed = quote_bytes(&u.fragment);
        c.push(Diagnostic::invalid_printed(
            p,
            Value::from(lossy),
            &printed,
            "fragments are not permitted in the URL",
        ));
    }
    if !u.raw_query.is_empty() {
        c.invalid_str(
            p,
            &u.raw_query,
            "query parameters are not permitted in the URL",
        );
    }
}

/// ValidateWebhookService. Upstream's caller passes the service's name where the function takes
/// the namespace and the other way round: an empty namespace is reported at `name`, an empty
/// name at `namespace` (and before 1.34 with the other's wording).
pub(super) fn webhook_service(svc: &Value, p: &FieldPath, c: &mut Check) {
    let (name, namespace) = (str_of(svc, "name"), str_of(svc, "namespace"));
    let worded = !Change::WebhookServiceRequiredBare.at(c.minor);
    if namespace.is_empty() {
        let detail = if worded {
            "service name is required"
        } else {
            ""
        };
        c.push(Diagnostic::required(&p.child("name"), detail));
    }
    if name.is_empty() {
        let detail = if worded {
            "service namespace is required"
        } else {
            ""
        };
        c.push(Diagnostic::required(&p.child("namespace"), detail));
    }
    // SetDefaults_ServiceReference: port 443.
    let port = opt(svc, "port").and_then(Value::as_i64).unwrap_or(443);
    if !(1..=65535).contains(&port) {
        c.push(Diagnostic::invalid(
            &p.child("port"),
            port,
            "port is not valid: must be between 1 and 65535, inclusive",
        ));
    }
    let Some(path) = opt_str(svc, "path") else {
        return;
    };
    service_path(path, &p.child("path"), c);
}

fn service_path(path: &str, pp: &FieldPath, c: &mut Check) {
    if path.is_empty() || path == "/" {
        return;
    }
    if path == "//" {
        c.invalid_str(pp, path, "segment[0] may not be empty");
        return;
    }
    if !path.starts_with('/') {
        c.invalid_str(pp, path, "must start with a '/'");
    }
    // Upstream drops the first byte whether or not it is the `/` (a byte, so a first character
    // wider than one leaves a remnant that is not UTF-8), then one trailing `/`.
    let inner = path.as_bytes().get(1..).unwrap_or_default();
    let inner = inner.strip_suffix(b"/").unwrap_or(inner);
    for (i, step) in inner.split(|&b| b == b'/').enumerate() {
        if step.is_empty() {
            c.invalid_str(pp, path, format!("segment[{i}] may not be empty"));
            continue;
        }
        // Bytes that are not UTF-8 fail the subdomain pattern; a stand-in of the same length
        // that fails it too gives the same messages.
        let msgs = match std::str::from_utf8(step) {
            Ok(s) => dns1123_subdomain_errors(s),
            Err(_) => dns1123_subdomain_errors(&"A".repeat(step.len())),
        };
        for msg in msgs {
            c.invalid_str(pp, path, format!("segment[{i}]: {msg}"));
        }
    }
}

/// validateMatchConditions: at most 64, each with a non-empty expression and a qualified name,
/// names unique. The expression's CEL compilation is not modelled (see the module doc).
pub(super) fn match_conditions(conds: &[Value], p: &FieldPath, c: &mut Check) {
    if conds.len() > MAX_MATCH_CONDITIONS {
        c.push(Diagnostic::too_many(p, conds.len(), MAX_MATCH_CONDITIONS));
    }
    let mut names = BTreeSet::new();
    for (i, cond) in conds.iter().enumerate() {
        let cp = p.index(i);
        if str_of(cond, "expression").trim().is_empty() {
            c.push(Diagnostic::required(&cp.child("expression"), ""));
        }
        let name = str_of(cond, "name");
        if name.is_empty() {
            c.push(Diagnostic::required(&cp.child("name"), ""));
        } else {
            for msg in qualified_name(name, c.minor) {
                c.invalid_str(&cp.child("name"), name, msg);
            }
            if !names.insert(name) {
                c.push(Diagnostic::duplicate(&cp.child("name"), name));
            }
        }
    }
}

/// WarningsForValidatingWebhookRules / …Mutating…: each rule naming an excluded resource
/// explicitly (no `*` in its groups or resources), each group/resource once.
fn excluded_rule_warnings(hooks: &[Value], out: &mut Findings) {
    let wp = FieldPath::new("webhooks");
    for (i, hook) in hooks.iter().enumerate() {
        let rules = wp.index(i).child("rules");
        for (j, rule) in list(hook, "rules").iter().enumerate() {
            let groups = strings(rule, "apiGroups");
            let resources = strings(rule, "resources");
            if groups.contains(&"*") || resources.contains(&"*") {
                continue;
            }
            let mut seen = BTreeSet::new();
            for g in &groups {
                for r in &resources {
                    if EXCLUDED.contains(&(*g, *r)) && seen.insert((*g, *r)) {
                        let rp = rules.index(j);
                        out.push(warning(
                            "excluded-admission-resource",
                            &rp,
                            format!(
                                "{}: {r}.{g} is excluded from admission webhooks; this rule will have no effect",
                                rp.as_str()
                            ),
                        ));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(flavour: Flavour, obj: &Value, minor: u32, gates: &[(&str, bool)]) -> Findings {
        let c = Ctx::at(minor, gates);
        let mut out = Findings::default();
        validate(flavour, obj, &c, &mut out);
        out
    }

    fn messages(v: &[Diagnostic]) -> Vec<String> {
        v.iter().map(|d| d.message.clone()).collect()
    }

    fn hook(extra: Value) -> Value {
        let mut h = json!({"name": "check.example.com", "sideEffects": "None",
            "admissionReviewVersions": ["v1"],
            "clientConfig": {"service": {"name": "hook", "namespace": "system"}},
            "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                "resources": ["pods"]}]});
        if let (Some(o), Some(e)) = (h.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                o.insert(k.clone(), v.clone());
            }
        }
        h
    }

    fn config(name: &str, hooks: Vec<Value>) -> Value {
        json!({"apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration", "metadata": {"name": name},
            "webhooks": hooks})
    }

    fn errors(hooks: Vec<Value>, minor: u32) -> Vec<String> {
        messages(&run(Flavour::Validating, &config("c", hooks), minor, &[]).errors)
    }

    #[test]
    fn a_plain_configuration_passes_with_the_defaults() {
        let out = run(
            Flavour::Mutating,
            &config("c", vec![hook(json!({}))]),
            37,
            &[],
        );
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    }

    #[test]
    fn names_policies_and_the_required_members() {
        let e = errors(
            vec![
                hook(
                    json!({"name": "two.parts", "failurePolicy": "fail", "matchPolicy": "",
                    "timeoutSeconds": 0, "reinvocationPolicy": "Sometimes"}),
                ),
                hook(json!({"name": "Bad_Name", "sideEffects": "Some",
                    "admissionReviewVersions": ["v2", "v2", "V3"]})),
                hook(json!({"name": "", "sideEffects": null, "admissionReviewVersions": []})),
                hook(json!({"name": "two.parts"})),
            ],
            37,
        );
        assert_eq!(
            e,
            [
                "webhooks[0].name: Invalid value: \"two.parts\": should be a domain with at least three segments separated by dots",
                "webhooks[0].failurePolicy: Unsupported value: \"fail\": supported values: \"Fail\", \"Ignore\"",
                "webhooks[0].matchPolicy: Unsupported value: \"\": supported values: \"Equivalent\", \"Exact\"",
                "webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds",
                "webhooks[1].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "webhooks[1].sideEffects: Unsupported value: \"Some\": supported values: \"None\", \"NoneOnDryRun\"",
                "webhooks[1].admissionReviewVersions[1]: Invalid value: \"v2\": duplicate version",
                "webhooks[1].admissionReviewVersions[2]: Invalid value: \"V3\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
                "webhooks[1].admissionReviewVersions: Invalid value: [\"v2\",\"v2\",\"V3\"]: must include at least one of v1, v1beta1",
                "webhooks[2].name: Required value",
                "webhooks[2].sideEffects: Required value: must specify one of None, NoneOnDryRun",
                "webhooks[2].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
                "webhooks[3].name: Invalid value: \"two.parts\": should be a domain with at least three segments separated by dots",
                "webhooks[3].name: Duplicate value: \"two.parts\"",
            ]
        );
        // The reinvocationPolicy is the mutating webhook's alone.
        let m = run(
            Flavour::Mutating,
            &config("c", vec![hook(json!({"reinvocationPolicy": "Sometimes"}))]),
            31,
            &[],
        );
        assert_eq!(
            messages(&m.errors),
            [
                "webhooks[0].reinvocationPolicy: Unsupported value: \"Sometimes\": supported values: \"IfNeeded\", \"Never\""
            ]
        );
    }

    #[test]
    fn rules_with_wildcards_and_subresources() {
        let rule = json!({"operations": ["*", "CREATE", "PATCH"], "apiGroups": ["*", "apps"],
            "apiVersions": ["v1", ""], "scope": "Global",
            "resources": ["pods/*", "pods/log", "*/status", "deployments/status", "*", "x", ""]});
        let e = errors(vec![hook(json!({"rules": [rule.clone()]}))], 37);
        let r = "webhooks[0].rules[0]";
        assert_eq!(
            e,
            [
                format!(
                    "{r}.operations: Invalid value: [\"*\",\"CREATE\",\"PATCH\"]: if '*' is present, must not specify other operations"
                ),
                format!(
                    "{r}.operations[2]: Unsupported value: \"PATCH\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\""
                ),
                format!(
                    "{r}.apiGroups: Invalid value: [\"*\",\"apps\"]: if '*' is present, must not specify other API groups"
                ),
                format!("{r}.apiVersions[1]: Required value"),
                format!(
                    "{r}.resources[1]: Invalid value: \"pods/log\": if 'pods/*' is present, must not specify pods/log"
                ),
                format!(
                    "{r}.resources[3]: Invalid value: \"deployments/status\": if '*/status' is present, must not specify deployments/status"
                ),
                format!("{r}.resources[6]: Required value"),
                format!(
                    "{r}.resources: Invalid value: [\"pods/*\",\"pods/log\",\"*/status\",\"deployments/status\",\"*\",\"x\",\"\"]: if '*' is present, must not specify other resources without subresources"
                ),
                format!(
                    "{r}.scope: Unsupported value: \"Global\": supported values: \"*\", \"Cluster\", \"Namespaced\""
                ),
            ]
        );
        // Before 1.34 a list prints as Go's %#v of its type.
        let old = errors(vec![hook(json!({"rules": [rule]}))], 33);
        assert!(old.contains(&format!("{r}.operations: Invalid value: []admissionregistration.OperationType{{\"*\", \"CREATE\", \"PATCH\"}}: if '*' is present, must not specify other operations")), "{old:?}");
        assert!(old.contains(&format!("{r}.apiGroups: Invalid value: []string{{\"*\", \"apps\"}}: if '*' is present, must not specify other API groups")), "{old:?}");
        // `*/*` beside anything else; only the last bare resource counts against `*`.
        let e = errors(
            vec![hook(
                json!({"rules": [{"operations": ["CREATE"], "apiGroups": [""],
                "apiVersions": ["v1"], "resources": ["*/*", "x", "*"]}]}),
            )],
            37,
        );
        assert_eq!(
            e,
            [format!(
                "{r}.resources: Invalid value: [\"*/*\",\"x\",\"*\"]: if '*/*' is present, must not specify other resources"
            )]
        );
        let e = errors(
            vec![hook(json!({"rules": [{"operations": [], "apiGroups": [],
                "apiVersions": [], "resources": []}]}))],
            37,
        );
        assert_eq!(
            e,
            [
                format!("{r}.operations: Required value"),
                format!("{r}.apiGroups: Required value"),
                format!("{r}.apiVersions: Required value"),
                format!("{r}.resources: Required value"),
            ]
        );
    }

    #[test]
    fn client_config_url_and_the_swapped_service_fields() {
        let cc = |n: u32, v: Value| {
            hook(json!({"name": format!("h{n}.example.com"), "clientConfig": v}))
        };
        let e = errors(
            vec![
                cc(0, json!({})),
                cc(1, json!({"url": "http://u:p@h/x?q=1#frag"})),
                cc(2, json!({"url": "https://h:80:1/"})),
                cc(
                    3,
                    json!({"service": {"name": "", "namespace": "", "port": 0,
                    "path": "bad/Seg//"}}),
                ),
            ],
            37,
        );
        let f = "; desired format: https://host[/path]";
        assert_eq!(
            e,
            [
                "webhooks[0].clientConfig: Required value: exactly one of url or service is required".to_owned(),
                format!("webhooks[1].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme{f}"),
                "webhooks[1].clientConfig.url: Invalid value: \"u:p\": user information is not permitted in the URL".to_owned(),
                "webhooks[1].clientConfig.url: Invalid value: \"frag\": fragments are not permitted in the URL".to_owned(),
                "webhooks[1].clientConfig.url: Invalid value: \"q=1\": query parameters are not permitted in the URL".to_owned(),
                format!("webhooks[2].clientConfig.url: Required value: url must be a valid URL: parse \"https://h:80:1/\": invalid port \":80:1\" after host{f}"),
                "webhooks[3].clientConfig.service.name: Required value".to_owned(),
                "webhooks[3].clientConfig.service.namespace: Required value".to_owned(),
                "webhooks[3].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive".to_owned(),
                "webhooks[3].clientConfig.service.path: Invalid value: \"bad/Seg//\": must start with a '/'".to_owned(),
                "webhooks[3].clientConfig.service.path: Invalid value: \"bad/Seg//\": segment[1]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_owned(),
                "webhooks[3].clientConfig.service.path: Invalid value: \"bad/Seg//\": segment[2] may not be empty".to_owned(),
            ]
        );
        // Upstream drops the first byte, `/` or not: "ad", "Seg" and "" are the segments above.
        // An empty namespace is reported at `name` (upstream swaps the two), with the wording
        // of the other field before 1.34.
        let e = errors(
            vec![cc(0, json!({"service": {"name": "hook", "namespace": ""}}))],
            33,
        );
        assert_eq!(
            e,
            ["webhooks[0].clientConfig.service.name: Required value: service name is required"]
        );
        let e = errors(
            vec![cc(
                0,
                json!({"service": {"name": "", "namespace": "system"}}),
            )],
            31,
        );
        assert_eq!(
            e,
            [
                "webhooks[0].clientConfig.service.namespace: Required value: service namespace is required"
            ]
        );
        let e = errors(vec![cc(0, json!({"url": "https://h/", "service": {}}))], 34);
        assert_eq!(
            e,
            ["webhooks[0].clientConfig: Required value: exactly one of url or service is required"]
        );
    }

    #[test]
    fn match_conditions() {
        let mut conds: Vec<Value> = (0..65)
            .map(|i| json!({"name": format!("c{i}"), "expression": "true"}))
            .collect();
        conds.push(json!({"name": "c1", "expression": "  \n"}));
        conds.push(json!({"name": "", "expression": "true"}));
        conds.push(json!({"name": "a/b/c", "expression": "true"}));
        let e = errors(vec![hook(json!({ "matchConditions": conds }))], 37);
        let p = "webhooks[0].matchConditions";
        assert_eq!(
            e,
            [
                format!("{p}: Too many: 68: must have at most 64 items"),
                format!("{p}[65].expression: Required value"),
                format!("{p}[65].name: Duplicate value: \"c1\""),
                format!("{p}[66].name: Required value"),
                format!(
                    "{p}[67].name: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
                ),
            ]
        );
    }

    #[test]
    fn the_static_suffix_from_1_36() {
        let obj = config("x.static.k8s.io", vec![hook(json!({}))]);
        let msg = "names ending with \".static.k8s.io\" are reserved for static manifest-based configurations and cannot be managed via the API";
        let out = run(Flavour::Validating, &obj, 37, &[]);
        assert_eq!(
            messages(&out.errors),
            [format!(
                "metadata.name: Invalid value: \"x.static.k8s.io\": {msg}"
            )]
        );
        let out = run(Flavour::Validating, &obj, 36, &[]);
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert_eq!(messages(&out.warnings), [format!("metadata.name: {msg}")]);
        let out = run(Flavour::Mutating, &obj, 36, &[(GATE_STATIC, true)]);
        assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
        let out = run(Flavour::Validating, &obj, 35, &[]);
        assert!(out.errors.is_empty() && out.warnings.is_empty());
    }

    #[test]
    fn excluded_resources_warn_from_1_37() {
        let rule = json!({"operations": ["CREATE"],
            "apiGroups": ["authorization.k8s.io", "authentication.k8s.io"], "apiVersions": ["v1"],
            "resources": ["subjectaccessreviews", "tokenreviews", "tokenreviews"]});
        let obj = config("c", vec![hook(json!({ "rules": [rule] }))]);
        let out = run(Flavour::Validating, &obj, 37, &[]);
        let r = "webhooks[0].rules[0]";
        assert_eq!(
            messages(&out.warnings),
            [
                format!(
                    "{r}: subjectaccessreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect"
                ),
                format!(
                    "{r}: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect"
                ),
            ]
        );
        assert!(
            run(Flavour::Validating, &obj, 37, &[(GATE_EXCLUDED, false)])
                .warnings
                .is_empty()
        );
        assert!(run(Flavour::Validating, &obj, 36, &[]).warnings.is_empty());
    }
}
