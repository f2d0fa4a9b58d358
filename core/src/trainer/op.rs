//! A TrainJob with its runtime in every op: the `resolve` op, `validate`'s reading of a TrainJob
//! beside the runtimes of its stream (or given apart), and the JobSet that `whatIf`, `simulate`
//! and `sweep` answer for.

use super::{Built, DocRole, Outcome, Placed, SideObject};
use crate::api::JobSet;
use crate::diag::{Diagnostic, Findings, Origin, Severity};
use crate::source::Document;
use crate::validate::Ctx;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A TrainingRuntime or ClusterTrainingRuntime given beside the input: an object, or text (YAML
/// or JSON; every runtime among its documents counts).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RuntimeInput {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The file `source` came from: diagnostics in it carry it as `file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
    /// The caller validates this runtime on its own (as the CLI does every file it is given):
    /// its own findings are left out here, the TrainJob's findings in it are kept.
    #[serde(default)]
    pub validated: bool,
}

/// Whether a value is a TrainJob (`trainer.kubeflow.org/*`, kind TrainJob).
pub fn is_train_job(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str) == Some("TrainJob")
        && v.get("apiVersion")
            .and_then(Value::as_str)
            .is_some_and(|a| a.starts_with("trainer.kubeflow.org/"))
}

fn is_runtime(v: &Value) -> bool {
    matches!(
        v.get("kind").and_then(Value::as_str),
        Some("TrainingRuntime" | "ClusterTrainingRuntime")
    ) && v
        .get("apiVersion")
        .and_then(Value::as_str)
        .is_some_and(|a| a.starts_with("trainer.kubeflow.org/"))
}

/// Where a runtime candidate is: a document of the input's own stream, of another text, or an
/// object without text.
#[derive(Debug, Clone)]
enum Place {
    Stream(usize),
    Other { source: usize, doc: usize },
    Object,
}

/// One runtime a TrainJob may name.
#[derive(Debug, Clone)]
struct Candidate {
    value: Value,
    place: Place,
    /// Its own findings are reported by someone else (its own document, its own file).
    validated: bool,
}

/// The runtimes known to one request: those of its stream and those given apart.
pub struct Runtimes {
    candidates: Vec<Candidate>,
    /// Documents of texts given apart, with their file names.
    others: Vec<(Option<String>, Vec<Document>)>,
    /// Findings of runtime texts that could not be read.
    pub reading_errors: Vec<Diagnostic>,
}

impl Runtimes {
    /// The runtimes among `stream` and in `given`.
    pub fn new(stream: &[Document], given: &[RuntimeInput]) -> Runtimes {
        let mut candidates: Vec<Candidate> = stream
            .iter()
            .filter(|d| is_runtime(&d.value))
            .map(|d| Candidate {
                value: d.value.clone(),
                place: Place::Stream(d.index),
                validated: true,
            })
            .collect();
        let mut others = Vec::new();
        let mut reading_errors = Vec::new();
        for r in given {
            if let Some(o) = &r.object {
                candidates.push(Candidate {
                    value: o.clone(),
                    place: Place::Object,
                    validated: r.validated,
                });
            }
            if let Some(text) = &r.source {
                let mut docs = Vec::new();
                for e in crate::source::read_stream(text) {
                    match e {
                        Ok(d) => docs.push(d),
                        Err(b) => {
                            let mut d = b.error;
                            d.file = r.file_name.clone();
                            reading_errors.push(d);
                        }
                    }
                }
                let source = others.len();
                for (i, d) in docs.iter().enumerate() {
                    if is_runtime(&d.value) {
                        candidates.push(Candidate {
                            value: d.value.clone(),
                            place: Place::Other { source, doc: i },
                            validated: r.validated,
                        });
                    }
                }
                others.push((r.file_name.clone(), docs));
            }
        }
        Runtimes {
            candidates,
            others,
            reading_errors,
        }
    }

    fn values(&self) -> Vec<&Value> {
        self.candidates.iter().map(|c| &c.value).collect()
    }

