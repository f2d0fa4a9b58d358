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

/// Version of the request/response contract. Bumped on any incompatible change.
pub const CONTRACT_VERSION: &str = "1.3";

/// restartkit's version, as reported by every front end.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Every operation the contract offers, in the order `describe` lists them.
pub const OPERATIONS: &[&str] = &[
    "validate",
    "crrValidate",
    "containerRestart",
    "containerRestartable",
    "matchRestartRule",
    "statusTransition",
    "podFailurePolicy",
    "jobsetFailurePolicy",
    "backoff",
    "whatIf",
    "resolve",
    "simulate",
    "sweep",
    "sweepPlan",
    "sweepChunk",
    "sweepMerge",
    "backoffCompare",
    "compareVersions",
    "checkVector",
    "vectorExpect",
    "complete",
    "hover",
    "describe",
];

/// A request. `input` is decoded according to `op`; its schema is `restartkit schema <Op>Input`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Request {
    pub op: String,
    #[serde(default)]
    pub input: Value,
}

impl Request {
    /// A request for `op` with its input (the front ends that skip JSON text build it so).
    pub fn new(op: impl Into<String>, input: Value) -> Self {
        Request {
            op: op.into(),
            input,
        }
    }
}

/// The answer to any request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "status", rename_all = "camelCase")]
pub enum Response {
    Ok {
        op: String,
        result: Value,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<Diagnostic>,
    },
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        op: Option<String>,
        errors: Vec<Diagnostic>,
    },
}

impl Response {
    pub fn error(op: Option<&str>, d: Diagnostic) -> Self {
        Response::Error {
            op: op.map(str::to_owned),
            errors: vec![d],
        }
    }
    pub fn result(&self) -> Option<&Value> {
        match self {
            Response::Ok { result, .. } => Some(result),
            Response::Error { .. } => None,
        }
    }
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
        FeatureGates, GATES, KubeVersion, NEWEST_MINOR, SUPPORTED_MINORS, Stage, stage_at,
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
                        let name = match stage_at(g.name, *m)?.0 {
                            Stage::Alpha => "Alpha",
                            Stage::Beta => "Beta",
                            Stage::Ga => "GA",
                            Stage::Deprecated => "Deprecated",
                            Stage::Removed => "Removed",
                        };
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
    let dropped = validate::unknown_fields::prune_op_input(op, &mut input);
    let mut response = answer_op(op, input, check);
    if let Response::Ok { warnings, .. } = &mut response
        && !dropped.is_empty()
    {
        warnings.splice(0..0, dropped);
    }
    response
}

