//! Pod and PodSpec validation for the restart scope (kube-apiserver), plus restartkit's own lints
//! on container restart rules.
//!
//! Upstream: `pkg/apis/core/v1/defaults.go` (SetDefaults_PodSpec), `pkg/api/pod/util.go`
//! (GetValidationOptionsFromPodSpecAndMeta, dropDisabledPodFields / dropContainerRestartRules) and
//! `pkg/apis/core/validation/validation.go` (ValidatePodSpec, validateContainers,
//! validateInitContainers, validateInitContainerRestartPolicy, validateContainerRestartPolicy,
//! validateEphemeralContainers, validateRestartPolicy, ValidatePodCreate). Only the checks that
//! bear on restart and failure behaviour are made.

use super::Ctx;
use super::pod_resources::List::{Ephemeral, Init, Regular};
use crate::api::core::{ACTION_RESTART, ACTION_RESTART_ALL, OP_IN, OP_NOT_IN, is_sidecar};
use crate::api::{Container, ContainerRestartRule, Pod, PodSpec};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::gate_names::{GATE_RESTART_ALL, GATE_RULES};
use crate::versions::Change;

/// KEP-753's gate: off, a create drops init containers' restartPolicy (settable in 1.31 and 1.32).
const GATE_SIDECARS: &str = "SidecarContainers";
use rustc_hash::FxHashSet;
use serde_json::Value;
use std::collections::BTreeSet;

const POD_RESTART_POLICIES: [&str; 3] = ["Always", "OnFailure", "Never"];
/// sets.List order (sorted) of the container restart policies.
const CONTAINER_RESTART_POLICIES: [&str; 3] = ["Always", "Never", "OnFailure"];
const OPERATORS: [&str; 2] = [OP_IN, OP_NOT_IN];
const MAX_RULES: usize = 20;
const MAX_VALUES: usize = 255;

/// SetDefaults_PodSpec, as far as restart behaviour depends on it: restartPolicy `Always` when
/// unset or empty, terminationGracePeriodSeconds 30 when unset.
pub fn default_pod_spec(spec: &mut PodSpec) {
    if spec.restart_policy.as_deref().is_none_or(str::is_empty) {
        spec.restart_policy = Some("Always".to_owned());
    }
    if spec.termination_grace_period_seconds.is_none() {
        spec.termination_grace_period_seconds = Some(30);
    }
}

/// PodValidationOptions that matter here. On create there is no old Pod, so each is the gate.
#[derive(Debug, Clone, Copy)]
struct Opts {
    allow_rules: bool,
    allow_all: bool,
    /// The Kubernetes minor: validateContainerRestartPolicy changed in 1.35 and 1.36.
    minor: u32,
}

/// What a create drops from the containers' restart fields (pkg/api/pod/util.go
/// dropDisabledPodFields): with SidecarContainers off (settable in 1.31 and 1.32 only) every init
/// container's restartPolicy; from 1.34, with ContainerRestartRules off, the KEP-5307 fields
/// (dropContainerRestartRules: regular and ephemeral containers' restartPolicy and every
/// container's rules, but a sidecar's restartPolicy Always). Before 1.34 those fields do not
/// exist, and a regular container's restartPolicy is refused by validation instead. Returns the
/// spec to validate, when anything was dropped, with one warning per dropped field.
fn drop_disabled(
    spec: &PodSpec,
    path: &FieldPath,
    ctx: &Ctx,
    out: &mut Findings,
) -> Option<PodSpec> {
    let drop_sidecars = !ctx.gates.enabled(GATE_SIDECARS)
        && spec
            .init_containers
            .iter()
            .any(|c| c.restart_policy.is_some());
    let drop_rules =
        Change::RestartRules.at(ctx.gates.version.minor) && !ctx.gates.enabled(GATE_RULES);
    if !drop_sidecars && !drop_rules {
        return None;
    }
    let mut s = spec.clone();
    let note = |gate: &str| {
        format!(
            "dropped on create: the {gate} feature gate is off, so the API server clears this field"
        )
    };
    let lists: [(&str, &mut Vec<Container>); 3] = [
        ("initContainers", &mut s.init_containers),
        ("containers", &mut s.containers),
        ("ephemeralContainers", &mut s.ephemeral_containers),
    ];
    for (name, list) in lists {
        for (i, c) in list.iter_mut().enumerate() {
            let p = path.child(name).index(i);
            let init = name == "initContainers";
            let keep_policy = init && is_sidecar(c) && !drop_sidecars;
            let gate = if init && drop_sidecars {
                GATE_SIDECARS
            } else {
                GATE_RULES
            };
            if c.restart_policy.is_some() && !keep_policy && (drop_rules || (init && drop_sidecars))
            {
                out.push(Diagnostic::lint(
                    "field-dropped",
                    &p.child("restartPolicy"),
                    format!("{}: {}", p.child("restartPolicy"), note(gate)),
                ));
                c.restart_policy = None;
            }
            if drop_rules && c.restart_policy_rules.is_some() {
                out.push(Diagnostic::lint(
                    "field-dropped",
                    &p.child("restartPolicyRules"),
                    format!("{}: {}", p.child("restartPolicyRules"), note(GATE_RULES)),
                ));
                c.restart_policy_rules = None;
            }
        }
    }
    Some(s)
}

