//! The jobset plugin (pkg/runtime/framework/plugins/jobset): `IdentifyPodNetwork`,
//! `SyncParallelCount` and `Build` (jobset.go, builder.go): the PodSets written back, the
//! initializers, the trainer container, labels, `suspend` and the owner reference.

use super::info::{
    ANCESTOR_TRAINER, CountFrom, DATASET_INITIALIZER, Info, MODEL_INITIALIZER, NODE, Same,
    ancestor_of, container_path, containers_mut, env_apply, env_value, reupsert, rj_path,
    rt_origin, tj_origin, upsert, upsert_into, with, with_list,
};
use crate::api::{Container, JobSet, ObjectMeta, TrainJob};
use crate::trainer::provenance::{Owned, Seg};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// `IdentifyPodNetwork` keeps each replicatedJob's replicas as they are before `Build`.
pub(in crate::trainer) fn identify_pod_network(info: &mut Info) {
    info.network_replicas = info
        .spec
        .replicated_jobs
        .iter()
        .map(|r| r.replicas.unwrap_or(1))
        .collect();
}

/// `SyncParallelCount`.
pub(in crate::trainer) fn sync_parallel_count(info: &mut Info) {
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
pub(in crate::trainer) fn build_jobset(info: &mut Info, tj: &TrainJob) -> JobSet {
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
pub(super) fn initializer(info: &mut Info, tj: &TrainJob) {
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
pub(super) fn trainer(info: &mut Info, tj: &TrainJob) {
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

/// The ownerReferences of an object the trainer builds for the TrainJob.
pub(in crate::trainer) fn owner_reference(tj: &TrainJob) -> Value {
    json!([{
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "name": tj.metadata.name_or_empty(),
        "uid": tj.metadata.uid.clone().unwrap_or_default(),
        "controller": true,
        "blockOwnerDeletion": true,
    }])
}
