//! ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
//! (admissionregistration.k8s.io/v1), and MutatingAdmissionPolicy and its binding (v1alpha1 from
//! 1.32, v1beta1 from 1.34, v1 from 1.36: one internal type), on create: the defaulting
//! (SetDefaults_ValidatingAdmissionPolicySpec: failurePolicy `Fail`; SetDefaults_MatchResources:
//! matchPolicy `Equivalent`, both selectors `{}`; SetDefaults_Rule: scope `*`), then
//! `ValidateValidatingAdmissionPolicy` / `ValidateValidatingAdmissionPolicyBinding` /
//! `ValidateMutatingAdmissionPolicy` / `ValidateMutatingAdmissionPolicyBinding`
//! (pkg/apis/admissionregistration/validation), then the strategies' additions
//! (pkg/registry/admissionregistration/validatingadmissionpolicy{,binding}): from 1.36 the
//! reserved `.static.k8s.io` name suffix, as for the webhook configurations, and from 1.37, with
//! DeclarativeValidationBeta on, the binding's declarative Required rules for `policyName` and
//! `validationActions`, which take the place of the handwritten ones and come after the other
//! errors. ObjectMeta (a DNS-subdomain name, cluster-scoped) is meta.rs's.
//!
//! Not modelled: the CEL compilation of the expressions (validations, messageExpressions,
//! variables, audit annotations' valueExpressions, mutations' patches, match conditions): cel-go's syntax, type
//! and cost errors, whose messages the `cel` crate cannot reproduce; only the emptiness rules
//! are checked. The strategies' authorization of `paramKind` and `paramRef` (whether the user
//! creating the object may read the parameter resource) is the cluster's: a decision on the
//! requesting user, not a property of the object.

use super::Ctx;
use super::json_read::{list, opt, opt_str, str_of, strings};
use super::names::{
    dns1035_label, dns1123_subdomain_errors, dns1123_subdomain_name, qualified_name,
};
use super::webhook_config::{
    Check, FAILURE_POLICIES, GATE_STATIC, MATCH_POLICIES, STATIC_SUFFIX, match_conditions,
    rule_with_operations, static_message, warning,
};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::versions::Change;
use serde_json::Value;
use std::collections::BTreeSet;

const GATE_DV_BETA: &str = "DeclarativeValidationBeta";
/// sets.String.List() order.
const VALIDATION_ACTIONS: [&str; 3] = ["Audit", "Deny", "Warn"];
/// The StatusReasons a validation may name, sorted.
const REASONS: [&str; 3] = ["Forbidden", "Invalid", "RequestEntityTooLarge"];
/// validateParamRef lists them in this order, not sorted.
const NOT_FOUND_ACTIONS: [&str; 2] = ["Deny", "Allow"];
/// supportedMutatingOperations, sorted.
const MUTATING_OPERATIONS: [&str; 4] = ["*", "CONNECT", "CREATE", "UPDATE"];
const PATCH_TYPES: [&str; 2] = ["ApplyConfiguration", "JSONPatch"];
const REINVOCATION_POLICIES: [&str; 2] = ["IfNeeded", "Never"];
const MAX_AUDIT_ANNOTATIONS: usize = 20;
const MAX_VALUE_EXPRESSION: usize = 5 * 1024;
/// CEL's reserved words, which a variable may not be named.
const CEL_RESERVED: [&str; 21] = [
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

fn name_of(obj: &Value) -> &str {
    obj.get("metadata").map_or("", |m| str_of(m, "name"))
}

/// A ValidatingAdmissionPolicy on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate_policy(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let defaulted = !ctx.skip_defaulting;
    let before = out.errors.len();
    let empty = Value::Object(serde_json::Map::new());
    let spec = opt(obj, "spec").unwrap_or(&empty);
    let sp = FieldPath::new("spec");
    let mut c = Check { minor, out };
    common_spec(spec, &sp, defaulted, false, &mut c);
    let validations = list(spec, "validations");
    let audits = list(spec, "auditAnnotations");
    if validations.is_empty() && audits.is_empty() {
        let msg = "validations or auditAnnotations must contain at least one item";
        c.push(Diagnostic::required(&sp.child("validations"), msg));
        c.push(Diagnostic::required(&sp.child("auditAnnotations"), msg));
    } else {
        for (i, v) in validations.iter().enumerate() {
            validation(v, &sp.child("validations").index(i), &mut c);
        }
        audit_annotations(name_of(obj), audits, &sp.child("auditAnnotations"), &mut c);
    }
    static_suffix(obj, ctx, before, "ValidatingAdmissionPolicy", &mut c);
}

