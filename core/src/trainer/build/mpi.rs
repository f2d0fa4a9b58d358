//! The mpi plugin (pkg/runtime/framework/plugins/mpi): `EnforceMLPolicy` and the hostfile of its
//! side ConfigMap.

use super::info::{
    BuildError, Info, LAUNCHER, NODE, Same, containers_mut, env_value, gpus, resources_per_node,
    rt_origin, set_count, upsert, upsert_into,
};
use crate::api::TrainJob;
use serde_json::{Value, json};

pub(in crate::trainer) const MPI_RESERVED_ENV: [&str; 4] = [
    "OMPI_MCA_orte_default_hostfile",
    "OMPI_MCA_plm_rsh_args",
    "OMPI_MCA_orte_keep_fqdn_hostnames",
    "OMPI_MCA_orte_set_default_slots",
];

pub(super) fn mpi(info: &mut Info, tj: &TrainJob) -> Result<(), BuildError> {
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

/// A hostfile line per MPI node Pod (`buildHostFileConfigMap` over `IdentifyPodNetwork`'s
/// endpoints).
pub(in crate::trainer) fn mpi_hostfile(info: &Info, tj: &TrainJob) -> String {
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
