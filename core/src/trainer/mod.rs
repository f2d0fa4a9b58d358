//! Kubeflow Trainer v2: the JobSet the trainer builds from a TrainJob and its TrainingRuntime or
//! ClusterTrainingRuntime, as github.com/kubeflow/trainer/v2 v2.3.0 builds it, and the admission
//! of both (CRD defaults and schema, the trainer's webhooks).
//!
//! The built JobSet is a typed [`JobSet`] that the rest of restartkit validates, evaluates and
//! simulates like any other; its diagnostics are mapped back to the TrainJob or runtime field
//! each value came from (provenance recorded while building), so they point at the lines a
//! user wrote. See docs/contract.md ("TrainJob") and docs/oracle.md ("Kubeflow Trainer").

mod build;
mod crd;
mod fields;
pub mod op;
mod provenance;
mod quantity;
mod smp;
mod webhook;

use crate::api::{JobSet, TrainJob, TrainingRuntime};
use crate::diag::{Diagnostic, FieldPath, Findings, Origin as DiagOrigin, Severity};
use crate::validate::Ctx;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use provenance::{DocRole, Origin};
pub(crate) use provenance::Seg;

pub const TRAINER_MODULE: &str = "github.com/kubeflow/trainer/v2 v2.3.0";
const CONTROLLER: &str = "trainer.kubeflow.org/trainjob-controller";

/// A diagnostic and the object it belongs to.
#[derive(Debug, Clone)]
pub struct Placed {
    pub role: DocRole,
    pub diagnostic: Diagnostic,
}

/// An object the trainer creates beside the JobSet (ConfigMaps, Secrets, PodGroups).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SideObject {
    pub object: Value,
    /// Fields of the object restartkit leaves out (generated keys, scripts from the trainer's
    /// templates, sums of resource quantities), each with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<String>,
}

/// The build and what it maps back to.
#[derive(Debug, Clone)]
pub struct Built {
    pub jobset: JobSet,
    pub objects: Vec<SideObject>,
    owned: Vec<(Vec<PathStep>, Origin)>,
    jobset_json: Value,
    runtime_spec: Value,
}

/// What happened to a TrainJob.
#[derive(Debug, Clone)]
pub enum Outcome {
    Built(Box<Built>),
    /// No JobSet: why (refused at admission, managed by another controller, a build error).
    NotBuilt(Box<Placed>),
}

#[derive(Debug, Clone)]
pub struct Resolution {
    /// The TrainJob after the CRD defaults (default when it did not decode).
    pub train_job: TrainJob,
    /// The index of the runtime used among the candidates.
    pub runtime: Option<usize>,
    /// The TrainJob's admission (CRD schema, webhook) and notes about the build.
    pub findings: Vec<Placed>,
    /// The runtime's own admission (CRD schema, webhook, unknown fields).
    pub runtime_findings: Vec<Placed>,
    pub outcome: Outcome,
}

/// A path of the built JobSet: field names and list indices.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PathStep {
    Field(String),
    Index(usize),
}

fn parse_path(p: &str) -> Vec<PathStep> {
    let mut out = Vec::new();
    for part in p.split('.') {
        let mut rest = part;
        let name_end = rest.find('[').unwrap_or(rest.len());
        let (name, tail) = rest.split_at(name_end);
        if !name.is_empty() {
            out.push(PathStep::Field(name.to_owned()));
        }
        rest = tail;
        while let Some(inner) = rest.strip_prefix('[') {
            let Some(close) = inner.find(']') else { break };
            let (idx, after) = inner.split_at(close);
            match idx.parse::<usize>() {
                Ok(i) => out.push(PathStep::Index(i)),
                Err(_) => out.push(PathStep::Field(idx.to_owned())),
            }
            rest = after.get(1..).unwrap_or("");
        }
    }
    out
}

