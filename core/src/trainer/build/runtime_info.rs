//! `newRuntimeInfo` (pkg/runtime/core/trainingruntime.go): `runtimePatches` merged into the
//! runtime's JobSet spec, `resourcesPerNode` merged into the node container, the PodSets and their
//! counts; and the methods of `Info`.

use super::info::{
    ANCESTOR_TRAINER, BuildError, CountFrom, Info, NODE, PodSet, ancestor_of, container_path,
    containers_mut, rt_origin, tj_origin, with,
};
use crate::api::{Container, EnvVar, JobSetSpec, ObjectMeta, TrainJob, TrainingRuntime};
use crate::trainer::provenance::{Owned, Seg};
use crate::trainer::smp;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The JSON a typed Go value of a patch type marshals to: only the fields the type declares.
pub(in crate::trainer) fn patch_json(p: &crate::api::JobSetSpecPatch) -> Value {
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
pub(super) fn merge_runtime_patches(tj: &TrainJob, spec: Value) -> Result<Value, BuildError> {
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
pub(super) fn merged_resources(base: Option<&Value>, over: &Value) -> Value {
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
pub(in crate::trainer) fn runtime_info(
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
    pub(in crate::trainer) fn pod_set_by_ancestor(&self, ancestor: &str) -> Option<usize> {
        self.pod_sets
            .iter()
            .position(|p| p.ancestor.as_deref() == Some(ancestor))
    }

    pub(in crate::trainer) fn pod_set_by_name(&self, name: &str) -> Option<usize> {
        self.pod_sets.iter().position(|p| p.name == name)
    }

    /// `FindContainerByPodSetAncestorContainerName`: (replicatedJob, container) indices.
    pub(in crate::trainer) fn trainer_container(&self) -> Option<(usize, usize)> {
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
    pub(in crate::trainer) fn container_by_pod_set_name(
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

    pub(super) fn container_mut(
        &mut self,
        i: usize,
        init: bool,
        k: usize,
    ) -> Option<&mut Container> {
        containers_mut(&mut self.spec, i, init)?.get_mut(k)
    }

    /// `ExtractResourcePerNodeFromRuntime`: the node container's resources in the first
    /// replicatedJob named `node` or labelled as the trainer.
    pub(in crate::trainer) fn runtime_resources_per_node(&self) -> Option<Value> {
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