    /// Places a diagnostic of the runtime `i` in its text.
    fn locate_runtime(&self, i: usize, stream: &[Document], d: &mut Diagnostic) {
        let Some(c) = self.candidates.get(i) else {
            return;
        };
        match c.place {
            Place::Stream(idx) => {
                if let Some(doc) = stream.iter().find(|x| x.index == idx) {
                    locate(d, doc);
                }
            }
            Place::Other { source, doc } => {
                if let Some((file, docs)) = self.others.get(source)
                    && let Some(document) = docs.get(doc)
                {
                    locate(d, document);
                    d.file = file.clone().or_else(|| Some("runtime".into()));
                }
            }
            Place::Object => {}
        }
    }
}

fn locate(d: &mut Diagnostic, doc: &Document) {
    d.document = Some(doc.index);
    // The ClusterTrainingRuntime validator spells the field `spec.RuntimeRef`.
    let spelled = d.field.replacen("spec.RuntimeRef", "spec.runtimeRef", 1);
    let (line, column) = doc.position_of(&spelled);
    if d.line.is_none() {
        d.line = Some(line);
        d.column = Some(column);
    }
    crate::validate::attach_text_edits(d, doc);
}

/// The JobSet checks of a built JobSet, without those the runtime's own reading reports for
/// every TrainJob (when that reading is reported: the runtime is validated too).
fn jobset_checks(
    built: &Built,
    tj_name: &str,
    runtime: &Value,
    ctx: &Ctx,
    dedupe: bool,
) -> Vec<Placed> {
    let prefix = format!("JobSet {tj_name:?} as the trainer builds it: ");
    let mut seen = Vec::new();
    if dedupe {
        let mut alone = Findings::default();
        super::validate_runtime_alone(runtime, ctx, &mut alone);
        for d in alone.errors.iter().chain(&alone.warnings) {
            if let Some((_, raw)) = d.message.split_once(": ") {
                seen.push((d.field.clone(), raw.to_owned()));
            }
        }
    }
    super::jobset_findings(built, ctx, "")
        .into_iter()
        .filter(|p| {
            !(p.role == DocRole::Runtime
                && seen
                    .iter()
                    .any(|(f, m)| *f == p.diagnostic.field && *m == p.diagnostic.message))
        })
        .map(|mut p| {
            p.diagnostic.message = format!("{prefix}{}", p.diagnostic.message);
            p
        })
        .collect()
}

/// `validate` of one TrainJob document: its admission, the runtime's when nobody else reports
/// it, the build and the built JobSet's checks, each diagnostic placed in the text it is about.
pub fn validate_train_job(
    doc_value: &Value,
    own: Option<&Document>,
    stream: &[Document],
    runtimes: &Runtimes,
    ctx: &Ctx,
) -> Findings {
    let res = super::resolve(doc_value, &runtimes.values());
    let mut out = Findings::default();
    let place = |p: Placed, out: &mut Findings| {
        let mut d = p.diagnostic;
        match p.role {
            DocRole::TrainJob => {
                if let Some(doc) = own {
                    locate(&mut d, doc);
                }
            }
            DocRole::Runtime => {
                if let Some(i) = res.runtime {
                    runtimes.locate_runtime(i, stream, &mut d);
                }
            }
        }
        out.push(d);
    };
    for p in res.findings.clone() {
        place(p, &mut out);
    }
    let candidate = res.runtime.and_then(|i| runtimes.candidates.get(i));
    if let Some(c) = candidate
        && !c.validated
    {
        for p in res.runtime_findings.clone() {
            place(p, &mut out);
        }
    }
    match &res.outcome {
        Outcome::Built(built) => {
            let dedupe = candidate.is_some_and(|c| c.validated);
            let rt = candidate.map(|c| &c.value).unwrap_or(&Value::Null);
            for p in jobset_checks(
                built,
                res.train_job.metadata.name_or_empty(),
                rt,
                ctx,
                dedupe,
            ) {
                place(p, &mut out);
            }
        }
        Outcome::NotBuilt(p) => {
            // A refusal is explained by the errors above; say why only when nothing else did.
            if p.diagnostic.severity == Severity::Error && out.errors.is_empty() {
                place((**p).clone(), &mut out);
            }
        }
    }
    out
}

/// `resolve` op input: a TrainJob (`trainJob`, or `source` text holding TrainJobs and maybe
/// their runtimes) and the runtimes given apart.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResolveInput {
    #[serde(default)]
    pub train_job: Option<Value>,
    /// YAML or JSON text: every TrainJob in it is resolved, with the runtimes in it and in
    /// `runtimes`.
    #[serde(default)]
    pub source: Option<String>,
    /// Shown in diagnostics; not read.
    #[serde(default)]
    pub file_name: Option<String>,
    #[serde(default)]
    pub runtimes: Vec<RuntimeInput>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}