fn render_path(steps: &[PathStep]) -> String {
    let mut s = String::new();
    for st in steps {
        match st {
            PathStep::Field(f) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(f);
            }
            PathStep::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Resolves an owned path against the built JobSet's JSON.
fn resolve_segs(jobset: &Value, at: &[Seg]) -> Option<Vec<PathStep>> {
    let mut cur = jobset;
    let mut out = Vec::new();
    for s in at {
        match s {
            Seg::Key(k) => {
                out.push(PathStep::Field(k.clone()));
                cur = cur.get(k).unwrap_or(&Value::Null);
            }
            Seg::Index(i) => {
                out.push(PathStep::Index(*i));
                cur = cur.get(*i).unwrap_or(&Value::Null);
            }
            Seg::Named(key, value) => {
                let items = cur.as_array()?;
                let i = items
                    .iter()
                    .position(|x| x.get(*key).and_then(Value::as_str) == Some(value))?;
                out.push(PathStep::Index(i));
                cur = items.get(i)?;
            }
        }
    }
    Some(out)
}

/// The item of `list` that is `item`'s counterpart: the same `name` (or `mountPath`,
/// `containerPort`), else the same index.
fn counterpart(list: &[Value], item: &Value, index: usize) -> Option<usize> {
    for key in ["name", "mountPath", "containerPort"] {
        if let Some(k) = item.get(key) {
            return list.iter().position(|x| x.get(key) == Some(k));
        }
    }
    (index < list.len()).then_some(index)
}

impl Built {
    /// Where a field of the built JobSet (`spec.replicatedJobs[0]…`) came from.
    fn origin_of(&self, field: &str) -> Origin {
        let steps = parse_path(field);
        let best = self
            .owned
            .iter()
            .filter(|(at, _)| steps.starts_with(at))
            .max_by_key(|(at, _)| at.len());
        if let Some((_, o)) = best {
            return o.clone();
        }
        // The runtime's `spec.template.spec`, with list items matched by name.
        let mut out = vec![
            PathStep::Field("spec".into()),
            PathStep::Field("template".into()),
        ];
        let mut js = &self.jobset_json;
        let mut rt = &self.runtime_spec;
        let rest = match steps.split_first() {
            Some((PathStep::Field(f), rest)) if f == "spec" => {
                js = js.get("spec").unwrap_or(&Value::Null);
                out.push(PathStep::Field("spec".into()));
                rest
            }
            _ => {
                return Origin {
                    doc: DocRole::Runtime,
                    path: "spec.template".into(),
                };
            }
        };
        for st in rest {
            match st {
                PathStep::Field(f) => {
                    js = js.get(f).unwrap_or(&Value::Null);
                    rt = rt.get(f).unwrap_or(&Value::Null);
                    out.push(st.clone());
                }
                PathStep::Index(i) => {
                    let item = js.get(*i).unwrap_or(&Value::Null);
                    let Some(j) = rt.as_array().and_then(|l| counterpart(l, item, *i)) else {
                        break;
                    };
                    out.push(PathStep::Index(j));
                    js = item;
                    rt = rt.get(j).unwrap_or(&Value::Null);
                }
            }
        }
        Origin {
            doc: DocRole::Runtime,
            path: render_path(&out),
        }
    }
}

fn placed(role: DocRole, diagnostic: Diagnostic) -> Placed {
    Placed { role, diagnostic }
}

fn decode<T: serde::de::DeserializeOwned>(v: &Value) -> Result<T, Diagnostic> {
    crate::validate::decode_at(v, &FieldPath::root())
}

/// The TrainJob after the CRD defaults, typed, with its own admission findings. Errors from
/// the schema mean the API server refuses it before any webhook.
fn admit_train_job(value: &Value, out: &mut Vec<Placed>) -> (Option<TrainJob>, bool) {
    let mut v = value.clone();
    crd::defaults_train_job(&mut v);
    let mut f = Findings::default();
    fields::check_train_job(&v, &mut f);
    let refused = crd::validate_train_job(&v, &mut f);
    let tj = match decode::<TrainJob>(&v) {
        Ok(t) => Some(t),
        Err(d) => {
            f.push(d);
            None
        }
    };
    let refused = refused || tj.is_none();
    out.extend(drain(f).map(|d| placed(DocRole::TrainJob, d)));
    (tj, refused)
}

/// A runtime after its CRD defaults, typed, with its own admission findings (schema, webhook,
/// unknown fields, unmodelled policies). `usable` is false when restartkit cannot model it.
pub(crate) struct AdmittedRuntime {
    pub runtime: Option<TrainingRuntime>,
    pub spec_json: Value,
    pub findings: Vec<Placed>,
    pub usable: bool,
}

pub(crate) fn admit_runtime(value: &Value) -> AdmittedRuntime {
    let mut v = value.clone();
    crd::defaults_runtime(&mut v);
    let mut f = Findings::default();
    fields::check_runtime(&v, &mut f);
    let not_modelled = f
        .errors
        .iter()
        .any(|d| d.code.as_deref() == Some("not-modelled"));
    let schema_refused = crd::validate_runtime(&v, &mut f);
    let runtime = match decode::<TrainingRuntime>(&v) {
        Ok(r) => Some(r),
        Err(d) => {
            f.push(d);
            None
        }
    };
    if let Some(r) = &runtime
        && !schema_refused
    {
        f.extend(webhook::validate_runtime(r));
    }
    let spec_json = v
        .pointer("/spec/template/spec")
        .cloned()
        .unwrap_or(json!({}));
    AdmittedRuntime {
        usable: runtime.is_some() && !not_modelled,
        runtime,
        spec_json,
        findings: drain(f).map(|d| placed(DocRole::Runtime, d)).collect(),
    }
}

/// Every diagnostic of `f`: errors, then warnings, then infos.
fn drain(f: Findings) -> impl Iterator<Item = Diagnostic> {
    f.errors.into_iter().chain(f.warnings).chain(f.infos)
}

fn not_built(role: DocRole, d: Diagnostic) -> Outcome {
    Outcome::NotBuilt(Box::new(placed(role, d)))
}

/// Which candidate is the TrainJob's runtime: the webhook's lookup by kind, name and (for a
/// TrainingRuntime) namespace.
fn find_runtime(
    tj: &TrainJob,
    kind: webhook::RuntimeKind,
    candidates: &[&Value],
) -> Result<Option<usize>, Diagnostic> {
    let name = tj
        .spec
        .runtime_ref
        .as_ref()
        .and_then(|r| r.name.as_deref())
        .unwrap_or("");
    let ns = tj.metadata.namespace.as_deref().unwrap_or("");
    let matches: Vec<usize> = candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            c.get("kind").and_then(Value::as_str) == Some(kind.kind())
                && c.get("apiVersion")
                    .and_then(Value::as_str)
                    .is_some_and(|a| a.starts_with("trainer.kubeflow.org/"))
                && c.pointer("/metadata/name").and_then(Value::as_str) == Some(name)
                && (kind == webhook::RuntimeKind::Cluster
                    || c.pointer("/metadata/namespace")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        == ns)
        })
        .map(|(i, _)| i)
        .collect();
    match matches.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(*one)),
        [first, rest @ ..] => {
            let same = rest
                .iter()
                .all(|i| candidates.get(*i) == candidates.get(*first));
            if same {
                Ok(Some(*first))
            } else {
                let mut d = Diagnostic::plain(
                    DiagOrigin::Restartkit,
                    &FieldPath::new("spec").child("runtimeRef"),
                    format!(
                        "{} {name:?} is given {} times, with different contents: the trainer would use whichever was applied last; give one",
                        kind.kind(),
                        matches.len()
                    ),
                );
                d.code = Some("ambiguous-runtime".into());
                Err(d)
            }
        }
    }
}