/// What both policy kinds check alike, in their order: failurePolicy, paramKind,
/// matchConstraints (for a mutating policy, also each resource rule's operations: only
/// CREATE, UPDATE, CONNECT or `*`, reported without the rule's index), matchConditions and
/// variables.
fn common_spec(spec: &Value, sp: &FieldPath, defaulted: bool, mutating: bool, c: &mut Check) {
    match opt_str(spec, "failurePolicy") {
        None if !defaulted => c.push(Diagnostic::required(&sp.child("failurePolicy"), "")),
        _ => c.one_of(spec, sp, "failurePolicy", "Fail", &FAILURE_POLICIES),
    }
    if let Some(pk) = opt(spec, "paramKind") {
        param_kind(pk, &sp.child("paramKind"), c);
    }
    let mp = sp.child("matchConstraints");
    match opt(spec, "matchConstraints") {
        None => c.push(Diagnostic::required(&mp, "")),
        Some(mc) => {
            match_resources(mc, &mp, defaulted, c);
            // At least one resource rule, to give the expressions their types.
            if list(mc, "resourceRules").is_empty() {
                c.push(Diagnostic::required(&mp.child("resourceRules"), ""));
            }
            if mutating {
                mutating_operations(mc, &mp, c);
            }
        }
    }
    match_conditions(
        list(spec, "matchConditions"),
        &sp.child("matchConditions"),
        c,
    );
    for (i, v) in list(spec, "variables").iter().enumerate() {
        variable(v, &sp.child("variables").index(i), c);
    }
}

/// A mutating policy mutates only creates and updates (and CONNECT, and `*`): each other
/// operation of a resource rule is NotSupported at `<p>.resourceRules.operations`.
fn mutating_operations(mr: &Value, p: &FieldPath, c: &mut Check) {
    let op = p.child("resourceRules").child("operations");
    for rule in list(mr, "resourceRules") {
        for o in strings(rule, "operations") {
            if !MUTATING_OPERATIONS.contains(&o) {
                c.not_supported(&op, o, &MUTATING_OPERATIONS);
            }
        }
    }
}

/// A MutatingAdmissionPolicy on create (v1alpha1 from 1.32, v1beta1 from 1.34, v1 from 1.36; one
/// internal type and validation), after ObjectMeta, which meta.rs checks.
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate_mutating_policy(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let defaulted = !ctx.skip_defaulting;
    let before = out.errors.len();
    let empty = Value::Object(serde_json::Map::new());
    let spec = opt(obj, "spec").unwrap_or(&empty);
    let sp = FieldPath::new("spec");
    let mut c = Check { minor, out };
    common_spec(spec, &sp, defaulted, true, &mut c);
    let mutations = list(spec, "mutations");
    if mutations.is_empty() {
        c.push(Diagnostic::required(
            &sp.child("mutations"),
            "mutations must contain at least one item",
        ));
    }
    for (i, m) in mutations.iter().enumerate() {
        mutation(m, &sp.child("mutations").index(i), &mut c);
    }
    let rp = sp.child("reinvocationPolicy");
    match str_of(spec, "reinvocationPolicy") {
        "" => c.push(Diagnostic::required(&rp, "")),
        r if !REINVOCATION_POLICIES.contains(&r) => c.not_supported(&rp, r, &REINVOCATION_POLICIES),
        _ => {}
    }
    static_suffix(obj, ctx, before, "MutatingAdmissionPolicy", &mut c);
}

