//! The xgboost plugin's `EnforceMLPolicy` (pkg/runtime/framework/plugins/xgboost).

use super::info::{
    ANCESTOR_TRAINER, Info, NODE, Same, TRAINER_PORT, env_index, env_value, gpus,
    resources_per_node, set_count, upsert_into,
};
use crate::api::TrainJob;
use serde_json::json;

pub(in crate::trainer) const XGBOOST_RESERVED_ENV: [&str; 4] = [
    "DMLC_TRACKER_URI",
    "DMLC_TRACKER_PORT",
    "DMLC_TASK_ID",
    "DMLC_NUM_WORKER",
];

pub(super) fn xgboost(info: &mut Info, tj: &TrainJob) {
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
