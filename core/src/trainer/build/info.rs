//! The pieces every step of the build shares: the names, the errors, the runtime info (`Info`, one
//! PodSet per replicatedJob) and the helpers that write the spec's lists (upserts, env values,
//! paths for provenance, resources per node).

use crate::api::{Container, EnvVar, JobSetSpec, MlPolicy, PodGroupPolicy, TrainJob};
use crate::trainer::provenance::{DocRole, Origin, Owned, Seg};
use crate::trainer::quantity::Quantity;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

pub(in crate::trainer) const ANCESTOR_LABEL: &str = "trainer.kubeflow.org/trainjob-ancestor-step";

pub(in crate::trainer) const ANCESTOR_TRAINER: &str = "trainer";

pub(in crate::trainer) const DATASET_INITIALIZER: &str = "dataset-initializer";

pub(in crate::trainer) const MODEL_INITIALIZER: &str = "model-initializer";

pub(in crate::trainer) const NODE: &str = "node";

pub(in crate::trainer) const LAUNCHER: &str = "launcher";

pub(in crate::trainer) const TRAINER_PORT: i64 = 29500;

pub(super) const COMPLETION_INDEX_PATH: &str =
    "metadata.annotations['batch.kubernetes.io/job-completion-index']";

/// Why the trainer's controller cannot build the objects (it records the error as an event and
/// retries, and no JobSet exists meanwhile).
#[derive(Debug, Clone, PartialEq)]
pub(in crate::trainer) struct BuildError {
    /// Upstream's error text (pointer addresses, which Go prints, written `0x…`).
    pub message: String,
    /// Where in the TrainJob or runtime the cause sits.
    pub origin: Origin,
    /// A panic in upstream's code rather than an error it returns.
    pub panic: bool,
}

/// Where a PodSet's count came from.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::trainer) enum CountFrom {
    Parallelism,
    PolicyNumNodes,
    TrainJobNumNodes,
}

#[derive(Debug, Clone)]
pub(in crate::trainer) struct PodSet {
    pub name: String,
    pub ancestor: Option<String>,
    pub count: i32,
    pub count_from: CountFrom,
    /// Init containers a plugin adds (Flux's installer); `Build` appends them to the spec.
    pub extra_init: Vec<Value>,
}

/// `runtime.Info`: what the plugins read and write.
#[derive(Debug, Clone)]
pub(in crate::trainer) struct Info {
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    pub ml: Option<MlPolicy>,
    pub pod_group: Option<PodGroupPolicy>,
    pub spec: JobSetSpec,
    pub pod_sets: Vec<PodSet>,
    pub pod_labels: BTreeMap<String, String>,
    pub pod_annotations: BTreeMap<String, String>,
    /// The spec's replicatedJob names in the runtime's order (patches cannot reorder them).
    pub runtime_names: Vec<String>,
    /// `rJob.Replicas` when IdentifyPodNetwork read it (before Build sets ancestors' to 1).
    pub network_replicas: Vec<i32>,
    pub owned: Vec<Owned>,
}

pub(super) fn tj_origin(path: impl Into<String>) -> Origin {
    Origin {
        doc: DocRole::TrainJob,
        path: path.into(),
    }
}

pub(super) fn rt_origin(path: impl Into<String>) -> Origin {
    Origin {
        doc: DocRole::Runtime,
        path: path.into(),
    }
}

pub(super) fn rj_path(i: usize) -> Vec<Seg> {
    vec![Seg::key("spec"), Seg::key("replicatedJobs"), Seg::Index(i)]
}

pub(super) fn container_path(i: usize, init: bool, c: usize) -> Vec<Seg> {
    let mut p = rj_path(i);
    p.extend([
        Seg::key("template"),
        Seg::key("spec"),
        Seg::key("template"),
        Seg::key("spec"),
        Seg::key(if init { "initContainers" } else { "containers" }),
        Seg::Index(c),
    ]);
    p
}

pub(super) fn with(mut p: Vec<Seg>, tail: impl IntoIterator<Item = Seg>) -> Vec<Seg> {
    p.extend(tail);
    p
}