/// validateMutation, less the expressions' compilation: a patchType, and the one patch it names
/// with a non-empty expression, the other absent.
fn mutation(m: &Value, p: &FieldPath, c: &mut Check) {
    let expression = |patch: &Value, pp: &FieldPath, c: &mut Check| {
        if str_of(patch, "expression").trim().is_empty() {
            c.push(Diagnostic::required(&pp.child("expression"), ""));
        }
    };
    // Each patch type, the member it needs and the one it forbids.
    const PATCHES: [(&str, &str, &str); 2] = [
        ("JSONPatch", "jsonPatch", "applyConfiguration"),
        ("ApplyConfiguration", "applyConfiguration", "jsonPatch"),
    ];
    let patch_type = str_of(m, "patchType");
    match PATCHES.iter().find(|(t, _, _)| *t == patch_type) {
        _ if patch_type.is_empty() => c.push(Diagnostic::required(&p.child("patchType"), "")),
        Some((t, own, other)) => {
            match opt(m, own) {
                None => c.push(Diagnostic::required(
                    &p.child(own),
                    format!("must be specified when patchType is {t}"),
                )),
                Some(patch) => expression(patch, &p.child(own), c),
            }
            if opt(m, other).is_some() {
                c.invalid_str(
                    &p.child(other),
                    &format!("{{{other}}}"),
                    format!("must not be specified when patchType is {t}"),
                );
            }
        }
        None => c.not_supported(&p.child("patchType"), patch_type, &PATCH_TYPES),
    }
}

/// A MutatingAdmissionPolicyBinding on create (its versions as the policy's), after ObjectMeta.
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate_mutating_binding(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let defaulted = !ctx.skip_defaulting;
    let before = out.errors.len();
    let empty = Value::Object(serde_json::Map::new());
    let spec = opt(obj, "spec").unwrap_or(&empty);
    let sp = FieldPath::new("spec");
    let mut c = Check { minor, out };
    if let Some(d) = policy_name(spec, &sp, &mut c) {
        c.push(d);
    }
    if let Some(pr) = opt(spec, "paramRef") {
        let v1alpha1 = str_of(obj, "apiVersion") == "admissionregistration.k8s.io/v1alpha1";
        param_ref(pr, &sp.child("paramRef"), v1alpha1 && defaulted, &mut c);
    }
    if let Some(mr) = opt(spec, "matchResources") {
        let mp = sp.child("matchResources");
        match_resources(mr, &mp, defaulted, &mut c);
        mutating_operations(mr, &mp, &mut c);
    }
    static_suffix(obj, ctx, before, "MutatingAdmissionPolicyBinding", &mut c);
}

/// A ValidatingAdmissionPolicyBinding on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate_binding(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let defaulted = !ctx.skip_defaulting;
    let before = out.errors.len();
    let empty = Value::Object(serde_json::Map::new());
    let spec = opt(obj, "spec").unwrap_or(&empty);
    let sp = FieldPath::new("spec");
    // From 1.37, with DeclarativeValidationBeta on, the two Required rules are declarative: the
    // handwritten ones (marked covered) go, the declarative ones come after the other errors.
    let declarative =
        Change::AdmissionPolicyBindingDeclarativeBeta.at(minor) && ctx.gates.enabled(GATE_DV_BETA);
    let mut late = Vec::new();
    let mut c = Check { minor, out };
    if let Some(d) = policy_name(spec, &sp, &mut c) {
        if declarative { late.push(d) } else { c.push(d) }
    }
    if let Some(pr) = opt(spec, "paramRef") {
        param_ref(pr, &sp.child("paramRef"), false, &mut c);
    }
    if let Some(mr) = opt(spec, "matchResources") {
        // 1.31 reports these under `matchResouces` (sic).
        let key = if Change::BindingMatchResourcesPath.at(minor) {
            "matchResources"
        } else {
            "matchResouces"
        };
        match_resources(mr, &sp.child(key), defaulted, &mut c);
    }
    let ap = sp.child("validationActions");
    let actions = strings(spec, "validationActions");
    let mut seen = BTreeSet::new();
    for (i, a) in actions.iter().enumerate() {
        if !VALIDATION_ACTIONS.contains(a) {
            c.not_supported(&ap.index(i), a, &VALIDATION_ACTIONS);
        }
        if !seen.insert(*a) {
            c.push(Diagnostic::duplicate(&ap.index(i), *a));
        }
    }
    if seen.contains("Deny") && seen.contains("Warn") {
        c.invalid_list(
            &ap,
            &actions,
            "[]admissionregistration.ValidationAction",
            "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        );
    }
    if seen.is_empty() {
        if declarative {
            late.push(Diagnostic::required(&ap, ""));
        } else {
            c.push(Diagnostic::required(
                &ap,
                "at least one validation action is required",
            ));
        }
    }
    c.out.errors.extend(late);
    static_suffix(obj, ctx, before, "ValidatingAdmissionPolicyBinding", &mut c);
}