/// The hint beside the webhook's "must be created before": a runtime of the other kind, or in
/// another namespace, with that name.
fn lookup_hint(tj: &TrainJob, kind: webhook::RuntimeKind, candidates: &[&Value]) -> Option<String> {
    let name = tj.spec.runtime_ref.as_ref()?.name.as_deref()?;
    let other = candidates.iter().find(|c| {
        c.pointer("/metadata/name").and_then(Value::as_str) == Some(name)
            && c.get("kind").and_then(Value::as_str).is_some()
    })?;
    let ok = other.get("kind").and_then(Value::as_str).unwrap_or("");
    Some(if ok == kind.kind() {
        format!(
            "a {ok} named {name:?} is given, but in namespace {:?}: a TrainingRuntime must be in the TrainJob's namespace ({:?})",
            other
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or(""),
            tj.metadata.namespace.as_deref().unwrap_or("")
        )
    } else {
        format!(
            "a {ok} named {name:?} is given: set spec.runtimeRef.kind to {ok} to use it (the default kind is ClusterTrainingRuntime)"
        )
    })
}

/// The TrainJob's admission and the trainer's build from it and one of `candidates` (the
/// runtimes the caller knows of).
pub fn resolve(tj_value: &Value, candidates: &[&Value]) -> Resolution {
    let mut findings = Vec::new();
    let (tj, refused) = admit_train_job(tj_value, &mut findings);
    let Some(tj) = tj else {
        let d = Diagnostic::plain(
            DiagOrigin::KubeApiserver,
            &FieldPath::root(),
            "the TrainJob does not decode; no JobSet is built",
        );
        return Resolution {
            train_job: TrainJob::default(),
            runtime: None,
            findings,
            runtime_findings: Vec::new(),
            outcome: not_built(DocRole::TrainJob, d),
        };
    };
    let mut res = Resolution {
        train_job: tj.clone(),
        runtime: None,
        findings,
        runtime_findings: Vec::new(),
        outcome: not_built(
            DocRole::TrainJob,
            Diagnostic::plain(DiagOrigin::Restartkit, &FieldPath::root(), ""),
        ),
    };
    let kind = match webhook::runtime_kind(&tj) {
        Ok(k) => k,
        Err(msg) => {
            let mut d = Diagnostic::plain(
                DiagOrigin::TrainerWebhook,
                &FieldPath::new("spec").child("runtimeRef"),
                msg,
            );
            if refused {
                d = d.with_severity(Severity::Info);
            }
            res.outcome = not_built(DocRole::TrainJob, d.clone());
            if !refused {
                res.findings.push(placed(DocRole::TrainJob, d));
            }
            return res;
        }
    };
    let idx = match find_runtime(&tj, kind, candidates) {
        Ok(i) => i,
        Err(d) => {
            res.findings.push(placed(DocRole::TrainJob, d.clone()));
            res.outcome = not_built(DocRole::TrainJob, d);
            return res;
        }
    };
    let Some(idx) = idx else {
        let d = webhook::runtime_not_found(&tj, kind);
        if !refused {
            res.findings.push(placed(DocRole::TrainJob, d.clone()));
            if let Some(h) = lookup_hint(&tj, kind, candidates) {
                res.findings.push(placed(
                    DocRole::TrainJob,
                    Diagnostic::lint(
                        "runtime-not-found",
                        &FieldPath::new("spec").child("runtimeRef"),
                        h,
                    )
                    .with_severity(Severity::Info),
                ));
            }
        }
        res.outcome = not_built(DocRole::TrainJob, d);
        return res;
    };
    res.runtime = Some(idx);
    let admitted = admit_runtime(candidates.get(idx).copied().unwrap_or(&Value::Null));
    res.runtime_findings = admitted.findings;
    let Some(rt) = admitted.runtime.filter(|_| admitted.usable) else {
        let d = Diagnostic::plain(
            DiagOrigin::Restartkit,
            &FieldPath::new("spec").child("runtimeRef"),
            format!(
                "the {} this TrainJob names cannot be modelled (see its errors); no JobSet is built",
                kind.kind()
            ),
        );
        res.outcome = not_built(DocRole::TrainJob, d);
        return res;
    };
    if refused {
        res.outcome = not_built(
            DocRole::TrainJob,
            Diagnostic::plain(
                DiagOrigin::KubeApiserver,
                &FieldPath::root(),
                "the API server refuses the TrainJob (see its errors), so no JobSet is built",
            ),
        );
        return res;
    }
    if let Some(w) = webhook::deprecation_warning(&rt, kind) {
        res.findings.push(placed(
            DocRole::TrainJob,
            Diagnostic::lint(
                "trainer-deprecated-runtime",
                &FieldPath::new("spec").child("runtimeRef"),
                w,
            )
            .with_origin(DiagOrigin::TrainerWebhook),
        ));
    }
    let info = match build::runtime_info(&tj, &rt, &admitted.spec_json) {
        Ok(i) => i,
        Err(e) => {
            // The webhook ignores this error and its plugins then read a nil runtime info.
            let d = Diagnostic::plain(
                DiagOrigin::TrainerWebhook,
                &FieldPath::new(&e.origin.path),
                format!(
                    "panic: runtime error: invalid memory address or nil pointer dereference [recovered] (the runtime info cannot be built: {})",
                    e.message
                ),
            );
            res.findings.push(placed(e.origin.doc, d.clone()));
            res.outcome = not_built(e.origin.doc, d);
            return res;
        }
    };
    let webhook_errors = webhook::validate_train_job(&info, &tj);
    let webhook_refused = webhook_errors.iter().any(|d| d.severity == Severity::Error);
    res.findings.extend(
        webhook_errors
            .into_iter()
            .map(|d| placed(DocRole::TrainJob, d)),
    );
    if webhook_refused {
        res.outcome = not_built(
            DocRole::TrainJob,
            Diagnostic::plain(
                DiagOrigin::TrainerWebhook,
                &FieldPath::root(),
                "the trainer's webhook refuses the TrainJob (see its errors), so no JobSet is built",
            ),
        );
        return res;
    }
    let managed_by = tj.spec.managed_by.as_deref().unwrap_or(CONTROLLER);
    if managed_by != CONTROLLER {
        let d = Diagnostic::plain(
            DiagOrigin::TrainerController,
            &FieldPath::new("spec").child("managedBy"),
            format!(
                "spec.managedBy is {managed_by:?}: the trainer's TrainJob controller leaves this TrainJob to that controller and creates no JobSet for it"
            ),
        )
        .with_severity(Severity::Info);
        res.findings.push(placed(DocRole::TrainJob, d.clone()));
        res.outcome = not_built(DocRole::TrainJob, d);
        return res;
    }
    match build_from(info, &tj, kind, &admitted.spec_json) {
        Ok((built, notes)) => {
            res.findings.extend(notes);
            res.outcome = Outcome::Built(Box::new(built));
        }
        Err(e) => {
            let d = build_error(&tj, &e);
            res.findings.push(placed(e.origin.doc, d.clone()));
            res.outcome = not_built(e.origin.doc, d);
        }
    }
    res
}