/// The list at `key` of a container (ports are typed; the others are kept in `other`).
pub(super) fn list_mut<'a>(c: &'a mut Container, key: &str) -> Option<&'a mut Vec<Value>> {
    if key == "ports" {
        return c.ports.as_mut().and_then(Value::as_array_mut);
    }
    c.other.get_mut(key).and_then(Value::as_array_mut)
}

/// Runs `f` on the list at `key`, created (or a non-list replaced) when absent.
pub(super) fn with_list<R>(
    c: &mut Container,
    key: &str,
    f: impl FnOnce(&mut Vec<Value>) -> R,
) -> R {
    if let Some(list) = list_mut(c, key) {
        return f(list);
    }
    let mut list = Vec::new();
    let r = f(&mut list);
    if key == "ports" {
        c.ports = Some(Value::Array(list));
    } else {
        c.other.insert(key.to_owned(), Value::Array(list));
    }
    r
}

/// How two items of a list are "the same" for an upsert (pkg/apply).
#[derive(Debug, Clone, Copy)]
pub(in crate::trainer) enum Same {
    /// `byEnvVarName`, `byVolumeName`.
    Name,
    /// `byContainerPortOrName`: the same port, or the same name (two unnamed ports are the same).
    PortOrName,
    /// `byVolumeMountPath`.
    MountPath,
}

impl Same {
    pub(super) fn matches(self, a: &Value, b: &Value) -> bool {
        match self {
            Same::Name => a.get("name") == b.get("name"),
            Same::PortOrName => {
                a.get("containerPort") == b.get("containerPort") || a.get("name") == b.get("name")
            }
            Same::MountPath => a.get("mountPath") == b.get("mountPath"),
        }
    }
}

/// `apply.upsert`: replace the first item that is the same, or append.
pub(in crate::trainer) fn upsert(list: &mut Vec<Value>, item: Value, same: Same) {
    match list.iter().position(|x| same.matches(x, &item)) {
        Some(i) => {
            if let Some(slot) = list.get_mut(i) {
                *slot = item;
            }
        }
        None => list.push(item),
    }
}

pub(super) fn upsert_into(
    c: &mut Container,
    key: &str,
    items: impl IntoIterator<Item = Value>,
    same: Same,
) {
    let mut items = items.into_iter().peekable();
    if items.peek().is_none() {
        return;
    }
    with_list(c, key, |list| {
        for it in items {
            upsert(list, it, same);
        }
    });
}

/// `Build`'s second upsert of a PodSet list into the spec's own (see the module comment).
pub(super) fn reupsert(c: &mut Container, key: &str, same: Same) {
    if let Some(list) = list_mut(c, key) {
        let items = list.clone();
        for it in items {
            upsert(list, it, same);
        }
    }
}

/// `apply.EnvVar`: a TrainJob env var as the trainer copies it. Only fieldRef (without its
/// apiVersion), resourceFieldRef, configMapKeyRef and secretKeyRef sources are carried over.
pub(in crate::trainer) fn env_apply(e: &EnvVar) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(e.name));
    match &e.value_from {
        Some(from) => {
            let mut src = Map::new();
            if let Some(r) = from.get("fieldRef").filter(|v| !v.is_null()) {
                src.insert(
                    "fieldRef".into(),
                    json!({"fieldPath": r.get("fieldPath").cloned().unwrap_or(json!(""))}),
                );
            }
            if let Some(r) = from.get("resourceFieldRef").filter(|v| !v.is_null()) {
                src.insert(
                    "resourceFieldRef".into(),
                    json!({
                        "containerName": r.get("containerName").cloned().unwrap_or(json!("")),
                        "resource": r.get("resource").cloned().unwrap_or(json!("")),
                        "divisor": r.get("divisor").cloned().unwrap_or(json!("0")),
                    }),
                );
            }
            for k in ["configMapKeyRef", "secretKeyRef"] {
                if let Some(r) = from.get(k).filter(|v| !v.is_null()) {
                    let mut sel = Map::new();
                    sel.insert("key".into(), r.get("key").cloned().unwrap_or(json!("")));
                    sel.insert("name".into(), r.get("name").cloned().unwrap_or(json!("")));
                    if let Some(o) = r.get("optional").filter(|v| !v.is_null()) {
                        sel.insert("optional".into(), o.clone());
                    }
                    src.insert(k.into(), Value::Object(sel));
                }
            }
            m.insert("valueFrom".into(), Value::Object(src));
        }
        None => {
            if let Some(v) = e.value.as_deref().filter(|v| !v.is_empty()) {
                m.insert("value".into(), json!(v));
            }
        }
    }
    Value::Object(m)
}