/// The runtime a TrainJob uses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeName {
    pub kind: String,
    pub name: String,
}

/// What the trainer creates for one TrainJob.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedTrainJob {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The TrainJob's document in `source` (0-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<RuntimeName>,
    /// The JobSet the trainer applies (before the JobSet webhook's defaults), or null.
    pub job_set: Option<JobSet>,
    /// The other objects the trainer creates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<SideObject>,
    /// Why no JobSet is created (refused at admission, another manager, a build error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_built: Option<Diagnostic>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResolveOutput {
    pub train_jobs: Vec<ResolvedTrainJob>,
    /// No error in the TrainJobs, their runtimes and the JobSets built from them.
    pub valid: bool,
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub infos: Vec<Diagnostic>,
    pub kubernetes_version: String,
}

fn ctx_of(
    version: Option<&str>,
    gates: Option<&BTreeMap<String, bool>>,
) -> Result<(Ctx, Vec<Diagnostic>), Diagnostic> {
    let (gates, w) = crate::features::FeatureGates::resolve(version, gates)?;
    Ok((
        Ctx {
            gates,
            ..Default::default()
        },
        w,
    ))
}

fn resolved_of(
    res: &super::Resolution,
    document: Option<usize>,
    runtimes: &Runtimes,
) -> ResolvedTrainJob {
    let tj = &res.train_job;
    let runtime = res
        .runtime
        .and_then(|i| runtimes.candidates.get(i))
        .map(|c| RuntimeName {
            kind: c
                .value
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            name: c
                .value
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        });
    let (job_set, objects, not_built) = match &res.outcome {
        Outcome::Built(b) => (Some(b.jobset.clone()), b.objects.clone(), None),
        Outcome::NotBuilt(p) => (None, Vec::new(), Some(p.diagnostic.clone())),
    };
    ResolvedTrainJob {
        name: tj.metadata.name_or_empty().to_owned(),
        namespace: tj.metadata.namespace.clone(),
        document,
        runtime,
        job_set,
        objects,
        not_built,
    }
}

/// The `resolve` op.
#[inline(never)]
pub fn run(input: ResolveInput) -> Result<ResolveOutput, Diagnostic> {
    let (ctx, gate_warnings) = ctx_of(
        input.kubernetes_version.as_deref(),
        input.feature_gates.as_ref(),
    )?;
    let mut all = Findings::default();
    all.extend(gate_warnings);
    let mut train_jobs = Vec::new();
    match (input.train_job, input.source) {
        (Some(tj), None) => {
            let runtimes = Runtimes::new(&[], &input.runtimes);
            all.extend(runtimes.reading_errors.clone());
            if !is_train_job(&tj) {
                return Err(Diagnostic::request(
                    "invalid-input",
                    "trainJob",
                    "trainJob: expected a TrainJob (apiVersion trainer.kubeflow.org/v1alpha1, kind TrainJob)",
                ));
            }
            all.merge(validate_train_job(&tj, None, &[], &runtimes, &ctx));
            let res = super::resolve(&tj, &runtimes.values());
            train_jobs.push(resolved_of(&res, None, &runtimes));
        }
        (None, Some(text)) => {
            let mut docs = Vec::new();
            for e in crate::source::read_stream(&text) {
                match e {
                    Ok(d) => docs.push(d),
                    Err(b) => all.push(b.error),
                }
            }
            let mut runtimes = Runtimes::new(&docs, &input.runtimes);
            // In `resolve`, the runtimes of the text are only context: their own findings are
            // reported with the TrainJob that uses them.
            for c in &mut runtimes.candidates {
                c.validated = false;
            }
            all.extend(runtimes.reading_errors.clone());
            // A runtime shared by several TrainJobs: its diagnostics are reported once.
            let mut elsewhere: Vec<Diagnostic> = Vec::new();
            for doc in docs.iter().filter(|d| is_train_job(&d.value)) {
                let mut f = validate_train_job(&doc.value, Some(doc), &docs, &runtimes, &ctx);
                for d in f.all_mut() {
                    d.document.get_or_insert(doc.index);
                }
                for list in [&mut f.errors, &mut f.warnings, &mut f.infos] {
                    list.retain(|d| {
                        if d.document == Some(doc.index) && d.file.is_none() {
                            return true;
                        }
                        if elsewhere.contains(d) {
                            return false;
                        }
                        elsewhere.push(d.clone());
                        true
                    });
                }
                all.merge(f);
                let res = super::resolve(&doc.value, &runtimes.values());
                train_jobs.push(resolved_of(&res, Some(doc.index), &runtimes));
            }
            if train_jobs.is_empty() {
                return Err(Diagnostic::request(
                    "invalid-input",
                    "source",
                    "source: no TrainJob among its documents (apiVersion trainer.kubeflow.org/v1alpha1, kind TrainJob)",
                ));
            }
        }
        (Some(_), Some(_)) => {
            return Err(Diagnostic::request(
                "invalid-input",
                "input",
                "give either `trainJob` or `source`, not both",
            ));
        }
        (None, None) => {
            return Err(Diagnostic::request(
                "invalid-input",
                "input",
                "`trainJob` or `source` is required",
            ));
        }
    }
    Ok(ResolveOutput {
        train_jobs,
        valid: all.errors.is_empty(),
        errors: all.errors,
        warnings: all.warnings,
        infos: all.infos,
        kubernetes_version: ctx.gates.version.as_string(),
    })
}