/// A binding's policyName: a DNS subdomain, whose errors are pushed; the Required for an empty
/// one is returned, for the caller to place (the validating binding's is declarative from 1.37).
fn policy_name(spec: &Value, sp: &FieldPath, c: &mut Check) -> Option<Diagnostic> {
    let pp = sp.child("policyName");
    let policy = str_of(spec, "policyName");
    if policy.is_empty() {
        return Some(Diagnostic::required(&pp, ""));
    }
    for m in dns1123_subdomain_name(policy, false) {
        c.invalid_str(&pp, policy, m);
    }
    None
}

/// The strategies' reserved-suffix rule (from 1.36): an error with
/// ManifestBasedAdmissionControlConfig on; with it off, a warning for an object that passed.
fn static_suffix(obj: &Value, ctx: &Ctx, before: usize, kind: &str, c: &mut Check) {
    let name = name_of(obj);
    let reserved = Change::WebhookStaticSuffix.at(c.minor) && name.ends_with(STATIC_SUFFIX);
    if !reserved {
        return;
    }
    let np = FieldPath::new("metadata").child("name");
    if ctx.gates.active(GATE_STATIC) {
        c.invalid_str(&np, name, static_message());
    } else if c.out.errors.len() == before
        && super::meta::passes("admissionregistration.k8s.io", kind, obj, ctx)
    {
        c.push(warning(
            "reserved-name-suffix",
            &np,
            format!("metadata.name: {}", static_message()),
        ));
    }
}

/// validateParamKind: an apiVersion read as a group/version (the group a DNS subdomain, the
/// version a DNS-1035 label) and a kind that, lowercased, is a DNS-1035 label.
fn param_kind(pk: &Value, p: &FieldPath, c: &mut Check) {
    let vp = p.child("apiVersion");
    let api_version = str_of(pk, "apiVersion");
    if api_version.is_empty() {
        c.push(Diagnostic::required(&vp, ""));
    } else if api_version.matches('/').count() > 1 {
        c.invalid_str(
            &vp,
            api_version,
            format!("unexpected GroupVersion string: {api_version}"),
        );
    } else {
        let (group, version) = match api_version.split_once('/') {
            _ if api_version == "/" => ("", ""),
            Some((g, v)) => (g, v),
            None => ("", api_version),
        };
        if !group.is_empty() {
            let errs = dns1123_subdomain_errors(group);
            if !errs.is_empty() {
                c.invalid_str(&vp, group, errs.join(","));
            }
        }
        if version.is_empty() {
            c.invalid_str(&vp, api_version, "version must be specified");
        } else {
            let errs = dns1035_label(version);
            if !errs.is_empty() {
                c.invalid_str(&vp, version, errs.join(","));
            }
        }
    }
    let kp = p.child("kind");
    let kind = str_of(pk, "kind");
    if kind.is_empty() {
        c.push(Diagnostic::required(&kp, ""));
    } else {
        let errs = dns1035_label(&kind.to_lowercase());
        if !errs.is_empty() {
            c.invalid_str(
                &kp,
                kind,
                format!(
                    "may have mixed case, but should otherwise match: {}",
                    errs.join(",")
                ),
            );
        }
    }
}

