//! The jax plugin's `EnforceMLPolicy` (pkg/runtime/framework/plugins/jax).

use super::info::{
    ANCESTOR_TRAINER, Info, NODE, Same, TRAINER_PORT, env_index, env_value, set_count, upsert_into,
};
use crate::api::TrainJob;
use serde_json::json;

pub(super) fn jax(info: &mut Info, tj: &TrainJob) {
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