/// validateContainerRestartPolicy: a container's restartPolicy and restartPolicyRules.
fn validate_container_restart_policy(c: &Container, p: &FieldPath, opts: Opts, out: &mut Findings) {
    let rules = c.rules();
    let policy_path = p.child("restartPolicy");
    match c.restart_policy.as_deref() {
        None if rules.is_empty() => return,
        None => out.push(Diagnostic::required(
            &policy_path,
            "must specify restartPolicy when restart rules are used",
        )),
        Some(v) if !CONTAINER_RESTART_POLICIES.contains(&v) => {
            out.push(Diagnostic::not_supported(
                &policy_path,
                v,
                &CONTAINER_RESTART_POLICIES,
            ));
        }
        Some(_) => {}
    }
    let rules_path = p.child("restartPolicyRules");
    // Up to 1.35 the limits are `field.TooLong` errors, `field.TooMany` from 1.36.
    let over = |path: &FieldPath, n: usize, max: usize| {
        if !Change::RestartRuleLimitsTooMany.at(opts.minor) {
            Diagnostic::too_long(path, Value::Null, max)
        } else {
            Diagnostic::too_many(path, n, max)
        }
    };
    if rules.len() > MAX_RULES {
        out.push(over(&rules_path, rules.len(), MAX_RULES));
    }
    let allowed: &[&str] = if opts.allow_all {
        &[ACTION_RESTART, ACTION_RESTART_ALL]
    } else {
        &[ACTION_RESTART]
    };
    for (j, r) in rules.iter().enumerate() {
        let rp = rules_path.index(j);
        if !allowed.contains(&r.action.as_str()) {
            out.push(Diagnostic::not_supported(
                &rp.child("action"),
                r.action.as_str(),
                allowed,
            ));
        }
        match &r.exit_codes {
            Some(ec) => {
                let ep = rp.child("exitCodes");
                if !OPERATORS.contains(&ec.operator.as_str()) {
                    out.push(Diagnostic::not_supported(
                        &ep.child("operator"),
                        ec.operator.as_str(),
                        &OPERATORS,
                    ));
                }
                if ec.values.len() > MAX_VALUES {
                    out.push(over(&ep.child("values"), ec.values.len(), MAX_VALUES));
                }
            }
            None => out.push(Diagnostic::required(
                &rp.child("exitCodes"),
                "must be specified",
            )),
        }
    }
}

/// validateInitContainerRestartPolicy.
fn validate_init_restart_policy(c: &Container, p: &FieldPath, opts: Opts, out: &mut Findings) {
    let Some(policy) = c.restart_policy.as_deref() else {
        // 1.34 says nothing of an init container's rules without a restartPolicy.
        if !c.rules().is_empty() && Change::RestartRulesInUse.at(opts.minor) {
            out.push(Diagnostic::required(
                &p.child("restartPolicy"),
                "must specify restartPolicy when restart rules are used",
            ));
        }
        return;
    };
    if opts.allow_rules {
        if policy == "Always" {
            if opts.allow_all {
                validate_container_restart_policy(c, p, opts, out);
            } else if !c.rules().is_empty() {
                out.push(Diagnostic::forbidden(
                    &p.child("restartPolicyRules"),
                    "restartPolicyRules are not allowed for init containers with restart policy Always",
                ));
            }
        } else {
            validate_container_restart_policy(c, p, opts, out);
        }
    } else if policy != "Always" {
        out.push(Diagnostic::not_supported(
            &p.child("restartPolicy"),
            policy,
            &["Always"],
        ));
    }
}

fn other_set(c: &Container, key: &str) -> bool {
    c.other.get(key).is_some_and(|v| !v.is_null())
}

/// ValidatePodSpec, restart and failure scope. `path` is the path of the PodSpec (`spec`, or
/// `spec.template.spec` in a Job).
pub fn validate_pod_spec(spec: &PodSpec, path: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    validate_pod_spec_of(spec, None, false, path, ctx, out);
}