/// validateMatchResources, on the object as defaulted when `defaulted` (matchPolicy
/// `Equivalent`, both selectors `{}`): selectors checked strictly, each resource rule and
/// excluded rule by validateNamedRuleWithOperations.
fn match_resources(mc: &Value, p: &FieldPath, defaulted: bool, c: &mut Check) {
    match opt_str(mc, "matchPolicy") {
        None if !defaulted => c.push(Diagnostic::required(&p.child("matchPolicy"), "")),
        _ => c.one_of(mc, p, "matchPolicy", "Equivalent", &MATCH_POLICIES),
    }
    for key in ["namespaceSelector", "objectSelector"] {
        match opt(mc, key).and_then(Value::as_object) {
            Some(sel) => super::selector::validate(sel, &p.child(key), c.minor, c.out),
            None if !defaulted => c.push(Diagnostic::required(&p.child(key), "")),
            None => {}
        }
    }
    for key in ["resourceRules", "excludeResourceRules"] {
        for (i, rule) in list(mc, key).iter().enumerate() {
            let rp = p.child(key).index(i);
            let np = rp.child("resourceNames");
            let mut names = BTreeSet::new();
            for (j, n) in strings(rule, "resourceNames").iter().enumerate() {
                for m in super::meta::path_segment(n) {
                    c.invalid_str(&np.index(j), n, m);
                }
                if !names.insert(*n) {
                    c.push(Diagnostic::duplicate(&np.index(j), *n));
                }
            }
            rule_with_operations(rule, &rp, c);
        }
    }
}

/// Whether a variable's name is a CEL identifier (`[_a-zA-Z][_a-zA-Z0-9]*`, not reserved).
fn is_cel_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b == b'_' || b.is_ascii_alphabetic())
        && bytes.all(|b| b == b'_' || b.is_ascii_alphanumeric())
        && !CEL_RESERVED.contains(&name)
}

/// validateVariable, less the expression's compilation.
fn variable(v: &Value, p: &FieldPath, c: &mut Check) {
    let name = str_of(v, "name");
    if name.trim().is_empty() {
        c.push(Diagnostic::required(
            &p.child("name"),
            "name is not specified",
        ));
    } else if !is_cel_identifier(name) {
        let msg = if Change::AdmissionPolicyMessagesShortened.at(c.minor) {
            "must be a valid CEL identifier"
        } else {
            "name is not a valid CEL identifier"
        };
        c.invalid_str(&p.child("name"), name, msg);
    }
    if str_of(v, "expression").trim().is_empty() {
        c.push(Diagnostic::required(
            &p.child("expression"),
            "expression is not specified",
        ));
    }
}

/// validateValidation, less the expressions' compilation.
fn validation(v: &Value, p: &FieldPath, c: &mut Check) {
    if str_of(v, "expression").trim().is_empty() {
        c.push(Diagnostic::required(
            &p.child("expression"),
            "expression is not specified",
        ));
    }
    let me = str_of(v, "messageExpression");
    if !me.is_empty() && me.trim().is_empty() {
        c.invalid_str(
            &p.child("messageExpression"),
            me,
            "must be non-empty if specified",
        );
    }
    let short = Change::AdmissionPolicyMessagesShortened.at(c.minor);
    let message = str_of(v, "message");
    let trimmed = message.trim();
    if !message.is_empty() && trimmed.is_empty() {
        let msg = if short {
            "must be non-empty if specified"
        } else {
            "message must be non-empty if specified"
        };
        c.invalid_str(&p.child("message"), message, msg);
    } else if trimmed.contains(['\n', '\r']) {
        let msg = if short {
            "must not contain line breaks"
        } else {
            "message must not contain line breaks"
        };
        c.invalid_str(&p.child("message"), message, msg);
    }
    if let Some(reason) = opt(v, "reason").map(|r| r.as_str().unwrap_or(""))
        && !REASONS.contains(&reason)
    {
        c.not_supported(&p.child("reason"), reason, &REASONS);
    }
}

