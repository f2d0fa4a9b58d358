//! The trainer's build of a JobSet from a TrainJob and its runtime, step by step as
//! github.com/kubeflow/trainer/v2 v2.3.0 does it:
//!
//! 1. `newRuntimeInfo` (pkg/runtime/core/trainingruntime.go): the labels and annotations to
//!    propagate, `runtimePatches` merged into the runtime's JobSet spec (strategic merge patch,
//!    then the runtime's replicatedJob order restored), `resourcesPerNode` merged into the node
//!    container, and one PodSet per replicatedJob with its Pod count.
//! 2. The plugins' `EnforceMLPolicy` (plainml, torch, mpi, jax, xgboost, flux),
//!    `EnforcePodGroupPolicy` (coscheduling, volcano) and `IdentifyPodNetwork` (jobset).
//! 3. `SyncParallelCount` (jobset): every replicatedJob's parallelism and completions become its
//!    PodSet's count.
//! 4. `Build` (jobset/jobset.go and builder.go): the PodSets written back into the spec, the
//!    initializers, the trainer's image, command, args and env, Pod labels and annotations,
//!    `suspend`, labels, the owner reference; and the side objects of mpi, flux, coscheduling
//!    and volcano.
//!
//! The trainer keeps PodSets beside the spec, sharing the env, port, volume and mount lists with
//! it; every plugin writes those lists with an upsert, so restartkit writes the spec directly and
//! repeats the one step where the difference shows: `Build` upserts each PodSet list into the
//! spec's once more, which collapses repeated names (and unnamed ports) the way upstream does.
//!
//! Go iterates its plugin registry, a map, in random order. Only one thing depends on it: with
//! XGBoost, whether the TrainJob's env (added by plainml) comes before or after the DMLC_* env.
//! restartkit puts plainml first.

use super::provenance::{DocRole, Origin, Owned, Seg};
use super::quantity::Quantity;
use super::smp;
use crate::api::{
    Container, EnvVar, JobSet, JobSetSpec, MlPolicy, ObjectMeta, PodGroupPolicy, TrainJob,
    TrainingRuntime,
};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

pub(super) const ANCESTOR_LABEL: &str = "trainer.kubeflow.org/trainjob-ancestor-step";
pub(super) const ANCESTOR_TRAINER: &str = "trainer";
pub(super) const DATASET_INITIALIZER: &str = "dataset-initializer";
pub(super) const MODEL_INITIALIZER: &str = "model-initializer";
pub(super) const NODE: &str = "node";
pub(super) const LAUNCHER: &str = "launcher";
pub(super) const TRAINER_PORT: i64 = 29500;
const COMPLETION_INDEX_PATH: &str =
    "metadata.annotations['batch.kubernetes.io/job-completion-index']";
pub(super) const TORCHTUNE_ENTRYPOINT: [&str; 2] = ["tune", "run"];
pub(super) const TORCH_RESERVED_ENV: [&str; 5] = [
    "PET_NNODES",
    "PET_NPROC_PER_NODE",
    "PET_NODE_RANK",
    "PET_MASTER_ADDR",
    "PET_MASTER_PORT",
];
pub(super) const MPI_RESERVED_ENV: [&str; 4] = [
    "OMPI_MCA_orte_default_hostfile",
    "OMPI_MCA_plm_rsh_args",
    "OMPI_MCA_orte_keep_fqdn_hostnames",
    "OMPI_MCA_orte_set_default_slots",
];
pub(super) const XGBOOST_RESERVED_ENV: [&str; 4] = [
    "DMLC_TRACKER_URI",
    "DMLC_TRACKER_PORT",
    "DMLC_TASK_ID",
    "DMLC_NUM_WORKER",
];
pub(super) const TORCHTUNE_IMMUTABLE: [&str; 4] = [
    "output_dir",
    "tokenizer.path",
    "checkpointer.checkpoint_dir",
    "tokenizer.merges_file",
];
const FLUX_INSTALLER: &str = "flux-installer";

/// Why the trainer's controller cannot build the objects (it records the error as an event and
/// retries, and no JobSet exists meanwhile).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct BuildError {
    /// Upstream's error text (pointer addresses, which Go prints, written `0x…`).
    pub message: String,
    /// Where in the TrainJob or runtime the cause sits.
    pub origin: Origin,
    /// A panic in upstream's code rather than an error it returns.
    pub panic: bool,
}

/// Where a PodSet's count came from.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum CountFrom {
    Parallelism,
    PolicyNumNodes,
    TrainJobNumNodes,
}

#[derive(Debug, Clone)]
pub(super) struct PodSet {
    pub name: String,
    pub ancestor: Option<String>,
    pub count: i32,
    pub count_from: CountFrom,
    /// Init containers a plugin adds (Flux's installer); `Build` appends them to the spec.
    pub extra_init: Vec<Value>,
}

/// `runtime.Info`: what the plugins read and write.
#[derive(Debug, Clone)]
pub(super) struct Info {
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

fn tj_origin(path: impl Into<String>) -> Origin {
    Origin {
        doc: DocRole::TrainJob,
        path: path.into(),
    }
}

fn rt_origin(path: impl Into<String>) -> Origin {
    Origin {
        doc: DocRole::Runtime,
        path: path.into(),
    }
}

fn rj_path(i: usize) -> Vec<Seg> {
    vec![Seg::key("spec"), Seg::key("replicatedJobs"), Seg::Index(i)]
}

fn container_path(i: usize, init: bool, c: usize) -> Vec<Seg> {
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

fn with(mut p: Vec<Seg>, tail: impl IntoIterator<Item = Seg>) -> Vec<Seg> {
    p.extend(tail);
    p
}

/// The list at `key` of a container (ports are typed; the others are kept in `other`).
fn list_mut<'a>(c: &'a mut Container, key: &str) -> Option<&'a mut Vec<Value>> {
    if key == "ports" {
        return c.ports.as_mut().and_then(Value::as_array_mut);
    }
    c.other.get_mut(key).and_then(Value::as_array_mut)
}