/// validate_pod_spec, `pod_name` being the Pod's own name (ValidatePodSpec's podMeta; none for a
/// template) and `mirror` whether that metadata has the mirror-Pod annotation.
fn validate_pod_spec_of(
    spec: &PodSpec,
    pod_name: Option<&str>,
    mirror: bool,
    path: &FieldPath,
    ctx: &Ctx,
    out: &mut Findings,
) {
    let opts = Opts {
        allow_rules: ctx.gates.enabled(GATE_RULES),
        allow_all: ctx.gates.enabled(GATE_RESTART_ALL),
        minor: ctx.gates.version.minor,
    };
    let dropped = if ctx.skip_defaulting {
        None
    } else {
        drop_disabled(spec, path, ctx, out)
    };
    let spec = dropped.as_ref().unwrap_or(spec);
    let vols = super::pod_volumes::validate_volumes(spec, pod_name, path, ctx, out);
    let probes = super::pod_probes::Env::new(spec, ctx);
    let resources = super::pod_resources::Env::new(spec, pod_name.is_some(), ctx);

    if spec.termination_grace_period_seconds.is_none() {
        out.push(Diagnostic::required(
            &path.child("terminationGracePeriodSeconds"),
            "",
        ));
    }

    // Regular containers.
    let cpath = path.child("containers");
    if spec.containers.is_empty() {
        out.push(Diagnostic::required(&cpath, ""));
    }
    // Fx rather than SipHash: the keys are the object's own names, and these sets live for one
    // call (SipHash's hashing and table growth were about a tenth of a Pod validation).
    let mut names: FxHashSet<&str> =
        FxHashSet::with_capacity_and_hasher(spec.containers.len(), Default::default());
    for (i, c) in spec.containers.iter().enumerate() {
        let p = cpath.index(i);
        if c.name.is_empty() {
            out.push(Diagnostic::required(&p.child("name"), ""));
        }
        super::container::common(c, &p, !ctx.skip_defaulting, out);
        super::pod_volumes::container(c, &p, &vols, false, out);
        super::pod_probes::validate_container(c, &p, &probes, out);
        super::pod_resources::container(c, &p, Regular, &resources, out);
        if !names.insert(c.name.as_str()) {
            out.push(Diagnostic::duplicate(&p.child("name"), c.name.as_str()));
        }
        if opts.allow_rules && ctx.future_rules && !c.rules().is_empty() {
            crate::proposals::rules::validate_container(c, &p, false, opts.allow_all, out);
        } else if opts.allow_rules {
            validate_container_restart_policy(c, &p, opts, out);
        } else if c.restart_policy.is_some() {
            out.push(Diagnostic::forbidden(
                &p.child("restartPolicy"),
                "may not be set for non-init containers",
            ));
        }
    }

    super::container::host_port_conflicts(&spec.containers, &cpath, !ctx.skip_defaulting, out);

    // Init containers.
    let ipath = path.child("initContainers");
    for (i, c) in spec.init_containers.iter().enumerate() {
        let p = ipath.index(i);
        if c.name.is_empty() {
            out.push(Diagnostic::required(&p.child("name"), ""));
        }
        super::container::common(c, &p, !ctx.skip_defaulting, out);
        super::pod_volumes::container(c, &p, &vols, false, out);
        super::container::host_port_conflicts([c], &ipath, !ctx.skip_defaulting, out);
        let sidecar = is_sidecar(c);
        super::pod_resources::container(c, &p, Init { sidecar }, &resources, out);
        if opts.allow_rules && ctx.future_rules && !c.rules().is_empty() {
            crate::proposals::rules::validate_container(c, &p, true, opts.allow_all, out);
        } else {
            validate_init_restart_policy(c, &p, opts, out);
        }
        if names.contains(c.name.as_str()) {
            out.push(Diagnostic::duplicate(&p.child("name"), c.name.as_str()));
        } else if !c.name.is_empty() {
            names.insert(c.name.as_str());
        }
        super::pod_probes::validate_init_container(c, &p, is_sidecar(c), &probes, out);
    }

    // Ephemeral containers: restart fields are not on the allow-list.
    let epath = path.child("ephemeralContainers");
    for (i, c) in spec.ephemeral_containers.iter().enumerate() {
        let p = epath.index(i);
        super::pod_volumes::container(c, &p, &vols, true, out);
        super::pod_resources::container(c, &p, Ephemeral, &resources, out);
        let detail = "cannot be set for an Ephemeral Container";
        if c.restart_policy.is_some() {
            out.push(Diagnostic::forbidden(&p.child("restartPolicy"), detail));
        }
        // Upstream compares with the zero value: an empty list that was sent is still "set".
        if c.restart_policy_rules.is_some() {
            out.push(Diagnostic::forbidden(
                &p.child("restartPolicyRules"),
                detail,
            ));
        }
        if c.lifecycle.as_ref().is_some_and(|v| !v.is_null()) {
            out.push(Diagnostic::forbidden(&p.child("lifecycle"), detail));
        }
        for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
            if other_set(c, probe) {
                out.push(Diagnostic::forbidden(&p.child(probe), detail));
            }
        }
    }

    // validateRestartPolicy.
    let rp = path.child("restartPolicy");
    match spec.restart_policy.as_deref() {
        None | Some("") => out.push(Diagnostic::required(&rp, "")),
        Some("AlwaysPod") if ctx.always_pod => {}
        Some(v) if !POD_RESTART_POLICIES.contains(&v) => {
            out.push(Diagnostic::not_supported(&rp, v, &POD_RESTART_POLICIES))
        }
        Some(_) => {}
    }

    if let Some(ads) = spec.active_deadline_seconds
        && !(1..=i64::from(i32::MAX)).contains(&ads)
    {
        out.push(Diagnostic::invalid(
            &path.child("activeDeadlineSeconds"),
            ads,
            format!("must be between 1 and {}, inclusive", i32::MAX),
        ));
    }

    super::pod_level::pod_spec(spec, path, &resources, mirror, ctx, out);
    super::pod_scheduling::validate(spec, path, ctx, out);
    // A Pod's PodSpec is at `spec`; templates' are deeper (opts.ResourceIsPod).
    super::pod_dns::validate(spec, path, ctx, path.as_str() == "spec", out);
    super::pod_security::validate(spec, path, ctx, out);

    lint_pod_spec(spec, path, ctx.future_rules, out);
}

/// ValidatePodTemplateSpec, restart scope: the template's PodSpec, and no ephemeral containers
/// (they are added to running Pods only). `path` is the template's path (`spec.template`).
pub fn validate_pod_template_spec(spec: &PodSpec, path: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let spec_path = path.child("spec");
    validate_pod_spec(spec, &spec_path, ctx, out);
    if !spec.ephemeral_containers.is_empty() {
        out.push(Diagnostic::forbidden(
            &spec_path.child("ephemeralContainers"),
            "ephemeral containers not allowed in pod template",
        ));
    }
}