/// A build error as the controller reports it (an event on the TrainJob, retried).
fn build_error(tj: &TrainJob, e: &build::BuildError) -> Diagnostic {
    let what = if e.panic {
        format!("panic: {} [recovered]", e.message)
    } else {
        e.message.clone()
    };
    Diagnostic::plain(
        DiagOrigin::TrainerController,
        &FieldPath::new(&e.origin.path),
        format!(
            "TrainJob resources reconciliation failed: {what} (the TrainJob controller records this as a TrainJobResourcesCreationFailed event on TrainJob {:?}, retries, and creates no JobSet)",
            tj.metadata.name_or_empty()
        ),
    )
}

fn side_meta(tj: &TrainJob, name: String) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("name".into(), json!(name));
    if let Some(ns) = tj.metadata.namespace.as_ref().filter(|n| !n.is_empty()) {
        m.insert("namespace".into(), json!(ns));
    }
    m.insert("ownerReferences".into(), build::owner_reference(tj));
    Value::Object(m)
}

fn build_from(
    mut info: build::Info,
    tj: &TrainJob,
    kind: webhook::RuntimeKind,
    runtime_spec: &Value,
) -> Result<(Built, Vec<Placed>), build::BuildError> {
    let mut tj_m = tj.clone();
    build::enforce_ml_policy(&mut info, &mut tj_m)?;
    build::enforce_pod_group_policy(&mut info, &tj_m);
    build::identify_pod_network(&mut info);
    build::sync_parallel_count(&mut info);
    build::flux_build_check(&info, &tj_m)?;
    let jobset = build::build_jobset(&mut info, &tj_m);
    let name = tj.metadata.name_or_empty().to_owned();
    let mut objects = vec![SideObject {
        object: json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": side_meta(tj, format!("{name}-runtime-snapshot")),
            "data": {"runtime": null}}),
        omitted: vec![format!(
            "data.runtime: the {} as YAML (sigs.k8s.io/yaml of the typed object), which later reconciles read instead of the runtime",
            kind.kind()
        )],
    }];
    if info.ml.as_ref().is_some_and(|m| m.mpi.is_some()) {
        objects.push(SideObject {
            object: json!({"apiVersion": "v1", "kind": "Secret",
                "metadata": side_meta(tj, format!("{name}-mpi-ssh-auth")),
                "type": "kubernetes.io/ssh-auth", "immutable": true,
                "data": {"ssh-privatekey": null, "ssh-publickey": null}}),
            omitted: vec!["data: an ECDSA P-521 key pair the trainer generates at random".into()],
        });
        objects.push(SideObject {
            object: json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": side_meta(tj, format!("{name}-mpi-hostfile")),
                "data": {"hostfile": build::mpi_hostfile(&info, &tj_m)}}),
            omitted: Vec::new(),
        });
    }
    if info.ml.as_ref().is_some_and(|m| m.flux.is_some()) {
        objects.push(SideObject {
            object: json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": side_meta(tj, format!("{name}-flux-entrypoint")),
                "data": {"entrypoint.sh": null, "init.sh": null}}),
            omitted: vec![
                "data: the Flux entrypoint and init scripts, rendered from the trainer's templates"
                    .into(),
            ],
        });
        objects.push(SideObject {
            object: json!({"apiVersion": "v1", "kind": "Secret",
                "metadata": side_meta(tj, format!("{name}-flux-curve")),
                "data": {"curve.cert": null}}),
            omitted: vec!["data: a CURVE certificate derived from the TrainJob's UID".into()],
        });
    }
    let members: i64 = info.pod_sets.iter().map(|p| i64::from(p.count)).sum();
    if let Some(pg) = &info.pod_group {
        if let Some(c) = &pg.coscheduling {
            let mut spec = serde_json::Map::new();
            if members != 0 {
                spec.insert("minMember".into(), json!(members));
            }
            spec.insert(
                "scheduleTimeoutSeconds".into(),
                json!(c.schedule_timeout_seconds.unwrap_or(60)),
            );
            objects.push(SideObject {
                object: json!({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                    "metadata": side_meta(tj, name.clone()), "spec": spec}),
                omitted: vec!["spec.minResources: the Pods' summed requests (not computed)".into()],
            });
        }
        if let Some(v) = pg.volcano.as_ref().filter(|v| !v.is_null()) {
            let mut spec = serde_json::Map::new();
            if members != 0 {
                spec.insert("minMember".into(), json!(members));
            }
            if let Some(q) = info.annotations.get("scheduling.volcano.sh/queue-name") {
                spec.insert("queue".into(), json!(q));
            }
            if let Some(pc) = info
                .spec
                .replicated_jobs
                .iter()
                .filter_map(|r| {
                    r.template
                        .spec
                        .template
                        .spec
                        .other
                        .get("priorityClassName")
                        .and_then(Value::as_str)
                })
                .next_back()
            {
                spec.insert("priorityClassName".into(), json!(pc));
            }
            if let Some(nt) = v.get("networkTopology").filter(|n| !n.is_null()) {
                spec.insert(
                    "networkTopology".into(),
                    json!({"mode": nt.get("mode"), "highestTierAllowed": nt.get("highestTierAllowed")}),
                );
            }
            objects.push(SideObject {
                object: json!({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                    "metadata": side_meta(tj, name.clone()), "spec": spec}),
                omitted: vec!["spec.minResources: the Pods' summed requests (not computed)".into()],
            });
        }
    }
    let jobset_json = serde_json::to_value(&jobset).unwrap_or(Value::Null);
    let mut owned = Vec::new();
    for o in &info.owned {
        if let Some(p) = resolve_segs(&jobset_json, &o.at) {
            owned.push((p, o.origin.clone()));
        }
    }
    patch_provenance(tj, &jobset_json, runtime_spec, &mut owned);
    let notes = build_notes(tj);
    Ok((
        Built {
            jobset,
            objects,
            owned,
            jobset_json,
            runtime_spec: runtime_spec.clone(),
        },
        notes,
    ))
}

