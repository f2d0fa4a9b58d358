//! The plainml plugin's `EnforceMLPolicy` (pkg/runtime/framework/plugins/plainml).

use super::info::{ANCESTOR_TRAINER, Info, set_count, trainer_env_upsert};
use crate::api::TrainJob;

pub(super) fn plainml(info: &mut Info, tj: &TrainJob) {
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