/// ValidatePodCreate, restart scope.
pub fn validate_pod(pod: &Pod, ctx: &Ctx, out: &mut Findings) {
    let spec = FieldPath::new("spec");
    let annotations = selector_pairs(pod.metadata.annotations.as_ref());
    // PrepareForCreate's applyAppArmorVersionSkew comes before every check of the spec.
    let skewed = if ctx.skip_defaulting {
        None
    } else {
        super::pod_security::apparmor_version_skew(&pod.spec, &annotations)
    };
    let pod_spec = skewed.as_ref().unwrap_or(&pod.spec);
    super::pod_dns::pod_annotations(&annotations, pod_spec, ctx, out);
    super::pod_security::pod_annotations(&annotations, pod_spec, ctx, out);
    let mirror = super::pod_claims::is_mirror(&annotations);
    let name = pod.metadata.name.as_deref().unwrap_or("");
    validate_pod_spec_of(pod_spec, Some(name), mirror, &spec, ctx, out);
    super::container::image_whitespace(pod_spec, &spec, out);
    super::pod_scheduling::pod_create(pod_spec, &spec, out);
    super::pod_volumes::pod_only(pod_spec, &spec, out);
    if !pod_spec.ephemeral_containers.is_empty() {
        out.push(Diagnostic::forbidden(
            &spec.child("ephemeralContainers"),
            "cannot be set on create",
        ));
    }
}