/// Runs `f` on the list at `key`, created (or a non-list replaced) when absent.
fn with_list<R>(c: &mut Container, key: &str, f: impl FnOnce(&mut Vec<Value>) -> R) -> R {
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
pub(super) enum Same {
    /// `byEnvVarName`, `byVolumeName`.
    Name,
    /// `byContainerPortOrName`: the same port, or the same name (two unnamed ports are the same).
    PortOrName,
    /// `byVolumeMountPath`.
    MountPath,
}

impl Same {
    fn matches(self, a: &Value, b: &Value) -> bool {
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
pub(super) fn upsert(list: &mut Vec<Value>, item: Value, same: Same) {
    match list.iter().position(|x| same.matches(x, &item)) {
        Some(i) => {
            if let Some(slot) = list.get_mut(i) {
                *slot = item;
            }
        }
        None => list.push(item),
    }
}

fn upsert_into(c: &mut Container, key: &str, items: impl IntoIterator<Item = Value>, same: Same) {
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
fn reupsert(c: &mut Container, key: &str, same: Same) {
    if let Some(list) = list_mut(c, key) {
        let items = list.clone();
        for it in items {
            upsert(list, it, same);
        }
    }
}

/// `apply.EnvVar`: a TrainJob env var as the trainer copies it. Only fieldRef (without its
/// apiVersion), resourceFieldRef, configMapKeyRef and secretKeyRef sources are carried over.
pub(super) fn env_apply(e: &EnvVar) -> Value {
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

fn env_value(name: &str, value: String) -> Value {
    json!({"name": name, "value": value})
}

fn env_index(name: &str) -> Value {
    json!({"name": name, "valueFrom": {"fieldRef": {"fieldPath": COMPLETION_INDEX_PATH}}})
}

fn rj_labels(spec: &JobSetSpec, i: usize) -> Option<&BTreeMap<String, String>> {
    spec.replicated_jobs
        .get(i)?
        .template
        .metadata
        .as_ref()?
        .labels
        .as_ref()
}

fn ancestor_of(spec: &JobSetSpec, i: usize) -> Option<String> {
    rj_labels(spec, i)?.get(ANCESTOR_LABEL).cloned()
}

fn containers_mut(spec: &mut JobSetSpec, i: usize, init: bool) -> Option<&mut Vec<Container>> {
    let ps = &mut spec.replicated_jobs.get_mut(i)?.template.spec.template.spec;
    Some(if init {
        &mut ps.init_containers
    } else {
        &mut ps.containers
    })
}

/// The JSON a typed Go value of a patch type marshals to: only the fields the type declares.
pub(super) fn patch_json(p: &crate::api::JobSetSpecPatch) -> Value {
    fn meta(m: &ObjectMeta) -> Value {
        let mut o = Map::new();
        if let Some(n) = m.name.as_ref().filter(|n| !n.is_empty()) {
            o.insert("name".into(), json!(n));
        }
        if let Some(n) = m.namespace.as_ref().filter(|n| !n.is_empty()) {
            o.insert("namespace".into(), json!(n));
        }
        for (k, v) in [("labels", &m.labels), ("annotations", &m.annotations)] {
            if let Some(v) = v.as_ref().filter(|v| !v.is_empty()) {
                o.insert(k.into(), json!(v));
            }
        }
        if let Some(f) = m.finalizers.as_ref().filter(|f| !f.is_empty()) {
            o.insert("finalizers".into(), json!(f));
        }
        Value::Object(o)
    }
    fn env_list(env: &[EnvVar]) -> Value {
        Value::Array(
            env.iter()
                .map(|e| {
                    let mut m = Map::new();
                    m.insert("name".into(), json!(e.name));
                    if let Some(v) = e.value.as_ref().filter(|v| !v.is_empty()) {
                        m.insert("value".into(), json!(v));
                    }
                    if let Some(v) = e.value_from.as_ref().filter(|v| !v.is_null()) {
                        m.insert("valueFrom".into(), v.clone());
                    }
                    Value::Object(m)
                })
                .collect(),
        )
    }
    fn container(c: &crate::api::ContainerPatch) -> Value {
        let mut m = Map::new();
        if !c.name.is_empty() {
            m.insert("name".into(), json!(c.name));
        }
        if !c.env.is_empty() {
            m.insert("env".into(), env_list(&c.env));
        }
        if !c.volume_mounts.is_empty() {
            m.insert("volumeMounts".into(), json!(c.volume_mounts));
        }
        if let Some(s) = c.security_context.as_ref().filter(|v| !v.is_null()) {
            m.insert("securityContext".into(), s.clone());
        }
        Value::Object(m)
    }
    let mut rjs = Vec::new();
    for rj in &p.replicated_jobs {
        let mut r = Map::new();
        if !rj.name.is_empty() {
            r.insert("name".into(), json!(rj.name));
        }
        if let Some(t) = &rj.template {
            let mut tm = Map::new();
            if let Some(m) = &t.metadata {
                tm.insert("metadata".into(), meta(m));
            }
            if let Some(js) = &t.spec {
                let mut jm = Map::new();
                if let Some(pt) = &js.template {
                    let mut pm = Map::new();
                    if let Some(m) = &pt.metadata {
                        pm.insert("metadata".into(), meta(m));
                    }
                    if let Some(ps) = &pt.spec {
                        let mut s = Map::new();
                        if let Some(v) = ps.service_account_name.as_ref().filter(|v| !v.is_empty())
                        {
                            s.insert("serviceAccountName".into(), json!(v));
                        }
                        for (k, v) in [
                            ("volumes", &ps.volumes),
                            ("imagePullSecrets", &ps.image_pull_secrets),
                            ("tolerations", &ps.tolerations),
                            ("schedulingGates", &ps.scheduling_gates),
                        ] {
                            if !v.is_empty() {
                                s.insert(k.into(), json!(v));
                            }
                        }
                        for (k, v) in [
                            ("initContainers", &ps.init_containers),
                            ("containers", &ps.containers),
                        ] {
                            if !v.is_empty() {
                                s.insert(k.into(), Value::Array(v.iter().map(container).collect()));
                            }
                        }
                        for (k, v) in [
                            ("securityContext", &ps.security_context),
                            ("affinity", &ps.affinity),
                        ] {
                            if let Some(v) = v.as_ref().filter(|v| !v.is_null()) {
                                s.insert(k.into(), v.clone());
                            }
                        }
                        if let Some(ns) = ps.node_selector.as_ref().filter(|n| !n.is_empty()) {
                            s.insert("nodeSelector".into(), json!(ns));
                        }
                        if let Some(t) = ps.termination_grace_period_seconds {
                            s.insert("terminationGracePeriodSeconds".into(), json!(t));
                        }
                        pm.insert("spec".into(), Value::Object(s));
                    }
                    jm.insert("template".into(), Value::Object(pm));
                }
                tm.insert("spec".into(), Value::Object(jm));
            }
            r.insert("template".into(), Value::Object(tm));
        }
        rjs.push(Value::Object(r));
    }
    let mut out = Map::new();
    if !rjs.is_empty() {
        out.insert("replicatedJobs".into(), Value::Array(rjs));
    }
    Value::Object(out)
}

/// `mergeRuntimePatches`: each patch in order, then the runtime's replicatedJob order.
fn merge_runtime_patches(tj: &TrainJob, spec: Value) -> Result<Value, BuildError> {
    let mut spec = spec;
    let order: Vec<String> = spec
        .get("replicatedJobs")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|r| {
                    r.get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned()
                })
                .collect()
        })
        .unwrap_or_default();
    for (i, p) in tj.spec.runtime_patches.iter().enumerate() {
        let Some(patch) = p.jobset_spec() else {
            continue;
        };
        let patch = patch_json(patch);
        let (Value::Object(mut o), Value::Object(pm)) = (spec, patch) else {
            return Err(BuildError {
                message: "the runtime's JobSet spec is not an object".into(),
                origin: rt_origin("spec.template.spec"),
                panic: false,
            });
        };
        smp::merge_map(&mut o, pm, smp::Node::JobSetSpec).map_err(|e| BuildError {
            message: e.0,
            origin: tj_origin(format!(
                "spec.runtimePatches[{i}].trainingRuntimeSpec.template.spec"
            )),
            panic: false,
        })?;
        spec = Value::Object(o);
    }
    // sort.SliceStable by the runtime's index; a name the runtime lacks sorts as index 0.
    if let Some(rjs) = spec.get_mut("replicatedJobs").and_then(Value::as_array_mut) {
        rjs.sort_by_key(|r| {
            let n = r.get("name").and_then(Value::as_str).unwrap_or("");
            order.iter().position(|o| o == n).unwrap_or(0)
        });
    }
    Ok(spec)
}

/// `MergeResourceRequirements` of the node container's limits and requests (its claims are
/// not carried) with `resourcesPerNode`, and the container's resources as the trainer sets
/// them: limits and requests only.
fn merged_resources(base: Option<&Value>, over: &Value) -> Value {
    let mut b = Map::new();
    for k in ["limits", "requests"] {
        if let Some(m) = base
            .and_then(|r| r.get(k))
            .and_then(Value::as_object)
            .filter(|m| !m.is_empty())
        {
            b.insert(k.into(), Value::Object(m.clone()));
        }
    }
    let mut patch = Map::new();
    for k in ["limits", "requests", "claims"] {
        if let Some(v) = over.get(k).filter(|v| match v {
            Value::Object(m) => !m.is_empty(),
            Value::Array(a) => !a.is_empty(),
            _ => false,
        }) {
            patch.insert(k.into(), v.clone());
        }
    }
    // Cannot fail: the claims list is keyed by name, and Go's typed marshal always writes it.
    let _ = smp::merge_map(&mut b, patch, smp::Node::ResourceRequirements);
    let mut out = Map::new();
    for k in ["limits", "requests"] {
        if let Some(v) = b
            .get(k)
            .filter(|v| v.as_object().is_some_and(|m| !m.is_empty()))
        {
            out.insert(k.into(), v.clone());
        }
    }
    Value::Object(out)
}

/// `newRuntimeInfo`.
pub(super) fn runtime_info(
    tj: &TrainJob,
    rt: &TrainingRuntime,
    rt_spec_json: &Value,
) -> Result<Info, BuildError> {
    let mut labels: BTreeMap<String, String> = rt
        .spec
        .template
        .metadata
        .as_ref()
        .and_then(|m| m.labels.clone())
        .unwrap_or_default();
    let mut annotations: BTreeMap<String, String> = rt
        .spec
        .template
        .metadata
        .as_ref()
        .and_then(|m| m.annotations.clone())
        .unwrap_or_default();
    let mut owned = Vec::new();
    for (i, p) in tj.spec.runtime_patches.iter().enumerate() {
        let Some(m) = p.jobset_metadata() else {
            continue;
        };
        let base = format!("spec.runtimePatches[{i}].trainingRuntimeSpec.template.metadata");
        for (k, v) in m.labels.iter().flatten() {
            labels.insert(k.clone(), v.clone());
            owned.push(Owned {
                at: vec![Seg::key("metadata"), Seg::key("labels"), Seg::key(k)],
                origin: tj_origin(format!("{base}.labels.{k}")),
            });
        }
        for (k, v) in m.annotations.iter().flatten() {
            annotations.insert(k.clone(), v.clone());
            owned.push(Owned {
                at: vec![Seg::key("metadata"), Seg::key("annotations"), Seg::key(k)],
                origin: tj_origin(format!("{base}.annotations.{k}")),
            });
        }
    }
    let merged = merge_runtime_patches(tj, rt_spec_json.clone())?;
    let mut spec: JobSetSpec = crate::validate::decode_at(&merged, &crate::FieldPath::new("spec"))
        .map_err(|d| BuildError {
            message: d.message,
            origin: rt_origin("spec.template.spec"),
            panic: false,
        })?;
    // Go's typed JobSetSpec drops `replicas: 0` (omitempty), and the trainer reads it as unset.
    for rj in &mut spec.replicated_jobs {
        if rj.replicas == Some(0) {
            rj.replicas = None;
        }
    }
    let runtime_names = spec
        .replicated_jobs
        .iter()
        .map(|r| r.name.clone())
        .collect();
    let ml = rt.spec.ml_policy.clone();
    let trainer = tj.spec.trainer.as_ref();
    let mut pod_sets = Vec::new();
    for i in 0..spec.replicated_jobs.len() {
        let ancestor = ancestor_of(&spec, i);
        let Some(rj) = spec.replicated_jobs.get_mut(i) else {
            continue;
        };
        let mut count = rj.template.spec.parallelism.unwrap_or(1);
        let mut count_from = CountFrom::Parallelism;
        if ancestor.as_deref() == Some(ANCESTOR_TRAINER)
            && let Some(ml) = &ml
        {
            count = ml.num_nodes.unwrap_or(1);
            count_from = CountFrom::PolicyNumNodes;
        }
        if let Some(rpn) = trainer.and_then(|t| t.resources_per_node.as_ref()) {
            let trainer_ancestor = ancestor.as_deref() == Some(ANCESTOR_TRAINER) && ml.is_some();
            let launcher_as_node = ml
                .as_ref()
                .and_then(|m| m.mpi.as_ref())
                .and_then(|m| m.run_launcher_as_node)
                .unwrap_or(false)
                && rj.name == NODE;
            if trainer_ancestor || launcher_as_node {
                let containers = &mut rj.template.spec.template.spec.containers;
                if let Some((k, c)) = containers
                    .iter_mut()
                    .enumerate()
                    .find(|(_, c)| c.name == NODE)
                {
                    let merged = merged_resources(c.other.get("resources"), rpn);
                    c.other.insert("resources".into(), merged);
                    owned.push(Owned {
                        at: with(container_path(i, false, k), [Seg::key("resources")]),
                        origin: tj_origin("spec.trainer.resourcesPerNode"),
                    });
                }
            }
        }
        pod_sets.push(PodSet {
            name: rj.name.clone(),
            ancestor,
            count: count.max(1),
            count_from,
            extra_init: Vec::new(),
        });
    }
    Ok(Info {
        labels,
        annotations,
        ml,
        pod_group: rt.spec.pod_group_policy.clone(),
        spec,
        pod_sets,
        pod_labels: BTreeMap::new(),
        pod_annotations: BTreeMap::new(),
        runtime_names,
        network_replicas: Vec::new(),
        owned,
    })
}

impl Info {
    pub(super) fn pod_set_by_ancestor(&self, ancestor: &str) -> Option<usize> {
        self.pod_sets
            .iter()
            .position(|p| p.ancestor.as_deref() == Some(ancestor))
    }

    pub(super) fn pod_set_by_name(&self, name: &str) -> Option<usize> {
        self.pod_sets.iter().position(|p| p.name == name)
    }

    /// `FindContainerByPodSetAncestorContainerName`: (replicatedJob, container) indices.
    pub(super) fn trainer_container(&self) -> Option<(usize, usize)> {
        let i = self.pod_set_by_ancestor(ANCESTOR_TRAINER)?;
        let c = self
            .spec
            .replicated_jobs
            .get(i)?
            .template
            .spec
            .template
            .spec
            .containers
            .iter()
            .position(|c| c.name == NODE)?;
        Some((i, c))
    }

    /// `FindContainerByPodSetName`: regular containers first, then init containers (Flux's
    /// added installer among them).
    pub(super) fn container_by_pod_set_name(
        &self,
        ps: &str,
        c: &str,
    ) -> Option<(usize, bool, usize)> {
        let i = self.pod_set_by_name(ps)?;
        let spec = &self
            .spec
            .replicated_jobs
            .get(i)?
            .template
            .spec
            .template
            .spec;
        if let Some(k) = spec.containers.iter().position(|x| x.name == c) {
            return Some((i, false, k));
        }
        spec.init_containers
            .iter()
            .position(|x| x.name == c)
            .map(|k| (i, true, k))
    }

    fn container_mut(&mut self, i: usize, init: bool, k: usize) -> Option<&mut Container> {
        containers_mut(&mut self.spec, i, init)?.get_mut(k)
    }

    /// `ExtractResourcePerNodeFromRuntime`: the node container's resources in the first
    /// replicatedJob named `node` or labelled as the trainer.
    pub(super) fn runtime_resources_per_node(&self) -> Option<Value> {
        for (i, rj) in self.spec.replicated_jobs.iter().enumerate() {
            let trainer = ancestor_of(&self.spec, i).as_deref() == Some(ANCESTOR_TRAINER);
            if rj.name == NODE || trainer {
                for c in &rj.template.spec.template.spec.containers {
                    if c.name == NODE {
                        let r = c.other.get("resources");
                        let mut m = Map::new();
                        for k in ["limits", "requests"] {
                            m.insert(
                                k.into(),
                                r.and_then(|r| r.get(k)).cloned().unwrap_or(json!({})),
                            );
                        }
                        return Some(Value::Object(m));
                    }
                }
            }
        }
        None
    }
}

/// `runtime.GetNumGPUPerNode`: the first resource whose name contains "gpu", from requests,
/// else from limits.
pub(super) fn gpus(res: &Value) -> i64 {
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
fn cpus(res: &Value) -> i64 {
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
fn resources_per_node(info: &Info, tj: &TrainJob) -> Value {
    tj.spec
        .trainer
        .as_ref()
        .and_then(|t| t.resources_per_node.clone())
        .or_else(|| info.runtime_resources_per_node())
        .unwrap_or(json!({}))
}

/// `numProcPerNode` as the torch plugin has it: a number, or "auto".
#[derive(Debug, Clone, PartialEq)]
pub(super) enum ProcPerNode {
    Auto,
    Int(i64),
}

impl ProcPerNode {
    fn text(&self) -> String {
        match self {
            ProcPerNode::Auto => "auto".into(),
            ProcPerNode::Int(n) => n.to_string(),
        }
    }
}

fn set_count(info: &mut Info, ps: usize, n: i32) {
    if let Some(p) = info.pod_sets.get_mut(ps) {
        p.count = n;
        p.count_from = CountFrom::TrainJobNumNodes;
    }
}

fn trainer_env_upsert(info: &mut Info, tj: &TrainJob) {
    let Some(t) = &tj.spec.trainer else { return };
    if let Some((i, k)) = info.trainer_container()
        && let Some(c) = info.container_mut(i, false, k)
    {
        upsert_into(c, "env", t.env.iter().map(env_apply), Same::Name);
    }
}

fn plainml(info: &mut Info, tj: &TrainJob) {
    if info
        .ml
        .as_ref()
        .is_some_and(|m| m.torch.is_some() || m.mpi.is_some() || m.jax.is_some())
    {
        return;
    }
    if let Some(n) = tj.spec.trainer.as_ref().and_then(|t| t.num_nodes)
        && let Some(ps) = info.pod_set_by_ancestor(ANCESTOR_TRAINER)
    {
        set_count(info, ps, n);
    }
    trainer_env_upsert(info, tj);
}

/// `getModelFromRuntimeRef`: `torchtune-llama3.2-1b` is `llama3_2/1B`.
pub(super) fn torchtune_model(runtime: &str) -> String {
    let f: Vec<&str> = runtime.split('-').collect();
    match f.as_slice() {
        // strings.ToUpper of a part of a runtime's name, a DNS subdomain: ASCII only.
        [_, family, size] => format!("{}/{}", family.replace('.', "_"), size.to_ascii_uppercase()),
        _ => String::new(),
    }
}

fn bool_arg(args: &[String], item: &str) -> bool {
    args.iter().any(|a| {
        a.split_once('=')
            .is_some_and(|(n, v)| n.contains(item) && v.trim().eq_ignore_ascii_case("true"))
    })
}

pub(super) fn lora(args: &[String]) -> bool {
    args.iter().any(|a| a.contains("model.lora_attn_modules"))
}

pub(super) fn qlora(args: &[String]) -> bool {
    !bool_arg(args, "model.use_dora") && bool_arg(args, "model.quantize_base")
}

/// `getRecipeAndConfig`.
pub(super) fn recipe_and_config(
    num_nodes: i32,
    nproc: &ProcPerNode,
    gpus: i64,
    args: &[String],
    runtime: &str,
) -> (&'static str, String) {
    let mut recipe = "full_finetune_distributed";
    let mut suffix = "_full";
    let one = matches!(nproc, ProcPerNode::Int(1));
    if num_nodes == 1 && (one || gpus == 1) {
        if qlora(args) {
            recipe = "lora_finetune_single_device";
            suffix = "_qlora_single_device";
        } else if lora(args) {
            recipe = "lora_finetune_single_device";
            suffix = "_lora_single_device";
        } else {
            recipe = "full_finetune_single_device";
            suffix = "_full_single_device";
        }
    } else if num_nodes == 1 && qlora(args) {
        recipe = "lora_finetune_distributed";
        suffix = "_qlora";
    } else if num_nodes == 1 && lora(args) {
        recipe = "lora_finetune_distributed";
        suffix = "_lora";
    } else if num_nodes > 1 {
        suffix = "_full_multinode";
    }
    (recipe, format!("{}{suffix}", torchtune_model(runtime)))
}

/// The torch plugin's numProcPerNode and GPU count for a TrainJob.
pub(super) fn torch_proc_per_node(info: &Info, tj: &TrainJob) -> (ProcPerNode, i64) {
    let mut nproc = match tj.spec.trainer.as_ref().and_then(|t| t.num_proc_per_node) {
        Some(n) => ProcPerNode::Int(n.into()),
        None => ProcPerNode::Auto,
    };
    let res = resources_per_node(info, tj);
    let gpu = gpus(&res);
    if nproc == ProcPerNode::Auto && gpu == 0 {
        nproc = ProcPerNode::Int(cpus(&res).max(1));
    }
    (nproc, gpu)
}

fn torch(info: &mut Info, tj: &mut TrainJob) -> Result<(), BuildError> {
    let Some(policy) = info.ml.as_ref().and_then(|m| m.torch.clone()) else {
        return Ok(());
    };
    let trainer_ps = info.pod_set_by_ancestor(ANCESTOR_TRAINER);
    if let (Some(ps), Some(n)) = (
        trainer_ps,
        tj.spec.trainer.as_ref().and_then(|t| t.num_nodes),
    ) {
        set_count(info, ps, n);
    }
    let (nproc, gpu) = torch_proc_per_node(info, tj);
    let trainer_container = if tj.spec.trainer.is_some() {
        info.trainer_container()
    } else {
        None
    };
    trainer_env_upsert(info, tj);
    let count = trainer_ps
        .and_then(|p| info.pod_sets.get(p))
        .map_or(1, |p| p.count);
    let name = tj.metadata.name_or_empty().to_owned();
    let pet = vec![
        env_value("PET_NNODES", count.to_string()),
        env_value("PET_NPROC_PER_NODE", nproc.text()),
        env_index("PET_NODE_RANK"),
    ];
    let master = vec![
        env_value("PET_MASTER_ADDR", format!("{name}-{NODE}-0-0.{name}")),
        env_value("PET_MASTER_PORT", TRAINER_PORT.to_string()),
    ];
    if let Some((i, k)) = trainer_container {
        let tune = tj
            .spec
            .trainer
            .as_ref()
            .and_then(|t| t.command.as_ref())
            .is_some_and(|c| c.iter().map(String::as_str).eq(TORCHTUNE_ENTRYPOINT));
        let overrides = torchtune_overrides(info);
        if let Some(c) = info.container_mut(i, false, k) {
            upsert_into(c, "env", pet.clone(), Same::Name);
            if !tune {
                upsert_into(c, "env", master.clone(), Same::Name);
            }
        }
        if tune && let Some(t) = tj.spec.trainer.as_mut() {
            let args = t.args.clone().unwrap_or_default();
            let runtime = tj
                .spec
                .runtime_ref
                .as_ref()
                .and_then(|r| r.name.clone())
                .unwrap_or_default();
            let mut extra = Vec::new();
            let multi = count > 1
                || matches!(nproc, ProcPerNode::Int(n) if n > 1)
                || (nproc == ProcPerNode::Auto && gpu > 1);
            if multi {
                extra.push(format!(
                    "--rdzv_endpoint={name}-{NODE}-0-0.{name}:{TRAINER_PORT}"
                ));
            }
            let (recipe, config) = recipe_and_config(count, &nproc, gpu, &args, &runtime);
            extra.extend([recipe.to_owned(), "--config".to_owned(), config]);
            extra.extend(overrides);
            t.command.get_or_insert_with(Vec::new).extend(extra);
        }
        if let Some(c) = info.container_mut(i, false, k) {
            upsert_into(
                c,
                "ports",
                [json!({"containerPort": TRAINER_PORT})],
                Same::PortOrName,
            );
        }
    }
    for (ti, target) in policy
        .env_injection
        .iter()
        .flat_map(|e| e.targets.iter())
        .enumerate()
    {
        for cn in &target.container_names {
            let Some((i, init, k)) = info.container_by_pod_set_name(&target.job_name, cn) else {
                return Err(BuildError {
                    message: format!(
                        "envInjection target podSet {:?} container {:?} not found in runtime template",
                        target.job_name, cn
                    ),
                    origin: rt_origin(format!("spec.mlPolicy.torch.envInjection.targets[{ti}]")),
                    panic: false,
                });
            };
            if let Some(c) = info.container_mut(i, init, k) {
                upsert_into(c, "env", pet.clone(), Same::Name);
                upsert_into(c, "env", master.clone(), Same::Name);
            }
        }
    }
    Ok(())
}

/// `extractOverridesFromRuntime`: the node container's command entries that set a config the
/// runtime manages.
fn torchtune_overrides(info: &Info) -> Vec<String> {
    let mut out = Vec::new();
    for (i, rj) in info.spec.replicated_jobs.iter().enumerate() {
        if ancestor_of(&info.spec, i).as_deref() != Some(ANCESTOR_TRAINER) {
            continue;
        }
        for c in &rj.template.spec.template.spec.containers {
            if c.name != NODE {
                continue;
            }
            for cmd in c
                .other
                .get("command")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                let key = cmd.split('=').next().unwrap_or("");
                if TORCHTUNE_IMMUTABLE.contains(&key) {
                    out.push(cmd.to_owned());
                }
            }
        }
    }
    out
}

fn mpi(info: &mut Info, tj: &TrainJob) -> Result<(), BuildError> {
    let Some(mut policy) = info.ml.as_ref().and_then(|m| m.mpi.clone()) else {
        return Ok(());
    };
    let launcher_as_node = policy.run_launcher_as_node.unwrap_or(false);
    if let Some(n) = tj.spec.trainer.as_ref().and_then(|t| t.num_nodes)
        && let Some(ps) = info.pod_set_by_name(NODE)
    {
        set_count(
            info,
            ps,
            if launcher_as_node {
                (n.saturating_sub(1)).max(1)
            } else {
                n
            },
        );
    }
    if let Some(n) = tj.spec.trainer.as_ref().and_then(|t| t.num_proc_per_node) {
        policy.num_proc_per_node = Some(n);
    } else if policy.num_proc_per_node == Some(1) {
        let g = gpus(&resources_per_node(info, tj));
        if g > 1 {
            policy.num_proc_per_node = i32::try_from(g).ok();
        }
    }
    let name = tj.metadata.name_or_empty().to_owned();
    let ssh_path = policy.ssh_auth_mount_path.clone().unwrap_or_default();
    let slots = policy.num_proc_per_node.unwrap_or(1);
    let implementation = policy.mpi_implementation.clone().unwrap_or_default();
    for ps in 0..info.pod_sets.len() {
        let ps_name = info
            .pod_sets
            .get(ps)
            .map(|p| p.name.clone())
            .unwrap_or_default();
        if ps_name != NODE && ps_name != LAUNCHER {
            continue;
        }
        let mut volumes = vec![json!({"name": "mpi-ssh-auth", "secret": {
        "secretName": format!("{name}-mpi-ssh-auth"), "defaultMode": 0o400,
        "items": [
            {"key": "ssh-privatekey", "path": "id_rsa", "mode": 0o640},
            {"key": "ssh-publickey", "path": "id_rsa.pub", "mode": 0o644},
            {"key": "ssh-publickey", "path": "authorized_keys", "mode": 0o644},
        ]}})];
        if ps_name == LAUNCHER {
            volumes.push(json!({"name": "mpi-hostfile", "configMap": {
                "name": format!("{name}-mpi-hostfile"),
                "items": [{"key": "hostfile", "path": "hostfile", "mode": 0o444}]}}));
        }
        if let Some(rj) = info.spec.replicated_jobs.get_mut(ps) {
            let spec = &mut rj.template.spec.template.spec;
            let list = spec
                .other
                .entry("volumes")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Some(list) = list.as_array_mut() {
                for v in volumes {
                    upsert(list, v, Same::Name);
                }
            }
        }
        let n_containers = containers_mut(&mut info.spec, ps, false).map_or(0, |c| c.len());
        for k in 0..n_containers {
            let Some(c) = info.container_mut(ps, false, k) else {
                continue;
            };
            if c.name != NODE {
                continue;
            }
            upsert_into(
                c,
                "volumeMounts",
                [json!({"name": "mpi-ssh-auth", "mountPath": ssh_path})],
                Same::MountPath,
            );
            if ps_name == LAUNCHER {
                upsert_into(
                    c,
                    "volumeMounts",
                    [json!({"name": "mpi-hostfile", "mountPath": "/etc/mpi"})],
                    Same::MountPath,
                );
                if implementation != "OpenMPI" {
                    return Err(BuildError {
                        // %v of the *MPIImplementation: Go prints the pointer's address.
                        message: "MPI implementation for 0x… doesn't supported".into(),
                        origin: rt_origin("spec.mlPolicy.mpi.mpiImplementation"),
                        panic: false,
                    });
                }
                upsert_into(
                    c,
                    "env",
                    [
                        env_value("OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile".into()),
                        env_value("OMPI_MCA_orte_keep_fqdn_hostnames", "true".into()),
                        env_value("OMPI_MCA_orte_set_default_slots", slots.to_string()),
                        env_value("OMPI_MCA_plm_rsh_args", "-o ConnectionAttempts=10".into()),
                    ],
                    Same::Name,
                );
            }
        }
    }
    if let Some(m) = info.ml.as_mut().and_then(|m| m.mpi.as_mut()) {
        *m = policy;
    }
    Ok(())
}

fn jax(info: &mut Info, tj: &TrainJob) {
    if info.ml.as_ref().is_none_or(|m| m.jax.is_none()) {
        return;
    }
    let trainer_ps = info.pod_set_by_ancestor(ANCESTOR_TRAINER);
    if let (Some(ps), Some(n)) = (
        trainer_ps,
        tj.spec.trainer.as_ref().and_then(|t| t.num_nodes),
    ) {
        set_count(info, ps, n);
    }
    if tj.spec.trainer.is_none() {
        return;
    }
    let Some((i, k)) = info.trainer_container() else {
        return;
    };
    let count = trainer_ps
        .and_then(|p| info.pod_sets.get(p))
        .map_or(1, |p| p.count);
    let name = tj.metadata.name_or_empty().to_owned();
    if let Some(c) = info.container_mut(i, false, k) {
        upsert_into(
            c,
            "env",
            [
                env_value("JAX_NUM_PROCESSES", count.to_string()),
                env_index("JAX_PROCESS_ID"),
                env_value(
                    "JAX_COORDINATOR_ADDRESS",
                    format!("{name}-{NODE}-0-0.{name}:{TRAINER_PORT}"),
                ),
            ],
            Same::Name,
        );
        upsert_into(
            c,
            "ports",
            [json!({"containerPort": TRAINER_PORT})],
            Same::PortOrName,
        );
    }
}

fn xgboost(info: &mut Info, tj: &TrainJob) {
    if info.ml.as_ref().is_none_or(|m| m.xgboost.is_none()) {
        return;
    }
    let Some(ps) = info.pod_set_by_ancestor(ANCESTOR_TRAINER) else {
        return;
    };
    if let Some(n) = tj.spec.trainer.as_ref().and_then(|t| t.num_nodes) {
        set_count(info, ps, n);
    }
    if tj.spec.trainer.is_none() {
        return;
    }
    let Some((i, k)) = info.trainer_container() else {
        return;
    };
    let count = info.pod_sets.get(ps).map_or(1, |p| p.count);
    let g = gpus(&resources_per_node(info, tj));
    let per_node: i32 = if g > 0 {
        i32::try_from(g).unwrap_or(i32::MAX)
    } else {
        1
    };
    // int32 arithmetic, as upstream's (wrapping on overflow).
    let workers = count.wrapping_mul(per_node);
    let name = tj.metadata.name_or_empty().to_owned();
    if let Some(c) = info.container_mut(i, false, k) {
        upsert_into(
            c,
            "env",
            [
                env_value("DMLC_TRACKER_URI", format!("{name}-{NODE}-0-0.{name}")),
                env_value("DMLC_TRACKER_PORT", TRAINER_PORT.to_string()),
                env_index("DMLC_TASK_ID"),
                env_value("DMLC_NUM_WORKER", workers.to_string()),
            ],
            Same::Name,
        );
        upsert_into(
            c,
            "ports",
            [json!({"containerPort": TRAINER_PORT})],
            Same::PortOrName,
        );
    }
}

const FLUX_DEFAULTS: [(&str, &str); 3] = [
    (
        "FLUX_VIEW_IMAGE",
        "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy",
    ),
    ("FLUX_NETWORK_DEVICE", "eth0"),
    ("FLUX_QUEUE_POLICY", "fcfs"),
];

fn flux_panic(field: &str) -> BuildError {
    BuildError {
        message: format!(
            "runtime error: invalid memory address or nil pointer dereference (the Flux plugin reads {field}, which this TrainJob leaves unset)"
        ),
        origin: tj_origin(field),
        panic: true,
    }
}

/// `brokerSettingsFromEnvironment`: the Flux settings from the node container's env, then the
/// TrainJob's.
fn flux_settings(info: &Info, tj: &TrainJob) -> BTreeMap<String, String> {
    let mut s: BTreeMap<String, String> = FLUX_DEFAULTS
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    if let Some((i, k)) = info.trainer_container()
        && let Some(c) = info
            .spec
            .replicated_jobs
            .get(i)
            .and_then(|r| r.template.spec.template.spec.containers.get(k))
    {
        for e in c
            .other
            .get("env")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            // An empty value is no value: Go's typed env var omits it.
            if let (Some(n), Some(v)) = (
                e.get("name").and_then(Value::as_str),
                e.get("value")
                    .and_then(Value::as_str)
                    .filter(|v| !v.is_empty()),
            ) && s.contains_key(n)
            {
                s.insert(n.to_owned(), v.to_owned());
            }
        }
    }
    for e in tj.spec.trainer.iter().flat_map(|t| t.env.iter()) {
        if s.contains_key(&e.name) {
            s.insert(e.name.clone(), e.value.clone().unwrap_or_default());
        }
    }
    s
}

fn flux(info: &mut Info, tj: &mut TrainJob) -> Result<(), BuildError> {
    if info.ml.as_ref().is_none_or(|m| m.flux.is_none()) {
        return Ok(());
    }
    if tj.spec.trainer.is_none() {
        return Err(flux_panic("spec.trainer"));
    }
    let settings = flux_settings(info, tj);
    let name = tj.metadata.name_or_empty().to_owned();
    let cm = format!("{name}-flux-entrypoint");
    let curve = format!("{name}-flux-curve");
    // getOriginalCommand: the node container's command, or the TrainJob's; the TrainJob's args.
    let mut command: Vec<String> = info
        .trainer_container()
        .and_then(|(i, k)| {
            info.spec
                .replicated_jobs
                .get(i)?
                .template
                .spec
                .template
                .spec
                .containers
                .get(k)?
                .other
                .get("command")?
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
        })
        .unwrap_or_default();
    let mut args = Vec::new();
    if let Some(t) = &tj.spec.trainer {
        if let Some(c) = &t.command {
            command = c.clone();
        }
        if let Some(a) = &t.args {
            args = a.clone();
        }
    }
    command.extend(args);
    let original = command.join(" ").trim().to_owned();
    if let Some(t) = tj.spec.trainer.as_mut() {
        t.command = Some(vec![
            "/bin/bash".into(),
            "/etc/flux-config/entrypoint.sh".into(),
            original,
        ]);
        t.args = None;
    }
    let installer = json!({
        "name": FLUX_INSTALLER,
        "image": settings.get("FLUX_VIEW_IMAGE").cloned().unwrap_or_default(),
        "command": ["/bin/bash", "/etc/flux-config/init.sh"],
        "volumeMounts": [
            {"name": "flux-install", "mountPath": "/mnt/flux"},
            {"name": cm, "mountPath": "/etc/flux-config", "readOnly": true},
        ],
    });
    let volumes = [
        json!({"name": "spack-install", "emptyDir": {}}),
        json!({"name": "flux-install", "emptyDir": {}}),
        json!({"name": cm, "configMap": {"name": cm, "defaultMode": 0o755}}),
        json!({"name": "shared-memory", "emptyDir": {"medium": "Memory"}}),
        json!({"name": "flux-curve", "secret": {"secretName": curve, "defaultMode": 0o400}}),
    ];
    for ps in 0..info.pod_sets.len() {
        if info.pod_sets.get(ps).is_none_or(|p| p.name != NODE) {
            continue;
        }
        if let Some(rj) = info.spec.replicated_jobs.get_mut(ps) {
            let list = rj
                .template
                .spec
                .template
                .spec
                .other
                .entry("volumes")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Some(list) = list.as_array_mut() {
                for v in &volumes {
                    upsert(list, v.clone(), Same::Name);
                }
            }
        }
        if let Some(p) = info.pod_sets.get_mut(ps) {
            p.extra_init.push(installer.clone());
        }
        let n = containers_mut(&mut info.spec, ps, false).map_or(0, |c| c.len());
        for k in 0..n {
            if let Some(c) = info.container_mut(ps, false, k)
                && c.name == NODE
            {
                upsert_into(
                    c,
                    "volumeMounts",
                    [
                        json!({"name": "flux-install", "mountPath": "/mnt/flux"}),
                        json!({"name": "spack-install", "mountPath": "/opt/software"}),
                        json!({"name": cm, "mountPath": "/etc/flux-config", "readOnly": true}),
                        json!({"name": "flux-curve", "mountPath": "/curve", "readOnly": true}),
                        json!({"name": "shared-memory", "mountPath": "/dev/shm", "readOnly": true}),
                    ],
                    Same::MountPath,
                );
            }
        }
    }
    Ok(())
}

/// The ML policy plugins' `EnforceMLPolicy`.
pub(super) fn enforce_ml_policy(info: &mut Info, tj: &mut TrainJob) -> Result<(), BuildError> {
    plainml(info, tj);
    torch(info, tj)?;
    mpi(info, tj)?;
    jax(info, tj);
    xgboost(info, tj);
    flux(info, tj)
}

/// coscheduling and volcano `EnforcePodGroupPolicy`.
pub(super) fn enforce_pod_group_policy(info: &mut Info, tj: &TrainJob) {
    let name = tj.metadata.name_or_empty().to_owned();
    let Some(pg) = &info.pod_group else { return };
    if pg.coscheduling.is_some() {
        info.pod_labels
            .insert("scheduling.x-k8s.io/pod-group".into(), name.clone());
        info.owned.push(Owned {
            at: vec![Seg::key("podLabels")],
            origin: rt_origin("spec.podGroupPolicy.coscheduling"),
        });
    }
    if pg.volcano.as_ref().is_some_and(|v| !v.is_null()) {
        info.pod_annotations
            .insert("scheduling.k8s.io/group-name".into(), name);
    }
}

/// `IdentifyPodNetwork` keeps each replicatedJob's replicas as they are before `Build`.
pub(super) fn identify_pod_network(info: &mut Info) {
    info.network_replicas = info
        .spec
        .replicated_jobs
        .iter()
        .map(|r| r.replicas.unwrap_or(1))
        .collect();
}

/// `SyncParallelCount`.
pub(super) fn sync_parallel_count(info: &mut Info) {
    for ps in &info.pod_sets {
        if let Some((i, rj)) = info
            .spec
            .replicated_jobs
            .iter_mut()
            .enumerate()
            .find(|(_, r)| r.name == ps.name)
        {
            rj.template.spec.parallelism = Some(ps.count);
            rj.template.spec.completions = Some(ps.count);
            let origin = match ps.count_from {
                CountFrom::TrainJobNumNodes => tj_origin("spec.trainer.numNodes"),
                CountFrom::PolicyNumNodes => rt_origin("spec.mlPolicy.numNodes"),
                CountFrom::Parallelism => rt_origin(format!(
                    "spec.template.spec.replicatedJobs[{}].template.spec.parallelism",
                    info.runtime_names
                        .iter()
                        .position(|n| n == &rj.name)
                        .unwrap_or(i)
                )),
            };
            for f in ["parallelism", "completions"] {
                info.owned.push(Owned {
                    at: with(
                        rj_path(i),
                        [Seg::key("template"), Seg::key("spec"), Seg::key(f)],
                    ),
                    origin: origin.clone(),
                });
            }
        }
    }
}

/// The jobset plugin's `Build`: the JobSet the trainer applies.
pub(super) fn build_jobset(info: &mut Info, tj: &TrainJob) -> JobSet {
    let pod_sets = info.pod_sets.clone();
    for (i, ps) in pod_sets.iter().enumerate() {
        let Some(rj) = info.spec.replicated_jobs.get_mut(i) else {
            continue;
        };
        let spec = &mut rj.template.spec.template.spec;
        if let Some(list) = spec.other.get_mut("volumes").and_then(Value::as_array_mut) {
            let items = list.clone();
            for it in items {
                upsert(list, it, Same::Name);
            }
        }
        for c in &mut spec.containers {
            reupsert(c, "env", Same::Name);
            reupsert(c, "ports", Same::PortOrName);
            reupsert(c, "volumeMounts", Same::MountPath);
        }
        for c in &mut spec.init_containers {
            reupsert(c, "env", Same::Name);
            reupsert(c, "ports", Same::PortOrName);
            reupsert(c, "volumeMounts", Same::MountPath);
        }
        for extra in &ps.extra_init {
            let name = extra.get("name").and_then(Value::as_str).unwrap_or("");
            let mut c = Container {
                name: name.to_owned(),
                ..Default::default()
            };
            if let Some(cmd) = extra
                .get("command")
                .filter(|c| c.as_array().is_some_and(|a| !a.is_empty()))
            {
                c.other.insert("command".into(), cmd.clone());
            }
            if let Some(img) = extra
                .get("image")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                c.image = Some(img.to_owned());
            }
            if let Some(m) = extra.get("volumeMounts").and_then(Value::as_array) {
                upsert_into(&mut c, "volumeMounts", m.clone(), Same::MountPath);
            }
            spec.init_containers.push(c);
        }
    }
    initializer(info, tj);
    trainer(info, tj);
    let pod_labels = info.pod_labels.clone();
    let pod_annotations = info.pod_annotations.clone();
    for rj in &mut info.spec.replicated_jobs {
        let m = rj
            .template
            .spec
            .template
            .metadata
            .get_or_insert_with(ObjectMeta::default);
        if !pod_labels.is_empty() {
            m.labels
                .get_or_insert_with(BTreeMap::new)
                .extend(pod_labels.clone());
        }
        if !pod_annotations.is_empty() {
            m.annotations
                .get_or_insert_with(BTreeMap::new)
                .extend(pod_annotations.clone());
        }
    }
    info.spec.suspend = tj.spec.suspend;
    info.owned.push(Owned {
        at: vec![Seg::key("spec"), Seg::key("suspend")],
        origin: tj_origin("spec.suspend"),
    });
    let name = tj.metadata.name_or_empty().to_owned();
    let mut metadata = ObjectMeta {
        name: Some(name.clone()),
        namespace: tj.metadata.namespace.clone().filter(|n| !n.is_empty()),
        labels: (!info.labels.is_empty()).then(|| info.labels.clone()),
        annotations: (!info.annotations.is_empty()).then(|| info.annotations.clone()),
        ..Default::default()
    };
    metadata
        .other
        .insert("ownerReferences".into(), owner_reference(tj));
    JobSet {
        api_version: Some("jobset.x-k8s.io/v1alpha2".into()),
        kind: Some("JobSet".into()),
        metadata,
        spec: info.spec.clone(),
        ..Default::default()
    }
}

/// The builder's `Initializer`.
fn initializer(info: &mut Info, tj: &TrainJob) {
    for i in 0..info.spec.replicated_jobs.len() {
        let Some(ancestor) = ancestor_of(&info.spec, i) else {
            continue;
        };
        let (which, cname) = match ancestor.as_str() {
            DATASET_INITIALIZER => ("dataset", DATASET_INITIALIZER),
            MODEL_INITIALIZER => ("model", MODEL_INITIALIZER),
            _ => continue,
        };
        if let Some(rj) = info.spec.replicated_jobs.get_mut(i) {
            rj.replicas = Some(1);
        }
        let init = tj.spec.initializer.as_ref().and_then(|init| match which {
            "dataset" => init.dataset.as_ref(),
            _ => init.model.as_ref(),
        });
        let Some(init) = init else { continue };
        let n = containers_mut(&mut info.spec, i, false).map_or(0, |c| c.len());
        for k in 0..n {
            let Some(c) = info.container_mut(i, false, k) else {
                continue;
            };
            if c.name != cname {
                continue;
            }
            if let Some(uri) = &init.storage_uri {
                upsert_into(
                    c,
                    "env",
                    [env_value("STORAGE_URI", uri.clone())],
                    Same::Name,
                );
            }
            upsert_into(c, "env", init.env.iter().map(env_apply), Same::Name);
            if let Some(secret) = &init.secret_ref {
                let name = secret.get("name").cloned().unwrap_or(json!(""));
                with_list(c, "envFrom", |l| {
                    l.push(json!({"secretRef": {"name": name}}))
                });
            }
            let base = format!("spec.initializer.{which}");
            let cp = container_path(i, false, k);
            if init.storage_uri.is_some() {
                info.owned.push(Owned {
                    at: with(
                        cp.clone(),
                        [Seg::key("env"), Seg::named("name", "STORAGE_URI")],
                    ),
                    origin: tj_origin(format!("{base}.storageUri")),
                });
            }
            for (e, v) in init.env.iter().enumerate() {
                info.owned.push(Owned {
                    at: with(cp.clone(), [Seg::key("env"), Seg::named("name", &v.name)]),
                    origin: tj_origin(format!("{base}.env[{e}]")),
                });
            }
        }
    }
}

/// The builder's `Trainer`.
fn trainer(info: &mut Info, tj: &TrainJob) {
    let launcher_as_node = info
        .ml
        .as_ref()
        .and_then(|m| m.mpi.as_ref())
        .and_then(|m| m.run_launcher_as_node)
        .unwrap_or(false);
    for i in 0..info.spec.replicated_jobs.len() {
        let is_trainer = ancestor_of(&info.spec, i).as_deref() == Some(ANCESTOR_TRAINER);
        let rj_name = info
            .spec
            .replicated_jobs
            .get(i)
            .map(|r| r.name.clone())
            .unwrap_or_default();
        if is_trainer && let Some(rj) = info.spec.replicated_jobs.get_mut(i) {
            rj.replicas = Some(1);
        }
        let n = containers_mut(&mut info.spec, i, false).map_or(0, |c| c.len());
        for k in 0..n {
            let Some(t) = &tj.spec.trainer else { break };
            let cp = container_path(i, false, k);
            let Some(c) = info.container_mut(i, false, k) else {
                continue;
            };
            if c.name != NODE {
                continue;
            }
            if is_trainer {
                if let Some(image) = &t.image {
                    c.image = Some(image.clone());
                    info.owned.push(Owned {
                        at: with(cp.clone(), [Seg::key("image")]),
                        origin: tj_origin("spec.trainer.image"),
                    });
                }
                let Some(c) = info.container_mut(i, false, k) else {
                    continue;
                };
                for (key, v) in [("command", &t.command), ("args", &t.args)] {
                    if let Some(v) = v {
                        if v.is_empty() {
                            c.other.remove(key);
                        } else {
                            c.other.insert(key.into(), json!(v));
                        }
                    }
                }
                for (key, v) in [("command", &t.command), ("args", &t.args)] {
                    if v.is_some() {
                        info.owned.push(Owned {
                            at: with(cp.clone(), [Seg::key(key)]),
                            origin: tj_origin(format!("spec.trainer.{key}")),
                        });
                    }
                }
            }
            if is_trainer || (launcher_as_node && rj_name == NODE) {
                if let Some(c) = info.container_mut(i, false, k) {
                    upsert_into(c, "env", t.env.iter().map(env_apply), Same::Name);
                }
                for (e, v) in t.env.iter().enumerate() {
                    info.owned.push(Owned {
                        at: with(cp.clone(), [Seg::key("env"), Seg::named("name", &v.name)]),
                        origin: tj_origin(format!("spec.trainer.env[{e}]")),
                    });
                }
            }
        }
    }
}

/// A hostfile line per MPI node Pod (`buildHostFileConfigMap` over `IdentifyPodNetwork`'s
/// endpoints).
pub(super) fn mpi_hostfile(info: &Info, tj: &TrainJob) -> String {
    let Some(policy) = info.ml.as_ref().and_then(|m| m.mpi.as_ref()) else {
        return String::new();
    };
    let launcher_as_node = policy.run_launcher_as_node.unwrap_or(false);
    let slots = policy.num_proc_per_node.unwrap_or(1);
    let name = tj.metadata.name_or_empty();
    let mut out = String::new();
    // Only OpenMPI writes lines (the enum's other value, "", writes none).
    if policy.mpi_implementation.as_deref() != Some("OpenMPI") {
        return out;
    }
    for (i, ps) in info.pod_sets.iter().enumerate() {
        if !((launcher_as_node && ps.name == LAUNCHER) || ps.name == NODE) {
            continue;
        }
        let subdomain = info
            .spec
            .network
            .as_ref()
            .and_then(|n| n.get("subdomain"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .unwrap_or(name);
        let replicas = info.network_replicas.get(i).copied().unwrap_or(1);
        for r in 0..replicas.max(0) {
            for p in 0..ps.count.max(0) {
                out.push_str(&format!(
                    "{name}-{}-{r}-{p}.{subdomain} slots={slots}\n",
                    ps.name
                ));
            }
        }
    }
    out
}

/// The Flux plugin's `Build` reads `numNodes` through a pointer.
pub(super) fn flux_build_check(info: &Info, tj: &TrainJob) -> Result<(), BuildError> {
    if info.ml.as_ref().is_some_and(|m| m.flux.is_some())
        && tj.spec.trainer.as_ref().and_then(|t| t.num_nodes).is_none()
    {
        return Err(flux_panic("spec.trainer.numNodes"));
    }
    Ok(())
}

/// The ownerReferences of an object the trainer builds for the TrainJob.
pub(super) fn owner_reference(tj: &TrainJob) -> Value {
    json!([{
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "name": tj.metadata.name_or_empty(),
        "uid": tj.metadata.uid.clone().unwrap_or_default(),
        "controller": true,
        "blockOwnerDeletion": true,
    }])
}
