//! The torch plugin's `EnforceMLPolicy` (pkg/runtime/framework/plugins/torch), with torchtune's
//! recipes, configs and overrides.

use super::info::{
    ANCESTOR_TRAINER, BuildError, Info, NODE, Same, TRAINER_PORT, ancestor_of, cpus, env_index,
    env_value, gpus, resources_per_node, rt_origin, set_count, trainer_env_upsert, upsert_into,
};
use crate::api::TrainJob;
use serde_json::{Value, json};

pub(in crate::trainer) const TORCHTUNE_ENTRYPOINT: [&str; 2] = ["tune", "run"];

pub(in crate::trainer) const TORCH_RESERVED_ENV: [&str; 5] = [
    "PET_NNODES",
    "PET_NPROC_PER_NODE",
    "PET_NODE_RANK",
    "PET_MASTER_ADDR",
    "PET_MASTER_PORT",
];

pub(in crate::trainer) const TORCHTUNE_IMMUTABLE: [&str; 4] = [
    "output_dir",
    "tokenizer.path",
    "checkpointer.checkpoint_dir",
    "tokenizer.merges_file",
];

/// `numProcPerNode` as the torch plugin has it: a number, or "auto".
#[derive(Debug, Clone, PartialEq)]
pub(in crate::trainer) enum ProcPerNode {
    Auto,
    Int(i64),
}

impl ProcPerNode {
    pub(super) fn text(&self) -> String {
        match self {
            ProcPerNode::Auto => "auto".into(),
            ProcPerNode::Int(n) => n.to_string(),
        }
    }
}

/// `getModelFromRuntimeRef`: `torchtune-llama3.2-1b` is `llama3_2/1B`.
pub(in crate::trainer) fn torchtune_model(runtime: &str) -> String {
    let f: Vec<&str> = runtime.split('-').collect();
    match f.as_slice() {
        // strings.ToUpper of a part of a runtime's name, a DNS subdomain: ASCII only.
        [_, family, size] => format!("{}/{}", family.replace('.', "_"), size.to_ascii_uppercase()),
        _ => String::new(),
    }
}

pub(super) fn bool_arg(args: &[String], item: &str) -> bool {
    args.iter().any(|a| {
        a.split_once('=')
            .is_some_and(|(n, v)| n.contains(item) && v.trim().eq_ignore_ascii_case("true"))
    })
}

pub(in crate::trainer) fn lora(args: &[String]) -> bool {
    args.iter().any(|a| a.contains("model.lora_attn_modules"))
}

pub(in crate::trainer) fn qlora(args: &[String]) -> bool {
    !bool_arg(args, "model.use_dora") && bool_arg(args, "model.quantize_base")
}

/// `getRecipeAndConfig`.
pub(in crate::trainer) fn recipe_and_config(
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
pub(in crate::trainer) fn torch_proc_per_node(info: &Info, tj: &TrainJob) -> (ProcPerNode, i64) {
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

pub(super) fn torch(info: &mut Info, tj: &mut TrainJob) -> Result<(), BuildError> {
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
pub(super) fn torchtune_overrides(info: &Info) -> Vec<String> {
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