fn selector_pairs(m: Option<&std::collections::BTreeMap<String, String>>) -> Vec<(&str, &str)> {
    m.map(|m| m.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// restartkit lints (warnings; upstream accepts all of these).
// ---------------------------------------------------------------------------------------------

/// The exit codes a rule matches: `In(S)` or `NotIn(S)` (the complement of S).
#[derive(Debug, Clone, PartialEq, Eq)]
enum CodeSet {
    Finite(BTreeSet<i32>),
    Cofinite(BTreeSet<i32>),
}

impl CodeSet {
    fn of(op_in: bool, values: &[i32]) -> Self {
        let s: BTreeSet<i32> = values.iter().copied().collect();
        if op_in {
            CodeSet::Finite(s)
        } else {
            CodeSet::Cofinite(s)
        }
    }
    fn empty() -> Self {
        CodeSet::Finite(BTreeSet::new())
    }
    fn is_subset(&self, other: &CodeSet) -> bool {
        match (self, other) {
            (CodeSet::Finite(a), CodeSet::Finite(b)) => a.is_subset(b),
            (CodeSet::Finite(a), CodeSet::Cofinite(e)) => a.is_disjoint(e),
            (CodeSet::Cofinite(_), CodeSet::Finite(_)) => false,
            (CodeSet::Cofinite(ea), CodeSet::Cofinite(eb)) => eb.is_subset(ea),
        }
    }
    /// Adds `other`'s codes in place. Each step costs the size of `other` (times a log), not of
    /// the union so far: 100,000 one-code rules took minutes when every step copied the
    /// accumulated set (found by the bad-input corpus).
    fn absorb(&mut self, other: CodeSet) {
        let merged = match (std::mem::replace(self, CodeSet::empty()), other) {
            (CodeSet::Finite(mut a), CodeSet::Finite(b)) => {
                a.extend(b);
                CodeSet::Finite(a)
            }
            (CodeSet::Finite(a), CodeSet::Cofinite(mut e)) => {
                e.retain(|x| !a.contains(x));
                CodeSet::Cofinite(e)
            }
            (CodeSet::Cofinite(mut e), CodeSet::Finite(a)) => {
                for x in &a {
                    e.remove(x);
                }
                CodeSet::Cofinite(e)
            }
            (CodeSet::Cofinite(a), CodeSet::Cofinite(b)) => {
                let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
                CodeSet::Cofinite(small.into_iter().filter(|x| large.contains(x)).collect())
            }
        };
        *self = merged;
    }
    fn contains(&self, code: i32) -> bool {
        match self {
            CodeSet::Finite(s) => s.contains(&code),
            CodeSet::Cofinite(e) => !e.contains(&code),
        }
    }
}

fn rule_set(r: &ContainerRestartRule) -> Option<CodeSet> {
    let ec = r.exit_codes.as_ref()?;
    match ec.operator.as_str() {
        OP_IN => Some(CodeSet::of(true, &ec.values)),
        OP_NOT_IN => Some(CodeSet::of(false, &ec.values)),
        _ => None,
    }
}

fn lint_pod_spec(spec: &PodSpec, path: &FieldPath, future_rules: bool, out: &mut Findings) {
    for (i, c) in spec.containers.iter().enumerate() {
        lint_container(
            c,
            &path.child("containers").index(i),
            false,
            future_rules,
            out,
        );
    }
    for (i, c) in spec.init_containers.iter().enumerate() {
        lint_container(
            c,
            &path.child("initContainers").index(i),
            true,
            future_rules,
            out,
        );
    }
}

fn lint_container(
    c: &Container,
    p: &FieldPath,
    init: bool,
    future_rules: bool,
    out: &mut Findings,
) {
    let rules = c.rules();
    let rules_path = p.child("restartPolicyRules");
    let sidecar = init && is_sidecar(c);
    let mut covered = CodeSet::empty();
    for (j, r) in rules.iter().enumerate() {
        let rp = rules_path.index(j);
        lint_unknown_fields(r, &rp, future_rules, out);
        let Some(set) = rule_set(r) else { continue };
        let Some(ec) = r.exit_codes.as_ref() else {
            continue;
        };
        let vp = rp.child("exitCodes").child("values");
        // Duplicate values, and exit codes a Linux container cannot report: one warning per
        // value for the first few, then one that counts the rest (a 100,000-value list must not
        // bury the errors under 100,000 warnings).
        const PER_LIST: usize = 5;
        let mut seen = FxHashSet::with_capacity_and_hasher(ec.values.len(), Default::default());
        let dups: Vec<(usize, i32)> = ec
            .values
            .iter()
            .enumerate()
            .filter(|(_, v)| !seen.insert(**v))
            .map(|(k, v)| (k, *v))
            .collect();
        for (k, v) in dups.iter().take(PER_LIST) {
            out.push(Diagnostic::lint(
                "duplicate-exit-code",
                &vp.index(*k),
                format!("{}: exit code {v} is listed more than once", vp.index(*k)),
            ));
        }
        if dups.len() > PER_LIST {
            out.push(Diagnostic::lint(
                "duplicate-exit-code",
                &vp,
                format!(
                    "{vp}: {} more exit codes are listed more than once",
                    dups.len() - PER_LIST
                ),
            ));
        }
        let outside: Vec<(usize, i32)> = ec
            .values
            .iter()
            .enumerate()
            .filter(|(_, v)| !(0..=255).contains(*v))
            .map(|(k, v)| (k, *v))
            .collect();
        for (k, v) in outside.iter().take(PER_LIST) {
            out.push(Diagnostic::lint(
                "exit-code-out-of-range",
                &vp.index(*k),
                format!(
                    "{}: exit code {v} is outside 0-255; a Linux container never exits with it",
                    vp.index(*k)
                ),
            ));
        }
        if outside.len() > PER_LIST {
            out.push(Diagnostic::lint(
                "exit-code-out-of-range",
                &vp,
                format!(
                    "{vp}: {} more exit codes are outside 0-255",
                    outside.len() - PER_LIST
                ),
            ));
        }
        if set == CodeSet::empty() {
            out.push(Diagnostic::lint(
                "rule-never-matches",
                &rp,
                format!("{rp}: operator In with an empty values list never matches any exit code"),
            ));
        } else if set.is_subset(&covered) {
            out.push(Diagnostic::lint(
                "rule-shadowed",
                &rp,
                format!("{rp}: never applies: every exit code it matches is already matched by an earlier rule (first match wins)"),
            ));
        }
        // Restart rules that change nothing.
        if r.action == ACTION_RESTART && set != CodeSet::empty() {
            if sidecar {
                out.push(Diagnostic::lint(
                    "sidecar-restart-rule",
                    &rp.child("action"),
                    format!("{rp}: a Restart rule on a sidecar (init container with restartPolicy Always) has no effect: sidecars are restarted on every exit"),
                ));
            } else if c.restart_policy.as_deref() == Some("Always") {
                out.push(Diagnostic::lint(
                    "restart-rule-redundant",
                    &rp.child("action"),
                    format!("{rp}: restartPolicy Always already restarts the container on every exit; this Restart rule has no effect"),
                ));
            } else if c.restart_policy.as_deref() == Some("OnFailure") && !set.contains(0) {
                out.push(Diagnostic::lint(
                    "restart-rule-redundant",
                    &rp.child("action"),
                    format!("{rp}: restartPolicy OnFailure already restarts the container on every non-zero exit code; this Restart rule matches only non-zero codes and has no effect"),
                ));
            }
        }
        covered.absorb(set);
    }
}

fn lint_unknown_fields(
    r: &ContainerRestartRule,
    rp: &FieldPath,
    future_rules: bool,
    out: &mut Findings,
) {
    let unknown = |key: &str, at: &FieldPath, out: &mut Findings| {
        out.push(Diagnostic::lint(
            "unknown-field",
            &at.child(key),
            format!("{}: unknown field {key:?}; the API server drops it, and rejects the request under strict field validation (kubectl's default)", at.child(key)),
        ));
    };
    // Under RestartRulesFuture, `when` is the KEP's condition wrapper, not an unknown field.
    for key in r
        .other
        .keys()
        .filter(|k| !(future_rules && k.as_str() == "when"))
    {
        unknown(key, rp, out);
    }
    if let Some(ec) = &r.exit_codes {
        let ep = rp.child("exitCodes");
        for key in ec.other.keys() {
            unknown(key, &ep, out);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use crate::features::FeatureGates;
    use serde_json::json;

    fn ctx(rules: bool, all: bool, skip: bool) -> Ctx {
        let mut g = FeatureGates::default();
        g.set(GATE_RULES, rules);
        g.set(GATE_RESTART_ALL, all);
        Ctx {
            gates: g,
            skip_defaulting: skip,
            future_rules: false,
            always_pod: false,
            field_validation: Default::default(),
        }
    }

    fn check(mut spec: serde_json::Value, c: &Ctx) -> Findings {
        // Upstream's fixtures carry the dnsPolicy the v1 defaulting would give.
        if let Some(o) = spec.as_object_mut() {
            o.entry("dnsPolicy").or_insert(json!("ClusterFirst"));
        }
        let mut s: PodSpec = serde_json::from_value(spec).unwrap();
        if !c.skip_defaulting {
            default_pod_spec(&mut s);
        }
        let mut out = Findings::default();
        validate_pod_spec(&s, &FieldPath::new("spec"), c, &mut out);
        out
    }

    fn errs(f: &Findings) -> Vec<(String, String)> {
        f.errors
            .iter()
            .map(|d| (d.field.clone(), format!("{:?}", d.error_type.unwrap())))
            .collect()
    }

    fn codes(f: &Findings) -> Vec<String> {
        f.warnings.iter().filter_map(|d| d.code.clone()).collect()
    }

    fn one(field: &str, t: &str) -> Vec<(String, String)> {
        vec![(field.to_owned(), t.to_owned())]
    }

    fn main_with(extra: serde_json::Value) -> serde_json::Value {
        let mut c = json!({"name": "c", "image": "i"});
        if let (Some(m), Some(e)) = (c.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                m.insert(k.clone(), v.clone());
            }
        }
        json!({"containers": [c]})
    }

    #[test]
    fn defaults_restart_policy_and_grace() {
        let mut s = PodSpec {
            restart_policy: Some(String::new()),
            ..Default::default()
        };
        default_pod_spec(&mut s);
        assert_eq!(s.restart_policy.as_deref(), Some("Always"));
        assert_eq!(s.termination_grace_period_seconds, Some(30));
        let mut s = PodSpec {
            restart_policy: Some("Never".into()),
            termination_grace_period_seconds: Some(5),
            ..Default::default()
        };
        default_pod_spec(&mut s);
        assert_eq!(s.restart_policy.as_deref(), Some("Never"));
        assert_eq!(s.termination_grace_period_seconds, Some(5));
    }

    #[test]
    fn undefaulted_spec_needs_grace_and_policy() {
        let f = check(
            json!({"containers": [{"name": "c", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}),
            &ctx(true, false, true),
        );
        let e = errs(&f);
        assert!(e.contains(&(
            "spec.terminationGracePeriodSeconds".into(),
            "FieldValueRequired".into()
        )));
        assert!(e.contains(&("spec.restartPolicy".into(), "FieldValueRequired".into())));
    }

    #[test]
    fn pod_restart_policy_not_supported() {
        let f = check(
            json!({"restartPolicy": "Sometimes", "containers": [{"name": "c", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}),
            &ctx(true, false, false),
        );
        assert_eq!(
            errs(&f),
            one("spec.restartPolicy", "FieldValueNotSupported")
        );
        assert!(
            f.errors[0]
                .message
                .contains("supported values: \"Always\", \"OnFailure\", \"Never\"")
        );
    }

    #[test]
    fn containers_required_and_names() {
        let f = check(json!({"containers": []}), &ctx(true, false, false));
        assert_eq!(errs(&f), one("spec.containers", "FieldValueRequired"));
        let f = check(
            json!({"containers": [{"name": "a", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}, {"name": "a", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}], "initContainers": [{"name": "a", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}, {"name": "", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}),
            &ctx(true, false, false),
        );
        let e = errs(&f);
        assert!(e.contains(&(
            "spec.containers[1].name".into(),
            "FieldValueDuplicate".into()
        )));
        assert!(e.contains(&(
            "spec.initContainers[0].name".into(),
            "FieldValueDuplicate".into()
        )));
        assert!(e.contains(&(
            "spec.initContainers[1].name".into(),
            "FieldValueRequired".into()
        )));
    }

    #[test]
    fn regular_container_policy_forbidden_without_option() {
        let f = check(
            json!({"restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "containers": [{"name": "c", "restartPolicy": "Never", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}),
            &ctx(false, false, true),
        );
        let e = errs(&f);
        assert_eq!(e.len(), 1);
        assert!(e.contains(&(
            "spec.containers[0].restartPolicy".into(),
            "FieldValueForbidden".into()
        )));
    }

    #[test]
    fn gate_off_create_drops_fields() {
        let f = check(
            json!({"containers": [{"name": "c", "restartPolicy": "Never", "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [1]}}], "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}],
                   "initContainers": [{"name": "i", "restartPolicy": "OnFailure", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}, {"name": "s", "restartPolicy": "Always", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]}),
            &ctx(false, false, false),
        );
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        assert_eq!(
            codes(&f).iter().filter(|c| *c == "field-dropped").count(),
            3
        );
    }

    #[test]
    fn container_policy_rules() {
        let c = ctx(true, false, false);
        assert_eq!(
            errs(&check(main_with(json!({"restartPolicy": "bogus"})), &c)),
            one("spec.containers[0].restartPolicy", "FieldValueNotSupported")
        );
        assert_eq!(
            errs(&check(
                main_with(
                    json!({"restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [1]}}]})
                ),
                &c
            )),
            one("spec.containers[0].restartPolicy", "FieldValueRequired")
        );
        let r = json!({"action": "Restart", "exitCodes": {"operator": "In", "values": [1]}});
        let many: Vec<_> = (0..21).map(|_| r.clone()).collect();
        let f = check(
            main_with(json!({"restartPolicy": "Never", "restartPolicyRules": many})),
            &c,
        );
        assert_eq!(
            errs(&f),
            one("spec.containers[0].restartPolicyRules", "FieldValueTooMany")
        );
        assert_eq!(
            f.errors[0].message,
            "spec.containers[0].restartPolicyRules: Too many: 21: must have at most 20 items"
        );
        let vals: Vec<i32> = (0..256).collect();
        let f = check(
            main_with(
                json!({"restartPolicy": "Never", "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": vals}}]}),
            ),
            &c,
        );
        assert_eq!(
            errs(&f),
            one(
                "spec.containers[0].restartPolicyRules[0].exitCodes.values",
                "FieldValueTooMany"
            )
        );
        let f = check(
            main_with(
                json!({"restartPolicy": "Never", "restartPolicyRules": [{"action": "", "exitCodes": {"operator": "", "values": [1]}}]}),
            ),
            &c,
        );
        let e = errs(&f);
        assert!(e.contains(&(
            "spec.containers[0].restartPolicyRules[0].action".into(),
            "FieldValueNotSupported".into()
        )));
        assert!(e.contains(&(
            "spec.containers[0].restartPolicyRules[0].exitCodes.operator".into(),
            "FieldValueNotSupported".into()
        )));
        let f = check(
            main_with(
                json!({"restartPolicy": "Never", "restartPolicyRules": [{"action": "Restart"}]}),
            ),
            &c,
        );
        assert_eq!(
            errs(&f),
            one(
                "spec.containers[0].restartPolicyRules[0].exitCodes",
                "FieldValueRequired"
            )
        );
        // RestartAllContainers needs the second option.
        let ra = json!({"restartPolicy": "Never", "restartPolicyRules": [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [1]}}]});
        assert_eq!(
            errs(&check(main_with(ra.clone()), &c)),
            one(
                "spec.containers[0].restartPolicyRules[0].action",
                "FieldValueNotSupported"
            )
        );
        assert!(
            check(main_with(ra), &ctx(true, true, false))
                .errors
                .is_empty()
        );
    }

    #[test]
    fn init_container_policy() {
        let init = |c: serde_json::Value| json!({"restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "containers": [{"name": "m", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}], "initContainers": [c]});
        // The init container's own fields, as a valid container has them.
        let init = |mut c: serde_json::Value| {
            c["image"] = json!("busybox:1.36");
            c["imagePullPolicy"] = json!("IfNotPresent");
            c["terminationMessagePolicy"] = json!("File");
            init(c)
        };
        let side_rules = json!({"name": "s", "restartPolicy": "Always", "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [1]}}]});
        assert_eq!(
            errs(&check(init(side_rules.clone()), &ctx(true, false, false))),
            one(
                "spec.initContainers[0].restartPolicyRules",
                "FieldValueForbidden"
            )
        );
        assert!(
            check(init(side_rules), &ctx(true, true, false))
                .errors
                .is_empty()
        );
        assert_eq!(
            errs(&check(
                init(json!({"name": "i", "restartPolicy": "OnFailure"})),
                &ctx(false, false, true)
            )),
            one(
                "spec.initContainers[0].restartPolicy",
                "FieldValueNotSupported"
            )
        );
        assert!(
            check(
                init(json!({"name": "i", "restartPolicy": "OnFailure"})),
                &ctx(true, false, false)
            )
            .errors
            .is_empty()
        );
        assert_eq!(
            errs(&check(
                init(
                    json!({"name": "i", "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [1]}}]})
                ),
                &ctx(false, false, true)
            )),
            one("spec.initContainers[0].restartPolicy", "FieldValueRequired")
        );
        assert_eq!(
            errs(&check(
                init(
                    json!({"name": "i", "restartPolicy": "Never", "startupProbe": {"exec": {"command": ["x"]}}})
                ),
                &ctx(true, false, false)
            )),
            one("spec.initContainers[0].startupProbe", "FieldValueForbidden")
        );
        assert!(check(init(json!({"name": "s", "restartPolicy": "Always", "startupProbe": {"exec": {"command": ["x"]}}})), &ctx(true, false, false)).errors.is_empty());
    }

    #[test]
    fn ephemeral_restart_fields_forbidden() {
        let spec = json!({"containers": [{"name": "m", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}], "ephemeralContainers": [{"name": "d", "restartPolicy": "Never", "restartPolicyRules": []}]});
        let f = check(spec.clone(), &ctx(true, false, false));
        let e = errs(&f);
        assert!(e.contains(&(
            "spec.ephemeralContainers[0].restartPolicy".into(),
            "FieldValueForbidden".into()
        )));
        assert!(e.contains(&(
            "spec.ephemeralContainers[0].restartPolicyRules".into(),
            "FieldValueForbidden".into()
        )));
        let pod = Pod {
            spec: serde_json::from_value(spec).unwrap(),
            ..Default::default()
        };
        let mut out = Findings::default();
        validate_pod(&pod, &ctx(true, false, true), &mut out);
        assert!(errs(&out).contains(&(
            "spec.ephemeralContainers".into(),
            "FieldValueForbidden".into()
        )));
    }

    fn lint_of(rules: serde_json::Value, policy: &str) -> Vec<String> {
        codes(&check(
            main_with(json!({"restartPolicy": policy, "restartPolicyRules": rules})),
            &ctx(true, true, false),
        ))
    }

    #[test]
    fn lint_rule_never_matches() {
        assert_eq!(
            lint_of(
                json!([{"action": "Restart", "exitCodes": {"operator": "In"}}]),
                "Never"
            ),
            vec!["rule-never-matches"]
        );
        assert!(
            lint_of(
                json!([{"action": "Restart", "exitCodes": {"operator": "NotIn"}}]),
                "Never"
            )
            .is_empty()
        );
    }

    #[test]
    fn lint_rule_shadowed() {
        let r = json!([
            {"action": "Restart", "exitCodes": {"operator": "In", "values": [1, 2]}},
            {"action": "Restart", "exitCodes": {"operator": "NotIn", "values": [2, 3]}},
            {"action": "Restart", "exitCodes": {"operator": "In", "values": [3]}},
            {"action": "Restart", "exitCodes": {"operator": "In", "values": [4]}}
        ]);
        // Rule 1 matches everything but 2,3 → covered = all but 3; rule 2 (In [3]) is new; rule 3 (In [4]) is shadowed.
        let f = check(
            main_with(json!({"restartPolicy": "Never", "restartPolicyRules": r})),
            &ctx(true, false, false),
        );
        let shadowed: Vec<&str> = f
            .warnings
            .iter()
            .filter(|d| d.code.as_deref() == Some("rule-shadowed"))
            .map(|d| d.field.as_str())
            .collect();
        assert_eq!(shadowed, vec!["spec.containers[0].restartPolicyRules[3]"]);
        let r2 = json!([
            {"action": "Restart", "exitCodes": {"operator": "NotIn", "values": [0]}},
            {"action": "Restart", "exitCodes": {"operator": "NotIn", "values": [0, 1]}}
        ]);
        assert_eq!(lint_of(r2, "Never"), vec!["rule-shadowed"]);
    }

    #[test]
    fn lint_duplicates_and_range() {
        let f = lint_of(
            json!([{"action": "Restart", "exitCodes": {"operator": "In", "values": [3, 3, 256, -1]}}]),
            "Never",
        );
        assert_eq!(f.iter().filter(|c| *c == "duplicate-exit-code").count(), 1);
        assert_eq!(
            f.iter().filter(|c| *c == "exit-code-out-of-range").count(),
            2
        );
    }

    #[test]
    fn lint_restart_rule_redundant() {
        assert_eq!(
            lint_of(
                json!([{"action": "Restart", "exitCodes": {"operator": "In", "values": [1]}}]),
                "Always"
            ),
            vec!["restart-rule-redundant"]
        );
        assert_eq!(
            lint_of(
                json!([{"action": "Restart", "exitCodes": {"operator": "In", "values": [1]}}]),
                "OnFailure"
            ),
            vec!["restart-rule-redundant"]
        );
        assert!(
            lint_of(
                json!([{"action": "Restart", "exitCodes": {"operator": "In", "values": [0]}}]),
                "OnFailure"
            )
            .is_empty()
        );
        assert!(lint_of(json!([{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [1]}}]), "Always").is_empty());
    }

    #[test]
    fn lint_sidecar_restart_rule() {
        let spec = json!({"containers": [{"name": "m", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}], "initContainers": [{"name": "s", "restartPolicy": "Always",
            "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [1]}}], "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]});
        let f = check(spec, &ctx(true, true, false));
        assert!(f.errors.is_empty());
        assert_eq!(codes(&f), vec!["sidecar-restart-rule"]);
    }

    #[test]
    fn lint_unknown_field() {
        let spec = json!({"containers": [{"name": "m", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}], "initContainers": [{"name": "s", "restartPolicy": "Always",
            "restartPolicyRules": [{"action": "RestartAllContainers", "onExit": {"exitCodes": {"operator": "In", "values": [88]}}}], "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File"}]});
        let f = check(spec, &ctx(true, true, false));
        assert_eq!(
            errs(&f),
            one(
                "spec.initContainers[0].restartPolicyRules[0].exitCodes",
                "FieldValueRequired"
            )
        );
        assert_eq!(codes(&f), vec!["unknown-field"]);
        assert_eq!(
            f.warnings[0].field,
            "spec.initContainers[0].restartPolicyRules[0].onExit"
        );
    }

    fn union(a: &CodeSet, b: &CodeSet) -> CodeSet {
        let mut u = a.clone();
        u.absorb(b.clone());
        u
    }

    #[test]
    fn code_sets() {
        let a = CodeSet::of(true, &[1, 2]);
        let not12 = CodeSet::of(false, &[1, 2]);
        let all = CodeSet::Cofinite(BTreeSet::new());
        assert_eq!(union(&a, &not12), all);
        assert_eq!(union(&not12, &a), all);
        assert_eq!(
            union(&a, &CodeSet::of(true, &[2, 3])),
            CodeSet::of(true, &[1, 2, 3])
        );
        assert_eq!(
            union(
                &CodeSet::of(false, &[1, 2, 3]),
                &CodeSet::of(false, &[2, 3, 4])
            ),
            CodeSet::of(false, &[2, 3])
        );
        assert_eq!(
            union(&CodeSet::of(false, &[1, 2, 3]), &CodeSet::of(true, &[3])),
            CodeSet::of(false, &[1, 2])
        );
        assert!(!not12.is_subset(&a));
        assert!(CodeSet::of(false, &[1, 2, 3]).is_subset(&not12));
    }
}
