//! RBAC (rbac.authorization.k8s.io/v1) on create: Role, ClusterRole, RoleBinding and
//! ClusterRoleBinding. The v1 defaulting (SetDefaults_RoleBinding, SetDefaults_ClusterRoleBinding,
//! SetDefaults_Subject: an empty `roleRef.apiGroup` and an empty subject `apiGroup` filled in),
//! then the strategies' Validate (pkg/apis/rbac/validation: ValidateRole, ValidateClusterRole,
//! ValidateRoleBinding, ValidateClusterRoleBinding), whose text is the same in every minor
//! 1.31..1.37. PrepareForCreate changes nothing. ObjectMeta (ValidateRBACName: a path segment
//! name) is meta.rs's.
//!
//! From 1.37 the four strategies also run declarative validation (rest.ValidateCreate); with
//! DeclarativeValidationBeta on, its beta rules replace the three handwritten errors they cover
//! (an empty `verbs`, `roleRef.name` and a subject's `name`, all Required), and the replacements
//! come after the other errors. Only the verbs one reads differently: no detail. In 1.35 and 1.36
//! those rules are alpha and never shown (pkg/apis/rbac/v1/zz_generated.validations.go).

use super::Ctx;
use super::names::dns1123_subdomain_name;
use super::pod_dns::invalid_list;
use super::selector::{self, Converted};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::versions::Change;
use serde_json::{Map, Value};

/// rbac.GroupName.
const GROUP: &str = "rbac.authorization.k8s.io";
const GATE_DV_BETA: &str = "DeclarativeValidationBeta";

/// The four kinds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Role,
    ClusterRole,
    RoleBinding,
    ClusterRoleBinding,
}

impl Kind {
    pub(super) fn of(kind: &str) -> Option<Kind> {
        Some(match kind {
            "Role" => Kind::Role,
            "ClusterRole" => Kind::ClusterRole,
            "RoleBinding" => Kind::RoleBinding,
            "ClusterRoleBinding" => Kind::ClusterRoleBinding,
            _ => return None,
        })
    }
    fn namespaced(self) -> bool {
        matches!(self, Kind::Role | Kind::RoleBinding)
    }
}

/// The errors of one create, with the ones declarative validation may take over kept apart.
struct Errors<'a> {
    out: &'a mut Findings,
    /// DeclarativeValidationBeta enforces the beta rules (1.37 with the gate on).
    dv_beta: bool,
    /// The declarative errors, in the order the generated code visits the fields.
    declarative: Vec<Diagnostic>,
}

impl Errors<'_> {
    /// A handwritten Required error that a beta declarative rule covers: `detail` is the
    /// handwritten one; the declarative error has none.
    fn covered_required(&mut self, p: &FieldPath, detail: &str) {
        if self.dv_beta {
            self.declarative.push(Diagnostic::required(p, ""));
        } else {
            self.out.push(Diagnostic::required(p, detail));
        }
    }
    fn push(&mut self, d: Diagnostic) {
        self.out.push(d);
    }
}

fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(|s| s.as_str().unwrap_or("")).collect())
        .unwrap_or_default()
}

fn str_of<'a>(v: Option<&'a Value>, key: &str) -> &'a str {
    v.and_then(|o| o.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn list(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// An RBAC object on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(kind: Kind, obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let mut errs = Errors {
        out,
        dv_beta: Change::RbacDeclarativeBeta.at(minor) && ctx.gates.enabled(GATE_DV_BETA),
        declarative: Vec::new(),
    };
    match kind {
        Kind::Role | Kind::ClusterRole => {
            let rp = FieldPath::new("rules");
            for (i, rule) in list(obj.get("rules")).iter().enumerate() {
                policy_rule(rule, kind.namespaced(), &rp.index(i), minor, &mut errs);
            }
            if kind == Kind::ClusterRole {
                aggregation_rule(obj.get("aggregationRule"), minor, &mut errs);
            }
        }
        Kind::RoleBinding | Kind::ClusterRoleBinding => binding(kind, obj, ctx, &mut errs),
    }
    let Errors {
        out, declarative, ..
    } = errs;
    for d in declarative {
        out.push(d);
    }
}