/// What the build drops of the TrainJob: env sources the trainer does not copy.
fn build_notes(tj: &TrainJob) -> Vec<Placed> {
    let mut out = Vec::new();
    let mut check = |env: &[crate::api::EnvVar], base: &str| {
        for (i, e) in env.iter().enumerate() {
            let Some(from) = e.value_from.as_ref().and_then(Value::as_object) else {
                continue;
            };
            for k in from.keys() {
                if ![
                    "fieldRef",
                    "resourceFieldRef",
                    "configMapKeyRef",
                    "secretKeyRef",
                ]
                .contains(&k.as_str())
                {
                    let p = FieldPath::new(base).index(i).child("valueFrom").child(k);
                    out.push(placed(
                        DocRole::TrainJob,
                        Diagnostic::lint(
                            "trainer-drops-field",
                            &p,
                            format!("the trainer copies env sources fieldRef, resourceFieldRef, configMapKeyRef and secretKeyRef only (pkg/apply EnvVar): {k} is dropped, and the Pods get {:?} without a source", e.name),
                        ),
                    ));
                }
            }
            if from
                .get("fieldRef")
                .and_then(|f| f.get("apiVersion"))
                .is_some()
            {
                let p = FieldPath::new(base)
                    .index(i)
                    .child("valueFrom")
                    .child("fieldRef")
                    .child("apiVersion");
                out.push(placed(
                    DocRole::TrainJob,
                    Diagnostic::lint(
                        "trainer-drops-field",
                        &p,
                        "the trainer copies a fieldRef's fieldPath only (pkg/apply EnvVar): apiVersion is dropped",
                    ),
                ));
            }
        }
    };
    if let Some(t) = &tj.spec.trainer {
        check(&t.env, "spec.trainer.env");
    }
    if let Some(i) = &tj.spec.initializer {
        if let Some(d) = &i.dataset {
            check(&d.env, "spec.initializer.dataset.env");
        }
        if let Some(m) = &i.model {
            check(&m.env, "spec.initializer.model.env");
        }
    }
    out
}