/// A stand-in for the uid the API server gives a TrainJob created without one.
const UID_ON_CREATE: &str = "00000000-0000-0000-0000-000000000000";

/// The JobSet a TrainJob object becomes, for the ops that answer for a JobSet (`whatIf`,
/// `simulate`, `sweep`): the JobSet, and the TrainJob's and runtime's admission errors as
/// warnings. No JobSet (refused, another manager, a build error) is a request error naming
/// why, at `at` (the input member that held the TrainJob).
pub fn jobset_for(
    train_job: &Value,
    runtimes: &[RuntimeInput],
    at: &str,
    ctx: Option<&Ctx>,
) -> Result<(Value, Vec<Diagnostic>), Diagnostic> {
    let rts = Runtimes::new(&[], runtimes);
    let res = super::resolve(train_job, &rts.values());
    let errors: Vec<&Placed> = res
        .findings
        .iter()
        .chain(&res.runtime_findings)
        .filter(|p| p.diagnostic.severity == Severity::Error)
        .collect();
    let as_warning = |p: &Placed| {
        let mut d = p.diagnostic.clone();
        if p.role == DocRole::Runtime {
            d.message = format!("runtime: {}", d.message);
        }
        d.severity = Severity::Warning;
        d.code = Some(crate::diag::INVALID_OBJECT.into());
        d
    };
    let mut warnings: Vec<Diagnostic> = errors.iter().map(|p| as_warning(p)).collect();
    warnings.extend(rts.reading_errors);
    match res.outcome {
        Outcome::Built(b) => {
            if let Some(ctx) = ctx {
                let name = res.train_job.metadata.name_or_empty();
                let prefix = format!("JobSet {name:?} as the trainer builds it: ");
                warnings.extend(
                    super::jobset_findings(&b, ctx, &prefix)
                        .iter()
                        .filter(|p| p.diagnostic.severity == Severity::Error)
                        .map(as_warning),
                );
            }
            let mut v = serde_json::to_value(&b.jobset).map_err(|e| {
                Diagnostic::request("internal", at, format!("cannot encode the JobSet: {e}"))
            })?;
            // In the cluster the TrainJob has the uid the API server gave it on create, and the
            // JobSet's owner reference names it (an empty uid would be refused there).
            if let Some(uid) = v.pointer_mut("/metadata/ownerReferences/0/uid")
                && uid.as_str() == Some("")
            {
                *uid = Value::from(UID_ON_CREATE);
            }
            Ok((v, warnings))
        }
        Outcome::NotBuilt(p) => {
            // The first admission error says more than "refused".
            let why = match errors.first() {
                Some(e) if errors.len() > 1 => {
                    format!(
                        "{} ({} errors; validate it for all)",
                        e.diagnostic.message,
                        errors.len()
                    )
                }
                Some(e) => e.diagnostic.message.clone(),
                None => p.diagnostic.message.clone(),
            };
            let mut d = Diagnostic::request(
                "trainjob-not-built",
                format!("{at}.{}", p.diagnostic.field).trim_end_matches('.'),
                format!("{at}: the trainer creates no JobSet for this TrainJob: {why}"),
            );
            d.origin = Origin::TrainerController;
            Err(d)
        }
    }
}