/// ValidatePolicyRule.
fn policy_rule(rule: &Value, namespaced: bool, p: &FieldPath, minor: u32, errs: &mut Errors) {
    let verbs = strings(rule.get("verbs"));
    if verbs.is_empty() {
        errs.covered_required(&p.child("verbs"), "verbs must contain at least one value");
    }
    let urls = strings(rule.get("nonResourceURLs"));
    let groups = strings(rule.get("apiGroups"));
    let resources = strings(rule.get("resources"));
    if !urls.is_empty() {
        let up = p.child("nonResourceURLs");
        if namespaced {
            errs.push(invalid_list(
                &up,
                &urls,
                minor,
                "namespaced rules cannot apply to non-resource URLs".to_owned(),
            ));
        }
        let names = strings(rule.get("resourceNames"));
        if !groups.is_empty() || !resources.is_empty() || !names.is_empty() {
            errs.push(invalid_list(
                &up,
                &urls,
                minor,
                "rules cannot apply to both regular resources and non-resource URLs".to_owned(),
            ));
        }
        return;
    }
    if groups.is_empty() {
        errs.push(Diagnostic::required(
            &p.child("apiGroups"),
            "resource rules must supply at least one api group",
        ));
    }
    if resources.is_empty() {
        errs.push(Diagnostic::required(
            &p.child("resources"),
            "resource rules must supply at least one resource",
        ));
    }
}

/// ValidateClusterRole's `aggregationRule` (label selectors as a create checks them).
fn aggregation_rule(rule: Option<&Value>, minor: u32, errs: &mut Errors) {
    let Some(rule) = rule.filter(|r| !r.is_null()) else {
        return;
    };
    let sp = FieldPath::new("aggregationRule").child("clusterRoleSelectors");
    let selectors = list(rule.get("clusterRoleSelectors"));
    if selectors.is_empty() {
        errs.push(Diagnostic::required(
            &sp,
            "at least one clusterRoleSelector required if aggregationRule is non-nil",
        ));
    }
    let empty = Map::new();
    for (i, s) in selectors.iter().enumerate() {
        let p = sp.index(i);
        // A null entry decodes as an empty selector.
        let s = s.as_object().unwrap_or(&empty);
        selector::validate(s, &p, minor, errs.out);
        if selector::convert(Some(s)) == Converted::Error {
            // The value is the nil labels.Selector LabelSelectorAsSelector returns: the string
            // "null" (quoted) before apimachinery v0.34, JSON null from it.
            let printed = if Change::FieldErrorJsonValues.at(minor) {
                "null"
            } else {
                "\"null\""
            };
            errs.push(Diagnostic::invalid_printed(
                &p,
                Value::Null,
                printed,
                "invalid label selector.",
            ));
        }
    }
}

/// ValidateRoleBinding and ValidateClusterRoleBinding, after the v1 defaulting.
fn binding(kind: Kind, obj: &Value, ctx: &Ctx, errs: &mut Errors) {
    let defaulted = !ctx.skip_defaulting;
    let role_ref = obj.get("roleRef");
    let rp = FieldPath::new("roleRef");
    let mut api_group = str_of(role_ref, "apiGroup");
    if api_group.is_empty() && defaulted {
        api_group = GROUP;
    }
    if api_group != GROUP {
        errs.push(Diagnostic::not_supported(
            &rp.child("apiGroup"),
            api_group,
            &[GROUP],
        ));
    }
    let ref_kind = str_of(role_ref, "kind");
    let kinds: &[&str] = if kind == Kind::RoleBinding {
        &["Role", "ClusterRole"]
    } else {
        &["ClusterRole"]
    };
    if !kinds.contains(&ref_kind) {
        errs.push(Diagnostic::not_supported(
            &rp.child("kind"),
            ref_kind,
            kinds,
        ));
    }
    let name = str_of(role_ref, "name");
    let np = rp.child("name");
    // The generated code visits `subjects` before `roleRef`: a declarative error for the name
    // comes after the subjects' ones.
    let defer_name = name.is_empty() && errs.dv_beta;
    if name.is_empty() {
        if !defer_name {
            errs.covered_required(&np, "");
        }
    } else {
        for msg in super::meta::path_segment(name) {
            errs.push(Diagnostic::invalid(&np, name, msg));
        }
    }
    let sp = FieldPath::new("subjects");
    for (i, s) in list(obj.get("subjects")).iter().enumerate() {
        subject(s, kind.namespaced(), defaulted, &sp.index(i), errs);
    }
    if defer_name {
        errs.covered_required(&np, "");
    }
}