pub(super) fn env_value(name: &str, value: String) -> Value {
    json!({"name": name, "value": value})
}

pub(super) fn env_index(name: &str) -> Value {
    json!({"name": name, "valueFrom": {"fieldRef": {"fieldPath": COMPLETION_INDEX_PATH}}})
}

pub(super) fn rj_labels(spec: &JobSetSpec, i: usize) -> Option<&BTreeMap<String, String>> {
    spec.replicated_jobs
        .get(i)?
        .template
        .metadata
        .as_ref()?
        .labels
        .as_ref()
}

pub(super) fn ancestor_of(spec: &JobSetSpec, i: usize) -> Option<String> {
    rj_labels(spec, i)?.get(ANCESTOR_LABEL).cloned()
}

pub(super) fn containers_mut(
    spec: &mut JobSetSpec,
    i: usize,
    init: bool,
) -> Option<&mut Vec<Container>> {
    let ps = &mut spec.replicated_jobs.get_mut(i)?.template.spec.template.spec;
    Some(if init {
        &mut ps.init_containers
    } else {
        &mut ps.containers
    })
}

/// `runtime.GetNumGPUPerNode`: the first resource whose name contains "gpu", from requests,
/// else from limits.
pub(in crate::trainer) fn gpus(res: &Value) -> i64 {
    fn num(list: Option<&Value>) -> i64 {
        list.and_then(Value::as_object)
            .and_then(|m| {
                m.iter()
                    // strings.ToLower: no character but G, P and U lowercases to g, p or u, so
                    // the ASCII lowering finds the same names (and keeps Unicode's case tables
                    // out of the wasm module's data, which loads with its first part).
                    .find(|(k, _)| k.to_ascii_lowercase().contains("gpu"))
                    .map(|(_, v)| Quantity::from_json(v).map_or(0, |q| q.value()))
            })
            .unwrap_or(0)
    }
    let req = num(res.get("requests"));
    let lim = num(res.get("limits"));
    if req == 0 && lim > 0 { lim } else { req }
}

/// The torch plugin's `getNumCPUPerNode`.
pub(super) fn cpus(res: &Value) -> i64 {
    let q = |k: &str| {
        res.get(k)
            .and_then(|m| m.get("cpu"))
            .and_then(Quantity::from_json)
    };
    match q("requests").filter(|r| !r.is_zero()) {
        Some(r) => r.value(),
        None => q("limits").map_or(0, |l| l.value()),
    }
}

/// The resources per node the ML plugins read: the TrainJob's, else the runtime's.
pub(super) fn resources_per_node(info: &Info, tj: &TrainJob) -> Value {
    tj.spec
        .trainer
        .as_ref()
        .and_then(|t| t.resources_per_node.clone())
        .or_else(|| info.runtime_resources_per_node())
        .unwrap_or(json!({}))
}

pub(super) fn set_count(info: &mut Info, ps: usize, n: i32) {
    if let Some(p) = info.pod_sets.get_mut(ps) {
        p.count = n;
        p.count_from = CountFrom::TrainJobNumNodes;
    }
}

pub(super) fn trainer_env_upsert(info: &mut Info, tj: &TrainJob) {
    let Some(t) = &tj.spec.trainer else { return };
    if let Some((i, k)) = info.trainer_container()
        && let Some(c) = info.container_mut(i, false, k)
    {
        upsert_into(c, "env", t.env.iter().map(env_apply), Same::Name);
    }
}