fn answer_op(op: &str, input: Value, check: ObjectCheck) -> Response {
    match op {
        "validate" => encode(
            op,
            decode_moving(input, "object", |i: &mut validate::ValidateInput, o| {
                i.object = (!o.is_null()).then_some(o)
            })
            .and_then(validate::run),
            vec![],
        ),
        "crrValidate" => encode(op, decode(input).and_then(validate::crr::run), vec![]),
        "containerRestart" => evaluation(
            op,
            input,
            "pod",
            Some(Subject::Pod),
            check,
            eval::kubelet::container_restart,
        ),
        "containerRestartable" => evaluation(
            op,
            input,
            "pod",
            Some(Subject::Pod),
            check,
            eval::kubelet::container_restartable,
        ),
        "matchRestartRule" => evaluation(
            op,
            input,
            "pod",
            Some(Subject::Pod),
            check,
            eval::kubelet::match_restart_rule,
        ),
        "statusTransition" => evaluation(
            op,
            input,
            "pod",
            Some(Subject::Pod),
            check,
            eval::kubelet::status_transition,
        ),
        "podFailurePolicy" => evaluation(
            op,
            input,
            "job",
            Some(Subject::Job),
            check,
            eval::job::pod_failure_policy,
        ),
        "jobsetFailurePolicy" => evaluation(
            op,
            input,
            "jobset",
            Some(Subject::JobSet),
            check,
            eval::jobset::jobset_failure_policy,
        ),
        "backoff" => encode(
            op,
            backoff::decode_input(input).and_then(backoff::run),
            vec![],
        ),
        "whatIf"
            if input
                .get("object")
                .is_some_and(crate::trainer::op::is_train_job) =>
        {
            what_if_train_job(input, check)
        }
        "whatIf" => evaluation(op, input, "object", None, check, eval::whatif::what_if),
        "resolve" => resolve(op, input),
        "backoffCompare" => encode(
            op,
            decode(input).and_then(backoff::compare::compare),
            vec![],
        ),
        "compareVersions" => encode(
            op,
            decode(input).and_then(crate::upgrade::compare_versions),
            vec![],
        ),
        #[cfg(feature = "simulate")]
        "simulate" => encode(op, decode(input).and_then(crate::simulate::run), vec![]),
        #[cfg(feature = "simulate")]
        "sweep" => encode(op, decode(input).and_then(crate::sweep::run), vec![]),
        #[cfg(feature = "simulate")]
        "sweepPlan" => encode(op, decode(input).and_then(crate::sweep::run_plan), vec![]),
        #[cfg(feature = "simulate")]
        "sweepChunk" => encode(op, decode(input).and_then(crate::sweep::run_chunk), vec![]),
        #[cfg(feature = "simulate")]
        "sweepMerge" => encode(op, decode(input).and_then(crate::sweep::run_merge), vec![]),
        #[cfg(not(feature = "simulate"))]
        op @ ("simulate" | "sweep" | "sweepPlan" | "sweepChunk" | "sweepMerge") => Response::error(
            Some(op),
            Diagnostic::request(
                "op-not-built",
                "op",
                format!(
                    "op {op:?} is not in this build of restartkit (built without the `simulate` feature)"
                ),
            ),
        ),
        "vectorExpect" => encode(
            op,
            decode(input).and_then(crate::conformance::vector_expect),
            vec![],
        ),
        "checkVector" => encode(
            op,
            decode(input).and_then(crate::conformance::check_vector),
            vec![],
        ),
        "describe" => encode(op, Ok(describe()), vec![]),
        #[cfg(feature = "schemas")]
        "complete" => encode(
            op,
            decode(input).and_then(crate::editor::complete::run),
            vec![],
        ),
        #[cfg(feature = "schemas")]
        "hover" => encode(
            op,
            decode(input).and_then(crate::editor::hover::run),
            vec![],
        ),
        #[cfg(not(feature = "schemas"))]
        op @ ("complete" | "hover") => Response::error(
            Some(op),
            Diagnostic::request(
                "op-not-built",
                "op",
                format!(
                    "op {op:?} is not in this build of restartkit (built without the `schemas` feature; restartkit-wasm offers complete() with the package's schemas)"
                ),
            ),
        ),
        other => Response::error(
            Some(other),
            Diagnostic::request(
                "unknown-op",
                "op",
                format!("unknown op {other:?}; known ops: {}", OPERATIONS.join(", ")),
            ),
        ),
    }
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
    put("ValidateInput", schema_for!(validate::ValidateInput));
    put("ValidateOutput", schema_for!(validate::ValidateOutput));
    put(
        "CrrValidateInput",
        schema_for!(validate::crr::CrrValidateInput),
    );
    put(
        "CrrValidateOutput",
        schema_for!(validate::crr::CrrValidateOutput),
    );
    put(
        "ContainerRestartInput",
        schema_for!(eval::kubelet::ContainerRestartInput),
    );
    put(
        "ContainerRestartOutput",
        schema_for!(Evaluated<eval::kubelet::ContainerRestartOutput>),
    );
    put(
        "ContainerRestartableInput",
        schema_for!(eval::kubelet::ContainerRestartableInput),
    );
    put(
        "ContainerRestartableOutput",
        schema_for!(Evaluated<eval::kubelet::ContainerRestartableOutput>),
    );
    put(
        "MatchRestartRuleInput",
        schema_for!(eval::kubelet::MatchRestartRuleInput),
    );
    put(
        "MatchRestartRuleOutput",
        schema_for!(Evaluated<eval::kubelet::MatchRestartRuleOutput>),
    );
    put(
        "StatusTransitionInput",
        schema_for!(eval::kubelet::StatusTransitionInput),
    );
    put(
        "StatusTransitionOutput",
        schema_for!(Evaluated<eval::kubelet::StatusTransitionOutput>),
    );
    put(
        "PodFailurePolicyInput",
        schema_for!(eval::job::PodFailurePolicyInput),
    );
    put(
        "PodFailurePolicyOutput",
        schema_for!(Evaluated<eval::job::PodFailurePolicyOutput>),
    );
    put(
        "JobsetFailurePolicyInput",
        schema_for!(eval::jobset::JobSetFailurePolicyInput),
    );
    put(
        "JobsetFailurePolicyOutput",
        schema_for!(Evaluated<eval::jobset::JobSetFailurePolicyOutput>),
    );
    put("BackoffInput", schema_for!(backoff::BackoffInput));
    put("BackoffOutput", schema_for!(backoff::BackoffOutput));
    put("WhatIfInput", schema_for!(eval::whatif::WhatIfInput));
    put(
        "WhatIfOutput",
        schema_for!(Evaluated<eval::whatif::WhatIfOutput>),
    );
    put(
        "ResolveInput",
        schema_for!(crate::trainer::op::ResolveInput),
    );
    put(
        "ResolveOutput",
        schema_for!(crate::trainer::op::ResolveOutput),
    );
    put(
        "BackoffCompareInput",
        schema_for!(backoff::compare::CompareInput),
    );
    put(
        "BackoffCompareOutput",
        schema_for!(backoff::compare::CompareOutput),
    );
    put(
        "CompareVersionsInput",
        schema_for!(crate::upgrade::CompareVersionsInput),
    );
    put(
        "CompareVersionsOutput",
        schema_for!(crate::upgrade::CompareVersionsOutput),
    );
    #[cfg(feature = "simulate")]
    {
        put("SimulateInput", schema_for!(crate::simulate::SimulateInput));
        put(
            "SimulateOutput",
            schema_for!(crate::simulate::SimulateOutput),
        );
        put("Scenario", schema_for!(crate::simulate::Scenario));
        put("SweepInput", schema_for!(crate::sweep::SweepInput));
        put("SweepOutput", schema_for!(crate::sweep::SweepOutput));
        put("SweepPlanInput", schema_for!(crate::sweep::SweepInput));
        put("SweepPlanOutput", schema_for!(crate::sweep::SweepPlan));
        put(
            "SweepChunkInput",
            schema_for!(crate::sweep::SweepChunkInput),
        );
        put("SweepChunkOutput", schema_for!(crate::sweep::SweepPartial));
        put(
            "SweepMergeInput",
            schema_for!(crate::sweep::SweepMergeInput),
        );
        put("SweepMergeOutput", schema_for!(crate::sweep::SweepOutput));
    }
    put(
        "CheckVectorInput",
        schema_for!(crate::conformance::CheckVectorInput),
    );
    put(
        "CheckVectorOutput",
        schema_for!(crate::conformance::CheckVectorOutput),
    );
    put(
        "VectorExpectInput",
        schema_for!(crate::conformance::VectorExpectInput),
    );
    put(
        "VectorExpectOutput",
        schema_for!(crate::conformance::VectorExpectOutput),
    );
    put(
        "CompleteInput",
        schema_for!(crate::editor::complete::CompleteInput),
    );
    put(
        "CompleteOutput",
        schema_for!(crate::editor::complete::CompleteOutput),
    );
    put("HoverInput", schema_for!(crate::editor::hover::HoverInput));
    put(
        "HoverOutput",
        schema_for!(crate::editor::hover::HoverOutput),
    );
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
}