/// The fields of the built JobSet a runtime patch set: every value of the patch, found in the
/// JobSet through the merge keys (replicatedJobs, containers, env and volumes by name, mounts
/// by path); a list that replaces the runtime's (tolerations) as a whole.
fn patch_provenance(
    tj: &TrainJob,
    jobset: &Value,
    runtime_spec: &Value,
    owned: &mut Vec<(Vec<PathStep>, Origin)>,
) {
    fn walk(
        patch: &Value,
        js: &Value,
        rt: &Value,
        node: smp::Node,
        js_path: &mut Vec<PathStep>,
        tj_path: &str,
        out: &mut Vec<(Vec<PathStep>, Origin)>,
    ) {
        match patch {
            Value::Object(m) => {
                for (k, v) in m {
                    let (child, keyed) = field_strategy(node, k);
                    js_path.push(PathStep::Field(k.clone()));
                    let jv = js.get(k).unwrap_or(&Value::Null);
                    let rv = rt.get(k).unwrap_or(&Value::Null);
                    let tp = format!("{tj_path}.{k}");
                    match (v, keyed) {
                        (Value::Array(items), Some(key)) => {
                            for (q, item) in items.iter().enumerate() {
                                let tpq = format!("{tp}[{q}]");
                                let same = |x: &&Value| x.get(key) == item.get(key);
                                let Some(i) =
                                    jv.as_array().and_then(|l| l.iter().position(|x| same(&x)))
                                else {
                                    continue;
                                };
                                js_path.push(PathStep::Index(i));
                                let rt_item = rv.as_array().and_then(|l| l.iter().find(same));
                                if rt_item.is_none() {
                                    // An item the patch adds (a replicatedJob or container the
                                    // runtime lacks): what it leaves unset is the patch's too.
                                    out.push((
                                        js_path.clone(),
                                        Origin {
                                            doc: DocRole::TrainJob,
                                            path: tpq.clone(),
                                        },
                                    ));
                                }
                                walk(
                                    item,
                                    jv.get(i).unwrap_or(&Value::Null),
                                    rt_item.unwrap_or(&Value::Null),
                                    child,
                                    js_path,
                                    &tpq,
                                    out,
                                );
                                js_path.pop();
                            }
                        }
                        (Value::Object(_), _) => walk(v, jv, rv, child, js_path, &tp, out),
                        _ => out.push((
                            js_path.clone(),
                            Origin {
                                doc: DocRole::TrainJob,
                                path: tp,
                            },
                        )),
                    }
                    js_path.pop();
                }
            }
            _ => out.push((
                js_path.clone(),
                Origin {
                    doc: DocRole::TrainJob,
                    path: tj_path.to_owned(),
                },
            )),
        }
    }
    fn field_strategy(node: smp::Node, k: &str) -> (smp::Node, Option<&'static str>) {
        use smp::Node;
        match (node, k) {
            (Node::JobSetSpec, "replicatedJobs") => (Node::ReplicatedJob, Some("name")),
            (Node::ReplicatedJob, "template") => (Node::JobTemplateSpec, None),
            (Node::JobTemplateSpec, "spec") => (Node::JobSpec, None),
            (Node::JobSpec, "template") => (Node::PodTemplateSpec, None),
            (Node::PodTemplateSpec, "spec") => (Node::PodSpec, None),
            (Node::PodSpec, "containers" | "initContainers") => (Node::Container, Some("name")),
            (Node::PodSpec, "volumes" | "imagePullSecrets" | "schedulingGates") => {
                (Node::Plain, Some("name"))
            }
            (Node::Container, "env") => (Node::Plain, Some("name")),
            (Node::Container, "volumeMounts") => (Node::Plain, Some("mountPath")),
            _ => (Node::Plain, None),
        }
    }
    for (i, p) in tj.spec.runtime_patches.iter().enumerate() {
        let Some(spec) = p.jobset_spec() else {
            continue;
        };
        let patch = build::patch_json(spec);
        let mut path = vec![PathStep::Field("spec".into())];
        walk(
            &patch,
            jobset.get("spec").unwrap_or(&Value::Null),
            runtime_spec,
            smp::Node::JobSetSpec,
            &mut path,
            &format!("spec.runtimePatches[{i}].trainingRuntimeSpec.template.spec"),
            owned,
        );
    }
}

