//! The JSON request/response contract: one entry point, [`handle_json`], that every front end
//! (CLI, Python, wasm, Node, the plugin) calls with the same JSON.
//!
//! A request is `{"op": "<operation>", "input": {…}}`, the shape of a conformance vector. The
//! answer is `{"status": "ok", "op": …, "result": {…}, "warnings": […]}` or
//! `{"status": "error", "op": …, "errors": [Diagnostic…]}`. Request-level problems (unreadable
//! JSON, an unknown op, an input of the wrong shape) are errors; what upstream rejects is a
//! successful `validate` whose result says `valid: false`.

use crate::backoff;
use crate::diag::{Diagnostic, Severity};
use crate::eval;
use crate::eval::object_warnings::{Evaluated, Subject};
use crate::validate;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use envelope::{Request, Response};

/// Version of the request/response contract. Bumped on any incompatible change.
pub const CONTRACT_VERSION: &str = "1.3";

/// restartkit's version, as reported by every front end.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

mod envelope;
pub mod guard;
pub mod list_gates;
pub mod plugin_abi;

/// Every operation the contract offers, in the order `describe` lists them (the op table's).
pub const OPERATIONS: &[&str] = &op_names();

// Evaluated at compile time (an index out of range would fail the build, never a run).
#[allow(clippy::indexing_slicing)]
const fn op_names() -> [&'static str; OPS.len()] {
    let mut out = [""; OPS.len()];
    let mut i = 0;
    while i < OPS.len() {
        out[i] = OPS[i].name;
        i += 1;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The op table

/// A front end that exposes ops (each under its language's naming convention: the op's name in
/// JavaScript, its snake_case in Python; docs/contract.md lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FrontEnd {
    /// `restartkit` in Python (python/, the generated restartkit/_ops.py).
    Python,
    /// `restartkit-wasm` (wasm/, the generated wasm/scripts/ops.mjs).
    Wasm,
    /// `@restartkit/node` (node/, the generated node/ops.js).
    Node,
    /// The policy module's JSON entry (plugin/, both hosts): every op by name.
    Plugin,
}

/// Every front end: what an op exposes unless its row says otherwise.
pub const ALL_FRONT_ENDS: &[FrontEnd] = &[
    FrontEnd::Python,
    FrontEnd::Wasm,
    FrontEnd::Node,
    FrontEnd::Plugin,
];

/// How a front end's wrapper takes one positional argument (the generated wrappers convert it
/// into the input member once, in each front end's one runtime: the text-or-object and option
/// handling live there, not per op).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ArgKind {
    /// An API object; the front ends also take YAML/JSON text (its first document) and their
    /// language's models of it.
    Object,
    /// YAML or JSON text (any number of documents, UTF-8 bytes too) as `source`, or an API
    /// object as the member.
    ObjectOrText,
    /// A list of API objects (each as [`ArgKind::Object`]).
    Objects,
    /// A string.
    String,
    /// A 32-bit integer (an exit code).
    Int32,
    /// Any JSON value, as is.
    Json,
}

/// A positional argument of an op's wrapper: the input member it fills, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Arg {
    pub member: &'static str,
    pub kind: ArgKind,
}

const fn arg(member: &'static str, kind: ArgKind) -> Arg {
    Arg { member, kind }
}

/// One row of the op table: what the dispatcher, the JSON Schemas, the pruning of carried
/// objects, `describe` and the front ends' generated wrappers (core/tests/bindings.rs) read.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Op {
    pub name: &'static str,
    /// One line: what the op answers.
    pub summary: &'static str,
    /// The schema names of its input and output (`restartkit schema <name>`).
    pub input: &'static str,
    pub output: &'static str,
    /// The wrappers' positional arguments, in order; the rest of the input is their options.
    pub args: &'static [Arg],
    /// The members holding Kubernetes objects, pruned of the fields the minor does not know.
    #[serde(skip)]
    pub carries: &'static [Carried],
    /// The cargo feature the op needs (absent from a build without it: `op-not-built`).
    pub feature: Option<&'static str>,
    pub front_ends: &'static [FrontEnd],
}

/// Every action, by code: the enum's own list (`Action::from_code` of 0, 1, ... until none), which
/// every front end's and host's list of action names is made from.
pub fn actions() -> impl Iterator<Item = crate::prepared::Action> {
    (0u8..=u8::MAX).map_while(crate::prepared::Action::from_code)
}