/// The TrainJob's activeDeadlineSeconds (after the build was possible): the TrainJob
/// controller fails the TrainJob and deletes its JobSet that long after the TrainJob was
/// created.
pub fn active_deadline(train_job: &Value) -> Option<i64> {
    train_job
        .pointer("/spec/activeDeadlineSeconds")
        .and_then(Value::as_i64)
        .filter(|s| *s > 0)
}

/// `validate` of a TrainJob object given alone (no stream).
pub(crate) fn validate_alone(v: &Value, ctx: &Ctx, out: &mut Findings) {
    let runtimes = Runtimes::new(&[], &[]);
    out.merge(validate_train_job(v, None, &[], &runtimes, ctx));
}

/// `whatIf` on a TrainJob: the input with the JobSet the trainer builds in place of the
/// TrainJob (and the trainer's replicatedJob as the default one), and, as warnings, the
/// TrainJob's and runtime's admission errors and the built JobSet's, each at the TrainJob or
/// runtime field it comes from. `None` for any other input.
///
/// Never inlined (nor is `run`): the contract's `answer` is one of the functions the wasm
/// module's first-load part holds whole, and the trainer's build belongs to its on-demand part.
#[inline(never)]
pub fn what_if_input(input: &Value) -> Result<Option<(Value, Vec<Diagnostic>)>, Diagnostic> {
    let Some(object) = input.get("object").filter(|o| is_train_job(o)).cloned() else {
        return Ok(None);
    };
    let mut input = input.clone();
    let runtimes: Vec<RuntimeInput> = match input.get("runtimes") {
        Some(v) => crate::decode::input_at(
            &serde_json::json!({ "runtimes": v }),
            &crate::FieldPath::new("input"),
        )
        .map(|w: RuntimesOnly| w.runtimes)?,
        None => Vec::new(),
    };
    let version = input.get("kubernetesVersion").and_then(Value::as_str);
    let gates: Option<BTreeMap<String, bool>> = input
        .get("featureGates")
        .and_then(|g| serde_json::from_value(g.clone()).ok());
    let (ctx, _) = ctx_of(version, gates.as_ref())?;
    let (jobset, warnings) = jobset_for(&object, &runtimes, "input.object", Some(&ctx))?;
    let rj = trainer_replicated_job(&jobset);
    if let Some(m) = input.as_object_mut() {
        if m.get("replicatedJob").is_none_or(Value::is_null)
            && let Some(name) = rj
        {
            m.insert("replicatedJob".into(), Value::String(name));
        }
        m.insert("object".into(), jobset);
        m.remove("runtimes");
    }
    Ok(Some((input, warnings)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuntimesOnly {
    runtimes: Vec<RuntimeInput>,
}

/// The first replicatedJob labelled as the trainer.
fn trainer_replicated_job(jobset: &Value) -> Option<String> {
    jobset
        .pointer("/spec/replicatedJobs")?
        .as_array()?
        .iter()
        .find(|r| {
            r.pointer("/template/metadata/labels")
                .and_then(|l| l.get(super::build::ANCESTOR_LABEL))
                .and_then(Value::as_str)
                == Some(super::build::ANCESTOR_TRAINER)
        })
        .and_then(|r| r.get("name").and_then(Value::as_str))
        .map(str::to_owned)
}

/// A TrainJob's state at the end of a simulation: its controller copies the JobSet's
/// Completed or Failed condition (as Complete or Failed), and fails it with
/// `DeadlineExceeded`, deleting the JobSet, once activeDeadlineSeconds have passed since it was
/// created while it was not finished (pkg/controller/trainjob_controller.go).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrainJobSummary {
    pub name: String,
    /// `Running`, `Complete` or `Failed`.
    pub phase: String,
    pub reason: Option<String>,
    pub message: Option<String>,
    /// When the TrainJob controller deleted the JobSet for the deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobset_deleted_at_seconds: Option<f64>,
}