/// The built JobSet's diagnostics (the JobSet webhook's, and kube-apiserver's for its Jobs),
/// each placed at the TrainJob or runtime field its value came from.
pub(crate) fn jobset_findings(built: &Built, ctx: &Ctx, prefix: &str) -> Vec<Placed> {
    let mut js = built.jobset.clone();
    if !ctx.skip_defaulting {
        crate::validate::jobset::default_jobset_spec(&mut js.spec);
    }
    let mut f = Findings::default();
    crate::validate::jobset::validate_jobset(&js, ctx, &mut f);
    drain(f)
        .map(|mut d| {
            let o = built.origin_of(&d.field);
            d.message = format!("{prefix}{}", d.message);
            d.field = o.path;
            // A fix's edits name the JobSet's fields too: those of the same document carry over.
            for fix in &mut d.fixes {
                fix.edits.retain_mut(|e| {
                    let eo = built.origin_of(&e.field);
                    e.field = eo.path;
                    eo.doc == o.doc
                });
                fix.text_edits.clear();
            }
            d.fixes.retain(|f| !f.edits.is_empty());
            placed(o.doc, d)
        })
        .collect()
}

/// The runtime read alone: its admission, then the JobSet the trainer builds from it for a
/// TrainJob that sets nothing but its name. What a TrainJob can change (the trainer's node
/// count, image, command, env, resources) is reported as an info that waits for a TrainJob.
pub(crate) fn validate_runtime_alone(value: &Value, ctx: &Ctx, out: &mut Findings) {
    let admitted = admit_runtime(value);
    for p in &admitted.findings {
        out.push(p.diagnostic.clone());
    }
    let Some(rt) = admitted.runtime.filter(|_| admitted.usable) else {
        return;
    };
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
    let name = rt.metadata.name_or_empty().to_owned();
    let mut metadata = serde_json::Map::new();
    metadata.insert("name".into(), json!("trainjob"));
    if let Some(ns) = rt.metadata.namespace.as_ref() {
        metadata.insert("namespace".into(), json!(ns));
    }
    let tj = json!({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
        "metadata": metadata,
        "spec": {"runtimeRef": {"name": name, "kind": kind, "apiGroup": "trainer.kubeflow.org"}}});
    let res = resolve(&tj, &[value]);
    let Outcome::Built(built) = &res.outcome else {
        if let Outcome::NotBuilt(p) = &res.outcome
            && p.diagnostic.origin == DiagOrigin::TrainerController
        {
            let mut d = p.diagnostic.clone();
            if p.role == DocRole::Runtime {
                d.message = format!("with any TrainJob: {}", d.message);
                out.push(d);
            } else {
                // What fails is the TrainJob that sets nothing (flux reads spec.trainer): the
                // runtime's JobSet waits for a real one.
                out.push(
                    Diagnostic::lint(
                        "waits-for-trainjob",
                        &FieldPath::new("spec"),
                        format!(
                            "read without a TrainJob, the runtime's JobSet is not checked: the trainer cannot build it for a TrainJob that sets nothing ({}); it is checked when a TrainJob and the runtime are validated together",
                            d.message
                        ),
                    )
                    .with_severity(Severity::Info),
                );
            }
        }
        return;
    };
    // A TrainJob's numNodes sets the Pod count of the trainer's Jobs (and of MPI's `node`).
    let mpi = rt.spec.ml_policy.as_ref().is_some_and(|m| m.mpi.is_some());
    let counted: Vec<String> = rt
        .spec
        .template
        .spec
        .replicated_jobs
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            r.template
                .metadata
                .as_ref()
                .and_then(|m| m.label(build::ANCESTOR_LABEL))
                == Some(build::ANCESTOR_TRAINER)
                || (mpi && r.name == build::NODE)
        })
        .map(|(i, _)| format!("spec.template.spec.replicatedJobs[{i}].template.spec."))
        .collect();
    let waits = |field: &str| {
        field.starts_with("spec.mlPolicy.numNodes")
            || counted.iter().any(|c| {
                field
                    .strip_prefix(c.as_str())
                    .is_some_and(|f| f == "parallelism" || f == "completions")
            })
    };
    let mut waiting = 0;
    for p in jobset_findings(
        built,
        ctx,
        "the JobSet the trainer builds from this runtime: ",
    ) {
        if p.role != DocRole::Runtime {
            continue;
        }
        let d = p.diagnostic;
        if d.severity == Severity::Error && waits(&d.field) {
            waiting += 1;
            out.push(
                Diagnostic::lint(
                    "waits-for-trainjob",
                    &FieldPath::new(&d.field),
                    format!("depends on the TrainJob (its numNodes): {}", d.message),
                )
                .with_severity(Severity::Info),
            );
        } else {
            out.push(d);
        }
    }
    let waiting_note = match waiting {
        0 => String::new(),
        n => format!(" ({n} of its checks depend on the TrainJob's numNodes and are infos here)"),
    };
    out.push(
        Diagnostic::lint(
            "waits-for-trainjob",
            &FieldPath::new("spec"),
            format!(
                "read without a TrainJob, the runtime is checked with the JobSet the trainer builds for a TrainJob that sets nothing{waiting_note}; what a TrainJob sets (numNodes, image, command, args, env, resourcesPerNode, initializers, runtimePatches) is checked when both are validated together"
            ),
        )
        .with_severity(Severity::Info),
    );
}

#[cfg(test)]
mod tests;
