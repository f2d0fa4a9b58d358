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
//!
//! A file per step and per plugin: `info.rs` (what the steps share), `runtime_info.rs`
//! (newRuntimeInfo), `plainml.rs`, `torch.rs`, `mpi.rs`, `jax.rs`, `xgboost.rs`, `flux.rs` (the
//! ML policy plugins), `jobset.rs` (IdentifyPodNetwork, SyncParallelCount, Build). This file
//! runs the plugins of a policy (`EnforceMLPolicy`, `EnforcePodGroupPolicy` with coscheduling and
//! volcano), as the framework does.

mod flux;
mod info;
mod jax;
mod jobset;
mod mpi;
mod plainml;
mod runtime_info;
mod torch;
mod xgboost;

use super::provenance::{Owned, Seg};
use crate::api::TrainJob;
use flux::flux;
use info::rt_origin;
use jax::jax;
use mpi::mpi;
use plainml::plainml;
use torch::torch;
use xgboost::xgboost;

pub(super) use flux::flux_build_check;
pub(super) use info::{
    ANCESTOR_LABEL, ANCESTOR_TRAINER, BuildError, DATASET_INITIALIZER, Info, LAUNCHER,
    MODEL_INITIALIZER, NODE,
};
pub(super) use jobset::{build_jobset, identify_pod_network, owner_reference, sync_parallel_count};
pub(super) use mpi::{MPI_RESERVED_ENV, mpi_hostfile};
pub(super) use runtime_info::{patch_json, runtime_info};
pub(super) use torch::{
    ProcPerNode, TORCH_RESERVED_ENV, TORCHTUNE_ENTRYPOINT, TORCHTUNE_IMMUTABLE, lora, qlora,
    recipe_and_config, torch_proc_per_node, torchtune_model,
};
pub(super) use xgboost::XGBOOST_RESERVED_ENV;

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