/// ValidateRoleBindingSubject.
fn subject(s: &Value, namespaced: bool, defaulted: bool, p: &FieldPath, errs: &mut Errors) {
    let s = Some(s);
    let name = str_of(s, "name");
    let kind = str_of(s, "kind");
    let mut api_group = str_of(s, "apiGroup");
    if api_group.is_empty() && defaulted && matches!(kind, "User" | "Group") {
        api_group = GROUP;
    }
    if name.is_empty() {
        errs.covered_required(&p.child("name"), "");
    }
    match kind {
        "ServiceAccount" => {
            if !name.is_empty() {
                for msg in dns1123_subdomain_name(name, false) {
                    errs.push(Diagnostic::invalid(&p.child("name"), name, msg));
                }
            }
            if !api_group.is_empty() {
                errs.push(Diagnostic::not_supported(
                    &p.child("apiGroup"),
                    api_group,
                    &[""],
                ));
            }
            if !namespaced && str_of(s, "namespace").is_empty() {
                errs.push(Diagnostic::required(&p.child("namespace"), ""));
            }
        }
        "User" | "Group" => {
            if api_group != GROUP {
                errs.push(Diagnostic::not_supported(
                    &p.child("apiGroup"),
                    api_group,
                    &[GROUP],
                ));
            }
        }
        other => errs.push(Diagnostic::not_supported(
            &p.child("kind"),
            other,
            &["ServiceAccount", "User", "Group"],
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx(minor: u32, gates: &[(&str, bool)]) -> Ctx {
        Ctx::at(minor, gates)
    }

    fn run(kind: &str, obj: Value, c: &Ctx) -> Vec<String> {
        let mut out = Findings::default();
        validate(Kind::of(kind).unwrap_or(Kind::Role), &obj, c, &mut out);
        out.errors.iter().map(|d| d.message.clone()).collect()
    }

    #[test]
    fn policy_rules_of_roles_and_cluster_roles() {
        let rules = json!({"rules": [
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]},
            {},
            {"nonResourceURLs": ["/healthz"], "verbs": ["get"], "resources": ["pods"]}
        ]});
        assert_eq!(
            run("Role", rules.clone(), &ctx(31, &[])),
            [
                "rules[1].verbs: Required value: verbs must contain at least one value",
                "rules[1].apiGroups: Required value: resource rules must supply at least one api group",
                "rules[1].resources: Required value: resource rules must supply at least one resource",
                "rules[2].nonResourceURLs: Invalid value: []string{\"/healthz\"}: namespaced rules cannot apply to non-resource URLs",
                "rules[2].nonResourceURLs: Invalid value: []string{\"/healthz\"}: rules cannot apply to both regular resources and non-resource URLs",
            ]
        );
        // A ClusterRole may name URLs; 1.34 prints the list as JSON.
        assert_eq!(
            run("ClusterRole", rules, &ctx(34, &[])),
            [
                "rules[1].verbs: Required value: verbs must contain at least one value",
                "rules[1].apiGroups: Required value: resource rules must supply at least one api group",
                "rules[1].resources: Required value: resource rules must supply at least one resource",
                "rules[2].nonResourceURLs: Invalid value: [\"/healthz\"]: rules cannot apply to both regular resources and non-resource URLs",
            ]
        );
    }

    #[test]
    fn declarative_validation_takes_the_covered_errors_at_1_37() {
        let role = json!({"rules": [{"apiGroups": [""], "verbs": []}]});
        assert_eq!(
            run("Role", role.clone(), &ctx(37, &[])),
            [
                "rules[0].resources: Required value: resource rules must supply at least one resource",
                "rules[0].verbs: Required value",
            ]
        );
        assert_eq!(
            run("Role", role.clone(), &ctx(37, &[(GATE_DV_BETA, false)])),
            [
                "rules[0].verbs: Required value: verbs must contain at least one value",
                "rules[0].resources: Required value: resource rules must supply at least one resource",
            ]
        );
        // 1.36's rules are alpha: the handwritten text, whatever the gate.
        assert_eq!(
            run("Role", role, &ctx(36, &[(GATE_DV_BETA, true)]))
                .first()
                .map(String::as_str),
            Some("rules[0].verbs: Required value: verbs must contain at least one value")
        );
        let binding = json!({"roleRef": {"kind": "Role"}, "subjects": [{"kind": "Group"}]});
        assert_eq!(
            run("RoleBinding", binding.clone(), &ctx(37, &[])),
            [
                "subjects[0].name: Required value",
                "roleRef.name: Required value"
            ]
        );
        assert_eq!(
            run("RoleBinding", binding, &ctx(36, &[])),
            [
                "roleRef.name: Required value",
                "subjects[0].name: Required value"
            ]
        );
    }

    #[test]
    fn aggregation_rules() {
        let cr = json!({"aggregationRule": {"clusterRoleSelectors": []}});
        assert_eq!(
            run("ClusterRole", cr, &ctx(37, &[])),
            [
                "aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil"
            ]
        );
        let cr = json!({"aggregationRule": {"clusterRoleSelectors": [
            {"matchLabels": {"rbac.example.com/aggregate-to-view": "true"}},
            {"matchExpressions": [{"key": "a", "operator": "Within"}]}
        ]}});
        let want = |v: &str| {
            vec![
                "aggregationRule.clusterRoleSelectors[1].matchExpressions[0].operator: Invalid value: \"Within\": not a valid selector operator".to_owned(),
                format!("aggregationRule.clusterRoleSelectors[1]: Invalid value: {v}: invalid label selector."),
            ]
        };
        assert_eq!(
            run("ClusterRole", cr.clone(), &ctx(33, &[])),
            want("\"null\"")
        );
        assert_eq!(run("ClusterRole", cr, &ctx(34, &[])), want("null"));
        assert!(run("ClusterRole", json!({}), &ctx(37, &[])).is_empty());
    }

    #[test]
    fn bindings_after_the_v1_defaults() {
        let ok = json!({
            "roleRef": {"kind": "ClusterRole", "name": "view"},
            "subjects": [
                {"kind": "ServiceAccount", "name": "default", "namespace": "ns"},
                {"kind": "User", "name": "jane"},
                {"kind": "Group", "name": "system:authenticated"}
            ]
        });
        assert!(run("RoleBinding", ok.clone(), &ctx(37, &[])).is_empty());
        assert!(run("ClusterRoleBinding", ok.clone(), &ctx(31, &[])).is_empty());
        let mut given = ctx(37, &[]);
        given.skip_defaulting = true;
        assert_eq!(
            run("ClusterRoleBinding", ok, &given),
            [
                "roleRef.apiGroup: Unsupported value: \"\": supported values: \"rbac.authorization.k8s.io\"",
                "subjects[1].apiGroup: Unsupported value: \"\": supported values: \"rbac.authorization.k8s.io\"",
                "subjects[2].apiGroup: Unsupported value: \"\": supported values: \"rbac.authorization.k8s.io\"",
            ]
        );
        let bad = json!({
            "roleRef": {"apiGroup": "rbac", "kind": "Role", "name": "a/b"},
            "subjects": [
                {"kind": "ServiceAccount", "name": "Bad_Name", "apiGroup": "v1"},
                {"kind": "Robot", "name": "r2"},
                {"kind": "User", "name": "u", "apiGroup": "example.com"}
            ]
        });
        assert_eq!(
            run("ClusterRoleBinding", bad, &ctx(37, &[])),
            [
                "roleRef.apiGroup: Unsupported value: \"rbac\": supported values: \"rbac.authorization.k8s.io\"",
                "roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"",
                "roleRef.name: Invalid value: \"a/b\": may not contain '/'",
                "subjects[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "subjects[0].apiGroup: Unsupported value: \"v1\": supported values: \"\"",
                "subjects[0].namespace: Required value",
                "subjects[1].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", \"User\", \"Group\"",
                "subjects[2].apiGroup: Unsupported value: \"example.com\": supported values: \"rbac.authorization.k8s.io\"",
            ]
        );
    }
}