/// The audit annotations: at most 20 (the list printed as the minor prints the internal
/// structs), each key making with the policy's name a qualified name, a valueExpression that
/// is not empty and at most 5 KiB, keys unique.
fn audit_annotations(policy: &str, audits: &[Value], p: &FieldPath, c: &mut Check) {
    if audits.len() > MAX_AUDIT_ANNOTATIONS {
        let printed = if Change::FieldErrorJsonValues.at(c.minor) {
            let items: Vec<Value> = audits
                .iter()
                .map(|a| {
                    serde_json::json!({"Key": str_of(a, "key"), "ValueExpression": str_of(a, "valueExpression")})
                })
                .collect();
            super::crd_schema::go::json(&Value::Array(items))
        } else {
            let items: Vec<String> = audits
                .iter()
                .map(|a| {
                    format!(
                        "admissionregistration.AuditAnnotation{{Key:{}, ValueExpression:{}}}",
                        super::crd_schema::go::quote(str_of(a, "key")),
                        super::crd_schema::go::quote(str_of(a, "valueExpression"))
                    )
                })
                .collect();
            format!(
                "[]admissionregistration.AuditAnnotation{{{}}}",
                items.join(", ")
            )
        };
        c.push(Diagnostic::invalid_printed(
            p,
            Value::Array(audits.to_vec()),
            &printed,
            format!("must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations"),
        ));
    }
    let mut keys = BTreeSet::new();
    for (i, a) in audits.iter().enumerate() {
        let ip = p.index(i);
        let key = str_of(a, "key");
        let kp = ip.child("key");
        if policy.is_empty() {
            c.invalid_str(&kp, key, "requires metadata.name be non-empty");
        } else {
            let full = format!("{policy}/{key}");
            for m in qualified_name(&full, c.minor) {
                c.invalid_str(&kp, &full, m);
            }
        }
        let value = str_of(a, "valueExpression").trim();
        let vp = ip.child("valueExpression");
        if value.is_empty() {
            c.push(Diagnostic::required(
                &vp,
                "valueExpression is not specified",
            ));
        } else if value.len() > MAX_VALUE_EXPRESSION {
            c.push(Diagnostic::required(
                &vp,
                format!("must not exceed {MAX_VALUE_EXPRESSION} bytes in length"),
            ));
        }
        if !keys.insert(key) {
            c.push(Diagnostic::duplicate(&kp, key));
        }
    }
}

