//! The flux plugin (pkg/runtime/framework/plugins/flux): `EnforceMLPolicy`, its settings, and the
//! check its `Build` makes.

use super::info::{BuildError, Info, NODE, Same, containers_mut, tj_origin, upsert, upsert_into};
use crate::api::TrainJob;
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub(super) const FLUX_INSTALLER: &str = "flux-installer";

pub(super) const FLUX_DEFAULTS: [(&str, &str); 3] = [
    (
        "FLUX_VIEW_IMAGE",
        "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy",
    ),
    ("FLUX_NETWORK_DEVICE", "eth0"),
    ("FLUX_QUEUE_POLICY", "fcfs"),
];

pub(super) fn flux_panic(field: &str) -> BuildError {
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
pub(super) fn flux_settings(info: &Info, tj: &TrainJob) -> BTreeMap<String, String> {
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

pub(super) fn flux(info: &mut Info, tj: &mut TrainJob) -> Result<(), BuildError> {
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

/// The Flux plugin's `Build` reads `numNodes` through a pointer.
pub(in crate::trainer) fn flux_build_check(info: &Info, tj: &TrainJob) -> Result<(), BuildError> {
    if info.ml.as_ref().is_some_and(|m| m.flux.is_some())
        && tj.spec.trainer.as_ref().and_then(|t| t.num_nodes).is_none()
    {
        return Err(flux_panic("spec.trainer.numNodes"));
    }
    Ok(())
}