/// The op table's row of `name`.
pub fn op(name: &str) -> Option<&'static Op> {
    OPS.iter().find(|o| o.name == name)
}

/// Defines the op table once: [`OPS`] (the rows), the dispatcher `answer_op` and
/// `put_op_schemas` (each op's input and output schema). A row:
/// `"name" [if "feature"]: InputType => OutputType, "InputName" => "OutputName", "summary",
/// args [..], carries [..], |op, input, check| expression;`.
macro_rules! op_table {
    ($( $name:literal $(if $feat:tt)? : $in_ty:ty => $out_ty:ty, $in_name:literal => $out_name:literal,
        $summary:literal, args [$($arg:expr),* $(,)?], carries [$($c:expr),* $(,)?],
        |$op:ident, $input:ident, $check:ident| $run:expr; )*) => {
        /// Every op, in the order `describe` lists them.
        pub const OPS: &[Op] = &[$(Op {
            name: $name,
            summary: $summary,
            input: $in_name,
            output: $out_name,
            args: &[$($arg),*],
            carries: &[$($c),*],
            feature: op_table!(@feature $($feat)?),
            front_ends: ALL_FRONT_ENDS,
        }),*];

        fn answer_op(op: &str, input: Value, check: ObjectCheck) -> Response {
            $(
                if op == $name {
                    $(
                        #[cfg(not(feature = $feat))]
                        {
                            let _ = (input, check);
                            return not_built(op, $feat);
                        }
                    )?
                    #[cfg(all($(feature = $feat)?))]
                    {
                        #[allow(unused_variables)]
                        let ($op, $input, $check) = (op, input, check);
                        return $run;
                    }
                }
            )*
            unknown_op(op)
        }

        /// The op's carried objects (the table's column, without the table's other columns on
        /// the path every request takes: the wasm module's first load holds this code).
        fn carries_of(op: &str) -> &'static [Carried] {
            $(
                if op == $name {
                    return &[$($c),*];
                }
            )*
            &[]
        }

        fn put_op_schemas(put: &mut impl FnMut(&'static str, schemars::Schema)) {
            $(
                $(#[cfg(feature = $feat)])?
                {
                    put($in_name, schemars::schema_for!($in_ty));
                    put($out_name, schemars::schema_for!($out_ty));
                }
            )*
        }
    };
    (@feature) => { None };
    (@feature $feat:tt) => { Some($feat) };
}

use crate::validate::unknown_fields::Carried::{
    self, AnyKind, KubeletConfig, List, One, ScenarioWorkload,
};
use ArgKind::{Int32, Json, Object, ObjectOrText, Objects};

op_table! {
    "validate": validate::ValidateInput => validate::ValidateOutput, "ValidateInput" => "ValidateOutput",
        "Admission of an object or of YAML/JSON text, as kube-apiserver and the webhooks judge it",
        args [arg("object", ObjectOrText)], carries [],
        |op, input, check| encode(
            op,
            decode_moving(input, "object", |i: &mut validate::ValidateInput, o| {
                i.object = (!o.is_null()).then_some(o)
            })
            .and_then(validate::run),
            vec![],
        );
    "crrValidate": validate::crr::CrrValidateInput => validate::crr::CrrValidateOutput, "CrrValidateInput" => "CrrValidateOutput",
        "OpenKruise's admission of a ContainerRecreateRequest",
        args [], carries [One("pod", "Pod")],
        |op, input, check| encode(op, decode(input).and_then(validate::crr::run), vec![]);
    "containerRestart": eval::kubelet::ContainerRestartInput => Evaluated<eval::kubelet::ContainerRestartOutput>, "ContainerRestartInput" => "ContainerRestartOutput",
        "The kubelet's decision when a container of a Pod exits with an exit code",
        args [arg("pod", Object), arg("container", ArgKind::String), arg("exitCode", Int32)], carries [One("pod", "Pod")],
        |op, input, check| evaluation(op, input, "pod", Some(Subject::Pod), check, eval::kubelet::container_restart);
    "containerRestartable": eval::kubelet::ContainerRestartableInput => Evaluated<eval::kubelet::ContainerRestartableOutput>, "ContainerRestartableInput" => "ContainerRestartableOutput",
        "Whether a container of a Pod can ever be restarted in place",
        args [arg("pod", Object), arg("container", ArgKind::String)], carries [One("pod", "Pod")],
        |op, input, check| evaluation(op, input, "pod", Some(Subject::Pod), check, eval::kubelet::container_restartable);
    "matchRestartRule": eval::kubelet::MatchRestartRuleInput => Evaluated<eval::kubelet::MatchRestartRuleOutput>, "MatchRestartRuleInput" => "MatchRestartRuleOutput",
        "The first restartPolicyRules entry of a container that matches an exit code",
        args [arg("pod", Object), arg("container", ArgKind::String), arg("exitCode", Int32)], carries [One("pod", "Pod")],
        |op, input, check| evaluation(op, input, "pod", Some(Subject::Pod), check, eval::kubelet::match_restart_rule);
    "statusTransition": eval::kubelet::StatusTransitionInput => Evaluated<eval::kubelet::StatusTransitionOutput>, "StatusTransitionInput" => "StatusTransitionOutput",
        "Whether a status update may move containers from terminated back to running",
        args [arg("pod", Object), arg("oldContainerStatuses", Json), arg("newContainerStatuses", Json)],
        carries [One("pod", "Pod"), List("oldContainerStatuses", "ContainerStatus"), List("newContainerStatuses", "ContainerStatus")],
        |op, input, check| evaluation(op, input, "pod", Some(Subject::Pod), check, eval::kubelet::status_transition);
    "podFailurePolicy": eval::job::PodFailurePolicyInput => Evaluated<eval::job::PodFailurePolicyOutput>, "PodFailurePolicyInput" => "PodFailurePolicyOutput",
        "The Job controller's answer for a failed Pod of a Job (podFailurePolicy)",
        args [arg("job", Object), arg("pod", Object)], carries [One("job", "Job"), One("pod", "Pod")],
        |op, input, check| evaluation(op, input, "job", Some(Subject::Job), check, eval::job::pod_failure_policy);
    "jobsetFailurePolicy": eval::jobset::JobSetFailurePolicyInput => Evaluated<eval::jobset::JobSetFailurePolicyOutput>, "JobsetFailurePolicyInput" => "JobsetFailurePolicyOutput",
        "The JobSet controller's answer when Jobs of a JobSet failed",
        args [arg("jobset", Object), arg("failedJobs", Objects)], carries [AnyKind("jobset"), List("failedJobs", "Job")],
        |op, input, check| evaluation(op, input, "jobset", Some(Subject::JobSet), check, eval::jobset::jobset_failure_policy);
    "backoff": backoff::BackoffInput => backoff::BackoffOutput, "BackoffInput" => "BackoffOutput",
        "Backoff curves: the kubelet's CrashLoopBackOff, the Job controller's pod-failure backoff",
        args [], carries [One("pod", "Pod"), One("lastFailedPod", "Pod"), KubeletConfig("kubeletConfig")],
        |op, input, check| encode(op, backoff::decode_input(input).and_then(backoff::run), vec![]);
    "whatIf": eval::whatif::WhatIfInput => Evaluated<eval::whatif::WhatIfOutput>, "WhatIfInput" => "WhatIfOutput",
        "What happens when a container of a Pod, Job, JobSet or TrainJob exits with an exit code",
        args [arg("object", Object), arg("exitCode", Int32)], carries [AnyKind("object")],
        |op, input, check| if input.get("object").is_some_and(crate::trainer::op::is_train_job) {
            what_if_train_job(input, check)
        } else {
            evaluation(op, input, "object", None, check, eval::whatif::what_if)
        };
    "explain": crate::explain::ExplainInput => crate::explain::ExplainOutput, "ExplainInput" => "ExplainOutput",
        "A running or failed Pod, Job or JobSet explained from its live objects: what happened, why, and what comes next",
        args [arg("objects", ObjectOrText)], carries [KubeletConfig("kubeletConfig")],
        |op, input, check| encode(
            op,
            decode_moving(input, "objects", |i: &mut crate::explain::ExplainInput, o| {
                i.objects = (!o.is_null()).then_some(o)
            })
            .and_then(crate::explain::run),
            vec![],
        );
    "resolve": crate::trainer::op::ResolveInput => crate::trainer::op::ResolveOutput, "ResolveInput" => "ResolveOutput",
        "Kubeflow Trainer: the JobSet and side objects the trainer builds for a TrainJob, with its errors",
        args [arg("trainJob", ObjectOrText)], carries [],
        |op, input, check| resolve(op, input);
    "simulate" if "simulate": crate::simulate::SimulateInput => crate::simulate::SimulateOutput, "SimulateInput" => "SimulateOutput",
        "A timeline of a workload under a scenario of container exits, node losses and evictions",
        args [], carries [AnyKind("workload")],
        |op, input, check| encode(op, decode(input).and_then(crate::simulate::run), vec![]);
    "sweep" if "simulate": crate::sweep::SweepInput => crate::sweep::SweepOutput, "SweepInput" => "SweepOutput",
        "A scenario simulated over a grid of parameters, with a summary per point",
        args [], carries [ScenarioWorkload],
        |op, input, check| encode(op, decode(input).and_then(crate::sweep::run), vec![]);
    "sweepPlan" if "simulate": crate::sweep::SweepInput => crate::sweep::SweepPlan, "SweepPlanInput" => "SweepPlanOutput",
        "A sweep's points and chunks, for running it in parts",
        args [], carries [ScenarioWorkload],
        |op, input, check| encode(op, decode(input).and_then(crate::sweep::run_plan), vec![]);
    "sweepChunk" if "simulate": crate::sweep::SweepChunkInput => crate::sweep::SweepPartial, "SweepChunkInput" => "SweepChunkOutput",
        "One chunk of a planned sweep",
        args [], carries [ScenarioWorkload],
        |op, input, check| encode(op, decode(input).and_then(crate::sweep::run_chunk), vec![]);
    "sweepMerge" if "simulate": crate::sweep::SweepMergeInput => crate::sweep::SweepOutput, "SweepMergeInput" => "SweepMergeOutput",
        "A sweep's output from its chunks' partial outputs",
        args [], carries [],
        |op, input, check| encode(op, decode(input).and_then(crate::sweep::run_merge), vec![]);
    "backoffCompare": backoff::compare::CompareInput => backoff::compare::CompareOutput, "BackoffCompareInput" => "BackoffCompareOutput",
        "Backoff curves compared across versions, gates and kubelet settings",
        args [], carries [],
        |op, input, check| encode(op, decode(input).and_then(backoff::compare::compare), vec![]);
    "compareVersions": crate::upgrade::CompareVersionsInput => crate::upgrade::CompareVersionsOutput, "CompareVersionsInput" => "CompareVersionsOutput",
        "The upgrade check: manifests judged at two versions, with what changes per document",
        args [arg("object", ObjectOrText)], carries [],
        |op, input, check| encode(op, decode(input).and_then(crate::upgrade::compare_versions), vec![]);
    "checkVector": crate::conformance::CheckVectorInput => crate::conformance::CheckVectorOutput, "CheckVectorInput" => "CheckVectorOutput",
        "Runs one conformance vector and compares its result with its expect",
        args [], carries [],
        |op, input, check| encode(op, decode(input).and_then(crate::conformance::check_vector), vec![]);
    "vectorExpect": crate::conformance::VectorExpectInput => crate::conformance::VectorExpectOutput, "VectorExpectInput" => "VectorExpectOutput",
        "Compares a result with a conformance vector's expect",
        args [], carries [],
        |op, input, check| encode(op, decode(input).and_then(crate::conformance::vector_expect), vec![]);
    "complete" if "schemas": crate::editor::complete::CompleteInput => crate::editor::complete::CompleteOutput, "CompleteInput" => "CompleteOutput",
        "Completion at a line and column of a manifest: field names and values",
        args [], carries [],
        |op, input, check| encode(op, decode(input).and_then(crate::editor::complete::run), vec![]);
    "hover" if "schemas": crate::editor::hover::HoverInput => crate::editor::hover::HoverOutput, "HoverInput" => "HoverOutput",
        "What a field at a line and column of a manifest is, and what it changes",
        args [], carries [],
        |op, input, check| encode(op, decode(input).and_then(crate::editor::hover::run), vec![]);
    "listGates": list_gates::ListGatesInput => list_gates::ListGatesOutput, "ListGatesInput" => "ListGatesOutput",
        "The feature gates of a Kubernetes minor, with default, stage and lock",
        args [], carries [],
        |op, input, check| encode(op, decode(input).and_then(list_gates::run), vec![]);
    "describe": serde_json::Map<String, Value> => Description, "DescribeInput" => "Description",
        "This build's capabilities: versions, ops, the gates that change an answer",
        args [], carries [],
        |op, input, check| encode(op, Ok(describe()), vec![]);
}

/// What `describe` answers: the capabilities of this build.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Description {
    pub restartkit_version: String,
    pub contract_version: String,
    pub operations: Vec<String>,
    pub kubernetes_versions: Vec<String>,
    pub default_kubernetes_version: String,
    pub feature_gates: Vec<GateDescription>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GateDescription {
    pub name: String,
    pub component: String,
    pub summary: String,
    /// Default per modelled Kubernetes version (`"1.35": true`). A removed gate reads as the value
    /// the code now behaves as (on).
    pub defaults: std::collections::BTreeMap<String, bool>,
    /// Stage per modelled Kubernetes version: `Alpha`, `Beta`, `GA`, `Deprecated`, or `Removed`
    /// (gone from that release; overriding it there is a request error). Absent where the gate
    /// does not exist yet.
    pub stages: std::collections::BTreeMap<String, String>,
}

pub fn describe() -> Description {
    use crate::features::{
        FeatureGates, GATES, KubeVersion, NEWEST_MINOR, SUPPORTED_MINORS, stage_at,
    };
    Description {
        restartkit_version: VERSION.to_owned(),
        contract_version: CONTRACT_VERSION.to_owned(),
        operations: OPERATIONS.iter().map(|s| (*s).to_owned()).collect(),
        kubernetes_versions: SUPPORTED_MINORS.iter().map(|m| format!("1.{m}")).collect(),
        default_kubernetes_version: format!("1.{NEWEST_MINOR}"),
        feature_gates: GATES
            .iter()
            .map(|g| GateDescription {
                name: g.name.to_owned(),
                component: g.component.to_owned(),
                summary: g.summary.to_owned(),
                defaults: SUPPORTED_MINORS
                    .iter()
                    .map(|m| {
                        (
                            format!("1.{m}"),
                            FeatureGates::for_version(KubeVersion { minor: *m }).enabled(g.name),
                        )
                    })
                    .collect(),
                stages: SUPPORTED_MINORS
                    .iter()
                    .filter_map(|m| {
                        let name = list_gates::stage_name(stage_at(g.name, *m)?.0);
                        Some((format!("1.{m}"), name.to_owned()))
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Decodes an op's input, naming the field that did not fit.
pub fn decode<T: DeserializeOwned>(input: Value) -> Result<T, Diagnostic> {
    decode_ref(&input)
}

/// [`decode`] of a borrowed input (the caller still needs the JSON afterwards).
pub fn decode_ref<T: DeserializeOwned>(input: &Value) -> Result<T, Diagnostic> {
    crate::decode::input_at(input, &crate::FieldPath::new("input"))
}

/// [`decode`], but the (possibly large) free-form member `field` is moved into the result by
/// `put` instead of copied: a borrowed decode clones every string of a manifest, which costs as
/// much as validating it. Only for members typed as any JSON value, which cannot fail to decode.
pub fn decode_moving<T: DeserializeOwned>(
    mut input: Value,
    field: &str,
    put: impl FnOnce(&mut T, Value),
) -> Result<T, Diagnostic> {
    let moved = input.as_object_mut().and_then(|m| m.remove(field));
    let mut t: T = decode(input)?;
    if let Some(v) = moved {
        put(&mut t, v);
    }
    Ok(t)
}

fn encode<T: Serialize>(
    op: &str,
    out: Result<T, Diagnostic>,
    mut warnings: Vec<Diagnostic>,
) -> Response {
    match out.and_then(|r| {
        serde_json::to_value(r).map_err(|e| {
            Diagnostic::request("internal", "", format!("cannot encode the result: {e}"))
        })
    }) {
        Ok(result) => {
            warnings.retain(|w| w.severity != Severity::Error);
            Response::Ok {
                op: op.to_owned(),
                result,
                warnings,
            }
        }
        Err(d) => Response::error(Some(op), d),
    }
}

/// Whether a request also checks the object it evaluates (once per request: see
/// [`eval::object_warnings`]). [`call_op`] skips it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ObjectCheck {
    On,
    Off,
}

/// The validation errors, as warnings, of the object in `input.<member>` (taken as `subject`, or
/// as the kind it names), under the request's version, gates and proposals.
fn evaluated_object_warnings(
    input: &Value,
    member: &str,
    subject: Option<Subject>,
) -> Vec<Diagnostic> {
    let Some(object) = input.get(member) else {
        return Vec::new();
    };
    let Some(subject) = subject.or_else(|| Subject::of(object)) else {
        return Vec::new();
    };
    let version = input.get("kubernetesVersion").and_then(Value::as_str);
    let overrides: Option<std::collections::BTreeMap<String, bool>> = input
        .get("featureGates")
        .and_then(|g| Deserialize::deserialize(g).ok());
    // The op has already resolved the same version and gates; a failure here cannot happen.
    let Ok((gates, _)) = crate::features::FeatureGates::resolve(version, overrides.as_ref()) else {
        return Vec::new();
    };
    let proposals: Vec<crate::proposals::Proposal> = input
        .get("proposals")
        .and_then(|p| Deserialize::deserialize(p).ok())
        .unwrap_or_default();
    eval::object_warnings::object_warnings(object, subject, &gates, &proposals)
}

/// An evaluation op: its output, with the warnings of the object in `input.<member>`.
fn evaluation<I: DeserializeOwned, O: Serialize>(
    op: &str,
    input: Value,
    member: &str,
    subject: Option<Subject>,
    check: ObjectCheck,
    run: impl FnOnce(I) -> Result<O, Diagnostic>,
) -> Response {
    let out = decode_ref(&input).and_then(run).map(|result| Evaluated {
        result,
        warnings: match check {
            ObjectCheck::On => evaluated_object_warnings(&input, member, subject),
            ObjectCheck::Off => Vec::new(),
        },
    });
    encode(op, out, vec![])
}

/// An evaluation's result with `extra` warnings first (a TrainJob's own admission errors, when
/// the JobSet built from it is what is evaluated).
fn with_warnings(resp: Response, extra: Vec<Diagnostic>) -> Response {
    if extra.is_empty() {
        return resp;
    }
    match resp {
        Response::Ok {
            op,
            mut result,
            warnings,
        } => {
            if let Some(Value::Array(ws)) = result.get_mut("warnings") {
                let mut all: Vec<Value> = extra
                    .iter()
                    .filter_map(|d| serde_json::to_value(d).ok())
                    .collect();
                all.append(ws);
                *ws = all;
            }
            Response::Ok {
                op,
                result,
                warnings,
            }
        }
        e => e,
    }
}

/// The `resolve` op, apart from `answer` (whose code the wasm module's first-load part holds
/// whole): the decoding of its input and the encoding of the JobSets it builds stay with the
/// trainer's build, in the on-demand part.
#[inline(never)]
fn resolve(op: &str, input: Value) -> Response {
    encode(op, decode(input).and_then(crate::trainer::op::run), vec![])
}

/// `whatIf` on a Kubeflow TrainJob: the JobSet the trainer builds is evaluated; the warnings
/// are the TrainJob's, placed at its fields (the JobSet's own check would name the JobSet's).
/// Apart from `answer`, as `resolve` is.
#[inline(never)]
fn what_if_train_job(input: Value, check: ObjectCheck) -> Response {
    match crate::trainer::op::what_if_input(&input) {
        Ok(Some((jobset_input, extra))) => with_warnings(
            answer(Request::new("whatIf", jobset_input), ObjectCheck::Off),
            if check == ObjectCheck::On {
                extra
            } else {
                Vec::new()
            },
        ),
        // The caller checked that the object is a TrainJob.
        Ok(None) => Response::error(
            Some("whatIf"),
            Diagnostic::request("internal", "input.object", "not a TrainJob"),
        ),
        Err(d) => Response::error(Some("whatIf"), d),
    }
}

/// Runs one request.
pub fn handle(req: Request) -> Response {
    answer(req, ObjectCheck::On)
}

fn answer(req: Request, check: ObjectCheck) -> Response {
    let op = req.op.as_str();
    let mut input = req.input;
    // The objects an op is given as the requested minor's API server keeps them.
    let dropped = validate::unknown_fields::prune_op_input(carries_of(op), &mut input);
    let mut response = answer_op(op, input, check);
    if let Response::Ok { warnings, .. } = &mut response
        && !dropped.is_empty()
    {
        warnings.splice(0..0, dropped);
    }
    response
}

#[cfg_attr(all(feature = "simulate", feature = "schemas"), allow(dead_code))]
fn not_built(op: &str, feature: &str) -> Response {
    let hint = if feature == "schemas" {
        "; restartkit-wasm offers complete() with the package's schemas"
    } else {
        ""
    };
    Response::error(
        Some(op),
        Diagnostic::request(
            "op-not-built",
            "op",
            format!(
                "op {op:?} is not in this build of restartkit (built without the `{feature}` feature{hint})"
            ),
        ),
    )
}

fn unknown_op(op: &str) -> Response {
    Response::error(
        Some(op),
        Diagnostic::request(
            "unknown-op",
            "op",
            format!("unknown op {op:?}; known ops: {}", OPERATIONS.join(", ")),
        ),
    )
}

/// Runs one op on a JSON input and returns its result, or the first error, without the object
/// check (for embedders and benchmarks that ask many questions of one valid object). The
/// engine's own parts do not come through here: they call the typed functions the ops call.
pub fn call_op(op: &str, input: Value) -> Result<Value, Diagnostic> {
    match answer(
        Request {
            op: op.to_owned(),
            input,
        },
        ObjectCheck::Off,
    ) {
        Response::Ok { result, .. } => Ok(result),
        Response::Error { mut errors, .. } => Err(errors
            .pop()
            .unwrap_or_else(|| Diagnostic::request("internal", "", format!("{op} failed")))),
    }
}

/// The JSON entry point: a request as JSON text in, a [`Response`] as JSON text out. Never
/// panics and never fails: every problem is a `status: "error"` response.
pub fn handle_json(request: &str) -> String {
    let resp = match crate::source::parse_json_strict(request) {
        Err(d) => Response::error(None, d),
        Ok(v) => match decode_moving(v, "input", |r: &mut Request, i| r.input = i) {
            Err(mut d) => {
                d.field = d.field.trim_start_matches("input.").to_owned();
                Response::error(None, d)
            }
            Ok(req) => handle(req),
        },
    };
    serde_json::to_string(&resp).unwrap_or_else(|e| {
        format!("{{\"status\":\"error\",\"errors\":[{{\"severity\":\"error\",\"field\":\"\",\"type\":null,\"message\":\"cannot encode the response: {}\",\"origin\":\"restartkit\",\"code\":\"internal\"}}]}}", e.to_string().replace('"', "'"))
    })
}

/// JSON Schemas of the contract, by name: `Request`, `Response`, `Diagnostic`, and
/// `<Op>Input` / `<Op>Output` for every op. The CLI's `schema` command, the TypeScript and the
/// Python type generators all read this one table.
pub fn json_schemas() -> std::collections::BTreeMap<&'static str, Value> {
    use schemars::schema_for;
    let mut m = std::collections::BTreeMap::new();
    let mut put = |name: &'static str, s: schemars::Schema| {
        m.insert(name, s.to_value());
    };
    put("Request", schema_for!(Request));
    put("Response", schema_for!(Response));
    put("Diagnostic", schema_for!(crate::diag::Diagnostic));
    put("Description", schema_for!(Description));
    put_op_schemas(&mut put);
    #[cfg(feature = "simulate")]
    put("Scenario", schema_for!(crate::simulate::Scenario));
    put("Pod", schema_for!(crate::api::Pod));
    put("Job", schema_for!(crate::api::Job));
    put("JobSet", schema_for!(crate::api::JobSet));
    put("TrainJob", schema_for!(crate::api::TrainJob));
    put("TrainingRuntime", schema_for!(crate::api::TrainingRuntime));
    put(
        "ContainerRecreateRequest",
        schema_for!(crate::api::ContainerRecreateRequest),
    );
    put(
        "KubeletConfiguration",
        schema_for!(crate::api::KubeletConfiguration),
    );
    m
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;

    fn call(req: &str) -> Value {
        serde_json::from_str(&handle_json(req)).unwrap()
    }

    #[test]
    fn moved_members_keep_the_decoding_rules() {
        // The moved `input` and `object` still reach the op; everything else is still checked.
        let ok = call(
            r#"{"op":"validate","input":{"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}}}"#,
        );
        assert_eq!(ok["status"], "ok");
        assert_eq!(ok["result"]["valid"], true);
        let null_object = call(r#"{"op":"validate","input":{"object":null}}"#);
        assert_eq!(
            null_object["errors"][0]["message"],
            "`object` or `source` is required"
        );
        let unknown = call(r#"{"op":"validate","input":{"object":{},"sauce":"x"}}"#);
        assert_eq!(unknown["status"], "error");
        assert!(
            unknown["errors"][0]["message"]
                .as_str()
                .unwrap()
                .contains("sauce")
        );
        let top = call(r#"{"op":"describe","input":{},"extra":1}"#);
        assert!(
            top["errors"][0]["message"]
                .as_str()
                .unwrap()
                .contains("extra")
        );
        let no_input = call(r#"{"op":"validate"}"#);
        assert_eq!(no_input["status"], "error");
    }

    #[test]
    fn describe_reports_1_37_and_removed_gates() {
        let d = call(r#"{"op":"describe","input":{}}"#);
        assert_eq!(d["result"]["defaultKubernetesVersion"], "1.37");
        let gates = d["result"]["featureGates"].as_array().unwrap();
        let gate = |n: &str| gates.iter().find(|g| g["name"] == n).unwrap().clone();
        let sidecars = gate("SidecarContainers");
        assert_eq!(sidecars["stages"]["1.36"], "GA");
        assert_eq!(sidecars["stages"]["1.37"], "Removed");
        assert_eq!(sidecars["defaults"]["1.37"], true);
        let rules = gate("ContainerRestartRules");
        assert!(
            rules["stages"].get("1.33").is_none(),
            "no stage before the gate exists"
        );
        assert_eq!(rules["stages"]["1.37"], "Beta");
        // A removed gate's override is refused through the contract too, naming gate and version.
        let r = call(
            r#"{"op":"containerRestart","input":{"featureGates":{"JobSuccessPolicy":true},"pod":{"spec":{"containers":[{"name":"c"}]}},"container":"c","exitCode":1}}"#,
        );
        assert_eq!(r["status"], "error");
        assert_eq!(r["errors"][0]["code"], "removed-feature-gate");
        assert_eq!(r["errors"][0]["field"], "featureGates[JobSuccessPolicy]");
        let ok = call(
            r#"{"op":"containerRestart","input":{"kubernetesVersion":"1.36","featureGates":{"JobSuccessPolicy":true},"pod":{"spec":{"containers":[{"name":"c"}]}},"container":"c","exitCode":1}}"#,
        );
        assert_eq!(ok["status"], "ok");
    }

    #[test]
    fn the_table_names_every_op_once_with_its_schemas() {
        let schemas = json_schemas();
        let mut seen = std::collections::BTreeSet::new();
        for o in OPS {
            assert!(seen.insert(o.name), "{} twice", o.name);
            assert!(
                !o.summary.is_empty() && !o.summary.contains('\n'),
                "{}",
                o.name
            );
            for name in [o.input, o.output] {
                assert!(schemas.contains_key(name), "{}: no schema {name}", o.name);
            }
            // Every positional argument is a member of the input.
            let props = &schemas[o.input]["properties"];
            for a in o.args {
                let member = a.member;
                assert!(
                    props.get(member).is_some(),
                    "{}: no member {member}",
                    o.name
                );
                if a.kind == ArgKind::ObjectOrText {
                    assert!(
                        props.get("source").is_some(),
                        "{}: text needs `source`",
                        o.name
                    );
                }
            }
            assert_eq!(op(o.name).map(|r| r.name), Some(o.name));
        }
        assert_eq!(OPERATIONS.len(), OPS.len());
        let d = call(r#"{"op":"describe","input":{}}"#);
        assert_eq!(
            d["result"]["operations"].as_array().unwrap().len(),
            OPS.len()
        );
    }

    #[test]
    fn malformed_input_names_the_field_for_every_op() {
        for o in OPS {
            // A member no op has: refused by name. Not an object at all: refused at `input`.
            let r = call(&format!(
                r#"{{"op":"{}","input":{{"notAMember":1}}}}"#,
                o.name
            ));
            if o.name == "describe" {
                assert_eq!(r["status"], "ok", "describe takes no input");
                continue;
            }
            assert_eq!(r["status"], "error", "{}: {r}", o.name);
            let e = &r["errors"][0];
            // The unknown member, or a required one the input lacks, by name.
            let m = e["message"].as_str().unwrap();
            assert!(
                m.contains("notAMember") || m.contains("missing field `"),
                "{}: {e}",
                o.name
            );
            let r = call(&format!(r#"{{"op":"{}","input":5}}"#, o.name));
            assert_eq!(r["status"], "error", "{}: {r}", o.name);
            assert!(
                r["errors"][0]["field"]
                    .as_str()
                    .unwrap()
                    .starts_with("input"),
                "{}: {r}",
                o.name
            );
        }
    }

    #[test]
    fn list_gates_through_the_contract() {
        let r = call(
            r#"{"op":"listGates","input":{"kubernetesVersion":"1.33","nameContains":"RestartRules"}}"#,
        );
        assert_eq!(r["result"]["kubernetesVersion"], "1.33");
        let gates = r["result"]["gates"].as_array().unwrap();
        assert!(
            gates
                .iter()
                .all(|g| g["name"].as_str().unwrap().contains("RestartRules"))
        );
        let r = call(r#"{"op":"listGates","input":{"kubernetesVersion":"2.0"}}"#);
        assert_eq!(r["errors"][0]["field"], "kubernetesVersion");
    }
}