/// validateParamRef: a name (a path segment) or a selector, not both, and a
/// parameterNotFoundAction of `Deny` or `Allow`.
/// `deny_by_default`: the v1alpha1 defaulting (SetDefaults_ParamRef, that version's alone) has
/// made an absent parameterNotFoundAction `Deny`.
fn param_ref(pr: &Value, p: &FieldPath, deny_by_default: bool, c: &mut Check) {
    const EXCLUSIVE: &str = "name and selector are mutually exclusive";
    let name = str_of(pr, "name");
    let selector = opt(pr, "selector");
    if !name.is_empty() {
        for m in super::meta::path_segment(name) {
            c.invalid_str(&p.child("name"), name, m);
        }
        if selector.is_some() {
            c.push(Diagnostic::forbidden(&p.child("name"), EXCLUSIVE));
        }
    }
    if let Some(sel) = selector {
        if let Some(s) = sel.as_object() {
            super::selector::validate(s, &p.child("selector"), c.minor, c.out);
        }
        if !name.is_empty() {
            c.push(Diagnostic::forbidden(&p.child("selector"), EXCLUSIVE));
        }
    }
    if name.is_empty() && selector.is_none() {
        c.push(Diagnostic::required(
            p,
            "one of name or selector must be specified",
        ));
    }
    let ap = p.child("parameterNotFoundAction");
    match opt_str(pr, "parameterNotFoundAction") {
        None if deny_by_default => {}
        None | Some("") => c.push(Diagnostic::required(&ap, "")),
        Some(a) if !NOT_FOUND_ACTIONS.contains(&a) => c.not_supported(&ap, a, &NOT_FOUND_ACTIONS),
        Some(_) => {}
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    fn errors(policy: bool, obj: &Value, minor: u32, gates: &[(&str, bool)]) -> Vec<String> {
        let c = Ctx::at(minor, gates);
        let mut out = Findings::default();
        if policy {
            validate_policy(obj, &c, &mut out);
        } else {
            validate_binding(obj, &c, &mut out);
        }
        out.errors.iter().map(|d| d.message.clone()).collect()
    }

    fn policy(spec: Value) -> Value {
        json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
               "metadata": {"name": "replica-limit"}, "spec": spec})
    }

    fn binding(spec: Value) -> Value {
        json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
               "metadata": {"name": "replica-limit-binding"}, "spec": spec})
    }

    fn rules() -> Value {
        json!({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
                                  "operations": ["CREATE", "UPDATE"], "resources": ["deployments"]}]})
    }

    #[test]
    fn the_documented_policy_passes() {
        let p = policy(json!({"failurePolicy": "Fail", "matchConstraints": rules(),
            "validations": [{"expression": "object.spec.replicas <= 5"}]}));
        assert!(errors(true, &p, 37, &[]).is_empty());
    }

    #[test]
    fn a_policy_needs_rules_and_validations_or_audit_annotations() {
        let p = policy(json!({"matchConstraints": {}}));
        assert_eq!(
            errors(true, &p, 37, &[]),
            [
                "spec.matchConstraints.resourceRules: Required value",
                "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
                "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
            ]
        );
        assert_eq!(
            errors(
                true,
                &policy(json!({"validations": [{"expression": "true"}]})),
                37,
                &[]
            ),
            ["spec.matchConstraints: Required value"]
        );
    }

    #[test]
    fn param_kinds_variables_messages_and_reasons() {
        let p = policy(json!({"matchConstraints": rules(),
            "paramKind": {"apiVersion": "a/b/c", "kind": "Replica_Limit"},
            "variables": [{"name": "in", "expression": "1"}, {"name": " ", "expression": ""}],
            "validations": [{"expression": "true", "message": "a\nb", "messageExpression": " ", "reason": "Teapot"}]}));
        assert_eq!(
            errors(true, &p, 37, &[]),
            [
                "spec.paramKind.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c",
                "spec.paramKind.kind: Invalid value: \"Replica_Limit\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
                "spec.variables[0].name: Invalid value: \"in\": must be a valid CEL identifier",
                "spec.variables[1].name: Required value: name is not specified",
                "spec.variables[1].expression: Required value: expression is not specified",
                "spec.validations[0].messageExpression: Invalid value: \" \": must be non-empty if specified",
                "spec.validations[0].message: Invalid value: \"a\\nb\": must not contain line breaks",
                "spec.validations[0].reason: Unsupported value: \"Teapot\": supported values: \"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\"",
            ]
        );
        let e = errors(true, &p, 33, &[]);
        assert!(e.contains(&"spec.variables[0].name: Invalid value: \"in\": name is not a valid CEL identifier".to_owned()), "{e:?}");
        assert!(e.contains(&"spec.validations[0].message: Invalid value: \"a\\nb\": message must not contain line breaks".to_owned()), "{e:?}");
    }

    #[test]
    fn audit_annotation_keys_join_the_policy_name() {
        let p = policy(json!({"matchConstraints": rules(),
            "auditAnnotations": [{"key": "high replicas", "valueExpression": "'x'"},
                                 {"key": "high replicas", "valueExpression": " "}]}));
        let e = errors(true, &p, 37, &[]);
        assert!(e[0].starts_with("spec.auditAnnotations[0].key: Invalid value: \"replica-limit/high replicas\": name part must consist of"), "{e:?}");
        assert_eq!(
            e[2],
            "spec.auditAnnotations[1].valueExpression: Required value: valueExpression is not specified"
        );
        assert_eq!(
            e[3],
            "spec.auditAnnotations[1].key: Duplicate value: \"high replicas\""
        );
    }

    #[test]
    fn mutating_policies_need_mutations_a_reinvocation_policy_and_mutating_operations() {
        let c = Ctx::at(37, &[]);
        let mut out = Findings::default();
        let p = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": "sidecar"},
            "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                         "operations": ["CREATE", "DELETE"], "resources": ["pods"]}]},
                     "mutations": [{"patchType": "JSONPatch", "applyConfiguration": {"expression": "Object{}"}},
                                   {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": " "}},
                                   {"patchType": "Merge"}]}});
        validate_mutating_policy(&p, &c, &mut out);
        let e: Vec<&str> = out.errors.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            e,
            [
                "spec.matchConstraints.resourceRules.operations: Unsupported value: \"DELETE\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"UPDATE\"",
                "spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch",
                "spec.mutations[0].applyConfiguration: Invalid value: \"{applyConfiguration}\": must not be specified when patchType is JSONPatch",
                "spec.mutations[1].applyConfiguration.expression: Required value",
                "spec.mutations[2].patchType: Unsupported value: \"Merge\": supported values: \"ApplyConfiguration\", \"JSONPatch\"",
                "spec.reinvocationPolicy: Required value",
            ]
        );
        let mut out = Findings::default();
        let b = json!({"apiVersion": "admissionregistration.k8s.io/v1beta1", "kind": "MutatingAdmissionPolicyBinding",
            "metadata": {"name": "sidecar"}, "spec": {"matchResources": {"resourceRules": [
                {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["*"], "resources": ["pods"]}]}}});
        validate_mutating_binding(&b, &c, &mut out);
        let e: Vec<&str> = out.errors.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(e, ["spec.policyName: Required value"]);
    }

    #[test]
    fn bindings_actions_param_refs_and_the_declarative_rules() {
        let b = binding(json!({"policyName": "replica-limit",
            "paramRef": {"name": "x", "selector": {}, "parameterNotFoundAction": "Ignore"},
            "validationActions": ["Deny", "Warn", "Deny", "Log"]}));
        assert_eq!(
            errors(false, &b, 37, &[]),
            [
                "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
                "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
                "spec.paramRef.parameterNotFoundAction: Unsupported value: \"Ignore\": supported values: \"Deny\", \"Allow\"",
                "spec.validationActions[2]: Duplicate value: \"Deny\"",
                "spec.validationActions[3]: Unsupported value: \"Log\": supported values: \"Audit\", \"Deny\", \"Warn\"",
                "spec.validationActions: Invalid value: [\"Deny\",\"Warn\",\"Deny\",\"Log\"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
            ]
        );
        let empty = binding(json!({"matchResources": {"matchPolicy": "Fuzzy"}}));
        assert_eq!(
            errors(false, &empty, 37, &[("DeclarativeValidationBeta", true)]),
            [
                "spec.matchResources.matchPolicy: Unsupported value: \"Fuzzy\": supported values: \"Equivalent\", \"Exact\"",
                "spec.policyName: Required value",
                "spec.validationActions: Required value",
            ]
        );
        assert_eq!(
            errors(false, &empty, 37, &[("DeclarativeValidationBeta", false)]),
            [
                "spec.policyName: Required value",
                "spec.matchResources.matchPolicy: Unsupported value: \"Fuzzy\": supported values: \"Equivalent\", \"Exact\"",
                "spec.validationActions: Required value: at least one validation action is required",
            ]
        );
        assert_eq!(
            errors(false, &empty, 31, &[])[1],
            "spec.matchResouces.matchPolicy: Unsupported value: \"Fuzzy\": supported values: \"Equivalent\", \"Exact\""
        );
    }
}
